//! What a bound executor runs, in order: fused kernels compiled by the CPU JIT where the
//! kernel IR covers a fusion group, the operators' reference kernels elsewhere.
//!
//! Each fusion group of the graph is cut into parts an engine operation can run: library
//! nodes without a contraction (BatchNorm, softmax, random operators, ...) run alone, and
//! the other members split into forward and backward nodes, and into those before and
//! after the group's library nodes, so a part never both feeds and consumes another unit.
//! A part the kernel IR lowers becomes one compiled kernel per output shape (over a
//! symbolic batch size where it generalizes), or, where the kernel is a matrix product
//! large enough to pay ([`kir::matmul`]), a gemm call with the rest of the kernel as a
//! compiled epilogue; a part it refuses runs node by node. Units are then ordered by
//! their data dependencies.
//!
//! [`kir::matmul`]: kiln_compiler::kir::matmul
//!
//! The backend is chosen by `KILN_BACKEND`: `jit` (the default where kiln is built with
//! the `llvm` feature) or `interp` (every node on its reference kernel, the oracle).

use kiln_compiler::infer::Inferred;
use kiln_compiler::{Entry, Graph, NodeId};
use std::collections::{BTreeSet, HashMap};
#[cfg(feature = "llvm")]
use std::sync::Arc;

/// Which kernels an executor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The operators' reference kernels, node by node.
    Interpreter,
    /// Fused kernels compiled by LLVM, reference kernels for library calls.
    Jit,
}

impl Backend {
    /// `KILN_BACKEND` (`jit` or `interp`), else the JIT where it is built in.
    pub fn from_env() -> Backend {
        match std::env::var("KILN_BACKEND").as_deref() {
            Ok("interp") | Ok("interpreter") => Backend::Interpreter,
            _ if cfg!(feature = "llvm") => Backend::Jit,
            _ => Backend::Interpreter,
        }
    }
}

/// One engine operation's worth of work.
pub enum Unit {
    Node(NodeId),
    /// A library node on its native f32 kernel (`kiln_ops::native`).
    #[cfg(feature = "llvm")]
    Native(NodeId),
    #[cfg(feature = "llvm")]
    Kernel(Box<KernelUnit>),
    #[cfg(feature = "llvm")]
    MatMul(Box<MatMulUnit>),
}

/// Entry shapes at three larger batch sizes, to generalize kernels over the batch size.
pub struct BatchShapes {
    pub batch: i64,
    /// Inferred at `batch + 1`, `batch + 2` and `batch + 3`.
    pub next: [Inferred; 3],
}

/// A compiled kernel with the entries it reads and writes.
#[cfg(feature = "llvm")]
pub struct KernelUnit {
    pub name: String,
    pub kernel: Arc<crate::cpu::CompiledKernel>,
    /// What it computes, for the memory planner's in-place checks.
    pub ir: kiln_compiler::kir::Kernel,
    pub inputs: Vec<Entry>,
    pub outputs: Vec<Entry>,
    /// The graph nodes it computes.
    pub nodes: Vec<NodeId>,
    /// Symbolic dimensions to run it with: the batch size, when it generalizes.
    pub dims: Vec<i64>,
}

/// A matrix product on kiln's gemm, then the rest of its kernel as a compiled
/// epilogue, block by block.
#[cfg(feature = "llvm")]
pub struct MatMulUnit {
    pub name: String,
    pub product: kiln_compiler::kir::matmul::MatMul,
    /// The kernels packing operands (inputs: the kernel's) and their dimensions.
    pub packs: Vec<(Arc<crate::cpu::CompiledKernel>, Vec<i64>)>,
    /// The epilogue kernel (inputs: the kernel's, then the output) and its dimensions.
    pub epilogue: Option<(Arc<crate::cpu::CompiledKernel>, Vec<i64>)>,
    pub inputs: Vec<Entry>,
    pub outputs: Vec<Entry>,
    pub nodes: Vec<NodeId>,
    /// Where the product is a 3x3 convolution run with Winograd's algorithm (no packs).
    pub winograd: Option<kiln_compiler::kir::WinogradPlan>,
}

