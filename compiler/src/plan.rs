//! Memory planning: where every intermediate entry lives.
//!
//! Steps are kernels in a topological order (one node per step without fusion). An entry
//! lives from the step that writes it to the last step that reads it (graph outputs to the
//! end). Strategies, for ablations:
//! - `Naive`: every entry its own buffer;
//! - `InPlace`: an output takes an input's buffer when the operator allows it, the sizes
//!   match and the input has no later reader (MXNet's in-place);
//! - `CoShare`: buffers with disjoint lifetimes share storage, best fit from a free list
//!   (MXNet's co-share);
//! - `Both`: MXNet's plan;
//! - `Kiln`: fusion (entries inside a kernel never reach memory), in-place, then offsets in
//!   one arena chosen so that no two simultaneously live buffers overlap.
//!
//! Kernel workspace (im2col for convolutions) is a buffer live during its step. Arguments,
//! their gradients and aux states are external and not counted.
//!
//! Concurrency: a plan is valid for its execution order. Today's executor runs kernels in
//! that order on one compute worker, so no two kernels sharing storage can overlap. A
//! backend that runs independent kernels concurrently must plan per stream, or add the
//! ordering edges that sharing implies (the plan's `steps` give them).

use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::passes::Fusion;
use kiln_ops::shape::size;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Naive,
    InPlace,
    CoShare,
    Both,
    Kiln,
}

/// One buffer: what it holds, its size and lifetime (steps, inclusive), and its place.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// The entries stored here, in order (several when in-place reuse chains them).
    pub entries: Vec<Entry>,
    /// Workspace of this node, when not an entry.
    pub workspace_of: Option<NodeId>,
    pub bytes: usize,
    pub start: usize,
    pub end: usize,
    /// Byte offset in the arena (`Kiln`) or the storage block index (other strategies).
    pub offset: usize,
}

#[derive(Clone, Debug)]
pub struct MemoryPlan {
    pub strategy: Strategy,
    pub buffers: Vec<Buffer>,
    /// Bytes the strategy allocates in total.
    pub bytes: usize,
    /// The largest sum of bytes live at once for this order (no plan can do better).
    pub lower_bound: usize,
    /// Steps in execution order: the nodes of each.
    pub steps: Vec<Vec<NodeId>>,
}

/// Scratch bytes a kernel needs beyond its outputs (im2col for convolution).
fn workspace(g: &Graph, id: NodeId, inferred: &Inferred) -> usize {
    let n = g.node(id);
    match n.op_name() {
        "Convolution" | "Deconvolution" => {
            let (Some(p), Some(data)) = (n.params.as_ref(), n.inputs.first()) else {
                return 0;
            };
            let ins = inferred.shape(*data);
            let out = &inferred.shapes[id.index()][0];
            let kernel: usize = p.shape("kernel").iter().map(|&k| k as usize).product();
            let groups = p.int("num_group").max(1) as usize;
            if ins.len() < 3 || out.len() < 3 {
                return 0;
            }
            let dsize = inferred.dtype(*data).map_or(4, |d| d.size());
            // One group's column matrix at a time: (C/g · k) × output pixels.
            ins[1] / groups * kernel * out[2..].iter().product::<usize>() * dsize
        }
        _ => 0,
    }
}

/// Units of execution: fusion groups, or one node each without fusion.
fn units(g: &Graph, fusion: Option<&Fusion>) -> (Vec<Vec<NodeId>>, HashMap<NodeId, usize>) {
    let units: Vec<Vec<NodeId>> = match fusion {
        Some(f) => f.groups.iter().map(|grp| grp.nodes.clone()).collect(),
        None => g
            .node_ids()
            .filter(|&id| !g.node(id).is_variable())
            .map(|id| vec![id])
            .collect(),
    };
    let unit_of = units
        .iter()
        .enumerate()
        .flat_map(|(u, ns)| ns.iter().map(move |&n| (n, u)))
        .collect();
    (units, unit_of)
}

