//! The indexed graph: the compiler's view of a symbol, on petgraph.
//!
//! Node indices are a topological order (inputs before consumers, MXNet's JSON order),
//! so a forward walk is a walk over indices. Each node keeps its ordered inputs; the
//! petgraph edges (`output` → `input` slot) give consumers and feed graph algorithms.

use crate::node::NodeData;
use crate::symbol::{Node, NodeEntry, Symbol};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

pub type NodeId = NodeIndex<u32>;

/// Output `index` of node `node`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entry {
    pub node: NodeId,
    pub index: usize,
}

/// A graph node: its data and ordered inputs.
#[derive(Clone, Debug)]
pub struct GNode {
    pub data: NodeData,
    pub inputs: Vec<Entry>,
}

impl std::ops::Deref for GNode {
    type Target = NodeData;
    fn deref(&self) -> &NodeData {
        &self.data
    }
}

/// An edge from a producer's output to a consumer's input slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub output: usize,
    pub input: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub g: DiGraph<GNode, Edge>,
    pub heads: Vec<Entry>,
    /// Values of variables that are compile-time constants (made by constant folding);
    /// a Symbol has none.
    pub constants: HashMap<NodeId, kiln_ops::Tensor>,
}

impl Graph {
    /// Appends a node; its inputs must already be in the graph (keeps indices topological).
    pub fn add_node(&mut self, data: NodeData, inputs: Vec<Entry>) -> NodeId {
        let id = self.g.add_node(GNode {
            data,
            inputs: inputs.clone(),
        });
        for (slot, e) in inputs.iter().enumerate() {
            self.g.add_edge(
                e.node,
                id,
                Edge {
                    output: e.index,
                    input: slot,
                },
            );
        }
        id
    }

    pub fn from_symbol(sym: &Symbol) -> Graph {
        let mut graph = Graph::default();
        let mut ids: HashMap<*const Node, NodeId> = HashMap::new();
        for node in sym.nodes() {
            let inputs = node
                .inputs
                .iter()
                .map(|e| Entry {
                    node: ids[&Arc::as_ptr(&e.node)],
                    index: e.index,
                })
                .collect();
            let id = graph.add_node(node.data.clone(), inputs);
            ids.insert(Arc::as_ptr(&node), id);
        }
        graph.heads = sym
            .outputs()
            .iter()
            .map(|e| Entry {
                node: ids[&Arc::as_ptr(&e.node)],
                index: e.index,
            })
            .collect();
        graph
    }

    pub fn to_symbol(&self) -> Symbol {
        let mut nodes: Vec<Arc<Node>> = Vec::with_capacity(self.len());
        for id in self.node_ids() {
            let n = &self.g[id];
            let inputs = n
                .inputs
                .iter()
                .map(|e| NodeEntry {
                    node: nodes[e.node.index()].clone(),
                    index: e.index,
                })
                .collect();
            nodes.push(Arc::new(Node {
                data: n.data.clone(),
                inputs,
            }));
        }
        Symbol::from_entries(
            self.heads
                .iter()
                .map(|e| NodeEntry {
                    node: nodes[e.node.index()].clone(),
                    index: e.index,
                })
                .collect(),
        )
    }

    pub fn len(&self) -> usize {
        self.g.node_count()
    }

    pub fn is_empty(&self) -> bool {
        self.g.node_count() == 0
    }

    /// Node ids in topological order.
    pub fn node_ids(&self) -> impl DoubleEndedIterator<Item = NodeId> + ExactSizeIterator {
        self.g.node_indices()
    }

    pub fn node(&self, id: NodeId) -> &GNode {
        &self.g[id]
    }

