//! Matrix products: dot and batch_dot, library kernels ("gemm", "batch_gemm") with naive
//! references.
//!
//! Their gradients are products again. For `C = op(A)·op(B)` (op: the transpose flag):
//!
//! | transpose_a, transpose_b | dA | dB |
//! |---|---|---|
//! | F, F | dC·Bᵀ | Aᵀ·dC |
//! | F, T | dC·B | dCᵀ·A |
//! | T, F | B·dCᵀ | A·dC |
//! | T, T | Bᵀ·dCᵀ | dCᵀ·Aᵀ |
//!
//! batch_dot applies the table per batch directly. dot applies it to its 2-D views — lhs
//! and rhs reshaped as dot flattens them, and the head gradient as (M, N) by
//! `_dot_out_2d` (a rule cannot see ranks, so that view takes the inputs for their
//! shapes) — and reshapes the results back with reshape_like.

use super::apply;
use crate::contraction::{unflatten, Contraction, Read};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{fmt_shape, invalid, set_in, set_out, OpError, Shape};
use crate::{x, Combiner, IndexExpr};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, IndexMap, Inputs, KernelCtx, OpDef, Pattern,
    Registry, Tensor,
};

const PARAMS: &[ParamDef] = &[
    param(
        "transpose_a",
        ParamType::Bool,
        Some("False"),
        "use the transpose of the first input",
    ),
    param(
        "transpose_b",
        ParamType::Bool,
        Some("False"),
        "use the transpose of the second input",
    ),
    param(
        "forward_stype",
        ParamType::Enum(&["None", "default", "row_sparse", "csr"]),
        Some("None"),
        "the output storage type MXNet may choose for sparse inputs (kiln's outputs are \
         always dense)",
    ),
];

static DOT: OpDef = OpDef {
    doc: "Matrix product. Two 1-D inputs give their inner product, of shape (1,). Otherwise \
          lhs is viewed as (prod(all but its last dim), last) — with transpose_a, as \
          (first, prod(rest)) transposed — and rhs as (first, prod(rest)) — with \
          transpose_b, as (prod(all but last), last) transposed; the output shape is lhs's \
          remaining dims followed by rhs's.",
    params: PARAMS,
    inputs: Inputs::Fixed(&["lhs", "rhs"]),
    infer_shape: dot_shape,
    inplace: &[],
    cost: dot_cost,
    grad: Grad::Rule(dot_grad),
    contraction: Some(dot_contraction),
    ..OpDef::new(
        "dot",
        Pattern::OutEWiseFusable,
        Compute::Library {
            kernel: "gemm",
            reference: dot_reference,
        },
    )
};

static BATCH_DOT: OpDef = OpDef {
    doc: "Batched matrix product of two inputs of the same rank N >= 3: \
          (B..., n, k) x (B..., k, m) gives (B..., n, m); transpose_a/transpose_b transpose \
          the last two axes of lhs/rhs.",
    params: PARAMS,
    inputs: Inputs::Fixed(&["lhs", "rhs"]),
    infer_shape: batch_dot_shape,
    inplace: &[],
    cost: batch_dot_cost,
    grad: Grad::Rule(batch_dot_grad),
    contraction: Some(batch_dot_contraction),
    ..OpDef::new(
        "batch_dot",
        Pattern::OutEWiseFusable,
        Compute::Library {
            kernel: "batch_gemm",
            reference: batch_dot_reference,
        },
    )
};

/// `batch` products of an (m x k) and a (k x n) matrix, and the output shape. Unknown
/// dimensions are 0.
struct Gemm {
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
    out: Shape,
}

fn mismatch<T>(op: &str, a: &Attrs, l: &[usize], r: &[usize]) -> Result<T, OpError> {
    invalid(format!(
        "{op}: shapes {} and {} do not agree (transpose_a={}, transpose_b={})",
        fmt_shape(l),
        fmt_shape(r),
        crate::Value::Bool(a.bool("transpose_a")).to_mxnet_string(),
        crate::Value::Bool(a.bool("transpose_b")).to_mxnet_string(),
    ))
}

/// The contracted sizes agree unless both are known and differ; the known one wins.
fn contracted(kl: usize, kr: usize) -> Option<usize> {
    (kl == kr || kl == 0 || kr == 0).then_some(kl.max(kr))
}

