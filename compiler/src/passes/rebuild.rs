//! Building a pass's output graph from its input, node by node, keeping the entry map.

use super::{EntryMap, PassOutput};
use crate::graph::{Entry, Graph, NodeId};
use crate::node::NodeData;

pub(crate) struct Rebuild<'g> {
    pub old: &'g Graph,
    pub new: Graph,
    pub map: EntryMap,
}

impl<'g> Rebuild<'g> {
    pub fn new(old: &'g Graph) -> Rebuild<'g> {
        let map = old
            .node_ids()
            .map(|id| vec![None; old.node(id).num_outputs()])
            .collect();
        Rebuild {
            old,
            new: Graph::default(),
            map,
        }
    }

    /// Where an old entry is in the new graph.
    pub fn get(&self, e: Entry) -> Option<Entry> {
        self.map[e.node.index()][e.index]
    }

    /// The new entries of an old node's inputs (they come first, so they are mapped).
    pub fn inputs(&self, id: NodeId) -> Vec<Entry> {
        self.old
            .node(id)
            .inputs
            .iter()
            .map(|&e| {
                self.get(e)
                    .expect("inputs are rebuilt before their consumers")
            })
            .collect()
    }

    /// Copies an old node with its inputs remapped.
    pub fn copy(&mut self, id: NodeId) -> NodeId {
        let inputs = self.inputs(id);
        let new = self.add(id, self.old.node(id).data.clone(), inputs);
        if let Some(c) = self.old.constants.get(&id) {
            self.new.constants.insert(new, c.clone());
        }
        new
    }

    /// Adds `data` as the replacement of old node `id` (same outputs).
    pub fn add(&mut self, id: NodeId, data: NodeData, inputs: Vec<Entry>) -> NodeId {
        let new = self.new.add_node(data, inputs);
        for (index, slot) in self.map[id.index()].iter_mut().enumerate() {
            *slot = Some(Entry { node: new, index });
        }
        new
    }

    /// Old output `index` of `id` is now `to`.
    pub fn alias(&mut self, id: NodeId, index: usize, to: Entry) {
        self.map[id.index()][index] = Some(to);
    }

    pub fn finish(mut self) -> PassOutput {
        self.new.heads = self
            .old
            .heads
            .iter()
            .map(|&e| self.get(e).expect("heads survive every pass"))
            .collect();
        PassOutput {
            graph: self.new,
            map: self.map,
        }
    }
}
