//! The compile driver: one step from a Symbol, its input shapes and dtypes, a mode and a
//! target to the [`Program`] every consumer runs or reports — the JIT executor, the
//! `network!` macro's ahead-of-time code, `kiln plan` and the memory report.
//!
//! [`compile`] runs, in order:
//! 1. **expansion** (where the target compiles kernels): operators that declare an
//!    equivalent graph of others (softmax; BatchNorm in inference as a scale and shift,
//!    which fusion then puts into the preceding convolution's epilogue);
//! 2. **graph passes** ([`crate::passes`]): in inference Dropout and BlockGrad become
//!    identities, then simplify, constant folding, CSE and pruning; each switchable by
//!    name ([`Spec::disabled_passes`]);
//! 3. **differentiation** in training ([`crate::autodiff`]), then, where the target
//!    compiles kernels, expansion of the backward operators (a convolution's data
//!    gradient through columns where its input is larger than its output;
//!    `expand_backward` to switch it off), and recomputation in
//!    backward of the cheap forward values it reads ([`passes::mirror`]; `mirror` to
//!    switch it off);
//! 4. **shape and dtype inference** of the final graph;
//! 5. **steps**: fusion groups cut into parts, each a compiled kernel (over a symbolic
//!    batch size where it generalizes), a matrix product on gemm with its packs and
//!    epilogue (Winograd for 3x3 convolutions), or a node on its native or reference
//!    kernel; then the stores of gradients and aux states that are not written in place;
//! 6. **order**: dependencies first, forward steps before backward ones, by the earliest
//!    node or by least growth of live memory — whichever plans the smaller arena;
//! 7. **layout** ([`layout`]): every value's place — one arena shared by lifetime (in place
//!    where a step may overwrite an input), arrays of their own for what callers hold
//!    (outputs; heads that are stored), gradients computed straight into the caller's
//!    arrays — and what lives beside the arena (kept transformed weights, native kernels'
//!    working space, folded constants);
//! 8. **segments**: consecutive steps pushed as one engine operation (MXNet's bulk
//!    execution), backward ones ending where a gradient or aux state is complete.
//!
//! What the program says is what runs: an executor allocates exactly
//! [`Layout::internal_bytes`] for it (`kiln plan --json` reports both figures).

mod ablation;
pub mod layout;
pub mod parts;
mod steps;

pub use ablation::mxnet_strategies;

use crate::autodiff::{differentiate, GradReq, TrainingGraph};
use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::{infer, Inferred};
use crate::kir::matmul::{Along, Chunks, MatMul};
use crate::kir::{Kernel, Unlowered, Windows, WinogradPlan};
use crate::passes::{self, Cse, Expand, FoldConstants, InferenceMode, Pipeline, Prune, Simplify};
use crate::Symbol;
use kiln_ops::shape::{fmt_shape, is_known, size};
use kiln_ops::{DType, Shape};
use layout::{MemoryPlan, StepUse, Strategy};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;
use steps::{BatchShapes, Policy};

/// What the program computes.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// The forward pass with inference semantics (moving statistics, no dropout).
    Inference,
    /// The forward pass in training mode and, for the arguments whose request is not
    /// null, the backward pass (a forward-only training program where none is).
    Training(HashMap<String, GradReq>),
}

impl Mode {
    pub fn is_train(&self) -> bool {
        matches!(self, Mode::Training(_))
    }

    /// Training with a written gradient for every argument of `symbol` but `data` and
    /// the labels (`*label`), as MXNet's `simple_bind` for training.
    pub fn train_parameters(symbol: &Symbol) -> Mode {
        Mode::Training(
            (symbol.list_arguments().into_iter())
                .filter(|n| n != "data" && !n.ends_with("label"))
                .map(|n| (n, GradReq::Write))
                .collect(),
        )
    }
}

/// What the code runs on, as far as compiling is concerned.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// Fusion groups become compiled kernels; without, every node runs its reference
    /// kernel (the oracle) and nothing expands.
    pub kernels: bool,
    /// Matrix products of at least this many multiply-adds run on gemm (`None`: as
    /// their compiled kernels).
    pub least_product: Option<i64>,
    /// Products run on a BLAS library, which reads each operand with a unit stride along
    /// one axis (cuBLAS): operands laid out otherwise are packed
    /// ([`crate::kir::matmul::recognize_blas`]).
    pub blas: bool,
    /// 3x3 convolutions by Winograd's algorithm where it pays.
    pub winograd: bool,
    /// A Winograd convolution takes bands of tiles through all three of its phases, each
    /// band on one thread, where that pays; off, each phase runs over the whole layer in
    /// turn (an ablation).
    pub winograd_bands: bool,
    /// A weight gradient's images are shared among the threads, each summing its own
    /// into a partial product, where that pays ([`Stream::tasks`]); off, they run one
    /// after another, each split over the threads (an ablation).
    pub shared_sums: bool,
    /// Weight gradients of 3x3 convolutions by Winograd's algorithm where it pays
    /// ([`crate::kir::Conv3x3::weight_gradient`]); off, on im2col and gemm (an ablation).
    pub winograd_weight_gradients: bool,
    /// Winograd convolutions by F(4x4, 3x3) where it pays
    /// ([`crate::kir::Conv3x3::large_tiles_pay`]); off, all by F(2x2, 3x3) (an ablation).
    pub winograd_large_tiles: bool,
    /// A product's packed operand that only reads an input at affine positions under
    /// affine bounds (im2col of any convolution) is gathered block by block into its
    /// gemm's panels, never written whole ([`crate::kir::Windows`], implicit gemm); off,
    /// its pack kernel writes it into the workspace first (an ablation).
    pub implicit_gemm: bool,
    /// A product's epilogue runs on each block of its output right after the block's
    /// products, while it is in cache, where the split allows; off, it is a second pass
    /// over the whole output (an ablation).
    pub fused_epilogues: bool,
    /// Library nodes on their native f32 kernels where they have one.
    pub native: bool,
    /// Kernels over a symbolic batch size where they generalize (a reshape to another
    /// batch size then compiles nothing).
    pub symbolic_batch: bool,
    /// Graph outputs, gradients and new aux values live in the arena to the end, instead
    /// of arrays of their own (code that hands out slices of its arena).
    pub heads_in_arena: bool,
    /// Products that split along an outer loop run on this many threads index by index
    /// ([`Stream`]); `None`: their operands are packed and their products stored whole
    /// (code whose threads are not known when it is compiled).
    pub streams: Option<usize>,
    /// A streamed product packs and multiplies an index's operand in chunks of at most
    /// this many bytes where its layout allows ([`Stream::chunks`],
    /// [`Stream::depth_rows`]): a core's cache, so
    /// its gemm reads a chunk where it was just written, and the workspace holds a
    /// chunk, not an image; `None`: a whole index at once.
    pub pack_bytes: Option<usize>,
    /// Inference runs its per-sample prefix in parts of at most this many samples
    /// ([`parts`]); `None`: the whole batch at once.
    pub parts: Option<usize>,
}