/// MXNet's DotShape: each input splits into its outer dims and one contracted dim.
fn dot_dims(a: &Attrs, l: &[usize], r: &[usize]) -> Result<Gemm, OpError> {
    let (ta, tb) = (a.bool("transpose_a"), a.bool("transpose_b"));
    if l.is_empty() || r.is_empty() {
        return invalid("dot: the input shapes are unknown");
    }
    if l.len() == 1 && r.len() == 1 {
        if ta || tb {
            return invalid(format!(
                "dot: cannot transpose the 1-D inputs {} and {}",
                fmt_shape(l),
                fmt_shape(r)
            ));
        }
        let Some(k) = contracted(l[0], r[0]) else {
            return mismatch("dot", a, l, r);
        };
        return Ok(Gemm {
            batch: 1,
            m: 1,
            k,
            n: 1,
            out: vec![1],
        });
    }
    let (l_outer, kl) = match ta {
        true => (&l[1..], l[0]),
        false => (&l[..l.len() - 1], l[l.len() - 1]),
    };
    let (r_outer, kr) = match tb {
        true => (&r[..r.len() - 1], r[r.len() - 1]),
        false => (&r[1..], r[0]),
    };
    let Some(k) = contracted(kl, kr) else {
        return mismatch("dot", a, l, r);
    };
    // A 1-D input contributes no output dims.
    let l_out = if l.len() > 1 { l_outer } else { &[] };
    let r_out = if r.len() > 1 { r_outer } else { &[] };
    Ok(Gemm {
        batch: 1,
        m: l_outer.iter().product(),
        k,
        n: r_outer.iter().product(),
        out: l_out.iter().chain(r_out).copied().collect(),
    })
}

/// MXNet's BatchDotShape for rank N >= 3: leading axes are the batch.
fn batch_dims(a: &Attrs, l: &[usize], r: &[usize]) -> Result<Gemm, OpError> {
    let (ta, tb) = (a.bool("transpose_a"), a.bool("transpose_b"));
    let nd = l.len();
    if nd < 3 || r.len() != nd {
        return invalid(format!(
            "batch_dot: the inputs must have the same rank, at least 3, not {} and {}",
            fmt_shape(l),
            fmt_shape(r)
        ));
    }
    let batch: Option<Shape> = l[..nd - 2]
        .iter()
        .zip(&r[..nd - 2])
        .map(|(&x, &y)| contracted(x, y))
        .collect();
    let Some(batch) = batch else {
        return invalid(format!(
            "batch_dot: the batch dimensions of {} and {} differ",
            fmt_shape(l),
            fmt_shape(r)
        ));
    };
    let (m, kl) = if ta {
        (l[nd - 1], l[nd - 2])
    } else {
        (l[nd - 2], l[nd - 1])
    };
    let (kr, n) = if tb {
        (r[nd - 1], r[nd - 2])
    } else {
        (r[nd - 2], r[nd - 1])
    };
    let Some(k) = contracted(kl, kr) else {
        return mismatch("batch_dot", a, l, r);
    };
    let out = batch.iter().copied().chain([m, n]).collect();
    Ok(Gemm {
        batch: batch.iter().product(),
        m,
        k,
        n,
        out,
    })
}

fn dot_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() || ins[1].is_empty() {
        return Ok(());
    }
    set_out(outs, 0, &dot_dims(a, &ins[0], &ins[1])?.out)
}

fn batch_dot_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() || ins[1].is_empty() {
        return Ok(());
    }
    set_out(outs, 0, &batch_dims(a, &ins[0], &ins[1])?.out)
}

/// Two flops (multiply, add) per contracted element of every output element.
fn flops(g: Result<Gemm, OpError>) -> u64 {
    g.map_or(0, |g| {
        [g.batch, g.m, g.n, g.k]
            .iter()
            .fold(2u64, |acc, &d| acc.saturating_mul(d as u64))
    })
}

fn dot_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    match ins {
        [l, r] => flops(dot_dims(a, l, r)),
        _ => 0,
    }
}

fn batch_dot_cost(a: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    match ins {
        [l, r] => flops(batch_dims(a, l, r)),
        _ => 0,
    }
}

