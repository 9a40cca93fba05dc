//! Reductions over axes: sum, mean, max, min, prod.

use super::{axis_of, fmt_ints};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{self, invalid, set_out, OpError, Shape};
use crate::{x, Attrs, Combiner, Compute, DType, OpDef, Pattern, Reduction, Registry};

const PARAMS: &[ParamDef] = &[
    param(
        "axis",
        ParamType::OptShape,
        Some("None"),
        "the axes to reduce (None or (): all of them); negative counts from the end",
    ),
    param(
        "keepdims",
        ParamType::Bool,
        Some("False"),
        "keep the reduced axes, with size 1",
    ),
    param(
        "exclude",
        ParamType::Bool,
        Some("False"),
        "reduce over the axes not listed in `axis`",
    ),
];

/// The listed axes, sorted; `None` for "all" — an unset or empty `axis` reduces everything
/// whatever `exclude` says (MXNet's ReduceAxesShapeImpl).
fn listed(op: &str, a: &Attrs, input: &[usize]) -> Result<Option<Vec<usize>>, OpError> {
    let Some(axes) = a.opt_shape("axis").filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let mut v = axes
        .iter()
        .map(|&ax| axis_of(op, "axis", ax, input))
        .collect::<Result<Vec<_>, _>>()?;
    v.sort_unstable();
    if let Some(w) = v.windows(2).find(|w| w[0] == w[1]) {
        return invalid(format!(
            "{op}: axis={} names axis {} twice",
            fmt_ints(axes),
            w[0]
        ));
    }
    Ok(Some(v))
}

/// The input axes reduced, ascending.
fn reduced_axes(op: &str, a: &Attrs, input: &[usize]) -> Result<Vec<usize>, OpError> {
    let all = 0..input.len();
    Ok(match listed(op, a, input)? {
        None => all.collect(),
        Some(l) if a.bool("exclude") => all.filter(|i| !l.contains(i)).collect(),
        Some(l) => l,
    })
}