/// Multiply-adds per gemm call below which a compiled kernel beats gemm's packing (a 3x3
/// convolution without padding is a sum of products of a few columns).
pub const LEAST_PRODUCT: i64 = 1 << 14;

impl Target {
    /// kiln's CPU backend: compiled kernels, gemm, Winograd, native kernels.
    pub fn cpu() -> Target {
        Target {
            kernels: true,
            least_product: Some(LEAST_PRODUCT),
            blas: false,
            winograd: true,
            winograd_bands: true,
            shared_sums: true,
            winograd_weight_gradients: true,
            winograd_large_tiles: true,
            implicit_gemm: true,
            fused_epilogues: true,
            native: true,
            symbolic_batch: true,
            heads_in_arena: false,
            streams: None,
            pack_bytes: None,
            parts: None,
        }
    }

    /// Every node on its reference kernel.
    pub fn reference() -> Target {
        Target {
            kernels: false,
            least_product: None,
            blas: false,
            winograd: false,
            winograd_bands: false,
            shared_sums: false,
            winograd_weight_gradients: false,
            winograd_large_tiles: false,
            implicit_gemm: false,
            fused_epilogues: false,
            native: false,
            symbolic_batch: false,
            heads_in_arena: false,
            streams: None,
            pack_bytes: None,
            parts: None,
        }
    }
}

/// Everything [`compile`] needs besides the symbol.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Known shapes by variable name (at least the inputs'; parameters' are inferred).
    pub shapes: HashMap<String, Shape>,
    /// Known dtypes by variable name (float32 where unknown).
    pub dtypes: HashMap<String, DType>,
    pub mode: Mode,
    pub target: Target,
    /// The inputs whose first axis is the batch size (MXNet's data and labels), for
    /// kernels over a symbolic batch size.
    pub batch_inputs: Vec<String>,
    /// Passes not to run, by name.
    pub disabled_passes: HashSet<String>,
    /// Passes after which the graph is printed to stderr, by name (`all`: every one).
    pub dumped_passes: HashSet<String>,
}

impl Spec {
    pub fn new(shapes: HashMap<String, Shape>, mode: Mode, target: Target) -> Spec {
        Spec {
            batch_inputs: shapes.keys().cloned().collect(),
            shapes,
            dtypes: HashMap::new(),
            mode,
            target,
            disabled_passes: HashSet::new(),
            dumped_passes: HashSet::new(),
        }
    }
}

/// A matrix product with the kernels around it.
#[derive(Clone, Debug)]
pub struct Product {
    pub matmul: MatMul,
    /// The kernels packing operands, and the dimensions to run each with.
    pub packs: Vec<(Kernel, Vec<i64>)>,
    /// For each pack, where gemm gathers it straight from its input into its panels
    /// instead (the pack kernel does not run; its workspace holds the input's phases
    /// where rows are read at a step of 2, [`Windows::phases_len`], else it is a
    /// placeholder of one aligned line, so the other buffers keep their places).
    pub windows: Vec<Option<Windows>>,
    /// The epilogue (inputs: the kernel's, then the product) and its dimensions.
    pub epilogue: Option<(Kernel, Vec<i64>)>,
    /// Where the product is a 3x3 convolution by Winograd's algorithm (no packs).
    pub winograd: Option<WinogradPlan>,
    /// Where the product runs its split loop index by index ([`Stream`]).
    pub stream: Option<Stream>,
}

/// A product that runs a loop of its index by index ([`MatMul::loop_along`]), packing
/// each index's operands alone ([`crate::kir::matmul::pack_per_index`]), so its
/// workspace holds a few images' worth, not the batch's (MXNet's im2col of one image at
/// a time).
///
/// Along the split loop (the first axis), `tasks` tasks each run blocks of `block`
/// indices of their own and store a block's product in their own slot
/// ([`crate::kir::matmul::epilogue_by_block`]): a gemm one index at a time on every
/// thread; a Winograd convolution blocks of images one after another, each on every
/// thread, large enough that its products keep their width ([`WINOGRAD_OUTPUTS`]). Along
/// the first summed loop (a weight gradient's sum over the images), one index after
/// another, each packed and multiplied on every thread, into the whole product; or, on
/// `tasks` tasks, each its share of the indices into a partial product of its own, added
/// into the product at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stream {
    pub along: Along,
    /// Blocks run at once, each task with its own slots.
    pub tasks: usize,
    /// Indices of the loop a task's block holds.
    pub block: usize,
    /// Which of `Product::packs` pack one index (else the whole operand, once: an operand
    /// the loop does not read, as a gradient's gathered weight).
    pub packs_by_index: Vec<bool>,
    /// Along the split loop, with one pack by index: how an index is packed and
    /// multiplied in chunks, each a block of the gemm's rows (columns) and a slot that
    /// holds a chunk; `None`: an index at once.
    pub chunks: Option<Chunks>,
    /// Along a sum shared among tasks: rows of the per-index packs' outermost loop a task
    /// packs and multiplies at a time, each a range of the product's depth
    /// ([`crate::kir::matmul::Chunks::depth_rows`]), so the gemm reads a chunk from the
    /// core's cache right after packing it; `None`: an index at once.
    pub depth_rows: Option<i64>,
}

