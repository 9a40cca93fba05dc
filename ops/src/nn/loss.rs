//! Loss heads: SoftmaxOutput and the regression outputs. Their forward pass is a softmax,
//! the identity or a sigmoid; what makes them losses is their gradient, which ignores the
//! head gradient and uses the label (the Autodiff issue adds it). Only forward lives here.

use super::common::{elems, numel};
use super::softmax::softmax_along;
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, is_known, same_shape, set_in, unify, OpError, Shape, Slot};
use crate::{Attrs, Compute, Inputs, KernelCtx, OpDef, Pattern, RefKernel, Registry, Tensor};

const DATA_LABEL: Inputs = Inputs::Fixed(&["data", "label"]);

const SO: &str = "SoftmaxOutput";

static SOFTMAX_OUTPUT: OpDef = OpDef {
    aliases: &["Softmax"],
    doc: "Softmax with a cross-entropy gradient. Forward: softmax over axis 1 of data viewed \
          as (n, rest); multi_output: over axis 1 of (n, k, rest); preserve_shape: over the \
          last axis. The label is data's shape minus the last axis by default ((n, rest/k) \
          with multi_output); a label shaped like data is a probability target.",
    params: &[
        param(
            "grad_scale",
            ParamType::Float,
            Some("1.0"),
            "scales the gradient",
        ),
        param(
            "ignore_label",
            ParamType::Float,
            Some("-1.0"),
            "label ignored with use_ignore",
        ),
        param(
            "multi_output",
            ParamType::Bool,
            Some("False"),
            "softmax over axis 1 per position",
        ),
        param(
            "use_ignore",
            ParamType::Bool,
            Some("False"),
            "skip rows labelled ignore_label",
        ),
        param(
            "preserve_shape",
            ParamType::Bool,
            Some("False"),
            "softmax over the last axis",
        ),
        param(
            "normalization",
            ParamType::Enum(&["batch", "null", "valid"]),
            Some("null"),
            "how the gradient is normalized",
        ),
        param(
            "out_grad",
            ParamType::Bool,
            Some("False"),
            "multiply by the head gradient",
        ),
        param(
            "smooth_alpha",
            ParamType::Float,
            Some("0.0"),
            "label smoothing",
        ),
    ],
    inputs: DATA_LABEL,
    infer_shape: softmax_output_shape,
    cost: |_, ins, _| elems(&ins[0]).saturating_mul(5),
    ..OpDef::new(
        SO,
        Pattern::Opaque,
        Compute::Library {
            kernel: "softmax_output",
            reference: softmax_output_ref,
        },
    )
};

fn softmax_output_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    same_shape(a, &mut ins[..1], outs)?;
    let d = ins[0].clone();
    // A label shaped like the data is a probability target; 1-D data has no default label.
    if d.len() < 2 || ins[1] == d {
        return Ok(());
    }
    if !a.bool("multi_output") {
        return set_in(ins, 1, &d[..d.len() - 1]);
    }
    // (n, prod(spatial)), (n, spatial...) or (n, 1, spatial...).
    let spatial = if d[2..].contains(&0) {
        0
    } else {
        numel(&d[2..])
    };
    let flat = vec![d[0], spatial];
    let mut squeezed = d.clone();
    squeezed.remove(1);
    let mut keep = d.clone();
    keep[1] = 1;
    if ins[1].is_empty() {
        return set_in(ins, 1, &flat);
    }
    for want in [&flat, &squeezed, &keep] {
        let mut l = ins[1].clone();
        if unify(Slot::In(1), &mut l, want).is_ok() {
            ins[1] = l;
            return Ok(());
        }
    }
    invalid(format!(
        "{SO}: label {} does not fit data {} with multi_output (expected {}, {} or {})",
        fmt_shape(&ins[1]),
        fmt_shape(&d),
        fmt_shape(&flat),
        fmt_shape(&squeezed),
        fmt_shape(&keep)
    ))
}

