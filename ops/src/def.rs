//! The operator definition: one declaration per operator, from which the parser, the
//! documentation, the Symbol builders, shape/dtype inference, the reference kernel and
//! every backend's kernel are derived.

use crate::expr::Expr;
use crate::index::IndexMap;
use crate::shape::{self, OpError, Shape};
use crate::{Attrs, DType, ParamDef, Tensor};

/// How an operator fuses (TVM's ordering: a later pattern absorbs fewer neighbours).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    ElemWise,
    Broadcast,
    Injective,
    Reduce,
    OutEWiseFusable,
    Opaque,
}

impl Pattern {
    pub fn name(self) -> &'static str {
        match self {
            Pattern::ElemWise => "elemwise",
            Pattern::Broadcast => "broadcast",
            Pattern::Injective => "injective",
            Pattern::Reduce => "reduce",
            Pattern::OutEWiseFusable => "out_elemwise_fusable",
            Pattern::Opaque => "opaque",
        }
    }
}

/// The combiner of a reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    Sum,
    Prod,
    Max,
    Min,
}

impl Combiner {
    pub fn identity(self) -> f64 {
        match self {
            Combiner::Sum => 0.0,
            Combiner::Prod => 1.0,
            Combiner::Max => f64::NEG_INFINITY,
            Combiner::Min => f64::INFINITY,
        }
    }
    pub fn combine(self, acc: f64, v: f64) -> f64 {
        match self {
            Combiner::Sum => acc + v,
            Combiner::Prod => acc * v,
            // NaN propagates, as mshadow's red::maximum does.
            Combiner::Max => {
                if v > acc || v.is_nan() {
                    v
                } else {
                    acc
                }
            }
            Combiner::Min => {
                if v < acc || v.is_nan() {
                    v
                } else {
                    acc
                }
            }
        }
    }
}

/// A reduction, resolved for one input shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub combiner: Combiner,
    /// Reduced axes of the input, ascending.
    pub axes: Vec<usize>,
    /// Applied to each input element before combining (`x0` is the element).
    pub pre: Expr,
    /// Applied to the result (`x0` is the accumulator, `x1` the number of reduced elements).
    pub post: Expr,
}

/// The context a reference kernel runs in.
pub struct KernelCtx<'a> {
    pub attrs: &'a Attrs,
    pub is_train: bool,
    pub out_shapes: &'a [Shape],
    pub out_dtypes: &'a [DType],
    /// Key of the counter-based generator for this operator instance (random operators).
    pub rng_key: [u32; 2],
}

pub type RefKernel = fn(&KernelCtx, &[&Tensor]) -> Result<Vec<Tensor>, OpError>;
/// Output `k`'s index map, given the input and output shapes.
pub type IndexMapFn = fn(&Attrs, &[Shape], &[Shape], usize) -> Result<IndexMap, OpError>;

/// What an operator computes, in the form backends consume.
#[derive(Clone, Copy)]
pub enum Compute {
    /// Element-wise/broadcast: one scalar expression over the (broadcast) inputs, for every
    /// visible output (there is exactly one).
    Scalar(fn(&Attrs) -> Expr),
    /// Injective: output `k`'s map from output to input coordinates, given the (known)
    /// input and output shapes.
    Injective(IndexMapFn),
    /// A reduction of input 0, given its shape and the output's. The output holds the
    /// kept axes in order: all of them (reduced ones of size 1), only the kept ones, or
    /// the trailing ones (a gradient summed back to a broadcast input's shape).
    Reduce(ReduceFn),
    /// A named library kernel (gemm, conv, pooling, norms, ...) with its naive reference.
    Library {
        kernel: &'static str,
        reference: RefKernel,
    },
}

/// The reduction an operator performs, given its attributes and its input and output shapes.
pub type ReduceFn = fn(&Attrs, &[usize], &[usize]) -> Result<Reduction, OpError>;

/// A handle to an entry of the graph a gradient rule is building (an opaque id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Handle(pub usize);

