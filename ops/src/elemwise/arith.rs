//! More binary arithmetic — `mod`, `power`, `maximum`, `minimum`, `hypot` — in MXNet's three
//! forms: same shape (`_mod`), NumPy broadcasting (`broadcast_mod`) and with a scalar
//! parameter (`_mod_scalar`, and the reversed `_rmod_scalar` where order matters).
//!
//! Gradients are derived from the expressions: mod's is 1 and −floor(a/b) (MXNet's
//! mod_grad/mod_rgrad), maximum and minimum send it to the left operand on ties (as
//! `_backward_maximum` does), and NaN propagates through both (mshadow's 1.9 kernels).

use super::binary::{broadcasting, elemwise, s, with_scalar};
use crate::{x, DType, OpDef, Registry};

// What each computes, shared by its three forms.
const MOD_DOC: &str = "Remainder with the divisor's sign (Python's `%`); 0 where the divisor is 0.";
const POWER_DOC: &str = "`lhs` raised to the power `rhs`.";
const MAXIMUM_DOC: &str = "Element-wise maximum; NaN in either operand propagates.";
const MINIMUM_DOC: &str = "Element-wise minimum; NaN in either operand propagates.";
const HYPOT_DOC: &str = "√(lhs² + rhs²), without overflow in the squares.";

static MOD: OpDef = OpDef {
    doc: MOD_DOC,
    ..elemwise("_mod", &["_Mod"], |_| x(0).modulo(x(1)))
};
static POWER: OpDef = OpDef {
    doc: POWER_DOC,
    ..elemwise("_power", &["_Power"], |_| x(0).pow(x(1)))
};
static MAXIMUM: OpDef = OpDef {
    doc: MAXIMUM_DOC,
    ..elemwise("_maximum", &["_Maximum"], |_| x(0).max(x(1)))
};
static MINIMUM: OpDef = OpDef {
    doc: MINIMUM_DOC,
    ..elemwise("_minimum", &["_Minimum"], |_| x(0).min(x(1)))
};
static HYPOT: OpDef = OpDef {
    doc: HYPOT_DOC,
    dtypes: &DType::FLOATS,
    ..elemwise("_hypot", &["_Hypot"], |_| x(0).hypot(x(1)))
};

static BROADCAST_MOD: OpDef = OpDef {
    doc: MOD_DOC,
    ..broadcasting("broadcast_mod", &[], |_| x(0).modulo(x(1)))
};
static BROADCAST_POWER: OpDef = OpDef {
    doc: POWER_DOC,
    ..broadcasting("broadcast_power", &[], |_| x(0).pow(x(1)))
};
static BROADCAST_MAXIMUM: OpDef = OpDef {
    doc: MAXIMUM_DOC,
    ..broadcasting("broadcast_maximum", &[], |_| x(0).max(x(1)))
};
static BROADCAST_MINIMUM: OpDef = OpDef {
    doc: MINIMUM_DOC,
    ..broadcasting("broadcast_minimum", &[], |_| x(0).min(x(1)))
};
static BROADCAST_HYPOT: OpDef = OpDef {
    doc: HYPOT_DOC,
    dtypes: &DType::FLOATS,
    ..broadcasting("broadcast_hypot", &[], |_| x(0).hypot(x(1)))
};

static MOD_SCALAR: OpDef = OpDef {
    doc: "`data % scalar`, with the scalar's sign (Python's `%`); 0 where the scalar is 0.",
    ..with_scalar("_mod_scalar", &["_ModScalar"], |a| x(0).modulo(s(a)))
};
static RMOD_SCALAR: OpDef = OpDef {
    doc: "`scalar % data`, with data's sign (Python's `%`); 0 where data is 0.",
    ..with_scalar("_rmod_scalar", &["_RModScalar"], |a| s(a).modulo(x(0)))
};
static POWER_SCALAR: OpDef = OpDef {
    doc: "`data ** scalar`.",
    ..with_scalar("_power_scalar", &["_PowerScalar"], |a| x(0).pow(s(a)))
};
static RPOWER_SCALAR: OpDef = OpDef {
    doc: "`scalar ** data`.",
    ..with_scalar("_rpower_scalar", &["_RPowerScalar"], |a| s(a).pow(x(0)))
};
static MAXIMUM_SCALAR: OpDef = OpDef {
    doc: "max(data, scalar); NaN in data propagates.",
    ..with_scalar("_maximum_scalar", &["_MaximumScalar"], |a| x(0).max(s(a)))
};
static MINIMUM_SCALAR: OpDef = OpDef {
    doc: "min(data, scalar); NaN in data propagates.",
    ..with_scalar("_minimum_scalar", &["_MinimumScalar"], |a| x(0).min(s(a)))
};
static HYPOT_SCALAR: OpDef = OpDef {
    doc: "√(data² + scalar²).",
    dtypes: &DType::FLOATS,
    ..with_scalar("_hypot_scalar", &["_HypotScalar"], |a| x(0).hypot(s(a)))
};