impl Unit {
    pub(crate) fn nodes(&self) -> &[NodeId] {
        match self {
            Unit::Node(id) => std::slice::from_ref(id),
            #[cfg(feature = "llvm")]
            Unit::Native(id) => std::slice::from_ref(id),
            #[cfg(feature = "llvm")]
            Unit::Kernel(k) => &k.nodes,
            #[cfg(feature = "llvm")]
            Unit::MatMul(m) => &m.nodes,
        }
    }

    pub fn inputs(&self, g: &Graph) -> Vec<Entry> {
        match self {
            Unit::Node(id) => g.node(*id).inputs.clone(),
            #[cfg(feature = "llvm")]
            Unit::Native(id) => g.node(*id).inputs.clone(),
            #[cfg(feature = "llvm")]
            Unit::Kernel(k) => k.inputs.clone(),
            #[cfg(feature = "llvm")]
            Unit::MatMul(m) => m.inputs.clone(),
        }
    }

    pub fn outputs(&self, inferred: &Inferred) -> Vec<Entry> {
        match self {
            Unit::Node(id) => node_outputs(*id, inferred),
            #[cfg(feature = "llvm")]
            Unit::Native(id) => node_outputs(*id, inferred),
            #[cfg(feature = "llvm")]
            Unit::Kernel(k) => k.outputs.clone(),
            #[cfg(feature = "llvm")]
            Unit::MatMul(m) => m.outputs.clone(),
        }
    }

    /// Whether every node is a forward node (ids below `forward_nodes`).
    pub fn is_forward(&self, forward_nodes: usize) -> bool {
        self.nodes().iter().all(|id| id.index() < forward_nodes)
    }
}

fn node_outputs(id: NodeId, inferred: &Inferred) -> Vec<Entry> {
    (0..inferred.shapes[id.index()].len())
        .map(|index| Entry { node: id, index })
        .collect()
}

/// A node on its native kernel where it has one for this configuration (every input and
/// output f32), else on its reference kernel.
#[cfg(feature = "llvm")]
fn node_unit(g: &Graph, inferred: &Inferred, id: NodeId) -> Unit {
    let n = g.node(id);
    let f32s = |entries: &[Entry]| {
        entries
            .iter()
            .all(|&e| inferred.dtype(e) == Some(kiln_ops::DType::F32))
    };
    let covered = match (n.op.and_then(|op| op.native), &n.params) {
        (Some(native), Some(attrs)) => {
            let shapes: Vec<Vec<usize>> = n
                .inputs
                .iter()
                .map(|&e| inferred.shape(e).to_vec())
                .collect();
            (native.supports)(attrs, &shapes)
                && f32s(&n.inputs)
                && f32s(&node_outputs(id, inferred))
        }
        _ => false,
    };
    if covered {
        Unit::Native(id)
    } else {
        Unit::Node(id)
    }
}

/// The units of `g`'s operator nodes, in an order that respects their data dependencies.
pub fn units(
    g: &Graph,
    inferred: &Inferred,
    backend: Backend,
    forward_nodes: usize,
    batch: Option<&BatchShapes>,
) -> Result<Vec<Unit>, String> {
    let ops = g.node_ids().filter(|&id| !g.node(id).is_variable());
    let units: Vec<Unit> = match backend {
        Backend::Interpreter => ops.map(Unit::Node).collect(),
        #[cfg(feature = "llvm")]
        Backend::Jit => jit_units(g, inferred, forward_nodes, batch)?,
        #[cfg(not(feature = "llvm"))]
        Backend::Jit => {
            let _ = (forward_nodes, batch);
            ops.map(Unit::Node).collect()
        }
    };
    order(g, inferred, units)
}