/// A topological order of the units (Kahn's algorithm). With `sizes`, the ready unit that
/// grows live memory least (bytes it writes minus bytes of inputs it is the last to read)
/// runs first; otherwise the most recently readied one (a depth-first order).
fn order(
    g: &Graph,
    fusion: Option<&Fusion>,
    sizes: Option<&dyn Fn(Entry) -> usize>,
) -> Vec<Vec<NodeId>> {
    let (units, unit_of) = units(g, fusion);
    let n = units.len();
    let mut indegree = vec![0usize; n];
    let mut edges: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    // For each entry read across units: how many units still have to read it.
    let mut readers: HashMap<Entry, HashSet<usize>> = HashMap::new();
    for (u, nodes) in units.iter().enumerate() {
        for &id in nodes {
            for e in &g.node(id).inputs {
                match unit_of.get(&e.node) {
                    Some(&pu) if pu != u => {
                        if edges[pu].insert(u) {
                            indegree[u] += 1;
                        }
                        readers.entry(*e).or_default().insert(u);
                    }
                    Some(_) => {}
                    None => {}
                }
            }
        }
    }
    let growth = |u: usize,
                  readers: &HashMap<Entry, HashSet<usize>>,
                  size: &dyn Fn(Entry) -> usize|
     -> i64 {
        let writes: usize = units[u]
            .iter()
            .flat_map(|&id| {
                (0..g.node(id).num_outputs()).map(move |index| Entry { node: id, index })
            })
            .filter(|e| readers.contains_key(e) || g.heads.contains(e))
            .map(size)
            .sum();
        let frees: usize = readers
            .iter()
            .filter(|(_, us)| us.len() == 1 && us.contains(&u))
            .map(|(e, _)| size(*e))
            .sum();
        writes as i64 - frees as i64
    };
    let mut ready: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).rev().collect();
    let mut out = Vec::with_capacity(n);
    while !ready.is_empty() {
        let pick = match sizes {
            Some(size) => (0..ready.len())
                .min_by_key(|&k| (growth(ready[k], &readers, size), std::cmp::Reverse(k)))
                .unwrap_or(0),
            None => ready.len() - 1,
        };
        let u = ready.remove(pick);
        out.push(units[u].clone());
        for us in readers.values_mut() {
            us.remove(&u);
        }
        readers.retain(|_, us| !us.is_empty());
        let mut next: Vec<usize> = edges[u].iter().copied().collect();
        next.sort_unstable_by(|a, b| b.cmp(a));
        for j in next {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(j);
            }
        }
    }
    out
}

/// Plans the memory of `g`'s intermediate entries; `external` entries (gradients written
/// into bound arrays) are not counted.
pub fn plan(
    g: &Graph,
    inferred: &Inferred,
    fusion: Option<&Fusion>,
    external: &HashSet<Entry>,
    strategy: Strategy,
) -> MemoryPlan {
    let fusion = if strategy == Strategy::Kiln {
        fusion
    } else {
        None
    };
    let depth_first = plan_in_order(
        g,
        inferred,
        fusion,
        external,
        strategy,
        order(g, fusion, None),
    );
    if strategy != Strategy::Kiln {
        return depth_first;
    }
    // kiln also tries a memory-aware order and keeps the smaller plan.
    let size = |e: Entry| {
        if external.contains(&e) {
            0
        } else {
            size(inferred.shape(e)) * inferred.dtype(e).map_or(4, |d| d.size())
        }
    };
    let aware = plan_in_order(
        g,
        inferred,
        fusion,
        external,
        strategy,
        order(g, fusion, Some(&size)),
    );
    if aware.bytes < depth_first.bytes {
        aware
    } else {
        depth_first
    }
}

