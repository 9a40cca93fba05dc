//! CUDA C from a [`Kernel`].
//!
//! - Kernels with reductions over their inner axes: the block schedule of
//!   [`gpu`](super::gpu) (shared-memory trees, barriers, warp shuffles), [`render_block`].
//! - The rest: the element-wise schedule, the domain flattened and walked by a grid-stride
//!   loop, each thread recovering its coordinates by division, so any grid size covers any
//!   domain. Where every buffer is f32 and every load reads the point being stored, a
//!   first path moves four points per thread with `float4` loads and stores when the
//!   element count is a multiple of four and the buffers are 16-byte aligned (checked in
//!   the kernel); the scalar loop covers the rest. The SIMT emulator runs the scalar form,
//!   which computes the same points.
//!
//! Symbolic dimensions become `long long dimN` parameters after the buffers, then (for the
//! element-wise schedule) the element count `n`.
//!
//! Values are computed in the kernel's compute type (`float` or `double`) with CUDA's
//! math library; operators without a CUDA counterpart (MXNet's `mod`, `sign`, digamma)
//! come from a small prelude. Storage types convert on load and store, f16 and bf16
//! included (they compute in f32).

use super::error::KirError;
use super::gpu::{block_reduce, GStmt, GpuKernel, Launch};
use super::ir::{linear, BitOp, Buffer, Idx, Kernel, Val};
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::{Combiner, DType};
use std::fmt::Write;

/// The C type that stores buffer `b`'s elements.
fn storage_type(b: &Buffer) -> &'static str {
    match b.dtype {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::U8 | DType::Bool => "unsigned char",
        DType::I8 => "signed char",
        DType::I32 => "int",
        DType::I64 => "long long",
        DType::F16 => "kiln_f16",
        DType::BF16 => "kiln_bf16",
    }
}

/// `value` (of the compute type) as buffer `b` stores it, rounded as the interpreter
/// rounds: integers through 64 bits (wrapping to the width), bool as value != 0.
fn stored(b: &Buffer, value: &str) -> String {
    let ty = storage_type(b);
    match b.dtype {
        DType::F32 | DType::F64 => format!("({ty})({value})"),
        DType::F16 => format!("kiln_to_f16((float)({value}))"),
        DType::BF16 => format!("kiln_to_bf16((float)({value}))"),
        DType::Bool => format!("(unsigned char)(({value}) != 0)"),
        DType::U8 | DType::I8 | DType::I32 | DType::I64 => {
            format!("({ty})(long long)({value})")
        }
    }
}