/// What gradient rules build the backward pass with: operator applications, so every
/// backend and pass sees the backward graph like any other.
pub trait GradGraph {
    /// Applies `op` (attributes as MXNet strings) to `inputs`; returns all its outputs.
    fn op(
        &mut self,
        op: &str,
        inputs: &[Handle],
        attrs: &[(&str, &str)],
    ) -> Result<Vec<Handle>, OpError>;
}

/// The forward node a gradient rule differentiates.
pub struct GradCtx<'a> {
    pub attrs: &'a Attrs,
    /// The node's attributes as given (to copy onto backward operators).
    pub raw_attrs: &'a [(&'a str, &'a str)],
    pub inputs: &'a [Handle],
    /// Every output, hidden ones included.
    pub outputs: &'a [Handle],
    /// The gradient of every output (zeros where none flows).
    pub out_grads: &'a [Handle],
}

/// A gradient rule: the gradient of each input (`None`: zero, or not needed).
pub type GradFn = fn(&mut dyn GradGraph, &GradCtx) -> Result<Vec<Option<Handle>>, OpError>;

/// New values of an operator's mutable inputs after a training step (BatchNorm's moving
/// statistics), one per entry of `mutable_inputs`, built from the forward node.
pub type AuxUpdateFn = fn(&mut dyn GradGraph, &GradCtx) -> Result<Vec<Handle>, OpError>;

/// How an operator is differentiated.
#[derive(Clone, Copy)]
pub enum Grad {
    /// No gradient: asking for one through this operator is an error.
    NotDifferentiable,
    /// A zero gradient for every input (BlockGrad).
    Zero,
    /// Derived from the scalar expression by symbolic differentiation (`_backward_elemwise`);
    /// broadcast inputs are summed back to their shape.
    Elemwise,
    /// An explicit rule.
    Rule(GradFn),
}

/// Input names: fixed, or derived from the parameters (`no_bias`, `num_args`).
#[derive(Clone, Copy)]
pub enum Inputs {
    Fixed(&'static [&'static str]),
    Dynamic(fn(&Attrs) -> Vec<String>),
}

/// Output names and how many are visible (the rest are hidden, e.g. BatchNorm's mean/var).
#[derive(Clone, Copy)]
pub enum Outputs {
    Fixed {
        names: &'static [&'static str],
        visible: usize,
    },
    Dynamic(fn(&Attrs) -> (Vec<String>, usize)),
}

/// A resource an operator asks the runtime for. (Working space is not one: a native
/// kernel declares what it needs, `Native::scratch`, and the compiled program's layout
/// places every product's workspace.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// The counter-based random generator (its state is an engine variable).
    Random,
}

pub type ShapeFn = fn(&Attrs, &mut [Shape], &mut [Shape]) -> Result<(), OpError>;
pub type DTypeFn = fn(&Attrs, &mut [Option<DType>], &mut [Option<DType>]) -> Result<(), OpError>;
/// FLOPs of one evaluation, given known input and output shapes.
pub type CostFn = fn(&Attrs, &[Shape], &[Shape]) -> u64;