/// The part's kernels lowered at the batch size plus one, two and three, for
/// [`over_batch`]; `None` where a lowering fails or gives another number of kernels.
#[cfg(feature = "llvm")]
fn at_larger_batches(
    g: &Graph,
    nodes: &[NodeId],
    name: &str,
    count: usize,
    batch: &BatchShapes,
) -> Option<Vec<[kiln_compiler::kir::Kernel; 3]>> {
    use kiln_compiler::kir::from_group;
    let mut sizes = batch.next.iter().map(|inferred| {
        from_group(g, inferred, nodes, name)
            .ok()
            .filter(|ls| ls.len() == count)
            .map(|ls| ls.into_iter().map(|l| l.kernel))
    });
    let (a, b, c) = (sizes.next()??, sizes.next()??, sizes.next()??);
    Some(a.zip(b).zip(c).map(|((a, b), c)| [a, b, c]).collect())
}

/// The kernel over a symbolic batch size, with the dimensions to run it with: the
/// lowerings at the batch size plus one and plus two generalized, and checked against the
/// lowering at plus three. Larger sizes than the bound one, because the simplifier
/// specializes a batch of 1 (its coordinate is 0); a kernel exact at larger sizes is exact
/// at smaller ones, whose index ranges only shrink.
#[cfg(feature = "llvm")]
fn over_batch(
    larger: &[kiln_compiler::kir::Kernel; 3],
    batch: i64,
) -> Option<(kiln_compiler::kir::Kernel, Vec<i64>)> {
    use kiln_compiler::kir::{generalize, instantiate};
    let general = generalize(&larger[0], batch + 1, &larger[1], batch + 2)?;
    if general.symbolic_dims() == 0 || instantiate(&general, &[batch + 3]) != larger[2] {
        return None;
    }
    Some((general, vec![batch]))
}

