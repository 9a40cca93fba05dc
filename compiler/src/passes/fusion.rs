//! Fusion: which nodes run as one kernel.
//!
//! The rules follow TVM's pattern-based fusion, applied forward over the graph: a node
//! joins its producer's group when the producer has no other consumer and
//! - an element-wise or broadcast node follows element-wise, broadcast or injective work
//!   (a chain: `a*b+1` is one kernel reading `a` and `b` once and writing once), or
//!   follows a gemm/convolution or a reduction as its epilogue (bias, activation,
//!   scale-shift, residual add — applied to each output block while it is in cache);
//! - an injective node (reshape, transpose, slice, concat) follows element-wise,
//!   broadcast or injective work (folded into the loads);
//! - a reduction follows element-wise, broadcast or injective work it absorbs.
//!
//! A group holds at most one library call (gemm, conv, reduction). Joining never creates a
//! cycle between groups. Every group records why it ends where it does.

use crate::graph::{Entry, Graph, NodeId};
use kiln_ops::Pattern;
use std::collections::HashSet;
use std::fmt;

/// One kernel: its nodes in order, the library call it is built around (if any), and why
/// the group stops.
#[derive(Clone, Debug)]
pub struct Group {
    pub nodes: Vec<NodeId>,
    pub anchor: Option<NodeId>,
    pub reason: String,
}

/// A partition of the graph's operator nodes into kernels.
#[derive(Clone, Debug)]
pub struct Fusion {
    pub groups: Vec<Group>,
    /// The group of each node (`None` for variables).
    pub group_of: Vec<Option<usize>>,
}

impl Fusion {
    /// Entries a kernel must write to memory: read by another kernel or a graph output.
    pub fn materialized(&self, g: &Graph) -> HashSet<Entry> {
        let mut out: HashSet<Entry> = g.heads.iter().copied().collect();
        for id in g.node_ids() {
            for e in &g.node(id).inputs {
                if self.group_of[e.node.index()] != self.group_of[id.index()]
                    || self.group_of[e.node.index()].is_none()
                {
                    out.insert(*e);
                }
            }
        }
        out
    }
}

fn is_anchor(p: Pattern) -> bool {
    matches!(
        p,
        Pattern::OutEWiseFusable | Pattern::Reduce | Pattern::Opaque
    )
}

/// Whether `consumer` (pattern `c`) may join a group of patterns `group` with anchor
/// pattern `anchor`; the reason when not.
fn joinable(anchor: Option<Pattern>, group_max: Pattern, c: Pattern) -> Result<(), &'static str> {
    match c {
        Pattern::ElemWise | Pattern::Broadcast => match anchor {
            Some(Pattern::Opaque) => Err("an opaque kernel takes no epilogue"),
            _ => Ok(()),
        },
        Pattern::Injective if anchor.is_none() && group_max <= Pattern::Injective => Ok(()),
        Pattern::Injective => Err("data movement after a library call starts a new kernel"),
        Pattern::Reduce if anchor.is_none() && group_max <= Pattern::Injective => Ok(()),
        Pattern::Reduce => Err("a kernel holds one library call or reduction"),
        Pattern::OutEWiseFusable => Err("gemm/convolution read materialized inputs"),
        Pattern::Opaque => Err("opaque operators run alone"),
    }
}

/// Groups the graph's operators into kernels.
pub fn fuse(g: &Graph) -> Fusion {
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of: Vec<Option<usize>> = vec![None; g.len()];
    let mut ends: Vec<Option<String>> = Vec::new();
    // The largest pattern in each group, kept as nodes join, so joining stays linear.
    let mut maxes: Vec<Pattern> = Vec::new();
    let pattern = |id: NodeId| g.node(id).op.map_or(Pattern::Opaque, |op| op.pattern);
    let heads: HashSet<NodeId> = g.heads.iter().map(|e| e.node).collect();
    let is_head = |id: NodeId| heads.contains(&id);
    let diamonds = fusable_diamonds(g);
    for id in g.node_ids().filter(|&id| !g.node(id).is_variable()) {
        let p = pattern(id);
        let mut joined = None;
        for e in &g.node(id).inputs {
            let Some(gi) = group_of[e.node.index()] else {
                continue;
            };
            let producer = e.node;
            if (g.consumers(producer).len() != 1 && !diamonds[producer.index()])
                || is_head(producer)
                || g.node(producer).num_visible_outputs() != 1
            {
                continue;
            }
            let group = &groups[gi];
            let anchor = group.anchor.map(pattern);
            match joinable(anchor, maxes[gi], p) {
                Ok(()) if !creates_cycle(g, &group_of, gi, group.nodes[0], id) => {
                    joined = Some(gi);
                    break;
                }
                Ok(()) => {
                    ends[gi].get_or_insert_with(|| format!("`{}` also reads work that depends on this kernel (fusing would form a cycle)", g.node(id).name));
                }
                Err(why) => {
                    ends[gi].get_or_insert_with(|| {
                        format!("`{}` ({}): {why}", g.node(id).name, g.node(id).op_name())
                    });
                }
            }
        }
        match joined {
            Some(gi) => {
                groups[gi].nodes.push(id);
                if is_anchor(p) {
                    groups[gi].anchor = Some(id);
                }
                maxes[gi] = maxes[gi].max(p);
                group_of[id.index()] = Some(gi);
            }
            None => {
                group_of[id.index()] = Some(groups.len());
                groups.push(Group {
                    nodes: vec![id],
                    anchor: is_anchor(p).then_some(id),
                    reason: String::new(),
                });
                maxes.push(p);
                ends.push(None);
            }
        }
    }
    let mut groups = fuse_siblings(g, groups, &mut group_of, &mut ends);
    for (gi, group) in groups.iter_mut().enumerate() {
        let last = *group.nodes.last().expect("groups are never empty");
        let consumers = g.consumers(last);
        group.reason = if let Some(r) = ends[gi].take() {
            r
        } else if is_head(last) {
            "its result is a graph output".into()
        } else if consumers.len() > 1 {
            format!("its result has {} consumers", consumers.len())
        } else if g.node(last).num_visible_outputs() != 1 {
            "it has several outputs".into()
        } else if consumers.is_empty() {
            "nothing reads its result".into()
        } else {
            format!("`{}` joined another kernel", g.node(consumers[0]).name)
        };
    }
    Fusion { groups, group_of }
}