/// One operator.
pub struct OpDef {
    /// MXNet's canonical name (what JSON stores).
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub doc: &'static str,
    pub params: &'static [ParamDef],
    pub inputs: Inputs,
    pub outputs: Outputs,
    /// The parameter holding the number of variadic inputs (Concat's `num_args`), which the
    /// Symbol API fills in from the call.
    pub num_args_param: Option<&'static str>,
    /// Inputs the operator writes (aux states such as BatchNorm's moving statistics).
    pub mutable_inputs: &'static [usize],
    pub pattern: Pattern,
    pub compute: Compute,
    pub infer_shape: ShapeFn,
    pub infer_dtype: DTypeFn,
    /// (input, output) pairs where the output may take the input's buffer.
    pub inplace: &'static [(usize, usize)],
    pub resources: &'static [Resource],
    /// Random or stateful: never merged by CSE nor folded as a constant.
    pub side_effect: bool,
    pub cost: CostFn,
    /// Storage dtypes the operator supports.
    pub dtypes: &'static [DType],
    pub grad: Grad,
    /// The derivative of a unary element-wise operator written with its output (`x0` is
    /// y): relu `y > 0`, sigmoid `y(1−y)`, tanh `1−y²`, exp `y`. The backward pass then reads
    /// the output, so the input need not stay alive.
    pub grad_from_output: Option<fn(&Attrs) -> Expr>,
    /// A loss: its gradient ignores the head gradient (SoftmaxOutput, the regression
    /// outputs), so as a graph output it needs none.
    pub loss: bool,
    /// How a training step updates the mutable inputs (`None`: they do not change).
    pub aux_update: Option<AuxUpdateFn>,
    /// What a library operator computes as a contraction, for compilers that lower it to
    /// loops (checked against the reference kernel on MXNet's fixtures).
    pub contraction: Option<crate::contraction::ContractionFn>,
    /// The same computation built from other operators, for compilers that fuse those
    /// (softmax as max, exp, sum and a division); an error where it does not apply.
    pub expand: Option<ExpandFn>,
    /// The reference algorithm on f32 buffers, for CPU backends (`crate::native`).
    pub native: Option<crate::native::Native>,
    // What graph passes recognize an operator by, so that they rewrite any operator
    // declaring it rather than a list of names.
    /// Where the first output is the first input, which passes then read instead.
    pub identity: Identity,
    /// How `op(op(x))` becomes one application to `x` (`None`: it does not).
    pub composes: Option<ComposeFn>,
    /// A per-channel normalization by statistics given as inputs (BatchNorm's).
    pub channel_norm: Option<fn(&Attrs) -> ChannelNorm>,
    /// Output channel `c` is the data contracted with slice `c` of the weight (input 1)
    /// along its first axis, plus bias `c` (input 2, absent under `no_bias`): scaling both
    /// scales the channel, so a per-channel scale and shift of the output folds into
    /// them. Gives the values of a normalization's `axis` that name the output's channel
    /// axis whatever its rank.
    pub channel_weights: Option<fn(&Attrs) -> &'static [i64]>,
    /// A convolution, with Convolution's parameters (kernel, stride, dilate, pad,
    /// num_group, layout) and inputs (data, weight, bias).
    pub convolution: Option<ConvKind>,
    /// Its first output built again from its inputs and its other outputs, where that is
    /// cheap (BatchNorm in training: a scale and shift by the batch statistics it output),
    /// so a training program may recompute it in backward instead of keeping it.
    pub recompute: Option<RecomputeFn>,
    /// Whether, in inference, each sample of the outputs depends only on the same sample
    /// of the inputs that carry the batch (declared where the computation does not show
    /// it: element-wise operators and reductions that keep the first axis are per sample
    /// by their `Compute`).
    pub per_sample: PerSample,
}

/// Whether an operator computes each sample on its own, in inference: sample `i` of every
/// visible output (index `i` along its first axis) depends only on sample `i` of the
/// inputs that carry the batch, and on the other inputs (weights, statistics) the same way
/// for every sample. Then a batch may run in parts (an inference program runs its
/// per-sample prefix a few samples at a time, `kiln_compiler::program::parts`).
#[derive(Clone, Copy)]
pub enum PerSample {
    /// Not known to (the default): the batch runs whole through it.
    Never,
    /// Always (a convolution, pooling; BatchNorm on its moving statistics).
    Always,
    /// Where the attributes and the input and output shapes say so (a softmax not along
    /// the first axis, a reshape that keeps it).
    Where(fn(&Attrs, &[Shape], &[Shape]) -> bool),
}

impl PerSample {
    /// Whether an application with these attributes and shapes is per sample.
    pub fn holds(&self, attrs: &Attrs, ins: &[Shape], outs: &[Shape]) -> bool {
        match self {
            PerSample::Never => false,
            PerSample::Always => true,
            PerSample::Where(f) => f(attrs, ins, outs),
        }
    }

    /// Per sample where an axis parameter does not name the first axis (negative values
    /// count from the last axis of the first input).
    pub fn axis_not_first(attrs: &Attrs, param: &str, ins: &[Shape]) -> bool {
        let rank = ins.first().map_or(0, Vec::len) as i64;
        let axis = attrs.int(param);
        rank > 1 && (if axis < 0 { axis + rank } else { axis }) > 0
    }
}

