//! Lazy fusion of imperative element-wise chains: the paper's promise that imperative
//! NDArray code runs as efficiently as a declared graph, for its most common case.
//!
//! Element-wise and broadcast operators applied to CPU f32 arrays are recorded, not run.
//! At the next interaction with the engine — a wait, any other operation, an executor's
//! pass (the engine's flush hook) — the recorded *segment* becomes one kernel of the
//! kernel IR, compiled by the host's kernel compiler and pushed as one engine operation reading the
//! segment's inputs and writing the arrays still visible outside it: `a * b + 1.0`
//! reads `a` and `b` and writes the result, and the product is never stored.
//!
//! Plans are cached by the segment's form — operators and attributes, where each input
//! comes from (arrays renumbered in order of first use), shapes, and which results are
//! stored — with the scalars of `+ - * /`, powers, maximum and minimum bound as
//! one-element inputs, so a loop that records the same chain with other numbers reuses
//! its kernel. A segment holds results of one shape (the kernel's domain); a result of
//! another shape, or a view overlapping the segment's arrays other than exactly, starts a
//! new segment. A segment that does not compile runs operator by operator, as without
//! fusion. The configuration's [`lazy`](crate::Config::lazy) (`KILN_LAZY=0`) turns
//! recording off, as does a build without a kernel compiler.

use super::invoke::Eager;
use super::{engine, NDArray};
use crate::engine::Var;
use kiln_compiler::kir::{from_group, lower, Schedule};
use kiln_compiler::{infer, Entry, Graph, NodeData, NodeId, Provenance};
use kiln_ops::{Attrs, Compute, DType, OpDef, Resource};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, OnceLock};

/// Where a recorded operator's input comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The segment's k-th input array.
    Input(usize),
    /// The result of the segment's k-th step.
    Step(usize),
    /// The segment's k-th scalar (a one-element input of the kernel).
    Scalar(usize),
}

struct Step {
    /// The operator as recorded, and how it runs alone.
    eager: Eager,
    /// The operator the kernel computes: the recorded one, or the broadcast operator a
    /// scalar operator is with its scalar as an input.
    op: &'static OpDef,
    params: Attrs,
    sources: Vec<Source>,
    output: NDArray,
}

#[derive(Default)]
struct Segment {
    inputs: Vec<NDArray>,
    scalars: Vec<f32>,
    steps: Vec<Step>,
}

static PENDING: Mutex<Option<Segment>> = Mutex::new(None);

/// Counters of what recording did, process-wide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LazyStats {
    /// Operators recorded.
    pub recorded: usize,
    /// Segments pushed as one fused kernel.
    pub fused: usize,
    /// Fused segments whose plan came from the cache.
    pub cached: usize,
    /// Segments that ran operator by operator (their kernel did not compile).
    pub unfused: usize,
}

static RECORDED: AtomicUsize = AtomicUsize::new(0);
static FUSED: AtomicUsize = AtomicUsize::new(0);
static CACHED: AtomicUsize = AtomicUsize::new(0);
static UNFUSED: AtomicUsize = AtomicUsize::new(0);
/// Why the last unfused segment's kernel did not compile.
static UNFUSED_REASON: Mutex<Option<String>> = Mutex::new(None);

pub fn stats() -> LazyStats {
    LazyStats {
        recorded: RECORDED.load(Ordering::Relaxed),
        fused: FUSED.load(Ordering::Relaxed),
        cached: CACHED.load(Ordering::Relaxed),
        unfused: UNFUSED.load(Ordering::Relaxed),
    }
}

/// Why the most recent segment that ran operator by operator could not be fused (its
/// kernel's lowering or compile error), if one did.
pub fn last_unfused_reason() -> Option<String> {
    UNFUSED_REASON
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
}

/// Whether operators are recorded: as the process's configuration says, where there is
/// a kernel compiler to fuse them with.
fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| crate::Config::global().lazy && crate::backend::host_compiler().is_ok())
}

/// The broadcast operator a scalar operator is with its scalar as an input, and whether
/// the scalar is its first operand.
fn rebound(op: &str) -> Option<(&'static str, bool)> {
    Some(match op {
        "_plus_scalar" => ("broadcast_add", false),
        "_minus_scalar" => ("broadcast_sub", false),
        "_rminus_scalar" => ("broadcast_sub", true),
        "_mul_scalar" => ("broadcast_mul", false),
        "_div_scalar" => ("broadcast_div", false),
        "_rdiv_scalar" => ("broadcast_div", true),
        "_power_scalar" => ("broadcast_power", false),
        "_rpower_scalar" => ("broadcast_power", true),
        "_maximum_scalar" => ("broadcast_maximum", false),
        "_minimum_scalar" => ("broadcast_minimum", false),
        _ => return None,
    })
}

