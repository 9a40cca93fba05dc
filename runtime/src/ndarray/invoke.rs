//! Applying any kiln-ops operator to arrays: inference runs at once (so a bad shape is an
//! error at the call), the kernel runs on the engine, reading the inputs and writing the
//! outputs.

use super::{engine, random, NDArray};
use crate::device::Device;
use crate::engine::{FnProperty, Var};
use kiln_compiler::{Error, OpCall, Operand, ResolvedCall, Result};
use kiln_ops::shape::{fmt_shape, is_known};
use kiln_ops::{Attrs, DType, KernelCtx, OpDef, Resource, Shape, Tensor};

impl Operand for NDArray {
    /// The operator's visible outputs.
    type Output = Vec<NDArray>;
    const AUTO_NAME: bool = false;

    fn apply(call: ResolvedCall<'_, NDArray>) -> Result<Vec<NDArray>> {
        run(call, &[])
    }
}

impl NDArray {
    /// Applies the operator `op` (canonical name or alias) to arrays; the typed builders
    /// (`kiln_compiler::builders`) do the same with checked parameter names.
    #[track_caller]
    pub fn op(op: &str) -> OpCall<'static, NDArray> {
        OpCall::new(op)
    }
}

/// Applies `call`, writing its visible outputs into `out` (MXNet's `out=`): `a += &b` is
/// `elemwise_add` with `out = [a]`.
pub fn invoke_into(call: OpCall<'_, NDArray>, out: &[NDArray]) -> Result<()> {
    run(call.resolve()?, out).map(drop)
}

/// What it takes to run one operator application on its reference kernel.
pub(super) struct Eager {
    pub op: &'static OpDef,
    pub params: Attrs,
    pub input_names: Vec<String>,
    pub out_names: Vec<String>,
    pub out_shapes: Vec<Shape>,
    pub out_dtypes: Vec<DType>,
}

impl Eager {
    /// Pushes the operator's reference kernel on the engine, reading `inputs` and writing
    /// `outputs` (all of them, hidden ones included).
    pub fn push(self, inputs: Vec<NDArray>, outputs: Vec<NDArray>) {
        let Eager {
            op,
            params,
            input_names,
            out_names,
            out_shapes,
            out_dtypes,
        } = self;
        let mut writes: Vec<Var> = outputs.iter().map(|a| a.var().clone()).collect();
        writes.extend(
            op.mutable_inputs
                .iter()
                .filter_map(|&i| inputs.get(i))
                .map(|a| a.var().clone()),
        );
        let rng_key = if op.resources.contains(&Resource::Random) {
            let (key, var) = random::next_key();
            writes.push(var);
            key
        } else {
            [0, 0]
        };
        let reads: Vec<Var> = inputs.iter().map(|a| a.var().clone()).collect();
        let bytes = inputs.iter().chain(&outputs).map(NDArray::nbytes).sum();
        engine().push_fn_bytes(op.name, &reads, &writes, bytes, move || {
            // SAFETY: the engine runs this after every pending write of the inputs and
            // before any later use of the outputs, which nothing else touches meanwhile.
            let tensors = inputs
                .iter()
                .map(|a| unsafe { a.read_tensor() })
                .collect::<Result<Vec<Tensor>, _>>()
                .map_err(|e| e.to_string())?;
            let refs: Vec<&Tensor> = tensors.iter().collect();
            let ctx = KernelCtx {
                attrs: &params,
                is_train: false,
                out_shapes: &out_shapes,
                out_dtypes: &out_dtypes,
                rng_key,
            };
            let values = kiln_ops::evaluate(op, &ctx, &refs)
                .map_err(|e| e.render(&input_names, &out_names))?;
            for (a, t) in outputs.iter().zip(&values) {
                // SAFETY: as above.
                unsafe { a.write_tensor(t) };
            }
            Ok(())
        });
    }
}

fn run(call: ResolvedCall<'_, NDArray>, out: &[NDArray]) -> Result<Vec<NDArray>> {
    let op = call.op;
    let inputs: Vec<NDArray> = call
        .inputs
        .iter()
        .zip(&call.input_names)
        .map(|(a, name)| {
            a.cloned()
                .ok_or_else(|| call.error(format!("input `{name}` is not given")))
        })
        .collect::<Result<_>>()?;
    let device = inputs
        .first()
        .or(out.first())
        .map_or(Device::Cpu, NDArray::device);
    let (out_names, visible) = op.output_names(&call.params);
    let render = |e: kiln_ops::OpError| call.error(e.render(&call.input_names, &out_names));

    let mut in_shapes: Vec<Shape> = inputs.iter().map(|a| a.shape().to_vec()).collect();
    let mut out_shapes: Vec<Shape> = vec![Shape::new(); out_names.len()];
    for (slot, a) in out_shapes.iter_mut().zip(out) {
        *slot = a.shape().to_vec();
    }
    (op.infer_shape)(&call.params, &mut in_shapes, &mut out_shapes).map_err(render)?;
    if let Some((name, s)) = out_names
        .iter()
        .zip(&out_shapes)
        .find(|(_, s)| !is_known(s))
    {
        return Err(call.error(format!(
            "cannot infer the shape of output `{name}` (got {})",
            fmt_shape(s)
        )));
    }
    let mut in_dtypes: Vec<Option<DType>> = inputs.iter().map(|a| Some(a.dtype())).collect();
    let mut out_dtypes: Vec<Option<DType>> = vec![None; out_names.len()];
    for (slot, a) in out_dtypes.iter_mut().zip(out) {
        *slot = Some(a.dtype());
    }
    (op.infer_dtype)(&call.params, &mut in_dtypes, &mut out_dtypes).map_err(render)?;
    let out_dtypes: Vec<DType> = out_dtypes
        .into_iter()
        .map(|d| d.unwrap_or(DType::F32))
        .collect();

    let outputs: Vec<NDArray> = (0..out_names.len())
        .map(|i| match out.get(i) {
            Some(a) => Ok(a.clone()),
            None => Ok(NDArray::uninit(&out_shapes[i], out_dtypes[i], device)?),
        })
        .collect::<Result<_>>()?;

    let shown = outputs[..visible].to_vec();
    let eager = Eager {
        op,
        params: call.params.clone(),
        input_names: call.input_names.clone(),
        out_names,
        out_shapes,
        out_dtypes,
    };
    let eager = match super::lazy::record(eager, &inputs, &outputs) {
        None => return Ok(shown),
        Some(eager) => eager,
    };
    eager.push(inputs, outputs);
    Ok(shown)
}

/// An array carrying `error`: arithmetic operators cannot return `Result`, so their errors
/// surface, like the engine's, when the result is waited on.
pub(super) fn failed(like: &NDArray, error: Error) -> NDArray {
    let out = NDArray::uninit(like.shape(), like.dtype(), like.device())
        .or_else(|_| NDArray::uninit(&[1], DType::F32, Device::Cpu))
        .expect("a one-element CPU array can be allocated");
    poison(&out, error);
    out
}

/// Makes `a` carry `error` from now on.
pub(super) fn poison(a: &NDArray, error: Error) {
    let msg = error.to_string();
    engine().push_fn(
        "invalid operation",
        &[],
        &[a.var().clone()],
        FnProperty::Normal,
        0,
        move || Err(msg),
    );
}