/// Output points a streamed Winograd convolution computes at once at least: its products
/// (one per element of a transformed tile, filters × channels by channels × tiles) are
/// 256 tiles of F(2x2, 3x3) wide, 64 of F(4x4, 3x3) — below, the transformed weights,
/// read whole for every block, would cost more than the products. F(4x4, 3x3) takes a
/// quarter as many tiles, not as many: as many would take four times the images, each
/// tile's transforms 2.25 times larger, into the workspace (alexnet's training step 89 →
/// 108 MB).
pub const WINOGRAD_OUTPUTS: usize = 1024;

/// An array a store writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The gradient array of the `k`-th differentiated argument.
    Gradient(usize),
    /// The array of the `k`-th updated aux state.
    Aux(usize),
}

#[derive(Clone, Debug)]
pub enum StepKind {
    /// A node on its operator's reference kernel.
    Reference,
    /// A library node on its native f32 kernel.
    Native,
    /// A compiled kernel and the symbolic dimensions to run it with.
    Kernel {
        ir: Kernel,
        dims: Vec<i64>,
    },
    Product(Box<Product>),
    /// A copy (or, with `add`, an addition) of the step's one input into a bound array.
    Store {
        into: Bound,
        add: bool,
    },
}

/// One unit of work: what it runs, the graph nodes it computes, the values it reads and
/// writes, and whether it belongs to the forward pass.
#[derive(Clone, Debug)]
pub struct Step {
    pub name: String,
    pub kind: StepKind,
    pub nodes: Vec<NodeId>,
    pub inputs: Vec<Entry>,
    pub outputs: Vec<Entry>,
    pub forward: bool,
}

impl Step {
    /// Whether output `o` may be written over input `i`: a reference kernel reads all its
    /// inputs before it writes, a compiled kernel where its IR reads that input only at
    /// the point it stores ([`Kernel::may_overwrite`]); gemm and the native kernels read
    /// their inputs while they write.
    pub fn overwrites(&self, i: usize, o: usize) -> bool {
        match &self.kind {
            StepKind::Reference => true,
            StepKind::Kernel { ir, .. } => ir.may_overwrite(i, o),
            StepKind::Native | StepKind::Product(_) | StepKind::Store { .. } => false,
        }
    }
}

/// Where a value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the arena, at this byte offset.
    Arena(usize),
    /// An array of its own (graph outputs, which callers hold across runs; heads a store
    /// copies from).
    Own,
    /// Computed straight into the caller's gradient array of the `k`-th differentiated
    /// argument.
    Gradient(usize),
}

/// Every value's place, and what lives beside the arena.
#[derive(Clone, Debug)]
pub struct Layout {
    pub arena_bytes: usize,
    /// Every value a step writes (variables are bound by name, not here).
    pub places: HashMap<Entry, Place>,
    /// Each step's workspace buffers (packed operands, then the product an epilogue
    /// reads): (arena offset, bytes).
    pub workspace: Vec<Vec<(usize, usize)>>,
    /// Bytes each step keeps beside the arena from run to run (transformed Winograd
    /// weights, a native kernel's working space).
    pub kept: Vec<usize>,
    /// Bytes of the arrays of values placed [`Place::Own`] that are not graph outputs.
    pub own_bytes: usize,
    /// Bytes of folded constants (variables the program binds itself).
    pub constant_bytes: usize,
    /// The largest sum of bytes live at once in the arena for this order.
    pub lower_bound: usize,
    /// The arena's plan, buffer by buffer.
    pub plan: MemoryPlan,
}

impl Layout {
    /// Internal memory: the arena and everything allocated beside it for this program;
    /// not arguments, their gradients, aux states or outputs.
    pub fn internal_bytes(&self) -> usize {
        self.arena_bytes + self.own_bytes + self.kept.iter().sum::<usize>() + self.constant_bytes
    }
}

/// A compiled program: the optimized graph, its steps in order, its memory layout and
/// its engine segments.
pub struct Program {
    /// The graph after expansion, passes and differentiation (forward nodes first), with
    /// its outputs, gradients and aux updates.
    pub training: TrainingGraph,
    pub inferred: Inferred,
    pub mode: Mode,
    pub target: Target,
    /// The graph's fusion groups, with why each ends where it does; steps are their
    /// parts.
    pub fusion: passes::Fusion,
    pub steps: Vec<Step>,
    /// Parts of fusion groups that did not lower to kernels, with why: their nodes' steps
    /// run on node kernels.
    pub unlowered: Vec<Unlowered>,
    pub layout: Layout,
    /// Consecutive steps pushed as one engine operation.
    pub segments: Vec<Range<usize>>,
    /// What the passes did.
    pub report: passes::Report,
    /// Operators expanded into others.
    pub expanded: usize,
    /// Training programs: whether inference would expand more operators (BatchNorm with
    /// its moving statistics as a scale and shift), so an inference forward pass runs
    /// faster as a program of its own.
    pub inference_expands_more: bool,
    /// Whether a prefix runs before this program in parts of the batch.
    pub parts: Parts,
    /// Forward values the backward pass computes again instead of keeping.
    pub recomputed: Recomputed,
}

