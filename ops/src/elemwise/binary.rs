//! Binary element-wise arithmetic: same-shape (`elemwise_*`, `add_n`), NumPy-broadcast
//! (`broadcast_*`) and with a scalar parameter (`_*_scalar`).

use crate::param::{param, ParamDef, ParamType};
use crate::shape::{self, OpError, Shape, Slot};
use crate::{c, x, Attrs, Compute, DType, Expr, Identity, Inputs, OpDef, Pattern, Registry};

const LHS_RHS: Inputs = Inputs::Fixed(&["lhs", "rhs"]);

pub(super) const fn elemwise(
    name: &'static str,
    aliases: &'static [&'static str],
    f: fn(&Attrs) -> Expr,
) -> OpDef {
    OpDef {
        aliases,
        doc: "element-wise on two inputs of the same shape",
        inputs: LHS_RHS,
        inplace: &[(0, 0), (1, 0)],
        dtypes: &DType::NUMERIC,
        ..OpDef::new(name, Pattern::ElemWise, Compute::Scalar(f))
    }
}

static ADD: OpDef = elemwise("elemwise_add", &["_plus", "_add", "_Plus"], |_| x(0) + x(1));
static SUB: OpDef = elemwise("elemwise_sub", &["_minus", "_sub", "_Minus"], |_| {
    x(0) - x(1)
});
static MUL: OpDef = elemwise("elemwise_mul", &["_mul", "_Mul"], |_| x(0) * x(1));
static DIV: OpDef = elemwise("elemwise_div", &["_div", "_Div"], |_| x(0) / x(1));

static ADD_N: OpDef = OpDef {
    aliases: &["ElementWiseSum"],
    doc: "Sums any number of same-shape inputs.",
    params: &[param("num_args", ParamType::Int, None, "number of inputs")],
    inputs: Inputs::Dynamic(numbered_args),
    num_args_param: Some("num_args"),
    dtypes: &DType::NUMERIC,
    ..OpDef::new("add_n", Pattern::ElemWise, Compute::Scalar(sum_of_inputs))
};

/// `arg0, arg1, ...` for operators with a `num_args` parameter.
pub(crate) fn numbered_args(a: &Attrs) -> Vec<String> {
    (0..a.int("num_args").max(0))
        .map(|i| format!("arg{i}"))
        .collect()
}

/// `x0 + x1 + ...` as a balanced tree of sums (as the left-to-right sum up to three
/// inputs): a sum of many inputs stays a shallow expression, and whatever walks
/// expressions recurses.
fn sum_of_inputs(a: &Attrs) -> Expr {
    fn sum(lo: usize, hi: usize) -> Expr {
        if hi - lo == 1 {
            return x(lo);
        }
        let mid = lo + (hi - lo).div_ceil(2);
        sum(lo, mid) + sum(mid, hi)
    }
    sum(0, a.int("num_args").max(1) as usize)
}

pub(super) const fn broadcasting(
    name: &'static str,
    aliases: &'static [&'static str],
    f: fn(&Attrs) -> Expr,
) -> OpDef {
    OpDef {
        aliases,
        doc: "element-wise on two inputs with NumPy broadcasting",
        inputs: LHS_RHS,
        infer_shape: broadcast_shape,
        inplace: &[],
        dtypes: &DType::NUMERIC,
        ..OpDef::new(name, Pattern::Broadcast, Compute::Scalar(f))
    }
}

static BROADCAST_ADD: OpDef = broadcasting("broadcast_add", &["broadcast_plus"], |_| x(0) + x(1));
static BROADCAST_SUB: OpDef = broadcasting("broadcast_sub", &["broadcast_minus"], |_| x(0) - x(1));
static BROADCAST_MUL: OpDef = broadcasting("broadcast_mul", &[], |_| x(0) * x(1));
static BROADCAST_DIV: OpDef = broadcasting("broadcast_div", &[], |_| x(0) / x(1));

pub(super) fn broadcast_shape(
    _: &Attrs,
    ins: &mut [Shape],
    outs: &mut [Shape],
) -> Result<(), OpError> {
    if shape::is_known(&ins[0]) && shape::is_known(&ins[1]) {
        let out = shape::broadcast(&ins[0], &ins[1])?;
        shape::set_out(outs, 0, &out)?;
    }
    Ok(())
}