pub fn register(r: &mut Registry) {
    for op in [
        &MOD,
        &POWER,
        &MAXIMUM,
        &MINIMUM,
        &HYPOT,
        &BROADCAST_MOD,
        &BROADCAST_POWER,
        &BROADCAST_MAXIMUM,
        &BROADCAST_MINIMUM,
        &BROADCAST_HYPOT,
        &MOD_SCALAR,
        &RMOD_SCALAR,
        &POWER_SCALAR,
        &RPOWER_SCALAR,
        &MAXIMUM_SCALAR,
        &MINIMUM_SCALAR,
        &HYPOT_SCALAR,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{run, t, tensor};
    use crate::{DType, Tensor};

    fn binary(op: &str, a: &[f64], b: &[f64]) -> Vec<f64> {
        let n = a.len();
        run(op, &[], &[tensor(&[n], a), tensor(&[n], b)], false).unwrap()[0]
            .data
            .clone()
    }

    #[test]
    fn mod_follows_the_divisor_sign_in_every_form() {
        let (a, b) = (
            [5.0, -5.0, 5.0, -5.0, 5.5, -5.5, 7.0],
            [3.0, 3.0, -3.0, -3.0, 2.0, 2.0, 0.0],
        );
        let want = [2.0, 1.0, -1.0, -2.0, 1.5, 0.5, 0.0];
        assert_eq!(binary("_mod", &a, &b), want);
        assert_eq!(binary("broadcast_mod", &a, &b), want);
        let g = run(
            "_mod_scalar",
            &[("scalar", "-3")],
            &[tensor(&[4], &[5.0, -5.0, 6.0, -0.5])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, [-1.0, -2.0, 0.0, -0.5]);
        let g = run(
            "_rmod_scalar",
            &[("scalar", "-7")],
            &[tensor(&[4], &[3.0, -3.0, 7.0, 0.0])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, [2.0, -1.0, 0.0, 0.0]);
        // Integers: the same rule, exactly.
        let i = |v: &[f64]| Tensor::new(DType::I32, vec![v.len()], v.to_vec());
        let g = run(
            "_mod",
            &[],
            &[i(&[-7.0, 7.0, 9.0]), i(&[2.0, -2.0, 0.0])],
            false,
        )
        .unwrap();
        assert_eq!(
            (g[0].dtype, g[0].data.clone()),
            (DType::I32, vec![1.0, -1.0, 0.0])
        );
    }

    #[test]
    fn power_maximum_minimum_hypot() {
        let p = binary("_power", &[2.0, -2.0, 0.0, 4.0], &[3.0, 0.5, -1.0, -0.5]);
        assert_eq!(p[0], 8.0);
        assert!(p[1].is_nan());
        assert_eq!(p[2..], [f64::INFINITY, 0.5]);
        let nan = f64::NAN;
        for op in [
            "_maximum",
            "broadcast_maximum",
            "_minimum",
            "broadcast_minimum",
        ] {
            let m = binary(op, &[nan, 1.0, 3.0], &[1.0, nan, -3.0]);
            assert!(m[0].is_nan() && m[1].is_nan(), "{op}: {m:?}");
            assert_eq!(m[2], if op.contains("max") { 3.0 } else { -3.0 });
        }
        assert_eq!(
            binary("_hypot", &[3.0, -3.0, 0.0], &[4.0, 4.0, 0.0]),
            [5.0, 5.0, 0.0]
        );
        let g = run(
            "_hypot_scalar",
            &[("scalar", "4")],
            &[t(&[1], vec![-3.0])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, [5.0]);
        let g = run(
            "_rpower_scalar",
            &[("scalar", "2")],
            &[t(&[2], vec![-1.0, 3.0])],
            false,
        )
        .unwrap();
        assert_eq!(g[0].data, [0.5, 8.0]);
        let g = run(
            "_maximum_scalar",
            &[("scalar", "0")],
            &[t(&[2], vec![nan, -1.0])],
            false,
        )
        .unwrap();
        assert!(g[0].data[0].is_nan() && g[0].data[1] == 0.0);
    }

    #[test]
    fn broadcast_forms_broadcast() {
        let g = run(
            "broadcast_power",
            &[],
            &[tensor(&[2, 1], &[2.0, 3.0]), tensor(&[3], &[0.0, 1.0, 2.0])],
            false,
        )
        .unwrap();
        assert_eq!(
            (g[0].shape.clone(), g[0].data.clone()),
            (vec![2, 3], vec![1.0, 2.0, 4.0, 1.0, 3.0, 9.0])
        );
    }

    #[test]
    fn integer_input_with_a_real_scalar_computes_in_float64() {
        let ints = Tensor::new(DType::I32, vec![3], vec![2.0, 3.0, -3.0]);
        let g = run(
            "_mod_scalar",
            &[("scalar", "2.5"), ("is_int", "False")],
            &[&ints],
            false,
        )
        .unwrap();
        // MXNet 1.9.1: [2.0, 0.5, 2.0] as float64.
        assert_eq!(
            (g[0].dtype, g[0].data.clone()),
            (DType::F64, vec![2.0, 0.5, 2.0])
        );
        let g = run(
            "_power_scalar",
            &[("scalar", "2"), ("is_int", "True")],
            &[&ints],
            false,
        )
        .unwrap();
        assert_eq!(
            (g[0].dtype, g[0].data.clone()),
            (DType::I32, vec![4.0, 9.0, 9.0])
        );
        let f = Tensor::new(DType::F16, vec![1], vec![2.0]);
        let g = run(
            "_plus_scalar",
            &[("scalar", "0.5"), ("is_int", "False")],
            &[&f],
            false,
        )
        .unwrap();
        assert_eq!(g[0].dtype, DType::F16);
    }
}
