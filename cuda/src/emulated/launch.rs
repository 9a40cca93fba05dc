//! A launch on the emulated device: the arguments decoded as the rendered kernel declares
//! its parameters (buffers, symbolic dimensions, then the element count under the
//! element-wise schedule), the geometry checked as the driver and the kernel would, the
//! buffers' bytes read and written in place, and the kernel run by the SIMT emulator.

use super::{Op, State};
use crate::device::{Arg, DevicePtr, KernelCode, LaunchConfig, Params, Schedule};
use crate::error::{GpuError, Result};
use kiln_compiler::kir::{interp, simt};
use kiln_ops::Tensor;

/// Threads per block a device accepts.
const MAX_BLOCK: u32 = 1024;
/// Static shared memory per block without opting in.
const MAX_SHARED: usize = 48 * 1024;

pub(super) fn run(
    st: &mut State,
    op: &Op,
    code: &KernelCode,
    config: LaunchConfig,
    args: &[Arg],
) -> Result<()> {
    let k = &code.ir;
    let bad = |m: String| Err(GpuError::invalid(op.name, m));
    let params = code.params();
    params.check(op.name, args)?;
    let Params {
        buffers,
        dims: dims_count,
        counted,
    } = params;
    let mut pointers = Vec::with_capacity(buffers);
    for (i, a) in args[..buffers].iter().enumerate() {
        match a {
            Arg::Ptr(p) => pointers.push(*p),
            Arg::I64(v) => return bad(format!("argument {i} is the integer {v}, not a buffer")),
        }
    }
    let mut numbers = Vec::with_capacity(args.len() - buffers);
    for (i, a) in args[buffers..].iter().enumerate() {
        match a {
            Arg::I64(v) => numbers.push(*v),
            Arg::Ptr(p) => {
                return bad(format!(
                    "argument {} is the address {p}, not an integer",
                    buffers + i
                ))
            }
        }
    }
    let dims = &numbers[..dims_count];
    if config.grid == 0 || config.block == 0 || config.block > MAX_BLOCK {
        return bad(format!(
            "launch of {} blocks of {} threads (1 to {MAX_BLOCK} threads, at least one block)",
            config.grid, config.block
        ));
    }
    if config.shared_bytes > 0 {
        return bad(format!(
            "{} bytes of dynamic shared memory; kiln's kernels declare theirs",
            config.shared_bytes
        ));
    }
    if counted {
        let mut elements = 1i64;
        for e in &k.domain {
            elements *= interp::extent(e, dims)?;
        }
        if numbers[dims_count] != elements {
            return bad(format!(
                "element count {} given, the domain has {elements}",
                numbers[dims_count]
            ));
        }
    }
    if let Schedule::Block(gk) = &code.schedule {
        if config.block != gk.block {
            return bad(format!(
                "launched with {} threads per block; the kernel is scheduled for {}",
                config.block, gk.block
            ));
        }
        let shared = gk.shared * k.compute.size();
        if shared > MAX_SHARED {
            return bad(format!(
                "{shared} bytes of shared memory (at most {MAX_SHARED})"
            ));
        }
    }
    // Every buffer's bytes under these dimensions; an output over another output is a
    // race, and over an input unless the kernel reads that input only where it stores.
    let mut ranges = Vec::with_capacity(buffers);
    for (i, (b, &p)) in k.inputs.iter().chain(&k.outputs).zip(&pointers).enumerate() {
        let len = usize::try_from(interp::extent(&b.len, dims)?).unwrap_or(0);
        ranges.push((p, len * b.dtype.size(), i >= k.inputs.len()));
    }
    let outputs = &ranges[k.inputs.len()..];
    for (o, &(out, out_len, _)) in outputs.iter().enumerate() {
        if let Some(p) =
            (outputs[..o].iter()).position(|&(q, q_len, _)| overlaps((out, out_len), (q, q_len)))
        {
            return Err(GpuError::Race {
                op: op.name.to_string(),
                range: format!("{out}..+{out_len}"),
                other: format!("its own output {p}, which it stores too"),
                stream: op.stream,
            });
        }
        for (i, &(input, in_len, _)) in ranges[..k.inputs.len()].iter().enumerate() {
            if overlaps((out, out_len), (input, in_len)) && !(out == input && k.may_overwrite(i, o))
            {
                return Err(GpuError::Race {
                    op: op.name.to_string(),
                    range: format!("{out}..+{out_len}"),
                    other: format!("its own input {i}, which it reads at other points than it stores output {o}"),
                    stream: op.stream,
                });
            }
        }
    }
    let places = st.access(op, &ranges)?;
    let mut inputs = Vec::with_capacity(k.inputs.len());
    for (b, at) in k.inputs.iter().zip(&places) {
        let bytes = st.bytes(at);
        let t = Tensor::from_bytes(b.dtype, vec![bytes.len() / b.dtype.size()], bytes)
            .map_err(|e| GpuError::invalid(op.name, format!("reading `{}`: {e}", b.name)))?;
        inputs.push(t);
    }
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let shapes: Vec<Vec<usize>> = (ranges[k.inputs.len()..].iter())
        .zip(&k.outputs)
        .map(|((_, len, _), b)| vec![len / b.dtype.size()])
        .collect();
    let outputs = match &code.schedule {
        Schedule::ElementWise => simt::run(k, config.grid, config.block, &refs, dims, &shapes)?,
        Schedule::Block(gk) => simt::run_block(gk, config.grid, &refs, dims, &shapes)?,
    };
    for (t, at) in outputs.iter().zip(&places[k.inputs.len()..]) {
        st.bytes_mut(at).copy_from_slice(&t.to_bytes());
    }
    Ok(())
}

fn overlaps(a: (DevicePtr, usize), b: (DevicePtr, usize)) -> bool {
    a.1 > 0 && b.1 > 0 && a.0 .0 < b.0 .0 + b.1 as u64 && b.0 .0 < a.0 .0 + a.1 as u64
}