/// Where an operator is the identity on its first input.
#[derive(Clone, Copy)]
pub enum Identity {
    /// Nowhere (the default).
    Never,
    /// Always, gradient included (`_copy`): an alias.
    Always,
    /// In every mode, where the attributes say so (`x * 1`, `x - 0`).
    Where(fn(&Attrs) -> bool),
    /// In inference, where the attributes say so: the forward pass is the identity and
    /// only training differs (BlockGrad's gradient, Dropout's mask unless mode=always).
    /// Hidden outputs, such as the mask, must go unread.
    InInference(fn(&Attrs) -> bool),
}

/// `op(op(x))` as one application of `op` to `x`.
#[derive(Clone, Debug, PartialEq)]
pub enum Composed {
    /// `x` itself.
    Identity,
    /// The outer application with these attributes set (MXNet strings), applied to `x`.
    Outer(Vec<(&'static str, String)>),
}

/// Composes an operator with one output applied to its own output, given the outer and
/// the inner application's attributes; `None` where they do not compose.
pub type ComposeFn = fn(outer: &Attrs, inner: &Attrs) -> Option<Composed>;

/// A normalization whose inputs are (data, gamma, beta, mean, var): in inference,
/// `y = (x − mean)·gamma/√(var + eps) + beta` per channel along `axis`, a scale and shift
/// (gamma = 1 under `fix_gamma`). Its hidden outputs are statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChannelNorm {
    pub axis: i64,
    pub eps: f64,
    pub fix_gamma: bool,
}

/// Which convolution an operator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvKind {
    /// Convolution (cross-correlation).
    Direct,
    /// Deconvolution: the direct convolution's gradient with respect to its data.
    Transposed,
}

/// What an expansion may depend on besides attributes: the mode (training or inference:
/// BatchNorm computes different things) and the inputs' shapes and dtypes where they are
/// known (empty where not).
pub struct ExpandCtx<'a> {
    pub training: bool,
    pub shapes: &'a [Shape],
    pub dtypes: &'a [Option<DType>],
}

/// Builds an operator's outputs (every output, hidden ones too) from other operators,
/// given its attributes and inputs; an error declines (the operator stays).
pub type ExpandFn =
    fn(&mut dyn GradGraph, &Attrs, &[Handle], &ExpandCtx) -> Result<Vec<Handle>, OpError>;

/// Builds an operator's first output from other operators, given its attributes, its
/// inputs and its other outputs (in training); an error declines before adding a node.
pub type RecomputeFn =
    fn(&mut dyn GradGraph, &Attrs, &[Handle], &[Handle], &ExpandCtx) -> Result<Handle, OpError>;

fn output_elems(_: &Attrs, _: &[Shape], outs: &[Shape]) -> u64 {
    outs.iter()
        .map(|s| s.iter().fold(1u64, |n, &d| n.saturating_mul(d as u64)))
        .fold(0, u64::saturating_add)
}

impl OpDef {
    /// A definition with the common defaults: one input `data`, one output, same shape and
    /// dtype everywhere, in-place allowed, no parameters, every float dtype.
    pub const fn new(name: &'static str, pattern: Pattern, compute: Compute) -> OpDef {
        OpDef {
            name,
            aliases: &[],
            doc: "",
            params: &[],
            inputs: Inputs::Fixed(&["data"]),
            outputs: Outputs::Fixed {
                names: &["output"],
                visible: 1,
            },
            num_args_param: None,
            mutable_inputs: &[],
            pattern,
            compute,
            infer_shape: shape::same_shape,
            infer_dtype: shape::same_dtype,
            inplace: &[(0, 0)],
            resources: &[],
            side_effect: false,
            cost: output_elems,
            dtypes: &DType::FLOATS,
            grad: match compute {
                Compute::Scalar(_) => Grad::Elemwise,
                _ => Grad::NotDifferentiable,
            },
            grad_from_output: None,
            loss: false,
            aux_update: None,
            contraction: None,
            native: None,
            expand: None,
            identity: Identity::Never,
            composes: None,
            channel_norm: None,
            channel_weights: None,
            convolution: None,
            recompute: None,
            per_sample: PerSample::Never,
        }
    }