/// The gemm as a contraction: output (b, i, j) of the flattened (batch, m, n) product
/// sums lhs (b, i, p) · rhs (b, p, j) over p, each read through its (transposed) layout.
fn gemm_contraction(a: &Attrs, g: &Gemm, l: &[usize], r: &[usize], out: &[usize]) -> Contraction {
    let (ta, tb) = (a.bool("transpose_a"), a.bool("transpose_b"));
    let (m, k, n) = (g.m as i64, g.k as i64, g.n as i64);
    let rank = out.len();
    let lin = (0..rank).fold(IndexExpr::Const(0), |acc, ax| {
        acc * out[ax] as i64 + IndexExpr::Out(ax)
    });
    let (b, i, j) = (lin.clone() / (m * n), (lin.clone() / n) % m, lin % n);
    let p = IndexExpr::Out(rank);
    let lhs = b.clone() * (m * k)
        + if ta {
            p.clone() * m + i
        } else {
            i * k + p.clone()
        };
    let rhs = b * (k * n) + if tb { j * k + p } else { p * n + j };
    let read = |input, at: IndexExpr, shape: &[usize]| Read {
        input,
        coords: unflatten(at, shape),
        padding: None,
    };
    Contraction {
        combiner: Combiner::Sum,
        extents: vec![g.k],
        reads: vec![read(0, lhs, l), read(1, rhs, r)],
        body: x(0) * x(1),
        epilogue: vec![],
        post: x(0),
    }
}

fn dot_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let g = dot_dims(a, &ins[0], &ins[1])?;
    Ok(gemm_contraction(a, &g, &ins[0], &ins[1], &outs[0]))
}

fn batch_dot_contraction(
    a: &Attrs,
    ins: &[Shape],
    outs: &[Shape],
    _: usize,
) -> Result<Contraction, OpError> {
    let g = batch_dims(a, &ins[0], &ins[1])?;
    Ok(gemm_contraction(a, &g, &ins[0], &ins[1], &outs[0]))
}

fn dot_reference(ctx: &KernelCtx, inputs: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let g = dot_dims(ctx.attrs, &inputs[0].shape, &inputs[1].shape)?;
    Ok(vec![gemm(ctx, &g, inputs)?])
}

fn batch_dot_reference(ctx: &KernelCtx, inputs: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let g = batch_dims(ctx.attrs, &inputs[0].shape, &inputs[1].shape)?;
    Ok(vec![gemm(ctx, &g, inputs)?])
}

/// The naive triple loop, in f64. Row-major lhs is (m, k), or (k, m) when transposed; rhs
/// is (k, n), or (n, k) when transposed.
fn gemm(ctx: &KernelCtx, g: &Gemm, inputs: &[&Tensor]) -> Result<Tensor, OpError> {
    let (ta, tb) = (ctx.attrs.bool("transpose_a"), ctx.attrs.bool("transpose_b"));
    let (l, r) = (&inputs[0].data, &inputs[1].data);
    let (m, k, n) = (g.m, g.k, g.n);
    // Empty inputs leave 0 dimensions that inference treats as unknown.
    if l.len() != g.batch * m * k || r.len() != g.batch * k * n {
        return invalid(format!(
            "gemm: inputs {} and {} do not hold {} products of ({m} x {k}) and ({k} x {n})",
            fmt_shape(&inputs[0].shape),
            fmt_shape(&inputs[1].shape),
            g.batch
        ));
    }
    let mut out = vec![0.0; g.batch * m * n];
    for b in 0..g.batch {
        let (lo, ro, oo) = (b * m * k, b * k * n, b * m * n);
        for i in 0..m {
            for j in 0..n {
                out[oo + i * n + j] = (0..k)
                    .map(|p| {
                        let x = if ta {
                            l[lo + p * m + i]
                        } else {
                            l[lo + i * k + p]
                        };
                        let y = if tb {
                            r[ro + j * k + p]
                        } else {
                            r[ro + p * n + j]
                        };
                        x * y
                    })
                    .sum();
            }
        }
    }
    Ok(Tensor {
        dtype: ctx.out_dtypes.first().copied().unwrap_or(inputs[0].dtype),
        shape: g.out.clone(),
        data: out,
    })
}

type Grads = Result<Vec<Option<Handle>>, OpError>;