/// What a training program recomputes in backward ([`passes::mirror`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recomputed {
    /// Forward nodes computed again.
    pub nodes: usize,
    /// Their FLOPs per step.
    pub flops: u64,
}

/// How an inference program runs its batch ([`parts`]).
pub enum Parts {
    /// At once (training; a target without parts; no per-sample prefix).
    Whole,
    /// Its per-sample prefix in parts first; this program is the rest.
    Prefix(Box<parts::Prefix>),
    /// At once, because the prefix found could not run in parts: why.
    Declined(String),
}

/// The most bytes a program's values may take together (a quarter of what memory can
/// address, leaving room for working space and alignment).
const MAX_PROGRAM_BYTES: usize = isize::MAX as usize / 4;

/// Refuses a program whose values together take more than [`MAX_PROGRAM_BYTES`]: each
/// fits an array (inference checks it), and then the memory plan's sums and offsets
/// cannot overflow either.
fn check_total_bytes(g: &Graph, inferred: &Inferred) -> Result<()> {
    let mut total = 0usize;
    let mut largest: Option<(usize, Entry)> = None;
    for id in g.node_ids() {
        for index in 0..inferred.shapes[id.index()].len() {
            let e = Entry { node: id, index };
            let dtype = inferred.dtype(e).unwrap_or(DType::F32);
            // Inference bounds each value at 2^60 elements of at most 8 bytes.
            let bytes = size(inferred.shape(e)) * dtype.size();
            total = total.saturating_add(bytes);
            if largest.is_none_or(|(b, _)| bytes > b) {
                largest = Some((bytes, e));
            }
        }
    }
    match largest {
        Some((_, e)) if total > MAX_PROGRAM_BYTES => Err(Error::Shape(format!(
            "the program's values take more than {MAX_PROGRAM_BYTES} bytes together; the \
             largest is {} output {} of shape {}",
            g.node(e.node).describe(),
            e.index,
            fmt_shape(inferred.shape(e))
        ))),
        _ => Ok(()),
    }
}

/// Alignment of every arena buffer (the widest vectors).
pub const ALIGN: usize = 64;

/// Steps per engine segment at most (MXNet's default bulk size is 15).
pub const SEGMENT_STEPS: usize = 16;

impl Program {
    pub fn graph(&self) -> &Graph {
        &self.training.graph
    }

    /// Bytes of value `e`, rounded up to [`ALIGN`].
    pub fn bytes(&self, e: Entry) -> usize {
        entry_bytes(&self.inferred, e)
    }

    /// Internal memory, as an executor allocates it: [`Layout::internal_bytes`], and with
    /// a prefix in parts, one arena for both programs (the larger) and the arrays the parts
    /// pass through ([`parts::Prefix::staging_bytes`]).
    pub fn internal_bytes(&self) -> usize {
        let own = self.layout.internal_bytes();
        match &self.parts {
            Parts::Prefix(p) => {
                let (arena, prefix) = (self.layout.arena_bytes, &p.program.layout);
                let beside = own - arena + prefix.internal_bytes() - prefix.arena_bytes;
                arena.max(prefix.arena_bytes) + beside + p.staging_bytes(self)
            }
            Parts::Whole | Parts::Declined(_) => own,
        }
    }

    /// The programs that run, in order: the prefix in parts where there is one, then this.
    pub fn programs(&self) -> Vec<&Program> {
        match &self.parts {
            Parts::Prefix(p) => vec![&p.program, self],
            Parts::Whole | Parts::Declined(_) => vec![self],
        }
    }

    /// The arena an executor allocates: the largest of its programs'.
    pub fn arena_bytes(&self) -> usize {
        (self.programs().iter())
            .map(|p| p.layout.arena_bytes)
            .max()
            .unwrap_or(0)
    }

    /// The arena's lower bound: the largest of its programs' for their orders.
    pub fn lower_bound(&self) -> usize {
        (self.programs().iter())
            .map(|p| p.layout.lower_bound)
            .max()
            .unwrap_or(0)
    }

    /// Counts of the steps by kind (compiled kernels, products, Winograd products,
    /// native nodes, reference nodes), of every program that runs.
    pub fn counts(&self) -> StepCounts {
        step_counts(self.programs().iter().flat_map(|p| &p.steps))
    }
}

/// Counts of `steps` by kind.
fn step_counts<'a>(steps: impl IntoIterator<Item = &'a Step>) -> StepCounts {
    let mut c = StepCounts::default();
    for s in steps {
        match &s.kind {
            StepKind::Reference => c.reference += 1,
            StepKind::Native => c.native += 1,
            StepKind::Kernel { .. } => c.kernels += 1,
            StepKind::Product(p) => {
                c.products += 1;
                c.winograd += usize::from(p.winograd.is_some());
                c.large_tiles += usize::from(p.winograd.is_some_and(|w| w.conv.output_tile == 4));
                c.streamed += usize::from(p.stream.is_some());
            }
            StepKind::Store { .. } => {}
        }
    }
    c
}

/// How many of a program's steps are compiled kernels, gemm products (with compiled
/// epilogues), library nodes on native kernels and nodes on their reference kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounts {
    pub kernels: usize,
    pub products: usize,
    /// Of the products, convolutions run with Winograd's algorithm.
    pub winograd: usize,
    /// Of the Winograd convolutions, those by F(4x4, 3x3).
    pub large_tiles: usize,
    /// Of the products, those run in blocks of their split loop ([`Stream`]).
    pub streamed: usize,
    pub native: usize,
    pub reference: usize,
}

impl fmt::Display for StepCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} compiled kernels, {} gemm products ({} Winograd, {} of them F(4x4, 3x3), {} by \
             blocks of the batch), {} native nodes, {} reference nodes",
            self.kernels,
            self.products,
            self.winograd,
            self.large_tiles,
            self.streamed,
            self.native,
            self.reference
        )
    }
}