/// An array's memory region: (chunk, byte offset, shape).
fn region(a: &NDArray) -> (usize, usize, &[usize]) {
    (Arc::as_ptr(&a.chunk) as usize, a.offset, &a.shape)
}

/// Records `eager` (its inference done, `outputs` created) into the pending segment; gives
/// it back when it must run now instead: not element-wise, not all f32 on the CPU, or
/// recording is off.
pub(super) fn record(eager: Eager, inputs: &[NDArray], outputs: &[NDArray]) -> Option<Eager> {
    let op = eager.op;
    let f32_cpu = |a: &NDArray| a.dtype() == DType::F32 && a.device() == crate::Device::Cpu;
    let recordable = matches!(op.compute, Compute::Scalar(_))
        && op.mutable_inputs.is_empty()
        && !op.resources.contains(&Resource::Random)
        && outputs.len() == 1
        && inputs.iter().chain(outputs).all(f32_cpu)
        && enabled();
    if !recordable {
        return Some(eager);
    }
    install_hook();
    let output = &outputs[0];
    let mut pending = PENDING.lock().unwrap_or_else(|p| p.into_inner());
    if pending.as_ref().is_some_and(|s| !s.accepts(inputs, output)) {
        push_holding(&mut pending);
    }
    let segment = pending.get_or_insert_with(Segment::default);
    let mut sources: Vec<Source> = inputs.iter().map(|a| segment.source(a)).collect();
    // A scalar operator as its broadcast form (else as it is, the scalar baked in).
    let broadcast = rebound(op.name).and_then(|(name, first)| {
        let b = kiln_ops::lookup(name)?;
        Some((first, b, Attrs::parse(b.params, &BTreeMap::new()).ok()?))
    });
    let (kernel_op, params) = match broadcast {
        Some((first, broadcast, params)) => {
            segment.scalars.push(eager.params.float("scalar") as f32);
            let scalar = Source::Scalar(segment.scalars.len() - 1);
            sources.insert(usize::from(!first), scalar);
            (broadcast, params)
        }
        None => (op, eager.params.clone()),
    };
    segment.steps.push(Step {
        eager,
        op: kernel_op,
        params,
        sources,
        output: output.clone(),
    });
    RECORDED.fetch_add(1, Ordering::Relaxed);
    None
}

/// Pushes the pending segment, if any: called before anything else reaches the engine.
pub(crate) fn flush() {
    if FLUSHING.get() {
        return; // the segment this thread is pushing
    }
    push_holding(&mut PENDING.lock().unwrap_or_else(|p| p.into_inner()));
}

thread_local! {
    /// Whether this thread is pushing a segment (whose own engine calls must not flush).
    static FLUSHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Pushes the segment `pending` holds while holding it, so that no other thread's
/// segment or operation can reach the engine before it: the engine's order is the
/// program's.
fn push_holding(pending: &mut Option<Segment>) {
    if let Some(s) = pending.take() {
        FLUSHING.set(true);
        s.push();
        FLUSHING.set(false);
    }
}

fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| crate::engine::set_flush_hook(flush));
}

/// A compiled segment: the kernel, what its input buffers hold, and which steps' results
/// it writes.
struct Plan {
    kernel: Arc<dyn crate::backend::HostKernel>,
    inputs: Vec<Source>,
    outputs: Vec<usize>,
}

fn plans() -> &'static Mutex<HashMap<String, Arc<Plan>>> {
    static PLANS: OnceLock<Mutex<HashMap<String, Arc<Plan>>>> = OnceLock::new();
    PLANS.get_or_init(Default::default)
}

impl Segment {
    /// Whether a step reading `inputs` into `output` can join: same shape as the steps'
    /// results, and every array either disjoint from the segment's or exactly one of them.
    fn accepts(&self, inputs: &[NDArray], output: &NDArray) -> bool {
        let domain = self.steps.first().map(|s| s.output.shape());
        if domain.is_some_and(|d| d != output.shape()) {
            return false;
        }
        let known = || {
            self.inputs
                .iter()
                .chain(self.steps.iter().map(|s| &s.output))
        };
        inputs.iter().chain([output]).all(|a| {
            let (chunk, offset, shape) = region(a);
            known().all(|b| {
                let (c, o, s) = region(b);
                c != chunk || (o == offset && s == shape)
            })
        })
    }