fn flag(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `op(a)·op(b)` with `product` (dot or batch_dot).
fn product(
    g: &mut dyn GradGraph,
    product: &str,
    (a, ta): (Handle, bool),
    (b, tb): (Handle, bool),
) -> Result<Handle, OpError> {
    let flags = [("transpose_a", flag(ta)), ("transpose_b", flag(tb))];
    apply(g, product, &[a, b], &flags)
}

/// The gradients of `c = product(a, b)` for head gradient `dc`, by the table above; `a`,
/// `b` and `dc` are matrices (or batches of them) as stored.
fn product_grads(
    g: &mut dyn GradGraph,
    op: &str,
    ctx: &GradCtx,
    [a, b, dc]: [Handle; 3],
) -> Result<(Handle, Handle), OpError> {
    let (ta, tb) = (ctx.attrs.bool("transpose_a"), ctx.attrs.bool("transpose_b"));
    Ok(match (ta, tb) {
        (false, false) => (
            product(g, op, (dc, false), (b, true))?,
            product(g, op, (a, true), (dc, false))?,
        ),
        (false, true) => (
            product(g, op, (dc, false), (b, false))?,
            product(g, op, (dc, true), (a, false))?,
        ),
        (true, false) => (
            product(g, op, (b, false), (dc, true))?,
            product(g, op, (a, false), (dc, false))?,
        ),
        (true, true) => (
            product(g, op, (b, true), (dc, true))?,
            product(g, op, (dc, true), (a, true))?,
        ),
    })
}

fn batch_dot_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let args = [ctx.inputs[0], ctx.inputs[1], ctx.out_grads[0]];
    let (da, db) = product_grads(g, "batch_dot", ctx, args)?;
    Ok(vec![Some(da), Some(db)])
}

fn dot_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Grads {
    let (l, r) = (ctx.inputs[0], ctx.inputs[1]);
    let (ta, tb) = (ctx.attrs.bool("transpose_a"), ctx.attrs.bool("transpose_b"));
    // dot's views: (first, prod(rest)) and (prod(all but last), last).
    let first_rest: &[(&str, &str)] = &[("shape", "(0, -1)")];
    let rest_last: &[(&str, &str)] = &[("shape", "(-1, 0)"), ("reverse", "True")];
    let l2 = apply(g, "Reshape", &[l], if ta { first_rest } else { rest_last })?;
    let r2 = apply(g, "Reshape", &[r], if tb { rest_last } else { first_rest })?;
    let flags = [("transpose_a", flag(ta)), ("transpose_b", flag(tb))];
    let dc2 = apply(g, "_dot_out_2d", &[ctx.out_grads[0], l, r], &flags)?;
    let (dl2, dr2) = product_grads(g, "dot", ctx, [l2, r2, dc2])?;
    Ok(vec![
        Some(apply(g, "reshape_like", &[dl2, l], &[])?),
        Some(apply(g, "reshape_like", &[dr2, r], &[])?),
    ])
}

static DOT_OUT_2D: OpDef = OpDef {
    doc: "dot's head gradient `ograd` viewed as the (M, N) product of dot's 2-D views of \
          lhs (M x K after transpose_a) and rhs (K x N after transpose_b); lhs's and rhs's \
          values are not read.",
    params: PARAMS,
    inputs: Inputs::Fixed(&["ograd", "lhs", "rhs"]),
    infer_shape: dot_out_2d_shape,
    ..OpDef::new(
        "_dot_out_2d",
        Pattern::Injective,
        Compute::Injective(|_, ins, outs, _| Ok(IndexMap::reshape(&ins[0], &outs[0]))),
    )
};

/// ograd has dot's output shape; the output is (M, N).
fn dot_out_2d_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[1].is_empty() || ins[2].is_empty() {
        return Ok(());
    }
    let g = dot_dims(a, &ins[1], &ins[2])?;
    set_in(ins, 0, &g.out)?;
    set_out(outs, 0, &[g.m, g.n])
}