fn entry_bytes(inferred: &Inferred, e: Entry) -> usize {
    let d = inferred.dtype(e).unwrap_or(DType::F32);
    (size(inferred.shape(e)) * d.size()).div_ceil(ALIGN).max(1) * ALIGN
}

/// The graph passes of a mode, as the program runs them.
pub fn pipeline(
    mode: &Mode,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
) -> Pipeline {
    let fold = Box::new(FoldConstants {
        shapes: shapes.clone(),
        dtypes: dtypes.clone(),
    });
    let mut passes: Vec<Box<dyn passes::Pass>> = Vec::new();
    if !mode.is_train() {
        passes.push(Box::new(InferenceMode));
    }
    passes.extend([
        Box::new(Simplify) as Box<dyn passes::Pass>,
        fold,
        Box::new(Cse),
        Box::new(Prune),
    ]);
    Pipeline::new(passes)
}

/// Compiles `symbol` as `spec` says (the stages are in the module doc).
pub fn compile(symbol: &Symbol, spec: &Spec) -> Result<Program> {
    let forward = symbol.to_graph()?;
    for name in spec.shapes.keys() {
        if forward.variable(name).is_none() {
            return Err(Error::Input(format!(
                "the model has no input named `{name}`"
            )));
        }
    }
    let inferred = infer(&forward, &spec.shapes, &spec.dtypes)?;
    // Every variable's shape and dtype, as forward inference gives them: expansion and
    // the passes add nodes that only the variables can shape.
    let (mut shapes, mut dtypes) = (spec.shapes.clone(), spec.dtypes.clone());
    for id in forward
        .node_ids()
        .filter(|&id| forward.node(id).is_variable())
    {
        let (name, e) = (&forward.node(id).name, Entry { node: id, index: 0 });
        if is_known(inferred.shape(e)) {
            shapes
                .entry(name.clone())
                .or_insert_with(|| inferred.shape(e).clone());
        }
        if let Some(d) = inferred.dtype(e) {
            dtypes.entry(name.clone()).or_insert(d);
        }
    }
    let train = spec.mode.is_train();
    let expand = |training| {
        let expand = Expand {
            training,
            inferred: Some(&inferred),
            first: 0,
        };
        expand.expand(&forward)
    };
    let (forward, expanded, inference_expands_more) = if spec.target.kernels {
        let (out, n) = expand(train)?;
        let more = train && expand(false)?.1 > n;
        (out.graph, n, more)
    } else {
        (forward, 0, false)
    };
    let mut pipeline = pipeline(&spec.mode, &shapes, &dtypes);
    for name in &spec.disabled_passes {
        pipeline.disable(name);
    }
    for name in &spec.dumped_passes {
        pipeline.dump(name);
    }
    let (out, report) = pipeline.run(&forward)?;
    let mut program = match spec.target.parts {
        Some(rows) if !spec.mode.is_train() => {
            parts::compile_in_parts(out.graph, &shapes, &dtypes, spec, rows)?
        }
        _ => finish(out.graph, &shapes, &dtypes, spec, &spec.batch_inputs)?,
    };
    program.report = report;
    program.expanded = expanded;
    program.inference_expands_more = inference_expands_more;
    Ok(program)
}

/// Compiles a graph after its passes (stages 3 to 8 of the module doc), with
/// `batch_inputs` as the inputs whose first axis is the batch.
fn finish(
    forward: Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
    spec: &Spec,
    batch_inputs: &[String],
) -> Result<Program> {
    let requested = match &spec.mode {
        Mode::Training(reqs) => reqs.values().any(|r| *r != GradReq::Null),
        Mode::Inference => false,
    };
    let (training, recomputed) = match &spec.mode {
        Mode::Training(reqs) if requested => {
            let mut training = differentiate(&forward, reqs, true)?;
            if spec.target.kernels && !spec.disabled_passes.contains("expand_backward") {
                training = expand_backward(training)?;
            }
            match spec.disabled_passes.contains("mirror") {
                true => (training, Recomputed::default()),
                false => recompute(training, shapes, dtypes)?,
            }
        }
        _ => (
            TrainingGraph {
                forward_nodes: forward.len(),
                num_outputs: forward.heads.len(),
                graph: forward,
                grads: vec![],
                aux_updates: vec![],
                head_grads: vec![],
            },
            Recomputed::default(),
        ),
    };
    let g = &training.graph;
    let inferred = infer(g, shapes, dtypes)?;
    for id in g.node_ids().filter(|&id| !g.node(id).is_variable()) {
        for (index, s) in inferred.shapes[id.index()].iter().enumerate() {
            if !is_known(s) {
                return Err(Error::Shape(format!(
                    "{}: output {index} has unknown shape {}; give every input's shape",
                    g.node(id).describe(),
                    fmt_shape(s)
                )));
            }
        }
    }
    check_total_bytes(g, &inferred)?;
    let batch = spec
        .target
        .symbolic_batch
        .then(|| batch_shapes(g, shapes, dtypes, batch_inputs))
        .flatten();
    let fusion = passes::fuse(g);
    let (mut steps, unlowered) = steps::steps(
        g,
        &inferred,
        &fusion,
        training.forward_nodes,
        &spec.target,
        batch.as_ref(),
    );
    // A trained weight changes every step: its Winograd transform is remade on every
    // run in the step's workspace rather than kept beside the arena.
    let trained: HashSet<NodeId> = training.grads.iter().map(|&(id, _)| id).collect();
    for step in &mut steps {
        if let StepKind::Product(p) = &mut step.kind {
            if let Some(w) = &mut p.winograd {
                w.keep_weights &= !trained.contains(&step.inputs[w.weight].node);
            }
        }
    }
    let places = places(&training, &spec.target);
    steps.extend(stores(&training, &places));
    // Values in the arena count; those living elsewhere are free to the order's policy.
    let arena_bytes = |e: Entry| match places.get(&e) {
        Some(Place::Arena(_)) | None if !g.node(e.node).is_variable() => entry_bytes(&inferred, e),
        _ => 0,
    };
    let mut best: Option<(Vec<Step>, Layout)> = None;
    for policy in [Policy::Earliest, Policy::LeastGrowth] {
        let ordered = steps::order(g, steps.clone(), policy, &arena_bytes)?;
        let layout = layout(g, &inferred, &training, &ordered, &places);
        if best
            .as_ref()
            .is_none_or(|(_, l)| layout.arena_bytes < l.arena_bytes)
        {
            best = Some((ordered, layout));
        }
    }
    let Some((steps, layout)) = best else {
        return Err(Error::Input("no step order".into()));
    };
    let segments = segments(&steps, &layout);
    Ok(Program {
        inferred,
        fusion,
        mode: spec.mode.clone(),
        target: spec.target.clone(),
        steps,
        unlowered,
        layout,
        segments,
        report: passes::Report::default(),
        expanded: 0,
        inference_expands_more: false,
        parts: Parts::Whole,
        recomputed,
        training,
    })
}

