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

/// Every value within `tol * (1 + |want|)`, as many as expected, no NaN where a number is.
pub fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    if let Err(e) = crate::compare::close(got, want, tol) {
        panic!("{e}\n got: {got:?}\nwant: {want:?}");
    }
}

/// A finite-difference case: operator, attributes, input shapes, whether the inputs must be
/// positive (log, sqrt, division), training mode.
pub type GradCase = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static [usize]],
    bool,
    bool,
);

/// Pseudo-random f64 values in [-1, 1) (splitmix64), for gradient checks: unlike
/// [`ramp`], they have no ties, so max-pooling and relu stay away from their kinks.
pub fn randn(shape: &[usize], seed: u64) -> Tensor {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect();
    t(shape, data)
}

/// A [`GradGraph`](crate::GradGraph) that evaluates every operator at once on f64
/// tensors: gradient rules run without a compiler.
pub struct Eager {
    pub values: Vec<Tensor>,
    pub is_train: bool,
}

impl Eager {
    pub fn add(&mut self, t: Tensor) -> crate::Handle {
        self.values.push(t);
        crate::Handle(self.values.len() - 1)
    }
}

impl crate::GradGraph for Eager {
    fn op(
        &mut self,
        name: &str,
        inputs: &[crate::Handle],
        kv: &[(&str, &str)],
    ) -> Result<Vec<crate::Handle>, OpError> {
        let args: Vec<Tensor> = inputs.iter().map(|h| self.values[h.0].clone()).collect();
        let outs = run(name, kv, &args, self.is_train)?;
        Ok(outs.into_iter().map(|t| self.add(t)).collect())
    }
}

/// The gradient of every input of `name` at `inputs` for head gradients `heads` (one per
/// visible output), through [`crate::gradient`] on an [`Eager`] graph.
pub fn analytic_grad(
    name: &str,
    kv: &[(&str, &str)],
    inputs: &[Tensor],
    heads: &[Tensor],
    is_train: bool,
) -> Result<Vec<Option<Tensor>>, OpError> {
    let o = op(name);
    let a = attrs(o, kv);
    let outs = run(name, kv, inputs, is_train)?;
    let mut g = Eager {
        values: vec![],
        is_train,
    };
    let ins: Vec<crate::Handle> = inputs.iter().map(|t| g.add(t.clone())).collect();
    let outputs: Vec<crate::Handle> = outs.iter().map(|t| g.add(t.clone())).collect();
    let out_grads: Vec<crate::Handle> = outs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            g.add(
                heads
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| Tensor::zeros(t.dtype, t.shape.clone())),
            )
        })
        .collect();
    let ctx = crate::GradCtx {
        attrs: &a,
        raw_attrs: kv,
        inputs: &ins,
        outputs: &outputs,
        out_grads: &out_grads,
    };
    let grads = crate::gradient(o, &ctx, &mut g)?;
    assert_eq!(grads.len(), inputs.len(), "{name}: one gradient per input");
    Ok(grads
        .into_iter()
        .map(|h| h.map(|h| g.values[h.0].clone()))
        .collect())
}

/// Checks `name`'s gradient against central finite differences in f64: for random head
/// gradients `w` on the visible outputs, the gradient of `sum(w · outputs)` with respect to
/// every input not in `skip` (labels, indices) must match within 1e-6, relative to the
/// largest gradient of that input. An input whose rule gives no gradient must have a zero
/// numeric one.
pub fn check_grad(
    name: &str,
    kv: &[(&str, &str)],
    inputs: &[Tensor],
    is_train: bool,
    skip: &[usize],
) {
    let visible = op(name).output_names(&attrs(op(name), kv)).1;
    let outs = run(name, kv, inputs, is_train).unwrap_or_else(|e| panic!("{name}: {e}"));
    let heads: Vec<Tensor> = outs
        .iter()
        .take(visible)
        .enumerate()
        .map(|(i, t)| randn(&t.shape, 1000 + i as u64))
        .collect();
    let loss = |xs: &[Tensor]| -> f64 {
        let outs = run(name, kv, xs, is_train).unwrap_or_else(|e| panic!("{name}: {e}"));
        outs.iter()
            .zip(&heads)
            .map(|(o, w)| o.data.iter().zip(&w.data).map(|(a, b)| a * b).sum::<f64>())
            .sum()
    };
    let grads =
        analytic_grad(name, kv, inputs, &heads, is_train).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, grad) in grads.iter().enumerate() {
        if skip.contains(&i) {
            continue;
        }
        let numeric: Vec<f64> = (0..inputs[i].len())
            .map(|k| {
                let h = 1e-6 * inputs[i].data[k].abs().max(1.0);
                let (mut lo, mut hi) = (inputs.to_vec(), inputs.to_vec());
                lo[i].data[k] -= h;
                hi[i].data[k] += h;
                (loss(&hi) - loss(&lo)) / (2.0 * h)
            })
            .collect();
        let analytic = match grad {
            Some(g) => {
                assert_eq!(
                    g.shape, inputs[i].shape,
                    "{name}: gradient {i} has the input's shape"
                );
                g.data.clone()
            }
            None => vec![0.0; numeric.len()],
        };
        let scale = numeric.iter().fold(1e-3f64, |m, v| m.max(v.abs()));
        for (k, (a, n)) in analytic.iter().zip(&numeric).enumerate() {
            assert!(
                (a - n).abs() <= 1e-6 * scale,
                "{name} {kv:?}: d/d input {i}[{k}]: analytic {a}, numeric {n} (scale {scale})"
            );
        }
    }
}