fn softmax_output_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let x = ins[0];
    let nd = x.shape.len();
    let data = if a.bool("multi_output") && nd >= 2 {
        let (n, k) = (x.shape[0], x.shape[1]);
        let view = Tensor {
            shape: vec![n, k, x.len() / (n * k).max(1)],
            ..x.clone()
        };
        softmax_along(&view, 1, 1.0, false, None)
    } else if a.bool("preserve_shape") {
        softmax_along(x, nd - 1, 1.0, false, None)
    } else {
        let n = x.shape[0];
        let view = Tensor {
            shape: vec![n, x.len() / n.max(1)],
            ..x.clone()
        };
        softmax_along(&view, 1, 1.0, false, None)
    };
    Ok(vec![Tensor { data, ..x.clone() }])
}

const REGRESSION_PARAMS: &[ParamDef] = &[param(
    "grad_scale",
    ParamType::Float,
    Some("1.0"),
    "scales the gradient",
)];

const fn regression(name: &'static str, doc: &'static str, reference: RefKernel) -> OpDef {
    OpDef {
        doc,
        params: REGRESSION_PARAMS,
        inputs: DATA_LABEL,
        infer_shape: regression_shape,
        cost: |_, ins, _| elems(&ins[0]),
        ..OpDef::new(
            name,
            Pattern::Opaque,
            Compute::Library {
                kernel: "regression_output",
                reference,
            },
        )
    }
}

static LINEAR_REGRESSION: OpDef = regression(
    "LinearRegressionOutput",
    "Squared-loss head: forward is the identity; the gradient is (out − label)·grad_scale / \
     (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).",
    identity_ref,
);
static LOGISTIC_REGRESSION: OpDef = regression(
    "LogisticRegressionOutput",
    "Logistic head: forward is sigmoid(data); the gradient is (out − label)·grad_scale / \
     (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).",
    sigmoid_ref,
);
static MAE_REGRESSION: OpDef = regression(
    "MAERegressionOutput",
    "Absolute-loss head: forward is the identity; the gradient is sign(out − label)·grad_scale \
     / (label.size / label.shape[0]). The label defaults to data's shape, or (n,) for (n, 1).",
    identity_ref,
);

/// The label is any shape with the data's first dimension and size.
fn regression_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    same_shape(a, &mut ins[..1], outs)?;
    if ins[1].is_empty() {
        if ins[0].len() == 2 && ins[0][1] == 1 {
            let n = ins[0][0];
            return set_in(ins, 1, &[n]);
        }
        let d = ins[0].clone();
        return set_in(ins, 1, &d);
    }
    if is_known(&ins[0])
        && is_known(&ins[1])
        && (ins[0][0] != ins[1][0] || numel(&ins[0]) != numel(&ins[1]))
    {
        return invalid(format!(
            "regression output: label {} does not match data {} (the first dimension and the \
             size must agree)",
            fmt_shape(&ins[1]),
            fmt_shape(&ins[0])
        ));
    }
    Ok(())
}

fn identity_ref(_: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    Ok(vec![ins[0].clone()])
}

fn sigmoid_ref(_: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let mut out = ins[0].clone();
    out.data
        .iter_mut()
        .for_each(|v| *v = 1.0 / (1.0 + (-*v).exp()));
    Ok(vec![out])
}