/// The training graph with its backward operators expanded ([`Expand`] from its first
/// backward node; the pass `expand_backward`).
fn expand_backward(t: TrainingGraph) -> Result<TrainingGraph> {
    let expand = Expand {
        training: true,
        inferred: None,
        first: t.forward_nodes,
    };
    let (out, _) = expand.expand(&t.graph)?;
    // An expansion computes every output: a data gradient nothing reads goes again.
    let t = t.rebuilt(out);
    let g = &t.graph;
    let variables: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| g.node(id).is_variable())
        .collect();
    Ok(t.pruned(&variables))
}

/// The training graph with the cheap forward values its backward pass reads computed
/// again in backward ([`passes::mirror`]).
fn recompute(
    t: TrainingGraph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
) -> Result<(TrainingGraph, Recomputed)> {
    let inferred = infer(&t.graph, shapes, dtypes)?;
    let out = passes::mirror(&t.graph, t.forward_nodes, &inferred)?;
    let training = t.rebuilt(out.pass);
    let recomputed = Recomputed {
        nodes: out.mirrored,
        flops: out.flops,
    };
    Ok((training, recomputed))
}

/// The entry shapes at the batch size plus one, two and three (the batch inputs' first
/// axis grown), for generalizing kernels over the batch; `None` without batch inputs of
/// one common batch size, or where the graph does not infer at the other sizes.
fn batch_shapes(
    g: &Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
    batch_inputs: &[String],
) -> Option<BatchShapes> {
    let sizes: Vec<usize> = batch_inputs
        .iter()
        .map(|n| shapes.get(n).and_then(|s| s.first().copied()))
        .collect::<Option<_>>()?;
    let &batch = sizes.first()?;
    if batch == 0 || sizes.iter().any(|&b| b != batch) {
        return None;
    }
    let grown = |extra: usize| {
        let mut s = shapes.clone();
        for n in batch_inputs {
            s.get_mut(n)?[0] = batch + extra;
        }
        infer(g, &s, dtypes).ok()
    };
    Some(BatchShapes {
        batch: batch as i64,
        next: [grown(1)?, grown(2)?, grown(3)?],
    })
}

/// The places of the heads: a written (not added) gradient that a step computes and
/// that is no other head goes straight into the caller's gradient array; the other
/// heads get arrays of their own (or, where the target keeps heads in the arena, are
/// left to the arena, pinned to the end).
fn places(t: &TrainingGraph, target: &Target) -> HashMap<Entry, Place> {
    let g = &t.graph;
    let mut places = HashMap::new();
    if target.heads_in_arena {
        return places;
    }
    for (k, &(_, req)) in t.grads.iter().enumerate() {
        let e = t.grad_entry(k);
        let once = g.heads.iter().filter(|&&h| h == e).count() == 1;
        if req == GradReq::Write && once && !g.node(e.node).is_variable() {
            places.insert(e, Place::Gradient(k));
        }
    }
    for &h in &g.heads {
        if !g.node(h.node).is_variable() {
            places.entry(h).or_insert(Place::Own);
        }
    }
    places
}

/// Store steps: each gradient not computed in place and each new aux value, copied (or
/// added) into its bound array after backward.
fn stores(t: &TrainingGraph, places: &HashMap<Entry, Place>) -> Vec<Step> {
    let g = &t.graph;
    let store = |name: String, from: Entry, into: Bound, add: bool| Step {
        name,
        kind: StepKind::Store { into, add },
        nodes: vec![],
        inputs: vec![from],
        outputs: vec![],
        forward: false,
    };
    let grads = t.grads.iter().enumerate().filter_map(|(k, &(id, req))| {
        let e = t.grad_entry(k);
        (places.get(&e) != Some(&Place::Gradient(k))).then(|| {
            store(
                format!("grad {}", g.node(id).name),
                e,
                Bound::Gradient(k),
                req == GradReq::Add,
            )
        })
    });
    let aux = (t.aux_updates.iter().enumerate()).map(|(k, &id)| {
        store(
            format!("update {}", g.node(id).name),
            t.aux_entry(k),
            Bound::Aux(k),
            false,
        )
    });
    grads.chain(aux).collect()
}

