//! Test helpers: parse attributes, infer shapes and evaluate an operator by name.

use crate::{evaluate, lookup, Attrs, DType, KernelCtx, OpDef, OpError, Shape, Tensor};
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

/// Runs shape inference once; `outs` starts with one unknown shape per output.
pub fn infer(name: &str, kv: &[(&str, &str)], ins: &[Shape]) -> Result<Vec<Shape>, OpError> {
    Ok(infer_both(name, kv, ins, &[])?.1)
}

/// Runs shape inference with some output shapes given; returns (inputs, outputs).
pub fn infer_both(
    name: &str,
    kv: &[(&str, &str)],
    ins: &[Shape],
    outs: &[Shape],
) -> Result<(Vec<Shape>, Vec<Shape>), OpError> {
    let op = op(name);
    let a = attrs(op, kv);
    let mut ins = ins.to_vec();
    let n_out = op.output_names(&a).0.len();
    let mut outs: Vec<Shape> = (0..n_out)
        .map(|i| outs.get(i).cloned().unwrap_or_default())
        .collect();
    (op.infer_shape)(&a, &mut ins, &mut outs)?;
    Ok((ins, outs))
}

/// Infers the output shapes from the inputs' and evaluates the operator.
pub fn run(name: &str, kv: &[(&str, &str)], inputs: &[Tensor]) -> Result<Vec<Tensor>, OpError> {
    let op = op(name);
    let a = attrs(op, kv);
    let shapes: Vec<Shape> = inputs.iter().map(|t| t.shape.clone()).collect();
    let outs = infer(name, kv, &shapes)?;
    let dtypes = vec![inputs[0].dtype; outs.len()];
    let ctx = KernelCtx {
        attrs: &a,
        is_train: false,
        out_shapes: &outs,
        out_dtypes: &dtypes,
        rng_key: [0, 0],
    };
    let refs: Vec<&Tensor> = inputs.iter().collect();
    evaluate(op, &ctx, &refs)
}

/// `0, 1, 2, ...` in `shape` (f64 so every value is exact).
pub fn iota(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(
        DType::F64,
        shape.to_vec(),
        (0..n).map(|v| v as f64).collect(),
    )
}

pub fn tensor(shape: &[usize], data: &[f64]) -> Tensor {
    Tensor::new(DType::F64, shape.to_vec(), data.to_vec())
}

/// The error message of a failed call.
pub fn message<T: std::fmt::Debug>(r: Result<T, OpError>) -> String {
    r.expect_err("expected an error").to_string()
}
