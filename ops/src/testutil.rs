//! Test helpers shared by every operator family: look an operator up, parse its attributes,
//! run shape inference and the reference kernel the way the graph layer does, and build
//! test tensors.

use crate::shape::{is_known, OpError, Shape};
use crate::{evaluate, lookup, Attrs, DType, KernelCtx, OpDef, Tensor};
use std::borrow::Borrow;
use std::collections::BTreeMap;

pub fn op(name: &str) -> &'static OpDef {
    lookup(name).unwrap_or_else(|| panic!("operator {name} is not registered"))
}

pub fn attrs(op: &OpDef, kv: &[(&str, &str)]) -> Attrs {
    let raw: BTreeMap<String, String> = kv
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Attrs::parse(op.params, &raw).unwrap_or_else(|e| panic!("{}: {e}", op.name))
}

/// Shape inference from (possibly partial or missing) input and output shapes: missing
/// trailing inputs and outputs start unknown. Returns every input and output shape
/// afterwards.
pub fn infer_both(
    name: &str,
    kv: &[(&str, &str)],
    ins: &[&[usize]],
    outs: &[&[usize]],
) -> Result<(Vec<Shape>, Vec<Shape>), OpError> {
    let op = op(name);
    let a = attrs(op, kv);
    let n_in = op.input_names(&a).len();
    let n_out = op.output_names(&a).0.len();
    let pick = |v: &[&[usize]], i: usize| v.get(i).map_or(Shape::new(), |s| s.to_vec());
    let mut ins: Vec<Shape> = (0..n_in).map(|i| pick(ins, i)).collect();
    let mut outs: Vec<Shape> = (0..n_out).map(|i| pick(outs, i)).collect();
    (op.infer_shape)(&a, &mut ins, &mut outs)?;
    Ok((ins, outs))
}

/// Shape inference from the input shapes alone; returns (inputs, outputs).
pub fn infer(
    name: &str,
    kv: &[(&str, &str)],
    ins: &[&[usize]],
) -> Result<(Vec<Shape>, Vec<Shape>), OpError> {
    infer_both(name, kv, ins, &[])
}

/// The error message of a failed inference, with slots named as the graph layer does
/// (e.g. "input `weight`"); compare [`message`], which keeps the raw `In(1)` form.
pub fn infer_err(name: &str, kv: &[(&str, &str)], ins: &[&[usize]]) -> String {
    let op = op(name);
    let a = attrs(op, kv);
    match infer(name, kv, ins) {
        Ok(r) => panic!("{name}: expected an inference error, got {r:?}"),
        Err(e) => e.render(&op.input_names(&a), &op.output_names(&a).0),
    }
}

/// The error message of a failed call, as [`OpError`] displays it.
pub fn message<T: std::fmt::Debug>(r: Result<T, OpError>) -> String {
    r.expect_err("expected an error").to_string()
}

/// Infers shapes and dtypes from the inputs and runs the reference kernel. An output
/// whose shape inference leaves unknown is handed to the kernel as is, which must then
/// refuse; whatever it returns must have the inferred shapes.
pub fn run<T: Borrow<Tensor>>(
    name: &str,
    kv: &[(&str, &str)],
    inputs: &[T],
    is_train: bool,
) -> Result<Vec<Tensor>, OpError> {
    let op = op(name);
    let inputs: Vec<&Tensor> = inputs.iter().map(Borrow::borrow).collect();
    let a = attrs(op, kv);
    let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape.as_slice()).collect();
    let (_, outs) = infer(name, kv, &shapes)?;
    let n_out = outs.len();
    let mut in_dt: Vec<Option<DType>> = inputs.iter().map(|t| Some(t.dtype)).collect();
    let mut out_dt = vec![None; n_out];
    (op.infer_dtype)(&a, &mut in_dt, &mut out_dt)?;
    let out_dt: Vec<DType> = out_dt
        .into_iter()
        .map(|d| d.unwrap_or(DType::F64))
        .collect();
    let ctx = KernelCtx {
        attrs: &a,
        is_train,
        out_shapes: &outs,
        out_dtypes: &out_dt,
        rng_key: crate::random::key(42, 3),
    };
    let got = evaluate(op, &ctx, &inputs)?;
    assert_eq!(got.len(), n_out, "{name}: number of outputs");
    for (g, s) in got.iter().zip(&outs) {
        assert!(is_known(s), "{name}: ran with output shapes {outs:?}");
        assert_eq!(&g.shape, s, "{name}: output shape");
    }
    Ok(got)
}

/// An f64 tensor of `shape` holding `data`.
pub fn t(shape: &[usize], data: Vec<f64>) -> Tensor {
    Tensor::new(DType::F64, shape.to_vec(), data)
}

/// [`t`] from a slice.
pub fn tensor(shape: &[usize], data: &[f64]) -> Tensor {
    t(shape, data.to_vec())
}

/// `0, 1, 2, ...` in `shape` (f64 so every value is exact).
pub fn iota(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    t(shape, (0..n).map(|v| v as f64).collect())
}

/// A tensor of awkward but exactly representable values: `((i * 7 % 11) - 5) / 4`.
pub fn ramp(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    t(
        shape,
        (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 4.0).collect(),
    )
}

pub fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "lengths differ: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "element {i}: got {g}, want {w}\n got: {got:?}\nwant: {want:?}"
        );
    }
}