pub fn register(r: &mut Registry) {
    for op in [
        &SOFTMAX_OUTPUT,
        &LINEAR_REGRESSION,
        &LOGISTIC_REGRESSION,
        &MAE_REGRESSION,
    ] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;

    const SO: &str = "SoftmaxOutput";

    #[test]
    fn softmax_output_label_shapes() {
        assert_eq!(infer(SO, &[], &[&[4, 10]]).unwrap().0[1], vec![4]);
        assert_eq!(infer(SO, &[], &[&[2, 3, 5]]).unwrap().0[1], vec![2, 3]);
        assert_eq!(
            infer(SO, &[], &[&[4, 10], &[4, 10]]).unwrap().0[1],
            vec![4, 10]
        );
        let mo = [("multi_output", "True")];
        assert_eq!(infer(SO, &mo, &[&[2, 3, 4, 5]]).unwrap().0[1], vec![2, 20]);
        assert_eq!(infer(SO, &mo, &[&[2, 3]]).unwrap().0[1], vec![2, 1]);
        assert_eq!(
            infer(SO, &mo, &[&[2, 3, 4, 5], &[2, 4, 5]]).unwrap().0[1],
            vec![2, 4, 5]
        );
        let l = infer(SO, &mo, &[&[2, 3, 4, 5], &[2, 1, 4, 0]]).unwrap().0[1].clone();
        assert_eq!(l, vec![2, 1, 4, 5]);
        assert_eq!(
            infer_err(SO, &mo, &[&[2, 3, 4, 5], &[2, 7]]),
            "SoftmaxOutput: label (2, 7) does not fit data (2, 3, 4, 5) with multi_output \
             (expected (2, 20), (2, 4, 5) or (2, 1, 4, 5))"
        );
        assert_eq!(
            infer_err(SO, &[], &[&[4, 10], &[5]]),
            "input `label` has shape (5,) but (4,) is required"
        );
        assert_eq!(op("Softmax").name, SO);
    }

    #[test]
    fn softmax_output_forward_variants() {
        let label = t(&[1], vec![0.]);
        // Default: each item (1, 2, 2) is one row of 4: e^x = (1, 3, 1, 1) over 6.
        let x = t(&[1, 2, 2], vec![0., 3f64.ln(), 0., 0.]);
        let out = run(SO, &[], &[x.clone(), t(&[1, 2], vec![0., 0.])], false).unwrap();
        assert_close(&out[0].data, &[1. / 6., 0.5, 1. / 6., 1. / 6.], 1e-15);
        let out = run(
            SO,
            &[("preserve_shape", "1")],
            &[x.clone(), t(&[1, 2], vec![0.; 2])],
            false,
        )
        .unwrap();
        assert_close(&out[0].data, &[0.25, 0.75, 0.5, 0.5], 1e-15);
        // multi_output: over axis 1 at each of the 2 positions.
        let x = t(&[1, 2, 2], vec![0., 0., 3f64.ln(), 0.]);
        let out = run(
            SO,
            &[("multi_output", "1")],
            &[x, t(&[1, 2], vec![0.; 2])],
            false,
        )
        .unwrap();
        assert_close(&out[0].data, &[0.25, 0.5, 0.75, 0.5], 1e-15);
        let x = t(&[1, 2], vec![0., 3f64.ln()]);
        let out = run("Softmax", &[], &[x, label], false).unwrap();
        assert_close(&out[0].data, &[0.25, 0.75], 1e-15);
    }

    #[test]
    fn regression_label_shapes() {
        let lr = "LinearRegressionOutput";
        assert_eq!(infer(lr, &[], &[&[4, 1]]).unwrap().0[1], vec![4]);
        assert_eq!(infer(lr, &[], &[&[4, 3]]).unwrap().0[1], vec![4, 3]);
        assert_eq!(
            infer(lr, &[], &[&[4, 3], &[4, 3, 1]]).unwrap().0[1],
            vec![4, 3, 1]
        );
        assert_eq!(
            infer_err(lr, &[], &[&[4, 3], &[3, 4]]),
            "regression output: label (3, 4) does not match data (4, 3) (the first dimension \
             and the size must agree)"
        );
    }

    #[test]
    fn regression_forward() {
        let x = t(&[2, 1], vec![0., 3f64.ln()]);
        let label = t(&[2], vec![1., 1.]);
        for name in ["LinearRegressionOutput", "MAERegressionOutput"] {
            let out = run(name, &[], &[x.clone(), label.clone()], false).unwrap();
            assert_eq!(out[0].data, x.data);
        }
        let out = run("LogisticRegressionOutput", &[], &[x, label], false).unwrap();
        assert_close(&out[0].data, &[0.5, 0.75], 1e-15);
    }
}