    /// Nodes that read any output of `id`.
    pub fn consumers(&self, id: NodeId) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.g.neighbors_directed(id, Direction::Outgoing).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Variables written by an operator (aux states).
    pub fn aux_ids(&self) -> HashSet<NodeId> {
        self.node_ids()
            .flat_map(|id| {
                let n = &self.g[id];
                n.mutable_inputs()
                    .iter()
                    .filter_map(|&i| n.inputs.get(i).map(|e| e.node))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Variables that are not aux states, in order.
    pub fn argument_ids(&self) -> Vec<NodeId> {
        let aux = self.aux_ids();
        self.node_ids()
            .filter(|id| self.g[*id].is_variable() && !aux.contains(id))
            .collect()
    }

    /// Aux-state variables, in order.
    pub fn aux_state_ids(&self) -> Vec<NodeId> {
        let aux = self.aux_ids();
        self.node_ids().filter(|id| aux.contains(id)).collect()
    }

    /// `<node>_<output>` (or the variable's name).
    pub fn entry_name(&self, e: Entry) -> String {
        let n = &self.g[e.node];
        if n.is_variable() {
            return n.name.clone();
        }
        let (names, _) = n.output_names();
        format!(
            "{}_{}",
            n.name,
            names.get(e.index).map_or("output", String::as_str)
        )
    }

    /// The graph without the nodes no head depends on, and where each old node went.
    /// Variables listed in `keep` stay even when unused (an executor binds them).
    pub fn prune(&self, keep: &[NodeId]) -> (Graph, Vec<Option<NodeId>>) {
        let mut live = vec![false; self.len()];
        let mut stack: Vec<NodeId> = self
            .heads
            .iter()
            .map(|e| e.node)
            .chain(keep.iter().copied())
            .collect();
        while let Some(id) = stack.pop() {
            if !std::mem::replace(&mut live[id.index()], true) {
                stack.extend(self.node(id).inputs.iter().map(|e| e.node));
            }
        }
        let mut out = Graph::default();
        let mut map: Vec<Option<NodeId>> = vec![None; self.len()];
        for id in self.node_ids().filter(|id| live[id.index()]) {
            let n = self.node(id);
            let inputs = n
                .inputs
                .iter()
                .map(|e| Entry {
                    node: map[e.node.index()].expect("inputs come first"),
                    index: e.index,
                })
                .collect();
            let new = out.add_node(n.data.clone(), inputs);
            if let Some(c) = self.constants.get(&id) {
                out.constants.insert(new, c.clone());
            }
            map[id.index()] = Some(new);
        }
        out.heads = self
            .heads
            .iter()
            .map(|e| Entry {
                node: map[e.node.index()].expect("heads are live"),
                index: e.index,
            })
            .collect();
        (out, map)
    }

    /// The variable named `name`.
    pub fn variable(&self, name: &str) -> Option<NodeId> {
        self.node_ids()
            .find(|&id| self.g[id].is_variable() && self.g[id].name == name)
    }
}

/// A textual dump, one node per line: `%3 = FullyConnected(%0, %1, %2) fc1 {num_hidden=10}`.
impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for id in self.node_ids() {
            let n = &self.g[id];
            if n.is_variable() {
                writeln!(f, "%{} = var {}", id.index(), n.name)?;
                continue;
            }
            let args: Vec<String> = n
                .inputs
                .iter()
                .map(|e| {
                    if e.index == 0 {
                        format!("%{}", e.node.index())
                    } else {
                        format!("%{}.{}", e.node.index(), e.index)
                    }
                })
                .collect();
            let params = n.params.as_ref().map(|p| p.summary()).unwrap_or_default();
            write!(
                f,
                "%{} = {}({}) {}",
                id.index(),
                n.op_name(),
                args.join(", "),
                n.name
            )?;
            if !params.is_empty() {
                write!(f, " {{{params}}}")?;
            }
            writeln!(f)?;
        }
        let heads: Vec<String> = self
            .heads
            .iter()
            .map(|e| format!("%{}.{}", e.node.index(), e.index))
            .collect();
        writeln!(f, "return {}", heads.join(", "))
    }
}