/// Every output of `name`'s contraction, evaluated naively, equals its reference kernel's.
pub fn check_contraction(name: &str, kv: &[(&str, &str)], inputs: &[Tensor]) {
    let op = op(name);
    let f = op
        .contraction
        .unwrap_or_else(|| panic!("{name} declares no contraction"));
    let want = run(name, kv, inputs, false).unwrap();
    let a = attrs(op, kv);
    let ins: Vec<Vec<usize>> = inputs.iter().map(|t| t.shape.clone()).collect();
    let outs: Vec<Vec<usize>> = want.iter().map(|t| t.shape.clone()).collect();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    for (k, w) in want.iter().enumerate() {
        let c = f(&a, &ins, &outs, k).unwrap();
        let mut got = Tensor::zeros(w.dtype, w.shape.clone());
        crate::contraction::evaluate(&c, &refs, &mut got);
        assert_close(&got.data, &w.data, 1e-12);
    }
}

/// Runs `name`'s native kernel on f32 copies of `inputs` and checks it against the
/// reference kernel on the same (f32-rounded) values, within `tol` of each output's
/// largest magnitude; the native kernel must cover the configuration.
pub fn check_native(name: &str, kv: &[(&str, &str)], inputs: &[Tensor], is_train: bool, tol: f64) {
    let op = op(name);
    let native = op
        .native
        .unwrap_or_else(|| panic!("{name} has no native kernel"));
    let a = attrs(op, kv);
    let inputs: Vec<Tensor> = inputs.iter().map(|t| t.cast(DType::F32)).collect();
    let in_shapes: Vec<Shape> = inputs.iter().map(|t| t.shape.clone()).collect();
    assert!(
        (native.supports)(&a, &in_shapes),
        "{name} {kv:?}: not covered"
    );
    let want = run(name, kv, &inputs, is_train).unwrap();
    let data: Vec<Vec<f32>> = inputs
        .iter()
        .map(|t| t.data.iter().map(|&v| v as f32).collect())
        .collect();
    let ins: Vec<&[f32]> = data.iter().map(Vec::as_slice).collect();
    let mut outs: Vec<Vec<f32>> = want.iter().map(|t| vec![f32::NAN; t.len()]).collect();
    let out_shapes: Vec<Shape> = want.iter().map(|t| t.shape.clone()).collect();
    let out_dtypes = vec![DType::F32; want.len()];
    let ctx = KernelCtx {
        attrs: &a,
        is_train,
        out_shapes: &out_shapes,
        out_dtypes: &out_dtypes,
        rng_key: crate::random::key(42, 3),
    };
    let mut slots: Vec<&mut [f32]> = outs.iter_mut().map(Vec::as_mut_slice).collect();
    // Every task on a thread of its own, in whatever order they finish.
    let parallel = |n: usize, task: &(dyn Fn(usize) + Sync)| {
        std::thread::scope(|s| {
            for t in 0..n {
                s.spawn(move || task(t));
            }
        })
    };
    let mut scratch = vec![f64::NAN; (native.scratch)(&a, &in_shapes)];
    let io = crate::native::NativeIo {
        inputs: &ins,
        in_shapes: &in_shapes,
        outputs: &mut slots,
        parallel: &parallel,
        scratch: &mut scratch,
    };
    (native.run)(&ctx, io).unwrap_or_else(|e| panic!("{name} {kv:?}: {e}"));
    let checked = crate::compare::each(&outs, &want, |g, w| {
        let bound = tol * crate::compare::scale(&w.data);
        crate::compare::within(g, &w.data, |_| bound)
    });
    if let Err(e) = checked {
        panic!("{name} {kv:?}: the native kernel against the reference: {e}");
    }
}