/// Sibling fusion: element-wise kernels (no library call, every node element-wise, so one
/// iteration space) reading the same entry become one kernel with several outputs, reading
/// it once — unless one depends on the other through the rest of the graph.
fn fuse_siblings(
    g: &Graph,
    mut groups: Vec<Group>,
    group_of: &mut [Option<usize>],
    ends: &mut [Option<String>],
) -> Vec<Group> {
    let elementwise = |grp: &Group| {
        grp.anchor.is_none()
            && grp.nodes.iter().all(|&n| {
                g.node(n)
                    .op
                    .is_some_and(|op| op.pattern == Pattern::ElemWise)
            })
    };
    // `group_of` follows merges as they happen (a merged group's nodes move to the one it
    // joins), and each group's first node is kept: no lookup walks a chain of merges.
    let mut first: Vec<NodeId> = groups.iter().map(|grp| grp.nodes[0]).collect();
    for id in g.node_ids() {
        for index in 0..g.node(id).num_outputs() {
            let e = Entry { node: id, index };
            let mut readers: Vec<usize> = g
                .consumers(id)
                .into_iter()
                .filter(|&c| g.node(c).inputs.contains(&e))
                .filter_map(|c| group_of[c.index()])
                .filter(|&gi| group_of[id.index()] != Some(gi) && elementwise(&groups[gi]))
                .collect();
            readers.sort_unstable();
            readers.dedup();
            let Some((&a, rest)) = readers.split_first() else {
                continue;
            };
            for &b in rest {
                if groups[b].nodes.is_empty()
                    || depends(g, group_of, &groups, &first, a, b)
                    || depends(g, group_of, &groups, &first, b, a)
                {
                    continue;
                }
                let moved = std::mem::take(&mut groups[b].nodes);
                for n in &moved {
                    group_of[n.index()] = Some(a);
                }
                first[a] = first[a].min(first[b]);
                groups[a].nodes.extend(moved);
                ends[a].get_or_insert_with(|| {
                    format!("siblings reading `{}` share it", g.entry_name(e))
                });
            }
        }
    }
    // Renumber the surviving groups.
    let mut renumber = vec![usize::MAX; groups.len()];
    let mut out = Vec::new();
    let mut out_ends = Vec::new();
    for (i, mut grp) in groups.into_iter().enumerate() {
        if !grp.nodes.is_empty() {
            grp.nodes.sort_unstable();
            renumber[i] = out.len();
            out.push(grp);
            out_ends.push(ends[i].take());
        }
    }
    for gi in group_of.iter_mut().flatten() {
        *gi = renumber[*gi];
    }
    for (i, e) in out_ends.into_iter().enumerate() {
        ends[i] = e;
    }
    out
}

/// Nodes a search for a path between two sibling groups visits at most.
const LONGEST_SIBLING_SEARCH: usize = 1024;

/// Whether group `to` depends on group `from` through the graph. Indices are topological:
/// nothing before `from`'s first node depends on it. A search past a bound counts as a
/// dependency (the siblings are not merged): searching each pair to its end would take
/// the square of the graph's size.
fn depends(
    g: &Graph,
    group_of: &[Option<usize>],
    groups: &[Group],
    first: &[NodeId],
    from: usize,
    to: usize,
) -> bool {
    if groups[to].nodes.len() > LONGEST_SIBLING_SEARCH {
        return true;
    }
    let in_group = |n: NodeId, target: usize| group_of[n.index()] == Some(target);
    let mut stack: Vec<NodeId> = groups[to]
        .nodes
        .iter()
        .flat_map(|&n| g.node(n).inputs.iter().map(|e| e.node))
        .collect();
    let mut seen = HashSet::new();
    while let Some(n) = stack.pop() {
        if n < first[from] || in_group(n, to) || !seen.insert(n) {
            continue;
        }
        if in_group(n, from) || seen.len() > LONGEST_SIBLING_SEARCH {
            return true;
        }
        stack.extend(g.node(n).inputs.iter().map(|e| e.node));
    }
    false
}