/// Bytes of workspace each buffer of `step` needs while it runs: its packed operands (a
/// Winograd convolution's working space and, where they are not kept, its transformed
/// weights, instead), then, where an epilogue follows, the product (a streamed product's:
/// one slot per task of one index each), then a shared sum's partial products (one per
/// task after the first).
fn workspace(step: &Step, inferred: &Inferred) -> Vec<usize> {
    let StepKind::Product(p) = &step.kind else {
        return vec![];
    };
    let mm = &p.matmul;
    let (tasks, block) = p.stream.as_ref().map_or((1, 1), |s| (s.tasks, s.block));
    let aligned = |bytes: usize| bytes.div_ceil(ALIGN).max(1) * ALIGN;
    let bytes = |k: &Kernel| aligned(steps::pack_bytes(k, mm.dtype));
    // A streamed product's packs of one index take a slot per task; other packs, whole.
    let mut out: Vec<usize> = match &p.stream {
        Some(s) => (p.packs.iter().zip(&s.packs_by_index))
            .map(|((k, _), &by_index)| if by_index { tasks * bytes(k) } else { bytes(k) })
            .collect(),
        None => (mm.packs.iter().zip(&p.windows))
            .map(|(k, w)| match w {
                Some(w) => aligned(w.phases_len() as usize * mm.dtype.size()),
                None => bytes(k),
            })
            .collect(),
    };
    if let Some(w) = &p.winograd {
        let images = match &p.stream {
            Some(_) => block,
            None => w.conv.batch,
        };
        out.push(aligned(w.scratch_len(images) * 4));
        if !w.keep_weights && !w.conv.weight_gradient {
            out.push(aligned(w.conv.weights_len() * 4));
        }
    }
    let whole = entry_bytes(inferred, step.outputs[0]);
    if p.epilogue.is_some() {
        out.push(
            match (p.stream.as_ref().map(|s| s.along), mm.split_loop()) {
                (Some(Along::Split), Some(l)) => tasks * aligned(whole / l.extent as usize * block),
                _ => whole,
            },
        );
    }
    // A sum shared among tasks: every task but the first sums into a partial product.
    if p.stream.as_ref().is_some_and(|s| s.along == Along::Sum) && tasks > 1 {
        out.push((tasks - 1) * whole);
    }
    out
}

/// Bytes a step keeps beside the arena: transformed Winograd weights of an untrained
/// weight, a native kernel's working space.
fn kept(g: &Graph, inferred: &Inferred, step: &Step) -> usize {
    match &step.kind {
        StepKind::Product(p) => (p.winograd)
            .filter(|w| w.keep_weights)
            .map_or(0, |w| w.conv.weights_len() * 4),
        StepKind::Native => {
            let n = g.node(step.nodes[0]);
            match (n.op.and_then(|op| op.native), &n.params) {
                (Some(native), Some(attrs)) => {
                    let shapes: Vec<Shape> = n
                        .inputs
                        .iter()
                        .map(|&e| inferred.shape(e).clone())
                        .collect();
                    (native.scratch)(attrs, &shapes) * 8
                }
                _ => 0,
            }
        }
        _ => 0,
    }
}

/// The layout of `steps` in their order: heads as `places` says, everything else in the
/// arena.
fn layout(
    g: &Graph,
    inferred: &Inferred,
    t: &TrainingGraph,
    steps: &[Step],
    heads: &HashMap<Entry, Place>,
) -> Layout {
    let overwrites: Vec<Box<dyn Fn(usize, usize) -> bool + '_>> = steps
        .iter()
        .map(|s| Box::new(move |i, o| s.overwrites(i, o)) as Box<dyn Fn(usize, usize) -> bool>)
        .collect();
    let uses: Vec<StepUse> = steps
        .iter()
        .zip(&overwrites)
        .map(|(s, f)| StepUse {
            inputs: &s.inputs,
            outputs: &s.outputs,
            workspace: workspace(s, inferred),
            overwrites: f.as_ref(),
        })
        .collect();
    let pinned: HashSet<Entry> = g.heads.iter().copied().collect();
    let stored = |e: Entry| !heads.contains_key(&e) && !g.node(e.node).is_variable();
    let plan = layout::plan(
        &uses,
        &|e| entry_bytes(inferred, e),
        &stored,
        &pinned,
        Strategy::Arena,
    );
    let mut places = heads.clone();
    let mut workspace = vec![vec![]; steps.len()];
    for b in &plan.buffers {
        for &e in &b.entries {
            places.insert(e, Place::Arena(b.offset));
        }
        if let Some((s, _)) = b.workspace_of {
            workspace[s].push((b.offset, b.bytes));
        }
    }
    let outputs: HashSet<Entry> = g.heads[..t.num_outputs].iter().copied().collect();
    let own_bytes = (places.iter())
        .filter(|(e, p)| **p == Place::Own && !outputs.contains(e))
        .map(|(&e, _)| size(inferred.shape(e)) * inferred.dtype(e).unwrap_or(DType::F32).size())
        .sum();
    let constant_bytes = g
        .constants
        .values()
        .map(|c| c.data.len() * c.dtype.size())
        .sum();
    Layout {
        arena_bytes: plan.bytes,
        places,
        workspace,
        kept: steps.iter().map(|s| kept(g, inferred, s)).collect(),
        own_bytes,
        constant_bytes,
        lower_bound: plan.lower_bound,
        plan,
    }
}

/// Steps as segments of consecutive steps of one pass, each ending after a step that
/// completes a gradient or an aux state (so what waits for it can start while backward
/// goes on) or after [`SEGMENT_STEPS`] steps.
fn segments(steps: &[Step], layout: &Layout) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (s, step) in steps.iter().enumerate() {
        let completes = matches!(step.kind, StepKind::Store { .. })
            || (step.outputs.iter())
                .any(|e| matches!(layout.places.get(e), Some(Place::Gradient(_))));
        let pass_ends = steps
            .get(s + 1)
            .is_none_or(|next| next.forward != step.forward);
        if completes || pass_ends || s + 1 - start == SEGMENT_STEPS {
            out.push(start..s + 1);
            start = s + 1;
        }
    }
    out
}