    pub fn input_names(&self, attrs: &Attrs) -> Vec<String> {
        match self.inputs {
            Inputs::Fixed(names) => names.iter().map(|s| s.to_string()).collect(),
            Inputs::Dynamic(f) => f(attrs),
        }
    }

    /// All output names (hidden ones included) and the number of visible outputs.
    pub fn output_names(&self, attrs: &Attrs) -> (Vec<String>, usize) {
        match self.outputs {
            Outputs::Fixed { names, visible } => {
                (names.iter().map(|s| s.to_string()).collect(), visible)
            }
            Outputs::Dynamic(f) => f(attrs),
        }
    }

    /// The parameters with their defaults, and a stand-in value for each required one: what
    /// documentation and generated builders use to list inputs and outputs.
    pub fn nominal_attrs(&self) -> Option<Attrs> {
        let raw = self
            .params
            .iter()
            .filter(|p| p.default.is_none())
            .map(|p| (p.name.to_string(), p.ty.placeholder().to_string()))
            .collect();
        Attrs::parse(self.params, &raw).ok()
    }

    /// Input and output names under [`OpDef::nominal_attrs`].
    pub fn nominal_signature(&self) -> (Vec<String>, Vec<String>) {
        match self.nominal_attrs() {
            Some(a) => (self.input_names(&a), self.output_names(&a).0),
            None => (vec![], vec![]),
        }
    }

    /// Whether `name` (canonical or alias) names this operator.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }
}

impl std::fmt::Debug for OpDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpDef({})", self.name)
    }
}

#[cfg(test)]
mod coverage {
    use crate::{registry, ConvKind, Identity, OpDef, PerSample};

    /// Passes find the operators they rewrite by these properties alone: an operator that
    /// lost its declaration would silently stop being rewritten.
    #[test]
    fn operators_passes_rewrite_declare_what_they_are_recognized_by() {
        type Has = fn(&OpDef) -> bool;
        let wanted: &[(&str, Has, &[&str])] = &[
            (
                "identity: Always",
                |op| matches!(op.identity, Identity::Always),
                &["_copy"],
            ),
            (
                "identity: InInference",
                |op| matches!(op.identity, Identity::InInference(_)),
                &["BlockGrad", "Dropout"],
            ),
            (
                "identity: Where",
                |op| matches!(op.identity, Identity::Where(_)),
                &[
                    "_mul_scalar",
                    "_div_scalar",
                    "_plus_scalar",
                    "_minus_scalar",
                ],
            ),
            (
                "composes",
                |op| op.composes.is_some(),
                &["transpose", "Reshape"],
            ),
            (
                "channel_norm",
                |op| op.channel_norm.is_some(),
                &["BatchNorm"],
            ),
            (
                "channel_weights",
                |op| op.channel_weights.is_some(),
                &["Convolution", "FullyConnected"],
            ),
            (
                "convolution: Direct",
                |op| op.convolution == Some(ConvKind::Direct),
                &["Convolution"],
            ),
            (
                "convolution: Transposed",
                |op| op.convolution == Some(ConvKind::Transposed),
                &["Deconvolution"],
            ),
            ("recompute", |op| op.recompute.is_some(), &["BatchNorm"]),
            (
                "per_sample",
                |op| !matches!(op.per_sample, PerSample::Never),
                &[
                    "Convolution",
                    "Deconvolution",
                    "FullyConnected",
                    "Pooling",
                    "LRN",
                    "BatchNorm",
                    "LayerNorm",
                    "InstanceNorm",
                    "GroupNorm",
                    "L2Normalization",
                    "LeakyReLU",
                    "UpSampling",
                    "SoftmaxOutput",
                    "softmax",
                    "log_softmax",
                    "SoftmaxActivation",
                    "Flatten",
                    "Reshape",
                    "expand_dims",
                    "Concat",
                    "transpose",
                ],
            ),
        ];
        let missing: Vec<String> = wanted
            .iter()
            .flat_map(|&(property, has, names)| {
                (names.iter())
                    .filter(move |&&name| !registry().get(name).is_some_and(has))
                    .map(move |name| format!("{name} ({property})"))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "operators without the property passes recognize them by: {missing:?}"
        );
    }
}