    /// Where array `a` comes from: the latest step writing it, else an input.
    fn source(&mut self, a: &NDArray) -> Source {
        let same = |b: &NDArray| region(b) == region(a);
        if let Some(k) = self.steps.iter().rposition(|s| same(&s.output)) {
            return Source::Step(k);
        }
        match self.inputs.iter().position(same) {
            Some(k) => Source::Input(k),
            None => {
                self.inputs.push(a.clone());
                Source::Input(self.inputs.len() - 1)
            }
        }
    }

    /// The steps whose results must be stored: the last writer of each array someone
    /// outside the segment still holds (a result nobody holds is only an intermediate).
    fn stored(&self) -> Vec<usize> {
        (0..self.steps.len())
            .filter(|&k| {
                let out = &self.steps[k].output;
                let last = !self.steps[k + 1..]
                    .iter()
                    .any(|s| region(&s.output) == region(out));
                let held_here = self
                    .inputs
                    .iter()
                    .chain(self.steps.iter().map(|s| &s.output));
                let here = held_here
                    .filter(|b| Arc::ptr_eq(&b.chunk, &out.chunk))
                    .count();
                last && Arc::strong_count(&out.chunk) > here
            })
            .collect()
    }

    /// The plan's cache key: every step's operator, attributes (scalars excepted) and
    /// sources, the inputs' shapes, and the stored steps.
    fn key(&self, stored: &[usize]) -> String {
        let mut key = String::new();
        for a in &self.inputs {
            let _ = write!(key, "{:?};", a.shape());
        }
        for s in &self.steps {
            let _ = write!(key, "{}{:?}{:?};", s.op.name, s.params.summary(), s.sources);
        }
        let _ = write!(
            key,
            "{:?}{:?}",
            stored,
            self.steps.first().map(|s| s.output.shape())
        );
        key
    }