/// [`plan`] for a given execution order.
fn plan_in_order(
    g: &Graph,
    inferred: &Inferred,
    fusion: Option<&Fusion>,
    external: &HashSet<Entry>,
    strategy: Strategy,
    steps: Vec<Vec<NodeId>>,
) -> MemoryPlan {
    let step_of: HashMap<NodeId, usize> = steps
        .iter()
        .enumerate()
        .flat_map(|(s, nodes)| nodes.iter().map(move |&n| (n, s)))
        .collect();
    let materialized = fusion.map(|f| f.materialized(g));
    let last = steps.len().saturating_sub(1);
    // Each entry's lifetime.
    let mut end: HashMap<Entry, usize> = HashMap::new();
    for id in g.node_ids() {
        for e in &g.node(id).inputs {
            if let Some(&s) = step_of.get(&id) {
                let slot = end.entry(*e).or_insert(0);
                *slot = (*slot).max(s);
            }
        }
    }
    for h in &g.heads {
        end.insert(*h, last);
    }
    let bytes_of = |e: Entry| size(inferred.shape(e)) * inferred.dtype(e).map_or(4, |d| d.size());
    let inplace = matches!(
        strategy,
        Strategy::InPlace | Strategy::Both | Strategy::Kiln
    );
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut holder: HashMap<Entry, usize> = HashMap::new();
    for (s, nodes) in steps.iter().enumerate() {
        for &id in nodes {
            let n = g.node(id);
            for index in 0..n.num_outputs() {
                let e = Entry { node: id, index };
                let stored =
                    materialized.as_ref().is_none_or(|m| m.contains(&e)) && !external.contains(&e);
                if !stored {
                    continue;
                }
                let bytes = bytes_of(e);
                let until = end.get(&e).copied().unwrap_or(s);
                // In place: take a dying input's buffer of the same size.
                let reuse = inplace
                    .then(|| n.op.map_or(&[][..], |op| op.inplace))
                    .into_iter()
                    .flatten()
                    .filter(|(_, out)| *out == index)
                    .filter_map(|&(input, _)| n.inputs.get(input))
                    .find_map(|&i| {
                        let b = *holder.get(&i)?;
                        (end.get(&i) == Some(&s)
                            && buffers[b].end == s
                            && buffers[b].bytes == bytes)
                            .then_some(b)
                    });
                match reuse {
                    Some(b) => {
                        buffers[b].entries.push(e);
                        buffers[b].end = until;
                        holder.insert(e, b);
                    }
                    None => {
                        holder.insert(e, buffers.len());
                        buffers.push(Buffer {
                            entries: vec![e],
                            workspace_of: None,
                            bytes,
                            start: s,
                            end: until,
                            offset: 0,
                        });
                    }
                }
            }
            let ws = workspace(g, id, inferred);
            if ws > 0 {
                buffers.push(Buffer {
                    entries: vec![],
                    workspace_of: Some(id),
                    bytes: ws,
                    start: s,
                    end: s,
                    offset: 0,
                });
            }
        }
    }
    let lower_bound = (0..steps.len())
        .map(|s| {
            buffers
                .iter()
                .filter(|b| b.start <= s && s <= b.end)
                .map(|b| b.bytes)
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    let bytes = match strategy {
        Strategy::Naive | Strategy::InPlace => {
            for (i, b) in buffers.iter_mut().enumerate() {
                b.offset = i;
            }
            buffers.iter().map(|b| b.bytes).sum()
        }
        Strategy::CoShare | Strategy::Both => coshare(&mut buffers),
        Strategy::Kiln => assign_offsets(&mut buffers),
    };
    MemoryPlan {
        strategy,
        buffers,
        bytes,
        lower_bound,
        steps,
    }
}

/// MXNet-style sharing: blocks freed by dead buffers are reused best-fit (the smallest
/// block at least as large, else the largest, grown); the total is the sum of blocks.
fn coshare(buffers: &mut [Buffer]) -> usize {
    let mut blocks: Vec<usize> = Vec::new(); // size of each storage block
    let mut busy_until: Vec<Option<usize>> = Vec::new();
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| (buffers[i].start, i));
    for i in order {
        let (start, bytes) = (buffers[i].start, buffers[i].bytes);
        let free: Vec<usize> = (0..blocks.len())
            .filter(|&k| busy_until[k].is_none_or(|e| e < start))
            .collect();
        let pick = free
            .iter()
            .copied()
            .filter(|&k| blocks[k] >= bytes)
            .min_by_key(|&k| blocks[k])
            .or_else(|| free.iter().copied().max_by_key(|&k| blocks[k]));
        let k = match pick {
            Some(k) => {
                blocks[k] = blocks[k].max(bytes);
                k
            }
            None => {
                blocks.push(bytes);
                busy_until.push(None);
                blocks.len() - 1
            }
        };
        busy_until[k] = Some(buffers[i].end);
        buffers[i].offset = k;
    }
    blocks.iter().sum()
}

/// Offsets in one arena: buffers are placed one by one, each in the smallest gap between
/// the buffers whose lifetimes meet its own (best fit), else above them. The placement
/// order matters, so several orders are tried (largest first, earliest first, longest-lived
/// first) and the smallest arena kept. Returns the arena size. Offsets are multiples of
/// the alignment every buffer's size is a multiple of.
pub fn assign_offsets(buffers: &mut [Buffer]) -> usize {
    let mut orders: Vec<Vec<usize>> = vec![(0..buffers.len()).collect(); 3];
    orders[0].sort_by_key(|&i| (std::cmp::Reverse(buffers[i].bytes), buffers[i].start, i));
    orders[1].sort_by_key(|&i| (buffers[i].start, std::cmp::Reverse(buffers[i].bytes), i));
    orders[2].sort_by_key(|&i| {
        (
            std::cmp::Reverse(buffers[i].end - buffers[i].start),
            std::cmp::Reverse(buffers[i].bytes),
            i,
        )
    });
    let mut best: Option<(usize, Vec<usize>)> = None;
    for order in orders {
        let offsets = place(buffers, &order);
        let size = buffers
            .iter()
            .zip(&offsets)
            .map(|(b, o)| o + b.bytes)
            .max()
            .unwrap_or(0);
        if best.as_ref().is_none_or(|(s, _)| size < *s) {
            best = Some((size, offsets));
        }
    }
    let (size, offsets) = best.unwrap_or_default();
    for (b, o) in buffers.iter_mut().zip(offsets) {
        b.offset = o;
    }
    size
}

/// Best-fit placement of `buffers` in `order`; the offset of each buffer.
fn place(buffers: &[Buffer], order: &[usize]) -> Vec<usize> {
    let mut offsets = vec![0; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    for &i in order {
        let b = &buffers[i];
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&j| buffers[j].start <= b.end && b.start <= buffers[j].end)
            .map(|&j| (offsets[j], offsets[j] + buffers[j].bytes))
            .collect();
        busy.sort_unstable();
        let (mut best, mut top) = (None::<(usize, usize)>, 0);
        for (lo, hi) in busy {
            if lo > top && lo - top >= b.bytes && best.is_none_or(|(_, gap)| lo - top < gap) {
                best = Some((top, lo - top));
            }
            top = top.max(hi);
        }
        offsets[i] = best.map_or(top, |(offset, _)| offset);
        placed.push(i);
    }
    offsets
}

/// Everything `kiln plan` reports for a symbol: the compiled graph, its kernels, and a
/// plan per strategy.
pub struct ModelPlan {
    pub graph: Graph,
    /// Shapes and dtypes of `graph`'s entries.
    pub inferred: crate::infer::Inferred,
    pub fusion: Fusion,
    pub report: crate::passes::Report,
    /// (strategy name, plan), for naive, inplace, coshare, both, kiln.
    pub plans: Vec<(&'static str, MemoryPlan)>,
    /// Training only: kiln's plan with cheap activations recomputed in backward.
    pub mirror: Option<MirrorReport>,
}

/// What recomputation in backward (MXNet's mirror) would give.
pub struct MirrorReport {
    pub bytes: usize,
    pub lower_bound: usize,
    /// FLOPs added per step by the recomputed nodes.
    pub extra_flops: u64,
    pub recomputed: usize,
}

impl ModelPlan {
    pub fn bytes(&self, strategy: &str) -> usize {
        self.plans
            .iter()
            .find(|(n, _)| *n == strategy)
            .map_or(0, |(_, p)| p.bytes)
    }
    /// The lower bound for kiln's (fused) execution order.
    pub fn lower_bound(&self) -> usize {
        self.plans
            .iter()
            .find(|(n, _)| *n == "kiln")
            .map_or(0, |(_, p)| p.lower_bound)
    }
}

/// The planning strategies by name, as `kiln plan` reports them.
pub const STRATEGIES: [(&str, Strategy); 5] = [
    ("naive", Strategy::Naive),
    ("inplace", Strategy::InPlace),
    ("coshare", Strategy::CoShare),
    ("both", Strategy::Both),
    ("kiln", Strategy::Kiln),
];

/// Compiles `sym` for inference, or for training (every argument gets a gradient except
/// `data` and the labels, as MXNet's `simple_bind` for training), runs the passes, fuses,
/// and plans memory with every strategy. Gradients and aux updates are written into bound
/// arrays, so they are external.
pub fn plan_symbol(
    sym: &crate::Symbol,
    shapes: &HashMap<String, kiln_ops::Shape>,
    train: bool,
) -> crate::Result<ModelPlan> {
    use crate::autodiff::{differentiate, GradReq};
    use crate::passes::Pipeline;
    let forward = sym.to_graph()?;
    for name in shapes.keys() {
        if forward.variable(name).is_none() {
            return Err(crate::Error::Input(format!(
                "the model has no input named `{name}`"
            )));
        }
    }
    let (graph, num_outputs) = if train {
        let reqs: HashMap<String, GradReq> = sym
            .list_arguments()
            .into_iter()
            .filter(|n| n != "data" && !n.ends_with("label"))
            .map(|n| (n, GradReq::Write))
            .collect();
        let tg = differentiate(&forward, &reqs, true)?;
        (tg.graph, tg.num_outputs)
    } else {
        let n = forward.heads.len();
        (forward, n)
    };
    let pipeline = if train {
        Pipeline::standard()
    } else {
        let mut p = Pipeline::inference();
        p.push(Box::new(crate::passes::BatchNormToScaleShift {
            shapes: shapes.clone(),
        }));
        p
    };
    let (out, report) = pipeline.run(&graph)?;
    let g = out.graph;
    let external: HashSet<Entry> = g.heads[num_outputs..].iter().copied().collect();
    let inferred = crate::infer::infer(&g, shapes, &HashMap::new())?;
    if let Some(id) = g.node_ids().find(|&id| {
        inferred.shapes[id.index()]
            .iter()
            .any(|s| !kiln_ops::shape::is_known(s))
    }) {
        return Err(crate::Error::Shape(format!(
            "cannot plan: the shape of `{}` ({}) is unknown; give every input's shape",
            g.node(id).name,
            g.node(id).op_name()
        )));
    }
    let fusion = crate::passes::fuse(&g);
    let plans = STRATEGIES
        .iter()
        .map(|&(name, s)| (name, plan(&g, &inferred, Some(&fusion), &external, s)))
        .collect();
    let mirror = if train {
        let elements = |id: NodeId| size(&inferred.shapes[id.index()][0]) as u64;
        let m = crate::passes::mirror(&g, elements)?;
        let mg = &m.pass.graph;
        let mi = crate::infer::infer(mg, shapes, &HashMap::new())?;
        let mf = crate::passes::fuse(mg);
        let ext: HashSet<Entry> = mg.heads[num_outputs..].iter().copied().collect();
        let p = plan(mg, &mi, Some(&mf), &ext, Strategy::Kiln);
        Some(MirrorReport {
            bytes: p.bytes,
            lower_bound: p.lower_bound,
            extra_flops: m.extra_flops,
            recomputed: m.mirrored,
        })
    } else {
        None
    };
    Ok(ModelPlan {
        graph: g,
        inferred,
        fusion,
        report,
        plans,
        mirror,
    })
}