#[cfg(feature = "llvm")]
fn jit_units(
    g: &Graph,
    inferred: &Inferred,
    forward_nodes: usize,
    batch: Option<&BatchShapes>,
) -> Result<Vec<Unit>, String> {
    use kiln_compiler::kir::{lower, matmul, parts, Part, Schedule};
    let jit = crate::cpu::Jit::global()?;
    let mut units = Vec::new();
    for part in parts(g, inferred, forward_nodes) {
        let (name, nodes, lowered) = match part {
            Part::Node(id) => {
                units.push(node_unit(g, inferred, id));
                continue;
            }
            Part::Fused {
                name,
                nodes,
                kernels,
            } => (name, nodes, kernels),
        };
        let larger = batch.and_then(|b| at_larger_batches(g, &nodes, &name, lowered.len(), b));
        let compile = |ir: &kiln_compiler::kir::Kernel| {
            let nest = lower(ir, &Schedule::cpu(ir))?;
            jit.compile(&nest).map(|(k, _)| k).map_err(|e| {
                let names: Vec<&str> = nodes.iter().map(|&id| g.node(id).name.as_str()).collect();
                format!("compiling the kernel of nodes {}: {e}", names.join(", "))
            })
        };
        // The kernel (or a transform of it, as the epilogue) over a symbolic batch
        // size where the lowerings at larger sizes generalize.
        let general = |index: usize,
                       ir: kiln_compiler::kir::Kernel,
                       f: &dyn Fn(
            &kiln_compiler::kir::Kernel,
        ) -> Option<kiln_compiler::kir::Kernel>| {
            larger
                .as_ref()
                .zip(batch)
                .and_then(|(ks, b)| {
                    let [x, y, z] = &ks[index];
                    over_batch(&[f(x)?, f(y)?, f(z)?], b.batch)
                })
                .unwrap_or((ir, vec![]))
        };
        let kernels = lowered.len();
        for (index, l) in lowered.into_iter().enumerate() {
            if let Some(product) = matmul::recognize(&l.kernel).filter(crate::cpu::matmul::pays) {
                let mut product = product;
                let eligible = kernels == 1 && product.dtype == kiln_compiler::DType::F32;
                let winograd = (eligible && crate::cpu::winograd::enabled())
                    .then(|| kiln_compiler::kir::winograd_plan(g, inferred, &nodes, &l))
                    .flatten();
                if winograd.is_some() {
                    product.packs.clear();
                }
                let epilogue = match &product.epilogue {
                    Some(e) => {
                        let (ir, dims) = general(index, e.clone(), &matmul::epilogue_of);
                        // Blocks of the split axis run the epilogue's outermost loop
                        // only if that loop is the split axis (a kernel generalized
                        // over the batch loops over it first, even at a batch of 1).
                        let outer = Schedule::cpu(&ir).order.first().map(|&(a, _)| a);
                        product.split_aligned &= outer == product.split_axis;
                        Some((compile(&ir)?, dims))
                    }
                    None => None,
                };
                let packs = (product.packs.iter().enumerate())
                    .map(|(j, p)| {
                        // Packs generalize only where the larger lowerings pack
                        // the same operands the same way.
                        let pack_of = |k: &kiln_compiler::kir::Kernel| {
                            let m = matmul::recognize(k)?;
                            m.packs_like(&product).then(|| m.packs[j].clone())
                        };
                        let (ir, dims) = general(index, p.clone(), &pack_of);
                        Ok((compile(&ir)?, dims))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                units.push(Unit::MatMul(Box::new(MatMulUnit {
                    name: l.kernel.name.clone(),
                    product,
                    packs,
                    epilogue,
                    inputs: l.inputs,
                    outputs: l.outputs,
                    nodes: nodes.clone(),
                    winograd,
                })));
                continue;
            }
            let (ir, dims) = general(index, l.kernel.clone(), &|k| Some(k.clone()));
            let kernel = compile(&ir)?;
            units.push(Unit::Kernel(Box::new(KernelUnit {
                name: l.kernel.name.clone(),
                kernel,
                ir,
                inputs: l.inputs,
                outputs: l.outputs,
                nodes: nodes.clone(),
                dims,
            })));
        }
    }
    Ok(units)
}

/// Orders units so each runs after the units writing what it reads (Kahn's algorithm,
/// earliest graph node first among the ready ones).
fn order(g: &Graph, inferred: &Inferred, units: Vec<Unit>) -> Result<Vec<Unit>, String> {
    let mut writer: HashMap<Entry, usize> = HashMap::new();
    for (u, unit) in units.iter().enumerate() {
        for e in unit.outputs(inferred) {
            writer.insert(e, u);
        }
    }
    let mut waiting = vec![0usize; units.len()];
    let mut readers: Vec<Vec<usize>> = vec![vec![]; units.len()];
    for (u, unit) in units.iter().enumerate() {
        let mut deps: Vec<usize> = Vec::new();
        for e in unit.inputs(g) {
            match writer.get(&e) {
                Some(&w) if w != u => deps.push(w),
                Some(_) => {}
                None if g.node(e.node).is_variable() => {}
                None => {
                    return Err(format!(
                        "no unit writes output {} of `{}`, which a kernel reads",
                        e.index,
                        g.node(e.node).name
                    ))
                }
            }
        }
        deps.sort_unstable();
        deps.dedup();
        waiting[u] = deps.len();
        for w in deps {
            readers[w].push(u);
        }
    }
    let first = |u: usize| units[u].nodes().iter().min().copied();
    let mut ready: BTreeSet<(Option<NodeId>, usize)> = (0..units.len())
        .filter(|&u| waiting[u] == 0)
        .map(|u| (first(u), u))
        .collect();
    let mut sequence = Vec::with_capacity(units.len());
    while let Some(next) = ready.pop_first() {
        let u = next.1;
        sequence.push(u);
        for &r in &readers[u] {
            waiting[r] -= 1;
            if waiting[r] == 0 {
                ready.insert((first(r), r));
            }
        }
    }
    if sequence.len() != units.len() {
        return Err("the fused kernels depend on each other in a cycle".into());
    }
    let mut slots: Vec<Option<Unit>> = units.into_iter().map(Some).collect();
    Ok(sequence
        .into_iter()
        .map(|u| slots[u].take().expect("each unit once"))
        .collect())
}