    /// Pushes the segment: one fused kernel, or its steps one by one.
    fn push(self) {
        let stored = self.stored();
        if stored.is_empty() {
            return; // nothing it computes is visible
        }
        let key = self.key(&stored);
        let cached = plans()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .cloned();
        let plan = match cached {
            Some(p) => {
                CACHED.fetch_add(1, Ordering::Relaxed);
                Ok(p)
            }
            None => self.compile(&stored).map(|p| {
                let p = Arc::new(p);
                plans()
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, p.clone());
                p
            }),
        };
        match plan {
            Ok(plan) => self.run(plan),
            Err(why) => {
                UNFUSED.fetch_add(1, Ordering::Relaxed);
                *UNFUSED_REASON.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                self.unfused();
            }
        }
    }

    /// The steps as a graph over variables `x{k}` (inputs) and `s{k}` (scalars, as many
    /// axes as the domain, all of extent 1), lowered to one kernel and compiled.
    fn compile(&self, stored: &[usize]) -> Result<Plan, String> {
        let domain = self.steps[0].output.shape().to_vec();
        let mut g = Graph::default();
        let mut shapes = HashMap::new();
        let var = |g: &mut Graph, name: String| {
            g.add_node(
                NodeData::variable(name, BTreeMap::new(), Provenance::Generated),
                vec![],
            )
        };
        let inputs: Vec<NodeId> = (self.inputs.iter().enumerate())
            .map(|(k, a)| {
                shapes.insert(format!("x{k}"), a.shape().to_vec());
                var(&mut g, format!("x{k}"))
            })
            .collect();
        let scalars: Vec<NodeId> = (0..self.scalars.len())
            .map(|k| {
                shapes.insert(format!("s{k}"), vec![1; domain.len()]);
                var(&mut g, format!("s{k}"))
            })
            .collect();
        let mut steps: Vec<NodeId> = Vec::with_capacity(self.steps.len());
        for (k, s) in self.steps.iter().enumerate() {
            let entries = (s.sources.iter())
                .map(|&src| Entry {
                    node: match src {
                        Source::Input(i) => inputs[i],
                        Source::Scalar(i) => scalars[i],
                        Source::Step(i) => steps[i],
                    },
                    index: 0,
                })
                .collect();
            let data = NodeData {
                op: Some(s.op),
                name: format!("step{k}"),
                attrs: BTreeMap::new(),
                params: Some(s.params.clone()),
                provenance: Provenance::Generated,
            };
            steps.push(g.add_node(data, entries));
        }
        g.heads = stored
            .iter()
            .map(|&k| Entry {
                node: steps[k],
                index: 0,
            })
            .collect();
        let dtypes = shapes.keys().map(|k| (k.clone(), DType::F32)).collect();
        let inferred = infer::infer(&g, &shapes, &dtypes).map_err(|e| e.to_string())?;
        let mut lowered = from_group(&g, &inferred, &steps, "lazy").map_err(|e| e.to_string())?;
        let [l] = &mut lowered[..] else {
            return Err("a segment lowered to several kernels".into());
        };
        let nest = lower(&l.kernel, &Schedule::cpu(&l.kernel)).map_err(|e| e.to_string())?;
        let kernel = crate::backend::host_compiler()
            .and_then(|c| c.compile(&nest))
            .map_err(|e| e.to_string())?;
        let source_of = |e: &Entry| {
            if let Some(i) = inputs.iter().position(|&n| n == e.node) {
                Ok(Source::Input(i))
            } else if let Some(i) = scalars.iter().position(|&n| n == e.node) {
                Ok(Source::Scalar(i))
            } else {
                Err(format!("the kernel reads entry {e:?}, not an input"))
            }
        };
        let step_of = |e: &Entry| steps.iter().position(|&n| n == e.node);
        Ok(Plan {
            kernel,
            inputs: l.inputs.iter().map(source_of).collect::<Result<_, _>>()?,
            outputs: l.outputs.iter().filter_map(step_of).collect(),
        })
    }

    /// Pushes the fused kernel as one engine operation.
    fn run(self, plan: Arc<Plan>) {
        FUSED.fetch_add(1, Ordering::Relaxed);
        let reads: Vec<Var> = self.inputs.iter().map(|a| a.var().clone()).collect();
        let outputs: Vec<NDArray> = plan
            .outputs
            .iter()
            .map(|&k| self.steps[k].output.clone())
            .collect();
        let writes: Vec<Var> = outputs.iter().map(|a| a.var().clone()).collect();
        let (inputs, scalars) = (self.inputs, self.scalars);
        drop(self.steps);
        let bytes = inputs.iter().chain(&outputs).map(NDArray::nbytes).sum();
        engine().push_fn_bytes("fused", &reads, &writes, bytes, move || {
            let mut scalars = scalars;
            let scalar_base = scalars.as_mut_ptr();
            // SAFETY: the engine orders this after the inputs' writers and before the
            // outputs' readers; the pointers address the held arrays' bytes (and the
            // scalars, which live as long as this closure).
            let mut buffers: Vec<*mut u8> = plan
                .inputs
                .iter()
                .map(|&src| match src {
                    // SAFETY: ordered after the inputs' writers (above); input i is held by the
                    // plan.
                    Source::Input(i) => unsafe { inputs[i].bytes().as_ptr() as *mut u8 },
                    // SAFETY: i < the scalars' count (the plan numbers them); they live with this
                    // closure.
                    Source::Scalar(i) => unsafe { scalar_base.add(i) as *mut u8 },
                    Source::Step(_) => std::ptr::null_mut(),
                })
                .collect();
            buffers.extend(
                outputs
                    .iter()
                    // SAFETY: the engine runs this exclusively for the outputs, which it holds.
                    .map(|a| unsafe { a.bytes_mut().as_mut_ptr() }),
            );
            // SAFETY: as above; the kernel was compiled for these shapes.
            unsafe { crate::backend::run(&*plan.kernel, &buffers, &[]) }.map_err(|e| e.to_string())
        });
    }

    /// Pushes every step on its own (the plan did not compile).
    fn unfused(self) {
        let Segment { inputs, steps, .. } = self;
        let arrays: Vec<NDArray> = steps.iter().map(|s| s.output.clone()).collect();
        for s in steps {
            let ins = (s.sources.iter())
                .filter_map(|&src| match src {
                    Source::Input(i) => Some(inputs[i].clone()),
                    Source::Step(i) => Some(arrays[i].clone()),
                    Source::Scalar(_) => None,
                })
                .collect();
            s.eager.push(ins, vec![s.output]);
        }
    }
}