const SCALAR_PARAMS: &[ParamDef] = &[
    param("scalar", ParamType::Float, Some("1.0"), "scalar operand"),
    param(
        "is_int",
        ParamType::Bool,
        Some("True"),
        "whether the scalar is an integer (MXNet 1.9)",
    ),
];

pub(super) const fn with_scalar(
    name: &'static str,
    aliases: &'static [&'static str],
    f: fn(&Attrs) -> Expr,
) -> OpDef {
    OpDef {
        aliases,
        doc: "element-wise with a scalar parameter",
        params: SCALAR_PARAMS,
        infer_dtype: scalar_dtype,
        dtypes: &DType::NUMERIC,
        ..OpDef::new(name, Pattern::ElemWise, Compute::Scalar(f))
    }
}

/// The `scalar` parameter as a constant.
///
/// MXNet 1.9 casts the scalar to an integer input's dtype when `is_int` is true (so
/// `int32 x == 2.5` compares with 2); the expression cannot see dtypes and keeps the
/// scalar as written, which agrees whenever an integer scalar is declared as one.
pub(super) fn s(a: &Attrs) -> Expr {
    c(a.float("scalar"))
}

/// MXNet 1.9's scalar operators: an integer input with `is_int=False` computes in float64
/// (the scalar is a real number, so the result may be one); otherwise the output has the
/// input's dtype.
pub(super) fn scalar_dtype(
    a: &Attrs,
    ins: &mut [Option<DType>],
    outs: &mut [Option<DType>],
) -> Result<(), OpError> {
    if a.bool("is_int") {
        return shape::same_dtype(a, ins, outs);
    }
    match (ins[0], outs[0]) {
        (Some(d), out) if !d.is_float() => match out {
            Some(o) if o != DType::F64 => Err(OpError::DType {
                slot: Slot::Out(0),
                have: o,
                want: DType::F64,
            }),
            _ => {
                outs[0] = Some(DType::F64);
                Ok(())
            }
        },
        (Some(_), _) => shape::same_dtype(a, ins, outs),
        // A float64 output may come from an integer input: only other floats say what the
        // input is.
        (None, Some(o)) if o != DType::F64 => shape::same_dtype(a, ins, outs),
        _ => Ok(()),
    }
}

/// Whether the scalar is exactly `v`, sign of zero included: `x - 0` and `x + (-0)` are `x`
/// bit for bit, `x + 0` is not (`-0 + 0 = +0`).
fn scalar_is(a: &Attrs, v: f64) -> bool {
    a.float("scalar").to_bits() == v.to_bits()
}

static PLUS_SCALAR: OpDef = OpDef {
    identity: Identity::Where(|a| scalar_is(a, -0.0)),
    ..with_scalar("_plus_scalar", &["_PlusScalar"], |a| x(0) + s(a))
};
static MINUS_SCALAR: OpDef = OpDef {
    identity: Identity::Where(|a| scalar_is(a, 0.0)),
    ..with_scalar("_minus_scalar", &["_MinusScalar"], |a| x(0) - s(a))
};
static RMINUS_SCALAR: OpDef = with_scalar("_rminus_scalar", &["_RMinusScalar"], |a| s(a) - x(0));
static MUL_SCALAR: OpDef = OpDef {
    identity: Identity::Where(|a| scalar_is(a, 1.0)),
    ..with_scalar("_mul_scalar", &["_MulScalar"], |a| x(0) * s(a))
};
static DIV_SCALAR: OpDef = OpDef {
    identity: Identity::Where(|a| scalar_is(a, 1.0)),
    ..with_scalar("_div_scalar", &["_DivScalar"], |a| x(0) / s(a))
};
static RDIV_SCALAR: OpDef = with_scalar("_rdiv_scalar", &["_RDivScalar"], |a| s(a) / x(0));

pub fn register(r: &mut Registry) {
    for op in [
        &ADD,
        &SUB,
        &MUL,
        &DIV,
        &ADD_N,
        &BROADCAST_ADD,
        &BROADCAST_SUB,
        &BROADCAST_MUL,
        &BROADCAST_DIV,
        &PLUS_SCALAR,
        &MINUS_SCALAR,
        &RMINUS_SCALAR,
        &MUL_SCALAR,
        &DIV_SCALAR,
        &RDIV_SCALAR,
    ] {
        r.add(op);
    }
}
