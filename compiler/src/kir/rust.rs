//! Rust source from a [`LoopNest`]: one module per kernel holding
//! `pub fn run(in0: &[S0], .., out0: &mut [S0], .., dims: &[i64])`, its loops in the
//! schedule's order, the same over raw pointers (`run_raw`) and, where the outermost loop
//! splits, over a range of it (`run_range`). `kiln::network!` emits this; the CPU JIT
//! renders the same IR to LLVM. Loop kinds other than serial are left to the caller here (the
//! loops are written serially). Functions without a `std` counterpart (erf, erfinv,
//! gamma, lgamma, digamma) call `kiln_ops::expr`, and f16/bf16 buffers are
//! `kiln_ops::half` slices, so the code needs `kiln_ops` in scope. Loads convert through
//! the prelude's `Ld` trait; stores round as the interpreter does.

use super::error::KirError;
use super::ir::{Buffer, Idx, LoopKind, LoopNest, Stmt, Val};
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::{Combiner, DType};
use std::fmt::Write;

fn storage_type(b: &Buffer) -> &'static str {
    match b.dtype {
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::U8 | DType::Bool => "u8",
        DType::I8 => "i8",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::F16 => "kiln_ops::half::f16",
        DType::BF16 => "kiln_ops::half::bf16",
    }
}

/// `value` (of the compute type) as buffer `b` stores it, rounded as the interpreter
/// rounds: half precision from f64, integers through i64 (wrapping to the width), bool
/// as value != 0.
fn stored(b: &Buffer, value: &str) -> String {
    let ty = storage_type(b);
    match b.dtype {
        DType::F32 | DType::F64 => format!("({value}) as {ty}"),
        DType::F16 | DType::BF16 => format!("{ty}::from_f64(({value}) as f64)"),
        DType::Bool => format!("(({value}) != 0.0) as u8"),
        DType::U8 | DType::I8 | DType::I32 | DType::I64 => format!("(({value}) as i64) as {ty}"),
    }
}

/// Renders `nest` as `pub mod <name> { pub fn run(..) }` with `run_raw` and, where the
/// outermost loop splits, `run_range`.
pub fn render(nest: &LoopNest) -> Result<String, KirError> {
    render_with(nest, true)
}

/// `nest` with `run_raw` and `run_range` only: what generated code that addresses its
/// buffers by pointer calls (half the code to compile).
pub fn render_raw(nest: &LoopNest) -> Result<String, KirError> {
    render_with(nest, false)
}

fn render_with(nest: &LoopNest, slices: bool) -> Result<String, KirError> {
    let compute = match nest.compute {
        DType::F32 => "f32",
        DType::F64 => "f64",
        dtype => {
            return Err(KirError::Unsupported {
                kernel: nest.name.clone(),
                dtype,
                target: "Rust",
            })
        }
    };
    let mut s = format!(
        "#[allow(unused, clippy::all)]\npub mod {} {{\n    type T = {compute};\n",
        nest.name
    );
    s += PRELUDE;
    if slices {
        let params = parameters(nest, ["&[", "]"], ["&mut [", "]"]);
        writeln!(s, "    pub fn run({}) {{", params.join(", ")).unwrap();
        let safe = Mode {
            raw: false,
            range: false,
        };
        stmts(&mut s, &nest.body, &nest.outputs, 2, safe);
        s += "    }\n";
    }
    // The same loops over raw pointers: an output may then be written over an input
    // the kernel reads only where it stores (`Kernel::may_overwrite`), which slices
    // cannot express.
    let mut raw = parameters(nest, ["*const ", ""], ["*mut ", ""]);
    let mut function = |name: &str, params: &[String], doc: &str, range: bool| {
        writeln!(s, "    /// # Safety\n    /// {doc}").unwrap();
        writeln!(s, "    pub unsafe fn {name}({}) {{", params.join(", ")).unwrap();
        stmts(
            &mut s,
            &nest.body,
            &nest.outputs,
            2,
            Mode { raw: true, range },
        );
        s += "    }\n";
    };
    let held = "Each pointer holds its buffer: the elements the kernel declares, in its dtype.";
    function("run_raw", &raw, held, false);
    if split_extent(nest).is_some() {
        // The outermost loop over `lo..hi`: a caller runs disjoint ranges on several
        // threads.
        raw.push("lo: i64".into());
        raw.push("hi: i64".into());
        let doc = "As `run_raw`; ranges run at once are disjoint.";
        function("run_range", &raw, doc, true);
    }
    s += "}\n";
    Ok(s)
}

