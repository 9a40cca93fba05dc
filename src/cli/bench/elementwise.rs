//! W1: `y = a*b + 1` over 2^24 f32, the paper's fusion example at memory-bound size.
//!
//! - `copy`: a parallel `memcpy` of one 64 MiB array into another over the same pool and
//!   task count the kernels use;
//! - `copy-stream`: the same copy with non-temporal stores (AVX), which do not
//!   read the lines they write first: the machine's limit is the faster of the two, and
//!   every ratio below is against it;
//! - `hand-stream`: `a*b + 1` hand-written with the same stores, the reference for
//!   kiln's kernel, which streams its 64 MiB output too (larger than the last-level
//!   cache);
//! - `executor`: a bound executor's forward pass (one fused kernel, pushed on the engine
//!   and waited for), the workload the target is set on;
//! - `executor-tanh`: `tanh(a*b)` the same way, a math function per element (a polynomial
//!   on the CPU JIT, `kir::math`);
//! - `kernel-256` / `kernel-512`: the compiled kernel called directly, with 256- and
//!   512-bit vectors, to choose the default width on this machine.
//!
//! Bandwidth counts the bytes each variant must move: 2 × 64 MiB for the copy, 3 × 64 MiB
//! (two reads, one write) for `a*b + 1`.

use super::{report, time, Args};
use kiln::runtime::{Device, Executor, GradReqs, NDArray};
use kiln::{Error, Result, Symbol};
use serde_json::json;
use std::sync::Mutex;

const N: usize = 1 << 24;

/// A task's part of `y = a·b + 1`: `y`, then `a` and `b`.
type Operands<'a> = (&'a mut [f32], (&'a [f32], &'a [f32]));

fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

pub fn run(args: &Args) -> Result<()> {
    // The copy runs on the kernels' pool, split as a large kernel is.
    let pool = kiln::runtime::cpu::pool::global();
    let chunk = N.div_ceil(4 * pool.threads());
    let src = vec![1.5f32; N];
    let mut dst = vec![0f32; N];
    let pairs: Vec<Mutex<(&mut [f32], &[f32])>> = (dst.chunks_mut(chunk))
        .zip(src.chunks(chunk))
        .map(Mutex::new)
        .collect();
    let copy = time(args.runs, || {
        pool.run(pairs.len(), &|t| {
            let (d, s) = &mut *pairs[t].lock().unwrap_or_else(|e| e.into_inner());
            d.copy_from_slice(s);
        });
    });
    let plain_gbps = gbps(2 * N * 4, copy.0);
    report(
        args,
        "copy",
        copy,
        json!({ "gbps": plain_gbps, "elements": N }),
        &format!("{plain_gbps:6.2} GB/s (memcpy)"),
    );
    let stream = time(args.runs, || {
        pool.run(pairs.len(), &|t| {
            let (d, s) = &mut *pairs[t].lock().unwrap_or_else(|e| e.into_inner());
            streaming::copy(d, s);
        });
    });
    let stream_gbps = gbps(2 * N * 4, stream.0);
    let copy_gbps = plain_gbps.max(stream_gbps);
    report(
        args,
        "copy-stream",
        stream,
        json!({ "gbps": stream_gbps, "copy_gbps": copy_gbps, "elements": N }),
        &format!("{stream_gbps:6.2} GB/s (non-temporal stores); the machine's copy bandwidth: {copy_gbps:.2} GB/s"),
    );
    let other: Vec<f32> = (0..N).map(|i| (i % 7) as f32).collect();
    let outputs: Vec<Mutex<Operands>> = dst
        .chunks_mut(chunk)
        .zip(src.chunks(chunk).zip(other.chunks(chunk)))
        .map(Mutex::new)
        .collect();
    let hand = time(args.runs, || {
        pool.run(outputs.len(), &|t| {
            let (y, (a, b)) = &mut *outputs[t].lock().unwrap_or_else(|e| e.into_inner());
            streaming::multiply_add_one(y, a, b);
        });
    });
    let hand_gbps = gbps(3 * N * 4, hand.0);
    report(
        args,
        "hand-stream",
        hand,
        json!({ "gbps": hand_gbps, "copy_gbps": copy_gbps, "ratio": hand_gbps / copy_gbps }),
        &format!("{hand_gbps:6.2} GB/s = {:.2}x copy", hand_gbps / copy_gbps),
    );

    let (a, b) = (Symbol::var("a"), Symbol::var("b"));
    let y = &(&a * &b) + 1.0;
    let values: Vec<f32> = (0..N).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let check = |got: f32| (got - (values[999] * values[999] + 1.0)).abs() <= 1e-6;
    let executor_s = through_executor(args, "executor", &y, &values, copy_gbps, &check)?;
    #[cfg(feature = "llvm")]
    if args.imperative {
        imperative(args, &values, copy_gbps, executor_s, &check)?;
    }
    #[cfg(not(feature = "llvm"))]
    let _ = executor_s;
    // A math function per element (a polynomial on the CPU JIT): still memory bound?
    let t = kiln::sym::tanh().data(&(&a * &b)).build()?;
    let check_tanh = |got: f32| (got - (values[999] * values[999]).tanh()).abs() <= 1e-6;
    through_executor(args, "executor-tanh", &t, &values, copy_gbps, &check_tanh)?;

    #[cfg(feature = "llvm")]
    direct_kernels(args, &y, &values, copy_gbps)?;
    Ok(())
}