/// Helpers in the compute type `T`, matching `kiln_ops::expr::eval`'s semantics, and the
/// storage conversions: `kiln_ld` overloaded on every storage type, half precision in
/// distinct structs converted by PTX `cvt` (f16) and bit arithmetic (bf16, rounding to
/// nearest even, NaN kept quiet), so no header is needed.
const PRELUDE: &str = r#"
struct kiln_f16 { unsigned short bits; };
struct kiln_bf16 { unsigned short bits; };
__device__ __forceinline__ float kiln_ld_f32(kiln_f16 h) {
  float f; asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h.bits)); return f;
}
__device__ __forceinline__ kiln_f16 kiln_to_f16(float f) {
  kiln_f16 h; asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h.bits) : "f"(f)); return h;
}
__device__ __forceinline__ kiln_bf16 kiln_to_bf16(float f) {
  unsigned int b = __float_as_uint(f);
  kiln_bf16 h;
  h.bits = (f != f) ? (unsigned short)((b >> 16) | 0x40) : (unsigned short)((b + 0x7FFF + ((b >> 16) & 1)) >> 16);
  return h;
}
__device__ __forceinline__ T kiln_ld(kiln_f16 h) { return (T)kiln_ld_f32(h); }
__device__ __forceinline__ T kiln_ld(kiln_bf16 h) { return (T)__uint_as_float((unsigned int)h.bits << 16); }
__device__ __forceinline__ T kiln_ld(float x) { return (T)x; }
__device__ __forceinline__ T kiln_ld(double x) { return (T)x; }
__device__ __forceinline__ T kiln_ld(unsigned char x) { return (T)x; }
__device__ __forceinline__ T kiln_ld(signed char x) { return (T)x; }
__device__ __forceinline__ T kiln_ld(int x) { return (T)x; }
__device__ __forceinline__ T kiln_ld(long long x) { return (T)x; }
__device__ __forceinline__ long long kiln_floordiv(long long a, long long b) {
  long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ long long kiln_emod(long long a, long long b) {
  long long r = a % b; return r < 0 ? r + b : r;
}
__device__ __forceinline__ T kiln_sign(T a) { return a > 0 ? (T)1 : (a < 0 ? (T)-1 : (T)0); }
__device__ __forceinline__ T kiln_max(T a, T b) { return (a != a || a > b) ? a : b; }
__device__ __forceinline__ T kiln_min(T a, T b) { return (a != a || a < b) ? a : b; }
__device__ __forceinline__ T kiln_mod(T a, T b) {
  if (b == 0) return (T)0;
  T r = fmod(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ T kiln_digamma(T x) {
  const T pi = (T)3.14159265358979323846;
  if (x != x || (x <= 0 && x == floor(x))) return (T)__longlong_as_double(0x7ff8000000000000LL);
  T acc = 0;
  if (x < 0) { T r = x - round(x); acc = -pi / tan(pi * r); x = 1 - x; }
  if (isinf(x)) return x;
  while (x < 10) { acc -= 1 / x; x += 1; }
  T z = 1 / (x * x);
  T series = z * ((T)1 / 12 - z * ((T)1 / 120 - z * ((T)1 / 252 - z * ((T)1 / 240
      - z * ((T)1 / 132 - z * ((T)691 / 32760 - z / 12))))));
  return acc + log(x) - (T)0.5 / x - series;
}
"#;

/// Threads per block of reduction kernels ([`block_reduce`]).
pub const REDUCTION_BLOCK: u32 = 256;

fn compute_type(k: &Kernel) -> Result<&'static str, KirError> {
    match k.compute {
        DType::F32 => Ok("float"),
        DType::F64 => Ok("double"),
        dtype => Err(KirError::Unsupported {
            kernel: k.name.clone(),
            dtype,
            target: "CUDA",
        }),
    }
}

/// The buffers, then the symbolic dimensions.
fn params(k: &Kernel) -> Vec<String> {
    let mut params = Vec::new();
    for (i, b) in k.inputs.iter().enumerate() {
        params.push(format!("const {}* __restrict__ in{i}", storage_type(b)));
    }
    for (i, b) in k.outputs.iter().enumerate() {
        params.push(format!("{}* __restrict__ out{i}", storage_type(b)));
    }
    params.extend((0..k.symbolic_dims()).map(|d| format!("long long dim{d}")));
    params
}

/// Renders `k` as one `extern "C" __global__` function named after the kernel, in a
/// namespace of its own: a kernel with reductions over its inner axes under the block
/// schedule ([`block_reduce`], launched with [`REDUCTION_BLOCK`] threads per block), any
/// other under the element-wise grid-stride schedule (any launch).
pub fn render(k: &Kernel) -> Result<String, KirError> {
    let compute = compute_type(k)?;
    if let Ok(gk) = block_reduce(k, REDUCTION_BLOCK) {
        return render_block(&gk);
    }
    let mut params = params(k);
    params.push("long long n".into());

    // A namespace per kernel keeps `T` and the prelude apart, so the kernels of a model
    // concatenate into one module (one NVRTC call); `extern "C"` keeps the name plain.
    let mut s = format!(
        "namespace kiln_{} {{\ntypedef {compute} T;\n{PRELUDE}\n",
        k.name
    );
    writeln!(
        s,
        "extern \"C\" __global__ void {}({}) {{",
        k.name,
        params.join(", ")
    )
    .unwrap();
    s += "  const long long stride = (long long)gridDim.x * blockDim.x;\n";
    s += "  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
    if vectorizable(k) {
        s += &vector_path(k);
    }
    s += "  for (long long lin = first; lin < n; lin += stride) {\n";
    s += &point(k, &|b, i| format!("kiln_ld(in{b}[{}])", idx(i)), &|o, v| {
        format!("out{o}[lin] = {};", stored(&k.outputs[o], v))
    });
    s += "  }\n}\n}\n";
    Ok(s)
}

/// Whether every buffer is f32 and every load reads the point being stored: then
/// `float4` loads and stores move four points at once.
fn vectorizable(k: &Kernel) -> bool {
    let here = linear(&k.domain);
    let loads_here = |v: &Val, here: &Idx| {
        !v.any(&mut |x| match x {
            Val::Load { index, .. } => index != here,
            Val::Reduce { .. } => true,
            _ => false,
        })
    };
    k.inputs
        .iter()
        .chain(&k.outputs)
        .all(|b| b.dtype == DType::F32)
        && k.temps
            .iter()
            .chain(&k.values)
            .all(|v| loads_here(v, &here))
}

/// The `float4` path, taken when the element count is a multiple of four and every
/// buffer is 16-byte aligned (a uniform branch): each thread loads a `float4` of every
/// input, computes its four points, and stores a `float4` of every output.
fn vector_path(k: &Kernel) -> String {
    let buffers: Vec<String> = (0..k.inputs.len())
        .map(|b| format!("in{b}"))
        .chain((0..k.outputs.len()).map(|o| format!("out{o}")))
        .map(|p| format!("((unsigned long long){p} & 15) == 0"))
        .collect();
    let mut s = format!("  if ((n & 3) == 0 && {}) {{\n", buffers.join(" && "));
    s += "    for (long long q = first; q < (n >> 2); q += stride) {\n";
    for b in 0..k.inputs.len() {
        writeln!(
            s,
            "      const float4 v{b} = reinterpret_cast<const float4*>(in{b})[q];"
        )
        .unwrap();
    }
    for o in 0..k.outputs.len() {
        writeln!(s, "      float4 o{o};").unwrap();
    }
    for c in ["x", "y", "z", "w"] {
        let lane = ["x", "y", "z", "w"]
            .iter()
            .position(|l| *l == c)
            .unwrap_or(0);
        writeln!(s, "      {{ const long long lin = 4 * q + {lane};").unwrap();
        s += &point(k, &|b, _| format!("(T)v{b}.{c}"), &|o, v| {
            format!("o{o}.{c} = (float)({v});")
        });
        s += "      }\n";
    }
    for o in 0..k.outputs.len() {
        writeln!(s, "      reinterpret_cast<float4*>(out{o})[q] = o{o};").unwrap();
    }
    s += "    }\n    return;\n  }\n";
    s
}

/// One point's statements at linear index `lin`: its coordinates, temporaries and stores,
/// loads rendered by `load(buffer, index)` and stores by `store(output, value)`.
fn point(
    k: &Kernel,
    load: &dyn Fn(usize, &Idx) -> String,
    store: &dyn Fn(usize, &str) -> String,
) -> String {
    let mut s = String::from("    long long rest = lin;\n");
    for axis in (0..k.domain.len()).rev() {
        let extent = idx(&k.domain[axis]);
        if axis == 0 {
            writeln!(s, "    const long long i0 = rest;").unwrap();
        } else {
            writeln!(
                s,
                "    const long long i{axis} = rest % {extent}; rest /= {extent};"
            )
            .unwrap();
        }
    }
    for (t, v) in k.temps.iter().enumerate() {
        writeln!(s, "    const T t{t} = {};", val_with(v, load)).unwrap();
    }
    for (o, v) in k.values.iter().enumerate() {
        writeln!(s, "    {}", store(o, &val_with(v, load))).unwrap();
    }
    s
}

/// Renders a block-scheduled kernel: `__launch_bounds__` of its block, the shared array,
/// coordinates and registers declared up front, and its statements.
pub fn render_block(gk: &GpuKernel) -> Result<String, KirError> {
    let k = &gk.kernel;
    let compute = compute_type(k)?;
    let mut s = format!(
        "namespace kiln_{} {{\ntypedef {compute} T;\n{PRELUDE}\n",
        k.name
    );
    writeln!(
        s,
        "extern \"C\" __global__ void __launch_bounds__({}) {}({}) {{",
        gk.block,
        k.name,
        params(k).join(", ")
    )
    .unwrap();
    writeln!(s, "  __shared__ T kiln_shared[{}];", gk.shared.max(1)).unwrap();
    let coords: Vec<String> = (0..gk.coords).map(|c| format!("i{c} = 0")).collect();
    writeln!(s, "  long long {};", coords.join(", ")).unwrap();
    let regs: Vec<String> = (0..gk.registers).map(|r| format!("t{r} = 0")).collect();
    writeln!(s, "  T {};", regs.join(", ")).unwrap();
    block_stmts(&mut s, &gk.body, &k.outputs, 1);
    s += "}\n}\n";
    Ok(s)
}

fn block_stmts(s: &mut String, body: &[GStmt], outputs: &[Buffer], depth: usize) {
    let pad = "  ".repeat(depth);
    for st in body {
        match st {
            GStmt::Launch { coord, value } => {
                let v = match value {
                    Launch::Thread => "threadIdx.x",
                    Launch::Block => "blockIdx.x",
                    Launch::Blocks => "gridDim.x",
                };
                writeln!(s, "{pad}i{coord} = {v};").unwrap();
            }
            GStmt::SetCoord { coord, value } => {
                writeln!(s, "{pad}i{coord} = {};", idx(value)).unwrap()
            }
            GStmt::For {
                coord,
                start,
                end,
                step,
                body,
            } => {
                writeln!(
                    s,
                    "{pad}for (i{coord} = {}; i{coord} < {}; i{coord} += {}) {{",
                    idx(start),
                    idx(end),
                    idx(step)
                )
                .unwrap();
                block_stmts(s, body, outputs, depth + 1);
                writeln!(s, "{pad}}}").unwrap();
            }
            GStmt::IfLess { lhs, rhs, body } => {
                writeln!(s, "{pad}if ({} < {}) {{", idx(lhs), idx(rhs)).unwrap();
                block_stmts(s, body, outputs, depth + 1);
                writeln!(s, "{pad}}}").unwrap();
            }
            GStmt::Set { reg, value } => writeln!(s, "{pad}t{reg} = {};", val(value)).unwrap(),
            GStmt::SharedStore { at, value } => {
                writeln!(s, "{pad}kiln_shared[{}] = {};", idx(at), val(value)).unwrap()
            }
            GStmt::Barrier => writeln!(s, "{pad}__syncthreads();").unwrap(),
            GStmt::ShuffleDown { reg, src, delta } => writeln!(
                s,
                "{pad}t{reg} = __shfl_down_sync(0xffffffffu, t{src}, {delta});"
            )
            .unwrap(),
            GStmt::Store {
                output,
                index,
                value,
            } => {
                let v = stored(&outputs[*output], &val(value));
                writeln!(s, "{pad}out{output}[{}] = {v};", idx(index)).unwrap()
            }
        }
    }
}

fn idx(i: &Idx) -> String {
    match i {
        Idx::Const(c) => format!("{c}LL"),
        Idx::Coord(a) => format!("i{a}"),
        Idx::Dim(d) => format!("dim{d}"),
        Idx::Red(k) => format!("r{k}"),
        Idx::Add(a, b) => format!("({} + {})", idx(a), idx(b)),
        Idx::Mul(a, b) => format!("({} * {})", idx(a), idx(b)),
        Idx::Div(a, b) => format!("kiln_floordiv({}, {})", idx(a), idx(b)),
        Idx::Mod(a, b) => format!("kiln_emod({}, {})", idx(a), idx(b)),
    }
}

/// A constant of the compute type, exact for every bit pattern (infinities and NaN too).
fn constant(c: f64) -> String {
    if c.is_finite() {
        format!("(T){c:?}")
    } else {
        format!("(T)__longlong_as_double(0x{:016x}LL)", c.to_bits())
    }
}

fn val(v: &Val) -> String {
    val_with(v, &|b, i| format!("kiln_ld(in{b}[{}])", idx(i)))
}

/// `v` in C, loads rendered by `load(buffer, index)`.
fn val_with(v: &Val, load: &dyn Fn(usize, &Idx) -> String) -> String {
    let val = |v: &Val| val_with(v, load);
    match v {
        Val::Const(c) => constant(*c),
        Val::Load { buffer, index } => load(*buffer, index),
        Val::Index(i) => format!("(T){}", idx(i)),
        Val::Temp(t) => format!("t{t}"),
        Val::Local(l) => format!("l{l}"),
        Val::Bits(op, a) => match op {
            BitOp::Pow2i => format!("(T)exp2((T)({}))", val(a)),
            BitOp::Exponent => format!("(T)(ilogb({}) + 1)", val(a)),
            BitOp::Mantissa => {
                let x = val(a);
                format!("(T)scalbn({x}, -(ilogb({x}) + 1))")
            }
        },
        Val::Shared(i) => format!("kiln_shared[{}]", idx(i)),
        // A serial reduction per thread, as an immediately called lambda.
        Val::Reduce {
            combiner,
            extents,
            locals,
            body,
        } => {
            let loops: String = extents
                .iter()
                .enumerate()
                .map(|(k, e)| format!("for (long long r{k} = 0; r{k} < {}; ++r{k}) ", idx(e)))
                .collect();
            let locals: String = locals
                .iter()
                .enumerate()
                .map(|(l, v)| format!("const T l{l} = {}; ", val(v)))
                .collect();
            let combine = match combiner {
                Combiner::Sum => "acc + v",
                Combiner::Prod => "acc * v",
                Combiner::Max => "(v > acc || v != v) ? v : acc",
                Combiner::Min => "(v < acc || v != v) ? v : acc",
            };
            format!(
                "([&]() -> T {{ T acc = {}; {loops}{{ {locals}const T v = {}; acc = {combine}; }} return acc; }}())",
                constant(combiner.identity()),
                val(body)
            )
        }
        Val::Unary(op, a) => unary(*op, &val(a)),
        Val::Binary(op, a, b) => binary(*op, &val(a), &val(b)),
        Val::Select(c, a, b) => format!("({} != 0 ? {} : {})", val(c), val(a), val(b)),
    }
}

/// CUDA's math functions are overloaded on `float` and `double`.
fn unary(op: Unary, a: &str) -> String {
    let name = match op {
        Unary::Neg => return format!("(-{a})"),
        Unary::Sign => "kiln_sign",
        Unary::Digamma => "kiln_digamma",
        Unary::Abs => "fabs",
        Unary::Exp => "exp",
        Unary::Expm1 => "expm1",
        Unary::Log => "log",
        Unary::Log1p => "log1p",
        Unary::Sqrt => "sqrt",
        Unary::Tanh => "tanh",
        Unary::Erf => "erf",
        Unary::Erfinv => "erfinv",
        Unary::Floor => "floor",
        Unary::Ceil => "ceil",
        Unary::Round => "round",
        Unary::Trunc => "trunc",
        Unary::Log2 => "log2",
        Unary::Log10 => "log10",
        Unary::Sin => "sin",
        Unary::Cos => "cos",
        Unary::Tan => "tan",
        Unary::Asin => "asin",
        Unary::Acos => "acos",
        Unary::Atan => "atan",
        Unary::Sinh => "sinh",
        Unary::Cosh => "cosh",
        Unary::Asinh => "asinh",
        Unary::Acosh => "acosh",
        Unary::Atanh => "atanh",
        Unary::Cbrt => "cbrt",
        Unary::Gamma => "tgamma",
        Unary::Lgamma => "lgamma",
    };
    format!("{name}({a})")
}

fn binary(op: Binary, a: &str, b: &str) -> String {
    let infix = |o: &str| format!("({a} {o} {b})");
    let test = |o: &str| format!("(({a} {o} {b}) ? (T)1 : (T)0)");
    match op {
        Binary::Add => infix("+"),
        Binary::Sub => infix("-"),
        Binary::Mul => infix("*"),
        Binary::Div => infix("/"),
        Binary::Max => format!("kiln_max({a}, {b})"),
        Binary::Min => format!("kiln_min({a}, {b})"),
        Binary::Pow => format!("pow({a}, {b})"),
        Binary::Mod => format!("kiln_mod({a}, {b})"),
        Binary::Hypot => format!("hypot({a}, {b})"),
        Binary::Lt => test("<"),
        Binary::Le => test("<="),
        Binary::Gt => test(">"),
        Binary::Ge => test(">="),
        Binary::Eq => test("=="),
        Binary::Ne => test("!="),
    }
}