pub fn register(r: &mut Registry) {
    for op in [&DOT, &BATCH_DOT, &DOT_OUT_2D] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{attrs, check_grad, infer, infer_both, iota, message, op, randn, run};

    const FLAGS: [[(&str, &str); 2]; 4] = [
        [("transpose_a", "False"), ("transpose_b", "False")],
        [("transpose_a", "False"), ("transpose_b", "True")],
        [("transpose_a", "True"), ("transpose_b", "False")],
        [("transpose_a", "True"), ("transpose_b", "True")],
    ];

    fn dot(kv: &[(&str, &str)], l: &[usize], r: &[usize]) -> Vec<f64> {
        run("dot", kv, &[iota(l), iota(r)], false)
            .unwrap()
            .remove(0)
            .data
    }

    #[test]
    fn dot_products() {
        // [[0,1,2],[3,4,5]] x [[0,1],[2,3],[4,5]].
        assert_eq!(dot(&[], &[2, 3], &[3, 2]), [10.0, 13.0, 28.0, 40.0]);
        // [[0,2,4],[1,3,5]] x [[0,1],[2,3],[4,5]].
        let ta = [("transpose_a", "True")];
        assert_eq!(dot(&ta, &[3, 2], &[3, 2]), [20.0, 26.0, 26.0, 35.0]);
        // [[0,1,2],[3,4,5]] x [[0,3],[1,4],[2,5]].
        let tb = [("transpose_b", "True")];
        assert_eq!(dot(&tb, &[2, 3], &[2, 3]), [5.0, 14.0, 14.0, 50.0]);
        // [0,1,2] . [0,1,2] = 5, shape (1,).
        let out = run("dot", &[], &[iota(&[3]), iota(&[3])], false).unwrap();
        assert_eq!((out[0].shape.as_slice(), out[0].data[0]), (&[1][..], 5.0));
        // [0,1] x [[0,1,2],[3,4,5]] = [3,4,5].
        assert_eq!(dot(&[], &[2], &[2, 3]), [3.0, 4.0, 5.0]);
    }

    #[test]
    fn dot_shapes() {
        let s = |kv: &[(&str, &str)], l: &[usize], r: &[usize]| infer("dot", kv, &[l, r]);
        assert_eq!(s(&[], &[2, 3, 4], &[4, 5]).unwrap().1[0], [2, 3, 5]);
        assert_eq!(s(&[], &[2, 3], &[3, 4, 5]).unwrap().1[0], [2, 4, 5]);
        let ta = [("transpose_a", "1")];
        assert_eq!(s(&ta, &[4, 2, 3], &[4, 5]).unwrap().1[0], [2, 3, 5]);
        let tb = [("transpose_b", "1")];
        assert_eq!(s(&tb, &[2, 3], &[5, 6, 3]).unwrap().1[0], [2, 5, 6]);
        assert_eq!(s(&[], &[2, 3], &[3]).unwrap().1[0], [2]);
        assert_eq!(
            message(s(&[], &[2, 3], &[4, 5])),
            "dot: shapes (2, 3) and (4, 5) do not agree (transpose_a=False, transpose_b=False)"
        );
        assert_eq!(
            message(s(&ta, &[3], &[3])),
            "dot: cannot transpose the 1-D inputs (3,) and (3,)"
        );
        let a = attrs(op("dot"), &[]);
        assert_eq!((op("dot").cost)(&a, &[vec![2, 3], vec![3, 2]], &[]), 24);
    }

    #[test]
    fn batch_dot_products() {
        // Batch 0: [[0,1,2],[3,4,5]] x [[0,1],[2,3],[4,5]];
        // batch 1: [[6,7,8],[9,10,11]] x [[6,7],[8,9],[10,11]].
        let out = run(
            "batch_dot",
            &[],
            &[iota(&[2, 2, 3]), iota(&[2, 3, 2])],
            false,
        )
        .unwrap();
        assert_eq!(out[0].shape, [2, 2, 2]);
        assert_eq!(
            out[0].data,
            [10.0, 13.0, 28.0, 40.0, 172.0, 193.0, 244.0, 274.0]
        );
        // The same with rhs given transposed: (2, 2, 3) holding B^T per batch.
        let kv = [("transpose_b", "True")];
        let out = run(
            "batch_dot",
            &kv,
            &[iota(&[2, 2, 3]), iota(&[2, 2, 3])],
            false,
        )
        .unwrap();
        assert_eq!(out[0].data[..4], [5.0, 14.0, 14.0, 50.0]);
    }

    #[test]
    fn batch_dot_shapes() {
        let s = |kv: &[(&str, &str)], l: &[usize], r: &[usize]| infer("batch_dot", kv, &[l, r]);
        assert_eq!(
            s(&[], &[2, 5, 3, 4], &[2, 5, 4, 6]).unwrap().1[0],
            [2, 5, 3, 6]
        );
        let kv = [("transpose_a", "1"), ("transpose_b", "1")];
        assert_eq!(s(&kv, &[7, 4, 3], &[7, 6, 4]).unwrap().1[0], [7, 3, 6]);
        assert_eq!(
            message(s(&[], &[2, 3], &[3, 4])),
            "batch_dot: the inputs must have the same rank, at least 3, not (2, 3) and (3, 4)"
        );
        assert_eq!(
            message(s(&[], &[2, 3, 4], &[3, 4, 5])),
            "batch_dot: the batch dimensions of (2, 3, 4) and (3, 4, 5) differ"
        );
        assert_eq!(
            message(s(&[], &[2, 3, 4], &[2, 5, 6])),
            "batch_dot: shapes (2, 3, 4) and (2, 5, 6) do not agree \
             (transpose_a=False, transpose_b=False)"
        );
    }

    #[test]
    fn dot_gradients_match_finite_differences() {
        // (lhs, rhs) as stored for each flag combination: (M=3, K=7, N=1) as matrices and
        // N-D with M = 2*3, K = 4, N = 5*1.
        let shapes: [[(&[usize], &[usize]); 2]; 4] = [
            [(&[3, 7], &[7, 1]), (&[2, 3, 4], &[4, 5, 1])],
            [(&[3, 7], &[1, 7]), (&[2, 3, 4], &[5, 1, 4])],
            [(&[7, 3], &[7, 1]), (&[4, 2, 3], &[4, 5, 1])],
            [(&[7, 3], &[1, 7]), (&[4, 2, 3], &[5, 1, 4])],
        ];
        for (kv, cases) in FLAGS.iter().zip(shapes) {
            for (i, (l, r)) in cases.into_iter().enumerate() {
                let ins = [randn(l, 1 + i as u64), randn(r, 3 + i as u64)];
                check_grad("dot", kv, &ins, false, &[]);
            }
        }
        // 1-D operands: inner product, vector-matrix, matrix-vector (each flag that applies).
        let v = |n: usize, seed: u64| randn(&[n], seed);
        check_grad("dot", &[], &[v(7, 5), v(7, 6)], false, &[]);
        check_grad("dot", &[], &[v(3, 7), randn(&[3, 2, 2], 8)], false, &[]);
        check_grad("dot", &FLAGS[2], &[v(3, 9), randn(&[3, 2], 10)], false, &[]);
        check_grad("dot", &[], &[randn(&[2, 2, 3], 11), v(3, 12)], false, &[]);
        check_grad(
            "dot",
            &FLAGS[1],
            &[randn(&[2, 3], 13), v(3, 14)],
            false,
            &[],
        );
        check_grad(
            "dot",
            &FLAGS[3],
            &[randn(&[3, 1, 2], 15), v(3, 16)],
            false,
            &[],
        );
    }

    #[test]
    fn batch_dot_gradients_match_finite_differences() {
        // Batch 1 of (3 x 7)(7 x 2), and a (2, 1) batch of (1 x 4)(4 x 3), as stored.
        let shapes: [[(&[usize], &[usize]); 2]; 4] = [
            [(&[1, 3, 7], &[1, 7, 2]), (&[2, 1, 1, 4], &[2, 1, 4, 3])],
            [(&[1, 3, 7], &[1, 2, 7]), (&[2, 1, 1, 4], &[2, 1, 3, 4])],
            [(&[1, 7, 3], &[1, 7, 2]), (&[2, 1, 4, 1], &[2, 1, 4, 3])],
            [(&[1, 7, 3], &[1, 2, 7]), (&[2, 1, 4, 1], &[2, 1, 3, 4])],
        ];
        for (kv, cases) in FLAGS.iter().zip(shapes) {
            for (i, (l, r)) in cases.into_iter().enumerate() {
                let ins = [randn(l, 1 + i as u64), randn(r, 3 + i as u64)];
                check_grad("batch_dot", kv, &ins, false, &[]);
            }
        }
    }

    #[test]
    fn dot_out_2d_views_ograd_as_the_flat_product() {
        // lhs (2, 3, 4) . rhs (4, 5, 6): M = 6, N = 30.
        let (ins, outs) =
            infer_both("_dot_out_2d", &[], &[&[], &[2, 3, 4], &[4, 5, 6]], &[]).unwrap();
        assert_eq!(
            (ins[0].as_slice(), outs[0].as_slice()),
            (&[2, 3, 5, 6][..], &[6, 30][..])
        );
        let kv = [("transpose_a", "True")];
        let out = run(
            "_dot_out_2d",
            &kv,
            &[iota(&[3, 5]), iota(&[4, 3]), iota(&[4, 5])],
            false,
        )
        .unwrap();
        assert_eq!(
            (out[0].shape.as_slice(), &out[0].data),
            (&[3, 5][..], &iota(&[15]).data)
        );
        assert_eq!(
            message(infer("_dot_out_2d", &[], &[&[3, 5], &[2, 3], &[3, 5]])),
            "In(0) has shape (3, 5) but (2, 5) is required"
        );
    }
}
