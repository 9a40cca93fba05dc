//! Unary element-wise operators and activations.

use crate::param::{param, ParamType};
use crate::shape::OpError;
use crate::{c, x, Attrs, Compute, DType, Expr, Grad, Identity, OpDef, Pattern, Registry};

const fn unary(name: &'static str, doc: &'static str, f: fn(&Attrs) -> Expr) -> OpDef {
    OpDef {
        doc,
        ..OpDef::new(name, Pattern::ElemWise, Compute::Scalar(f))
    }
}

static RELU: OpDef = OpDef {
    grad_from_output: Some(|_| dy_relu()),
    ..unary("relu", "max(x, 0)", |_| relu(x(0)))
};
static SIGMOID: OpDef = OpDef {
    grad_from_output: Some(|_| dy_sigmoid()),
    ..unary("sigmoid", "1 / (1 + exp(-x))", |_| x(0).sigmoid())
};
static TANH: OpDef = OpDef {
    grad_from_output: Some(|_| dy_tanh()),
    ..unary("tanh", "hyperbolic tangent", |_| x(0).tanh())
};
static EXP: OpDef = OpDef {
    grad_from_output: Some(|_| x(0)),
    ..unary("exp", "e^x", |_| x(0).exp())
};

// Derivatives in terms of the output y = x(0), as MXNet's backward kernels take them.
fn dy_relu() -> Expr {
    x(0).gt(c(0.0)).select(c(1.0), c(0.0))
}
fn dy_sigmoid() -> Expr {
    x(0) * (c(1.0) - x(0))
}
fn dy_tanh() -> Expr {
    c(1.0) - x(0) * x(0)
}
static LOG: OpDef = unary("log", "natural logarithm", |_| x(0).log());
static SQRT: OpDef = unary("sqrt", "square root", |_| x(0).sqrt());
static SQUARE: OpDef = OpDef {
    dtypes: &DType::NUMERIC,
    ..unary("square", "x * x", |_| x(0) * x(0))
};
static ABS: OpDef = OpDef {
    dtypes: &DType::NUMERIC,
    ..unary("abs", "|x|", |_| x(0).abs())
};
static NEGATIVE: OpDef = OpDef {
    dtypes: &DType::NUMERIC,
    ..unary("negative", "-x", |_| -x(0))
};
static COPY: OpDef = OpDef {
    aliases: &["identity"],
    dtypes: &DType::ALL,
    identity: Identity::Always,
    ..unary("_copy", "returns a copy of the input", |_| x(0))
};
static BLOCK_GRAD: OpDef = OpDef {
    aliases: &["stop_gradient"],
    dtypes: &DType::ALL,
    grad: Grad::Zero,
    identity: Identity::InInference(|_| true),
    ..unary(
        "BlockGrad",
        "identity in the forward pass; stops gradients in the backward pass",
        |_| x(0),
    )
};

static ONES_LIKE: OpDef = OpDef {
    doc: "Ones of the input's shape and dtype.",
    dtypes: &DType::ALL,
    grad: Grad::Zero,
    ..unary("ones_like", "ones of the input's shape and dtype", |_| {
        c(1.0)
    })
};

fn relu(e: Expr) -> Expr {
    e.clone().gt(c(0.0)).select(e, c(0.0))
}

/// mshadow's softrelu: `log(1 + e^x)`, linear above 20 where the exponential would overflow.
fn softrelu(e: Expr) -> Expr {
    e.clone().gt(c(20.0)).select(e.clone(), e.exp().log1p())
}

static ACTIVATION: OpDef = OpDef {
    doc: "Applies an activation function element-wise (relu, sigmoid, tanh, softrelu, softsign).",
    params: &[param(
        "act_type",
        ParamType::Enum(&["relu", "sigmoid", "tanh", "softrelu", "softsign"]),
        None,
        "activation function",
    )],
    grad_from_output: Some(activation_dy),
    ..OpDef::new("Activation", Pattern::ElemWise, Compute::Scalar(activation))
};

/// Each activation's derivative from its output: softrelu y = log(1+eˣ) has
/// dy/dx = 1 − e^(−y); softsign y = x/(1+|x|) has dy/dx = (1 − |y|)².
fn activation_dy(a: &Attrs) -> Expr {
    match a.str("act_type") {
        "relu" => dy_relu(),
        "sigmoid" => dy_sigmoid(),
        "tanh" => dy_tanh(),
        "softrelu" => c(1.0) - (-x(0)).exp(),
        _ => (c(1.0) - x(0).abs()) * (c(1.0) - x(0).abs()),
    }
}

fn activation(a: &Attrs) -> Expr {
    match a.str("act_type") {
        "relu" => relu(x(0)),
        "sigmoid" => x(0).sigmoid(),
        "tanh" => x(0).tanh(),
        "softrelu" => softrelu(x(0)),
        _ => x(0) / (c(1.0) + x(0).abs()), // softsign
    }
}

static CLIP: OpDef = OpDef {
    doc: "Clips values to [a_min, a_max].",
    params: &[
        param("a_min", ParamType::Float, None, "minimum value"),
        param("a_max", ParamType::Float, None, "maximum value"),
    ],
    dtypes: &DType::NUMERIC,
    ..OpDef::new("clip", Pattern::ElemWise, Compute::Scalar(clip))
};

fn clip(a: &Attrs) -> Expr {
    let (lo, hi) = (c(a.float("a_min")), c(a.float("a_max")));
    x(0).gt(hi.clone())
        .select(hi, x(0).lt(lo.clone()).select(lo, x(0)))
}

static CAST: OpDef = OpDef {
    aliases: &["cast"],
    doc: "Casts to another dtype.",
    params: &[param("dtype", ParamType::DType, None, "output dtype")],
    infer_dtype: cast_dtype,
    inplace: &[],
    dtypes: &DType::ALL,
    ..OpDef::new("Cast", Pattern::ElemWise, Compute::Scalar(|_| x(0)))
};

fn cast_dtype(
    a: &Attrs,
    _: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    let want = a.dtype("dtype");
    match outs[0] {
        Some(have) if have != want => Err(OpError::DType {
            slot: crate::Slot::Out(0),
            have,
            want,
        }),
        _ => {
            outs[0] = Some(want);
            Ok(())
        }
    }
}

pub fn register(r: &mut Registry) {
    for op in [
        &RELU,
        &SIGMOID,
        &TANH,
        &EXP,
        &LOG,
        &SQRT,
        &SQUARE,
        &ABS,
        &NEGATIVE,
        &COPY,
        &BLOCK_GRAD,
        &ONES_LIKE,
        &ACTIVATION,
        &CLIP,
        &CAST,
    ] {
        r.add(op);
    }
}