/// A kernel function's parameters: each input's and output's storage type wrapped as
/// `[before, after]` says (a slice, a pointer), then the dimensions.
fn parameters(nest: &LoopNest, input: [&str; 2], output: [&str; 2]) -> Vec<String> {
    let buffers = |prefix: &str, bs: &[Buffer], [open, close]: [&str; 2]| {
        (bs.iter().enumerate())
            .map(|(i, b)| format!("{prefix}{i}: {open}{}{close}", storage_type(b)))
            .collect::<Vec<_>>()
    };
    let mut params = buffers("in", &nest.inputs, input);
    params.extend(buffers("out", &nest.outputs, output));
    params.push("dims: &[i64]".into());
    params
}

/// The extent of the loop `run_range` splits: where the nest is temporaries and then one
/// parallel loop of constant extent (each iteration writes its own part of every output:
/// the CPU schedule's outermost loop), that loop's extent.
pub fn split_extent(nest: &LoopNest) -> Option<i64> {
    let (last, before) = nest.body.split_last()?;
    if !before.iter().all(|st| matches!(st, Stmt::Let { .. })) {
        return None;
    }
    match last {
        Stmt::Loop {
            extent: Idx::Const(e),
            kind: LoopKind::Parallel,
            ..
        } => Some(*e),
        _ => None,
    }
}

/// Helpers in the compute type `T`, matching `kiln_ops::expr::eval`'s semantics.
const PRELUDE: &str =
    "    fn sign(a: T) -> T { if a > 0.0 { 1.0 } else if a < 0.0 { -1.0 } else { 0.0 } }
    fn max(a: T, b: T) -> T { if a.is_nan() || a > b { a } else { b } }
    fn min(a: T, b: T) -> T { if a.is_nan() || a < b { a } else { b } }
    fn modulo(a: T, b: T) -> T {
        if b == 0.0 { return 0.0; }
        let r = a % b;
        if r != 0.0 && (r < 0.0) != (b < 0.0) { r + b } else { r }
    }
    fn truth(c: bool) -> T { if c { 1.0 } else { 0.0 } }
    fn special(f: fn(f64) -> f64, a: T) -> T { f(a as f64) as T }
    /// Storage to the compute type.
    trait Ld { fn ld(self) -> T; }
    impl Ld for f32 { fn ld(self) -> T { self as T } }
    impl Ld for f64 { fn ld(self) -> T { self as T } }
    impl Ld for u8 { fn ld(self) -> T { self as T } }
    impl Ld for i8 { fn ld(self) -> T { self as T } }
    impl Ld for i32 { fn ld(self) -> T { self as T } }
    impl Ld for i64 { fn ld(self) -> T { self as T } }
    impl Ld for kiln_ops::half::f16 { fn ld(self) -> T { self.to_f64() as T } }
    impl Ld for kiln_ops::half::bf16 { fn ld(self) -> T { self.to_f64() as T } }
";

/// How a kernel reaches its buffers: slices, or raw pointers with the outermost loop over
/// `lo..hi` (`run_range`).
#[derive(Clone, Copy)]
struct Mode {
    raw: bool,
    range: bool,
}

fn stmts(s: &mut String, body: &[Stmt], outputs: &[Buffer], depth: usize, mode: Mode) {
    let pad = "    ".repeat(depth);
    for st in body {
        match st {
            Stmt::Loop {
                axis, extent, body, ..
            } => {
                let bounds = match mode.range {
                    true => "lo..hi".to_string(),
                    false => format!("0..{}", idx(extent)),
                };
                writeln!(s, "{pad}for i{axis} in {bounds} {{").unwrap();
                let inner = Mode {
                    range: false,
                    ..mode
                };
                stmts(s, body, outputs, depth + 1, inner);
                writeln!(s, "{pad}}}").unwrap();
            }
            Stmt::Let { temp, value } => {
                writeln!(s, "{pad}let t{temp}: T = {};", val(value, mode.raw)).unwrap()
            }
            Stmt::Store {
                output,
                index,
                value,
            } => {
                let at = idx(index);
                let value = stored(&outputs[*output], &val(value, mode.raw));
                match mode.raw {
                    true => writeln!(s, "{pad}*out{output}.add(({at}) as usize) = {value};"),
                    false => writeln!(s, "{pad}out{output}[({at}) as usize] = {value};"),
                }
                .unwrap();
            }
        }
    }
}

fn idx(i: &Idx) -> String {
    match i {
        Idx::Const(c) => format!("{c}i64"),
        Idx::Coord(a) => format!("i{a}"),
        Idx::Dim(d) => format!("dims[{d}]"),
        Idx::Red(k) => format!("r{k}"),
        Idx::Add(a, b) => format!("({} + {})", idx(a), idx(b)),
        Idx::Mul(a, b) => format!("({} * {})", idx(a), idx(b)),
        Idx::Div(a, b) => format!("{}.div_euclid({})", idx(a), idx(b)),
        Idx::Mod(a, b) => format!("{}.rem_euclid({})", idx(a), idx(b)),
    }
}