impl fmt::Display for Program {
    /// The program as text: each step with what it runs, reads and writes (and where),
    /// the segments, the parts that did not lower (and why), and the memory.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.graph();
        let place = |e: &Entry| match self.layout.places.get(e) {
            Some(Place::Arena(o)) => format!("{}@{o}", g.entry_name(*e)),
            Some(Place::Own) => format!("{}@own", g.entry_name(*e)),
            Some(Place::Gradient(k)) => format!("{}@grad{k}", g.entry_name(*e)),
            None => g.entry_name(*e),
        };
        let mode = match self.mode {
            Mode::Inference => "inference",
            Mode::Training(_) => "training",
        };
        match &self.parts {
            Parts::Prefix(p) => {
                writeln!(
                    f,
                    "prefix in {} parts of {} samples (reads {}; hands on {}):",
                    p.parts,
                    p.rows,
                    p.inputs.join(", "),
                    p.handed.join(", ")
                )?;
                write!(f, "{}", p.program)?;
                writeln!(f, "then the rest, on the whole batch:")?;
            }
            Parts::Declined(why) => writeln!(f, "the whole batch at once: {why}")?,
            Parts::Whole => {}
        }
        writeln!(
            f,
            "program ({mode}): {} steps; {}",
            self.steps.len(),
            step_counts(&self.steps)
        )?;
        if self.recomputed.nodes > 0 {
            writeln!(
                f,
                "recomputed in backward: {} forward values, {:.1} MFLOP per step",
                self.recomputed.nodes,
                self.recomputed.flops as f64 / 1e6
            )?;
        }
        let mut segment = self.segments.iter().peekable();
        for (s, step) in self.steps.iter().enumerate() {
            if segment.peek().is_some_and(|r| r.start == s) {
                let r = segment.next().map_or(s..s, Clone::clone);
                let pass = if step.forward { "forward" } else { "backward" };
                writeln!(f, "segment {pass} [{}..{})", r.start, r.end)?;
            }
            // A library node says which library kernel it runs.
            let library = step
                .nodes
                .first()
                .and_then(|&id| match g.node(id).op?.compute {
                    kiln_ops::Compute::Library { kernel, .. } => Some(kernel),
                    _ => None,
                });
            let kind = match (&step.kind, library) {
                (StepKind::Reference, Some(kernel)) => format!("reference {kernel}"),
                (StepKind::Native, Some(kernel)) => format!("native {kernel}"),
                (StepKind::Reference, None) => "reference".to_string(),
                (StepKind::Native, None) => "native".to_string(),
                (StepKind::Kernel { dims, .. }, _) if dims.is_empty() => "kernel".to_string(),
                (StepKind::Kernel { .. }, _) => "kernel (symbolic batch)".to_string(),
                (StepKind::Product(p), _) => {
                    let mm = &p.matmul;
                    let how = match &p.winograd {
                        Some(w) => format!("winograd F({0}x{0}, 3x3)", w.conv.output_tile),
                        None => "gemm".to_string(),
                    };
                    let gathered = p.windows.iter().flatten().count();
                    format!(
                        "{how} {}x{}x{}, {} packs{}{}{}",
                        mm.m,
                        mm.n,
                        mm.k,
                        p.packs.len(),
                        match gathered {
                            0 => String::new(),
                            g => format!(" ({g} gathered into gemm's panels)"),
                        },
                        if p.epilogue.is_some() {
                            ", epilogue"
                        } else {
                            ""
                        },
                        match &p.stream {
                            Some(s) => format!(
                                ", by {:?} loop in blocks of {} on {} tasks{}",
                                s.along,
                                s.block,
                                s.tasks,
                                match (s.chunks, s.depth_rows) {
                                    (Some(c), _) => format!(", in chunks of {} rows", c.rows),
                                    (None, Some(rows)) => {
                                        format!(", in chunks of {rows} rows of depth")
                                    }
                                    (None, None) => String::new(),
                                }
                            ),
                            None => String::new(),
                        }
                    )
                }
                (StepKind::Store { into, add }, _) => {
                    let verb = if *add { "add into" } else { "store into" };
                    format!("{verb} {into:?}")
                }
            };
            let ins: Vec<String> = step.inputs.iter().map(place).collect();
            let outs: Vec<String> = step.outputs.iter().map(place).collect();
            write!(
                f,
                "  {s:>4} {:<24} {kind}: ({}) -> ({})",
                step.name,
                ins.join(", "),
                outs.join(", ")
            )?;
            if let Some(ws) = self.layout.workspace.get(s).filter(|w| !w.is_empty()) {
                let at: Vec<String> = ws.iter().map(|(o, b)| format!("{b}@{o}")).collect();
                write!(f, " workspace {}", at.join(", "))?;
            }
            writeln!(f)?;
        }
        for u in &self.unlowered {
            let nodes: Vec<&str> = u.nodes.iter().map(|&id| g.node(id).name.as_str()).collect();
            writeln!(
                f,
                "unlowered {} ({}): {}",
                u.name,
                nodes.join(", "),
                u.reason
            )?;
        }
        let l = &self.layout;
        writeln!(
            f,
            "memory: arena {:.2} MB (lower bound {:.2}), own arrays {:.2} MB, kept {:.2} MB, constants {:.2} MB; internal {:.2} MB",
            mb(l.arena_bytes),
            mb(l.lower_bound),
            mb(l.own_bytes),
            mb(l.kept.iter().sum()),
            mb(l.constant_bytes),
            mb(l.internal_bytes())
        )?;
        if let Parts::Prefix(p) = &self.parts {
            writeln!(
                f,
                "memory with the prefix in parts: one arena {:.2} MB, arrays the parts pass through {:.2} MB; internal {:.2} MB",
                mb(self.arena_bytes()),
                mb(p.staging_bytes(self)),
                mb(self.internal_bytes())
            )?;
        }
        Ok(())
    }
}

/// Bytes in megabytes (2^20), as the program's text prints them.
fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}