/// TVM's post-dominator rule: a node whose several consumers all reconverge at its
/// immediate post-dominator through element-wise or broadcast work only (a diamond such as
/// `y = relu(x); z = y*a + y*b`) fuses with all of it into one kernel. Returns, per node,
/// whether its consumers may join it although there are several.
///
/// What lies between a node and its post-dominator is, for each consumer, the consumer,
/// what lies between it and its own post-dominator, and so on up the post-dominator tree
/// to the node's: so one pass from the outputs back, keeping per node the nearest
/// post-dominator (itself included) that is not element-wise or has work between it and
/// its own, decides every node in linear time (walking each node's region would take the
/// square of the graph's size on graphs whose regions overlap).
fn fusable_diamonds(g: &Graph) -> Vec<bool> {
    use petgraph::algo::dominators::simple_fast;
    use petgraph::graph::DiGraph;
    let n = g.len();
    // The reversed data-flow graph with a sink feeding every head: dominators from the
    // sink are post-dominators of the original graph.
    let mut rev: DiGraph<(), ()> = DiGraph::with_capacity(n + 1, 0);
    for _ in 0..=n {
        rev.add_node(());
    }
    let sink = petgraph::graph::NodeIndex::new(n);
    for id in g.node_ids() {
        for e in &g.node(id).inputs {
            rev.add_edge(id, e.node, ());
        }
    }
    for h in &g.heads {
        rev.add_edge(sink, h.node, ());
    }
    let dom = simple_fast(&rev, sink);
    let heads: HashSet<NodeId> = g.heads.iter().map(|e| e.node).collect();
    let elementwise = |id: NodeId| {
        g.node(id)
            .op
            .is_some_and(|op| op.pattern <= Pattern::Broadcast)
    };
    // A node's post-dominator, none for the sink (and nodes reaching no output).
    let post = |id: NodeId| dom.immediate_dominator(id).filter(|&p| p != sink);
    // Indices are topological and a node's post-dominator comes after it, so walking
    // back from the outputs meets it first.
    let mut depth = vec![0usize; n];
    let mut inner_ok = vec![false; n];
    let mut first_problem: Vec<Option<NodeId>> = vec![None; n];
    for id in g.node_ids().rev() {
        let p = post(id);
        depth[id.index()] = p.map_or(0, |p| depth[p.index()] + 1);
        // Every consumer's chain of post-dominators up to `p` (excluded; without one, to
        // its end) holds only element-wise nodes with only element-wise work inside.
        inner_ok[id.index()] =
            g.consumers(id)
                .into_iter()
                .filter(|&c| Some(c) != p)
                .all(|c| match (first_problem[c.index()], p) {
                    (None, _) => true,
                    (Some(f), Some(p)) => depth[f.index()] <= depth[p.index()],
                    (Some(_), None) => false,
                });
        let problem = !elementwise(id) || heads.contains(&id) || !inner_ok[id.index()];
        first_problem[id.index()] = match problem {
            true => Some(id),
            false => p.and_then(|p| first_problem[p.index()]),
        };
    }
    g.node_ids()
        .map(|id| {
            let Some(op) = g.node(id).op else {
                return false;
            };
            if op.pattern > Pattern::Injective || g.consumers(id).len() < 2 {
                return false;
            }
            // Everything between the node and its post-dominator must be element-wise.
            post(id).is_some_and(|p| elementwise(p) && inner_ok[id.index()])
        })
        .collect()
}

/// Whether adding `id` to group `gi` (whose first node is `first`) makes a cycle: one of
/// `id`'s other inputs is produced outside the group but depends on the group.
fn creates_cycle(
    g: &Graph,
    group_of: &[Option<usize>],
    gi: usize,
    first: NodeId,
    id: NodeId,
) -> bool {
    let outside: Vec<NodeId> = g
        .node(id)
        .inputs
        .iter()
        .map(|e| e.node)
        .filter(|&n| group_of[n.index()] != Some(gi))
        .collect();
    // Walk back from those inputs; reaching the group means a path group → … → id.
    // Indices are topological: nothing before the group's first node depends on it.
    let mut seen = HashSet::new();
    let mut stack = outside;
    while let Some(n) = stack.pop() {
        if group_of[n.index()] == Some(gi) {
            return true;
        }
        if n > first && seen.insert(n) {
            stack.extend(g.node(n).inputs.iter().map(|e| e.node));
        }
    }
    false
}

impl fmt::Display for Fusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, group) in self.groups.iter().enumerate() {
            let nodes: Vec<String> = group
                .nodes
                .iter()
                .map(|n| format!("%{}", n.index()))
                .collect();
            writeln!(
                f,
                "kernel {i}: [{}] — ends: {}",
                nodes.join(", "),
                group.reason
            )?;
        }
        Ok(())
    }
}