fn constant(c: f64) -> String {
    if c.is_nan() {
        "T::NAN".into()
    } else if c.is_infinite() {
        (if c > 0.0 {
            "T::INFINITY"
        } else {
            "T::NEG_INFINITY"
        })
        .into()
    } else {
        format!("({c:?} as T)")
    }
}

fn val(v: &Val, raw: bool) -> String {
    match v {
        Val::Const(c) => constant(*c),
        Val::Load { buffer, index } if raw => {
            format!("(*in{buffer}.add(({}) as usize)).ld()", idx(index))
        }
        Val::Load { buffer, index } => format!("in{buffer}[({}) as usize].ld()", idx(index)),
        Val::Index(i) => format!("({} as T)", idx(i)),
        Val::Temp(t) => format!("t{t}"),
        Val::Local(l) => format!("l{l}"),
        Val::Bits(op, a) => format!(
            "kiln_ops::expr::bits::{}({} as f64) as T",
            format!("{op:?}").to_lowercase(),
            val(a, raw)
        ),
        Val::Shared(_) => "{ compile_error!(\"shared memory is GPU-only\") }".into(),
        Val::Reduce {
            combiner,
            extents,
            locals,
            body,
        } => {
            let open: String = extents
                .iter()
                .enumerate()
                .map(|(k, e)| format!("for r{k} in 0..{} {{ ", idx(e)))
                .chain(
                    locals
                        .iter()
                        .enumerate()
                        .map(|(l, v)| format!("let l{l}: T = {}; ", val(v, raw))),
                )
                .collect();
            let combine = match combiner {
                Combiner::Sum => "acc + v",
                Combiner::Prod => "acc * v",
                Combiner::Max => "if v > acc || v.is_nan() { v } else { acc }",
                Combiner::Min => "if v < acc || v.is_nan() { v } else { acc }",
            };
            format!(
                "{{ let mut acc: T = {}; {open}let v: T = {}; acc = {combine}; {}acc }}",
                constant(combiner.identity()),
                val(body, raw),
                "} ".repeat(extents.len())
            )
        }
        Val::Unary(op, a) => unary(*op, &val(a, raw)),
        Val::Binary(op, a, b) => binary(*op, &val(a, raw), &val(b, raw)),
        Val::Select(c, a, b) => format!(
            "(if {} != 0.0 {{ {} }} else {{ {} }})",
            val(c, raw),
            val(a, raw),
            val(b, raw)
        ),
    }
}

fn unary(op: Unary, a: &str) -> String {
    let method = match op {
        Unary::Neg => return format!("(-{a})"),
        Unary::Sign => return format!("sign({a})"),
        Unary::Erf => return format!("special(kiln_ops::expr::erf, {a})"),
        Unary::Erfinv => return format!("special(kiln_ops::expr::erfinv, {a})"),
        Unary::Gamma => return format!("special(kiln_ops::expr::gamma, {a})"),
        Unary::Lgamma => return format!("special(kiln_ops::expr::lgamma, {a})"),
        Unary::Digamma => return format!("special(kiln_ops::expr::digamma, {a})"),
        Unary::Abs => "abs",
        Unary::Exp => "exp",
        Unary::Expm1 => "exp_m1",
        Unary::Log => "ln",
        Unary::Log1p => "ln_1p",
        Unary::Sqrt => "sqrt",
        Unary::Tanh => "tanh",
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
    };
    format!("{a}.{method}()")
}

fn binary(op: Binary, a: &str, b: &str) -> String {
    let infix = |o: &str| format!("({a} {o} {b})");
    let test = |o: &str| format!("truth({a} {o} {b})");
    match op {
        Binary::Add => infix("+"),
        Binary::Sub => infix("-"),
        Binary::Mul => infix("*"),
        Binary::Div => infix("/"),
        Binary::Max => format!("max({a}, {b})"),
        Binary::Min => format!("min({a}, {b})"),
        Binary::Pow => format!("{a}.powf({b})"),
        Binary::Mod => format!("modulo({a}, {b})"),
        Binary::Hypot => format!("{a}.hypot({b})"),
        Binary::Lt => test("<"),
        Binary::Le => test("<="),
        Binary::Gt => test(">"),
        Binary::Ge => test(">="),
        Binary::Eq => test("=="),
        Binary::Ne => test("!="),
    }
}