/// `y` (of inputs `a` and `b`) through a bound executor, in GB/s of its two reads and one
/// write; `check` judges element 999 of the output. Returns the median time.
fn through_executor(
    args: &Args,
    variant: &str,
    y: &Symbol,
    values: &[f32],
    copy_gbps: f64,
    check: &dyn Fn(f32) -> bool,
) -> Result<f64> {
    let exe = Executor::simple_bind(
        y,
        Device::Cpu,
        &[("a", &[N]), ("b", &[N])],
        GradReqs::All(kiln::compiler::autodiff::GradReq::Null),
    )?;
    for arg in exe.arg_arrays() {
        arg.copy_from(&NDArray::from_slice(values, &[N])?)?;
    }
    let (_, units) = exe.backend();
    let mut failed = None;
    let timing = time(args.runs, || {
        exe.forward(false);
        if let Err(e) = exe.outputs()[0].wait_to_read() {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(Error::from(e));
    }
    let got = exe.outputs()[0].to_vec::<f32>()?;
    if !check(got[999]) {
        return Err(Error::Input(format!(
            "{variant} computed {} at 999",
            got[999]
        )));
    }
    let rate = gbps(3 * N * 4, timing.0);
    report(
        args,
        variant,
        timing,
        json!({
            "gbps": rate, "copy_gbps": copy_gbps, "ratio": rate / copy_gbps,
            "kernels": units.kernels, "reference_nodes": units.reference, "elements": N,
        }),
        &format!("{rate:6.2} GB/s = {:.2}x copy ({units})", rate / copy_gbps),
    );
    Ok(timing.0)
}

/// `a * b + 1.0` written as imperative NDArray code: lazy fusion records the two operators
/// and runs them as one kernel per call (a new result array each time, from the pool);
/// its time against the bound executor's `executor_s`.
#[cfg(feature = "llvm")]
fn imperative(
    args: &Args,
    values: &[f32],
    copy_gbps: f64,
    executor_s: f64,
    check: &dyn Fn(f32) -> bool,
) -> Result<()> {
    use kiln::runtime::ndarray::lazy;
    let (a, b) = (
        NDArray::from_slice(values, &[N])?,
        NDArray::from_slice(values, &[N])?,
    );
    let before = lazy::stats();
    let (mut failed, mut last) = (None, None);
    let timing = time(args.runs, || {
        let y = &(&a * &b) + 1.0;
        if let Err(e) = y.wait_to_read() {
            failed = Some(e);
        }
        last = Some(y);
    });
    if let Some(e) = failed {
        return Err(Error::from(e));
    }
    let calls = args.runs.max(1) + 1;
    let kernels = (lazy::stats().fused - before.fused) as f64 / calls as f64;
    let got = last
        .map(|y| y.to_vec::<f32>())
        .transpose()?
        .unwrap_or_default();
    if !got.get(999).is_some_and(|&v| check(v)) {
        return Err(Error::Input(
            "imperative computed a wrong value at 999".into(),
        ));
    }
    let rate = gbps(3 * N * 4, timing.0);
    let ratio = timing.0 / executor_s;
    report(
        args,
        "imperative",
        timing,
        json!({ "gbps": rate, "copy_gbps": copy_gbps, "executor_ratio": ratio,
                "kernels_per_call": kernels, "elements": N }),
        &format!("{rate:6.2} GB/s = {ratio:.2}x the executor's time ({kernels} kernel per call)"),
    );
    Ok(())
}

/// The same kernel called directly, at two vector widths.
#[cfg(feature = "llvm")]
fn direct_kernels(args: &Args, y: &Symbol, values: &[f32], copy_gbps: f64) -> Result<()> {
    use kiln::compiler::kir::{from_group, lower, Schedule};
    use kiln::compiler::passes::fuse;
    use kiln::llvm::Jit;
    let g = y.to_graph()?;
    let shapes = [("a".to_string(), vec![N]), ("b".to_string(), vec![N])].into();
    let inferred = kiln::compiler::infer::infer(&g, &shapes, &Default::default())?;
    let group = &fuse(&g).groups[0];
    let lowered = from_group(&g, &inferred, &group.nodes, "w1")?;
    let nest = lower(&lowered[0].kernel, &Schedule::cpu(&lowered[0].kernel))?;
    let (mut ia, mut ib, mut out) = (values.to_vec(), values.to_vec(), vec![0f32; N]);
    let pointers: Vec<*mut u8> = [&mut ia, &mut ib, &mut out]
        .into_iter()
        .map(|v| v.as_mut_ptr().cast())
        .collect();
    for bits in [256, 512] {
        let jit = (Jit::new(None)?.with_vector_bits(bits))
            .with_streaming(kiln::runtime::cpu::cache::last_level_bytes());
        let (kernel, _) = jit.compile(&nest)?;
        let mut failed = None;
        let direct = time(args.runs, || {
            // SAFETY: three buffers of N f32, as the kernel declares.
            if let Err(e) = unsafe { kiln::runtime::backend::run(&*kernel, &pointers, &[]) } {
                failed = Some(e);
            }
        });
        if let Some(e) = failed {
            return Err(Error::from(e));
        }
        let rate = gbps(3 * N * 4, direct.0);
        report(
            args,
            &format!("kernel-{bits}"),
            direct,
            json!({ "gbps": rate, "copy_gbps": copy_gbps, "ratio": rate / copy_gbps, "vector_bits": bits }),
            &format!("{rate:6.2} GB/s = {:.2}x copy", rate / copy_gbps),
        );
    }
    Ok(())
}

/// Loops with non-temporal stores, the reference the machine's limit is measured with:
/// AVX with FMA where the CPU has them (the unaligned head and the tail element by
/// element, the body 8 elements at a time, fenced; a line's two stores combine in the
/// write-combining buffers), plain loops elsewhere.
mod streaming {
    /// `dst = src`.
    pub fn copy(dst: &mut [f32], src: &[f32]) {
        #[cfg(target_arch = "x86_64")]
        if wide::available() {
            // SAFETY: AVX and FMA are present.
            return unsafe { wide::copy(dst, src) };
        }
        dst.copy_from_slice(src);
    }

    /// `y = a·b + 1`.
    pub fn multiply_add_one(y: &mut [f32], a: &[f32], b: &[f32]) {
        #[cfg(target_arch = "x86_64")]
        if wide::available() {
            // SAFETY: AVX and FMA are present.
            return unsafe { wide::multiply_add_one(y, a, b) };
        }
        for ((y, a), b) in y.iter_mut().zip(a).zip(b) {
            *y = a * b + 1.0;
        }
    }

    #[cfg(target_arch = "x86_64")]
    mod wide {
        use std::arch::x86_64::*;

        pub fn available() -> bool {
            std::is_x86_feature_detected!("avx") && std::is_x86_feature_detected!("fma")
        }

        /// The first index of `y` on a 32-byte boundary, and the end of the 8-element
        /// blocks from there.
        fn body(y: &[f32]) -> (usize, usize) {
            let head = y.as_ptr().align_offset(32).min(y.len());
            (head, head + (y.len() - head) / 8 * 8)
        }

        #[target_feature(enable = "avx,fma")]
        pub unsafe fn copy(dst: &mut [f32], src: &[f32]) {
            let (head, end) = body(dst);
            dst[..head].copy_from_slice(&src[..head]);
            for i in (head..end).step_by(8) {
                // SAFETY: i + 8 ≤ end ≤ both lengths; dst + i is 32-byte aligned.
                unsafe {
                    let v = _mm256_loadu_ps(src.as_ptr().add(i));
                    _mm256_stream_ps(dst.as_mut_ptr().add(i), v);
                }
            }
            _mm_sfence();
            let n = dst.len();
            dst[end..].copy_from_slice(&src[end..n]);
        }

        #[target_feature(enable = "avx,fma")]
        pub unsafe fn multiply_add_one(y: &mut [f32], a: &[f32], b: &[f32]) {
            let (head, end) = body(y);
            for i in (0..head).chain(end..y.len()) {
                y[i] = a[i] * b[i] + 1.0;
            }
            let one = _mm256_set1_ps(1.0);
            for i in (head..end).step_by(8) {
                // SAFETY: as in `copy`, for `a` and `b`.
                unsafe {
                    let x = _mm256_loadu_ps(a.as_ptr().add(i));
                    let z = _mm256_loadu_ps(b.as_ptr().add(i));
                    _mm256_stream_ps(y.as_mut_ptr().add(i), _mm256_fmadd_ps(x, z, one));
                }
            }
            _mm_sfence();
        }
    }
}