/// The output shape: reduced axes become 1 (keepdims) or vanish; reducing every axis
/// without keepdims gives (1,), as legacy MXNet has no 0-d arrays.
fn reduced_shape(op: &str, a: &Attrs, input: &[usize]) -> Result<Shape, OpError> {
    let axes = reduced_axes(op, a, input)?;
    let keep = a.bool("keepdims");
    let mut out: Shape = (0..input.len())
        .filter_map(|i| match (axes.contains(&i), keep) {
            (false, _) => Some(input[i]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    if out.is_empty() {
        out.push(1);
    }
    Ok(out)
}

fn infer(op: &str, a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    if ins[0].is_empty() {
        return Ok(());
    }
    let out = reduced_shape(op, a, &ins[0])?;
    set_out(outs, 0, &out)
}

/// A reduction reads every input element once.
fn input_elems(_: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    ins.first().map_or(0, |s| shape::size(s) as u64)
}

/// Declares one reduction; the shape and reduction functions are per operator so that
/// errors name it.
macro_rules! reduction {
    ($static:ident, $name:literal, $aliases:expr, $doc:literal, $combiner:expr, $post:expr) => {
        static $static: OpDef = {
            fn shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
                infer($name, a, ins, outs)
            }
            fn reduce(a: &Attrs, input: &[usize]) -> Result<Reduction, OpError> {
                Ok(Reduction {
                    combiner: $combiner,
                    axes: reduced_axes($name, a, input)?,
                    pre: x(0),
                    post: $post,
                })
            }
            OpDef {
                aliases: $aliases,
                doc: $doc,
                params: PARAMS,
                infer_shape: shape,
                inplace: &[],
                cost: input_elems,
                dtypes: &DType::NUMERIC,
                ..OpDef::new($name, Pattern::Reduce, Compute::Reduce(reduce))
            }
        };
    };
}

reduction!(
    SUM,
    "sum",
    &["sum_axis"],
    "Sum over the given axes.",
    Combiner::Sum,
    x(0)
);
// The accumulator divided by the number of reduced elements.
reduction!(
    MEAN,
    "mean",
    &[],
    "Mean over the given axes.",
    Combiner::Sum,
    x(0) / x(1)
);
reduction!(
    MAX,
    "max",
    &["max_axis"],
    "Maximum over the given axes.",
    Combiner::Max,
    x(0)
);
reduction!(
    MIN,
    "min",
    &["min_axis"],
    "Minimum over the given axes.",
    Combiner::Min,
    x(0)
);
reduction!(
    PROD,
    "prod",
    &[],
    "Product over the given axes.",
    Combiner::Prod,
    x(0)
);

pub fn register(r: &mut Registry) {
    for op in [&SUM, &MEAN, &MAX, &MIN, &PROD] {
        r.add(op);
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{infer, iota, message, run, tensor};

    /// Reduces a (2, 3, 4) iota, whose element [i, j, k] is 12i + 4j + k.
    fn reduce(op: &str, kv: &[(&str, &str)]) -> (Vec<usize>, Vec<f64>) {
        let out = run(op, kv, &[iota(&[2, 3, 4])], false).unwrap().remove(0);
        (out.shape, out.data)
    }

    #[test]
    fn sums_and_means() {
        // sum_j (12i + 4j + k) = 36i + 12 + 3k.
        let (shape, data) = reduce("sum", &[("axis", "1")]);
        assert_eq!(shape, [2, 4]);
        assert_eq!(data, [12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]);
        // mean over i and k of 12i + 4j + k = 6 + 4j + 1.5.
        let (shape, data) = reduce("mean", &[("axis", "(0,2)")]);
        assert_eq!((shape, data), (vec![3], vec![7.5, 11.5, 15.5]));
        // exclude: sum over i and k = 48 + 32j + 12.
        let (shape, data) = reduce("sum_axis", &[("axis", "1"), ("exclude", "True")]);
        assert_eq!((shape, data), (vec![3], vec![60.0, 92.0, 124.0]));
        // Everything: 0 + 1 + ... + 23 = 276, shape (1,).
        assert_eq!(reduce("sum", &[]), (vec![1], vec![276.0]));
    }

    #[test]
    fn extrema_and_products() {
        assert_eq!(reduce("max", &[]), (vec![1], vec![23.0]));
        // min over k of 12i + 4j + k = 12i + 4j.
        let (shape, data) = reduce("min_axis", &[("axis", "-1")]);
        assert_eq!(shape, [2, 3]);
        assert_eq!(data, [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]);
        let x = tensor(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let out = run("prod", &[("axis", "0")], &[x], false).unwrap();
        assert_eq!(out[0].data, [4.0, 10.0, 18.0]);
    }

    #[test]
    fn shapes() {
        let s = |kv: &[(&str, &str)]| infer("sum", kv, &[&[2, 3, 4]]);
        assert_eq!(
            s(&[("axis", "1"), ("keepdims", "1")]).unwrap().1[0],
            [2, 1, 4]
        );
        let kv = [("axis", "1"), ("keepdims", "1"), ("exclude", "1")];
        assert_eq!(s(&kv).unwrap().1[0], [1, 3, 1]);
        assert_eq!(s(&[("keepdims", "1")]).unwrap().1[0], [1, 1, 1]);
        // An empty axis reduces everything even with exclude (as MXNet does).
        assert_eq!(s(&[("axis", "()"), ("exclude", "1")]).unwrap().1[0], [1]);
        assert_eq!(
            s(&[("axis", "(0,1,2)"), ("exclude", "1")]).unwrap().1[0],
            [2, 3, 4]
        );
        // Unknown dimensions pass through.
        assert_eq!(
            infer("mean", &[("axis", "0")], &[&[0, 5]]).unwrap().1[0],
            [5]
        );
        assert_eq!(
            message(s(&[("axis", "(1,-2)")])),
            "sum: axis=(1, -2) names axis 1 twice"
        );
        assert_eq!(
            message(infer("max", &[("axis", "3")], &[&[2, 3]])),
            "max: axis=3 is out of range for input (2, 3)"
        );
    }
}
