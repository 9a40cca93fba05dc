//! Math functions as polynomials in the IR, so kernels calling them vectorize: a rewrite
//! of f32 loop nests that replaces `exp`, `tanh` and `log` with range reduction, a minimax
//! polynomial and [`Val::Bits`] (exact powers of two and frexp splits, from the exponent
//! bits).
//!
//! Stated bounds, against libm in f64, on f32 inputs (`tests/kir.rs` sweeps 2·10^5-point
//! grids through the LLVM JIT and the IR interpreter; the worst seen is in brackets):
//! - `exp`: relative error ≤ 1.5e-7 [7.6e-8] where the result is a normal f32 (x ≥ -87.3);
//!   subnormal results are within two of their spacing, x < -103.97 gives 0 and x > 88.72
//!   gives +inf;
//! - `tanh`: relative error ≤ 2e-7 [1.3e-7]; |x| < 0.625 uses an odd polynomial (no
//!   cancellation near 0), larger |x| `1 − 2/(exp(2|x|) + 1)` with `x`'s sign;
//! - `log`: relative error ≤ 1.5e-7 [7.7e-8] on positive inputs from the smallest
//!   subnormal (scaled by 2^24 first) to the largest f32; log(0) = −∞, log(x < 0) = NaN,
//!   log(∞) = ∞.
//!
//! NaN stays NaN. The coefficients are Moshier's (Cephes `expf`, `tanhf`, `logf`). f64
//! kernels keep the library functions: a polynomial good to f64 costs more than the call
//! saves. Other functions (erf, log1p, sin, ...) are still calls.

use super::ir::{BitOp, LoopNest, Stmt, Val};
use kiln_ops::expr::{Binary, Unary};
use kiln_ops::DType;

fn c(v: f64) -> Val {
    Val::Const(v)
}
fn bin(op: Binary, a: Val, b: Val) -> Val {
    Val::Binary(op, Box::new(a), Box::new(b))
}
fn add(a: Val, b: Val) -> Val {
    bin(Binary::Add, a, b)
}
fn mul(a: Val, b: Val) -> Val {
    bin(Binary::Mul, a, b)
}
fn bits(op: BitOp, a: Val) -> Val {
    Val::Bits(op, Box::new(a))
}
fn select(cond: Val, a: Val, b: Val) -> Val {
    Val::Select(Box::new(cond), Box::new(a), Box::new(b))
}
/// `coeffs[0]·x^(n−1) + … + coeffs[n−1]` by Horner's rule.
fn horner(x: &Val, coeffs: &[f64]) -> Val {
    coeffs[1..]
        .iter()
        .fold(c(coeffs[0]), |acc, &k| add(mul(acc, x.clone()), c(k)))
}

const EXP_MAX: f64 = 88.72283905206835;
/// ln(2^-150): below it every result rounds to 0.
const EXP_MIN: f64 = -103.97207708399179;
const LOG2E: f64 = std::f64::consts::LOG2_E;
/// ln 2 split so `n·LN2_HI` is exact in f32.
const LN2_HI: f64 = 0.693359375;
const LN2_LO: f64 = -2.12194440e-4;
const EXP_POLY: [f64; 6] = [
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
];
const TANH_SMALL: f64 = 0.625;
const TANH_POLY: [f64; 5] = [
    -5.70498872745e-3,
    2.06390887954e-2,
    -5.37397155531e-2,
    1.33314422036e-1,
    -3.33332819422e-1,
];

/// `exp(x)`: x = n·ln2 + r with |r| ≤ ln2/2, exp(r) by a degree-7 polynomial, times 2^n.
pub fn exp(x: Val) -> Val {
    let clamped = bin(
        Binary::Max,
        bin(Binary::Min, x.clone(), c(EXP_MAX)),
        c(EXP_MIN),
    );
    let n = Val::Unary(Unary::Round, Box::new(mul(clamped.clone(), c(LOG2E))));
    let r = add(
        add(clamped, mul(n.clone(), c(-LN2_HI))),
        mul(n.clone(), c(-LN2_LO)),
    );
    let r2 = mul(r.clone(), r.clone());
    let e_r = add(add(mul(horner(&r, &EXP_POLY), r2), r), c(1.0));
    // 2^n in two halves: each is a normal number where 2^n itself would overflow or be
    // subnormal, and the products round once.
    let half = Val::Unary(Unary::Floor, Box::new(mul(n.clone(), c(0.5))));
    let rest = add(n, Val::Unary(Unary::Neg, Box::new(half.clone())));
    let scaled = mul(mul(e_r, bits(BitOp::Pow2i, half)), bits(BitOp::Pow2i, rest));
    let nan = bin(Binary::Ne, x.clone(), x.clone());
    let big = bin(Binary::Gt, x.clone(), c(EXP_MAX));
    let tiny = bin(Binary::Lt, x.clone(), c(EXP_MIN));
    select(
        nan,
        x,
        select(big, c(f64::INFINITY), select(tiny, c(0.0), scaled)),
    )
}

const SQRT_HALF: f64 = std::f64::consts::FRAC_1_SQRT_2;
const LOG_POLY: [f64; 9] = [
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
];
/// 2^24: scales a subnormal input into the normal range.
const SUBNORMAL_SCALE: f64 = 16_777_216.0;

/// `log(x)`: `x = m·2^e` with `m` in [√½, √2), `log(m)` by a degree-9 polynomial in
/// `m − 1`, plus `e·ln 2` in two parts; subnormal inputs are scaled by 2^24 first.
pub fn log(x: Val) -> Val {
    let tiny = bin(Binary::Lt, x.clone(), c(f32::MIN_POSITIVE as f64));
    let scaled = select(tiny.clone(), mul(x.clone(), c(SUBNORMAL_SCALE)), x.clone());
    let shift = select(tiny, c(-24.0), c(0.0));
    let m = bits(BitOp::Mantissa, scaled.clone());
    let e = add(bits(BitOp::Exponent, scaled), shift);
    // m in [0.5, 1): below √½ use 2m − 1 and e − 1, else m − 1.
    let low = bin(Binary::Lt, m.clone(), c(SQRT_HALF));
    let z = select(
        low.clone(),
        add(add(m.clone(), m.clone()), c(-1.0)),
        add(m, c(-1.0)),
    );
    let e = add(e, select(low, c(-1.0), c(0.0)));
    let z2 = mul(z.clone(), z.clone());
    let y = add(
        add(
            mul(mul(horner(&z, &LOG_POLY), z.clone()), z2.clone()),
            mul(e.clone(), c(LN2_LO)),
        ),
        mul(z2, c(-0.5)),
    );
    let result = add(add(z, y), mul(e, c(LN2_HI)));
    // log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays.
    let zero = bin(Binary::Eq, x.clone(), c(0.0));
    let negative = bin(Binary::Lt, x.clone(), c(0.0));
    let inf = bin(Binary::Eq, x.clone(), c(f64::INFINITY));
    let nan = bin(Binary::Ne, x.clone(), x.clone());
    select(
        bin(Binary::Add, nan, negative),
        c(f64::NAN),
        select(zero, c(f64::NEG_INFINITY), select(inf, x, result)),
    )
}

/// `tanh(x)`: an odd polynomial near 0, `1 − 2/(exp(2|x|) + 1)` with x's sign elsewhere.
pub fn tanh(x: Val) -> Val {
    let a = Val::Unary(Unary::Abs, Box::new(x.clone()));
    let z = mul(x.clone(), x.clone());
    let small = add(mul(mul(horner(&z, &TANH_POLY), z), x.clone()), x.clone());
    let e = exp(mul(a.clone(), c(2.0)));
    let large = add(c(1.0), bin(Binary::Div, c(-2.0), add(e, c(1.0))));
    let signed = select(
        bin(Binary::Lt, x.clone(), c(0.0)),
        Val::Unary(Unary::Neg, Box::new(large.clone())),
        large,
    );
    select(bin(Binary::Lt, a, c(TANH_SMALL)), small, signed)
}

/// Rewrites values, binding each expanded function's argument to a new temporary (the
/// polynomial reads it several times) except inside reductions, whose body runs per
/// reduced element (there the argument is repeated; LLVM merges the copies).
struct Expander {
    next_temp: usize,
    lets: Vec<Stmt>,
}

impl Expander {
    fn bind(&mut self, v: Val, in_reduce: bool) -> Val {
        if in_reduce || matches!(v, Val::Temp(_) | Val::Load { .. } | Val::Const(_)) {
            return v;
        }
        let temp = self.next_temp;
        self.next_temp += 1;
        self.lets.push(Stmt::Let { temp, value: v });
        Val::Temp(temp)
    }

    fn val(&mut self, v: &Val, in_reduce: bool) -> Val {
        match v {
            Val::Const(_) | Val::Load { .. } | Val::Index(_) | Val::Temp(_) | Val::Shared(_) => {
                v.clone()
            }
            Val::Unary(op @ (Unary::Exp | Unary::Tanh | Unary::Log), a) => {
                let a = self.val(a, in_reduce);
                let a = self.bind(a, in_reduce);
                match op {
                    Unary::Exp => exp(a),
                    Unary::Tanh => tanh(a),
                    _ => log(a),
                }
            }
            Val::Unary(op, a) => Val::Unary(*op, Box::new(self.val(a, in_reduce))),
            Val::Binary(op, a, b) => bin(*op, self.val(a, in_reduce), self.val(b, in_reduce)),
            Val::Select(cond, a, b) => select(
                self.val(cond, in_reduce),
                self.val(a, in_reduce),
                self.val(b, in_reduce),
            ),
            Val::Bits(op, a) => Val::Bits(*op, Box::new(self.val(a, in_reduce))),
            Val::Reduce {
                combiner,
                extents,
                body,
            } => Val::Reduce {
                combiner: *combiner,
                extents: extents.clone(),
                body: Box::new(self.val(body, true)),
            },
        }
    }

    fn stmts(&mut self, body: &[Stmt]) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(body.len());
        for s in body {
            let s = match s {
                Stmt::Loop {
                    axis,
                    extent,
                    kind,
                    body,
                } => Stmt::Loop {
                    axis: *axis,
                    extent: extent.clone(),
                    kind: *kind,
                    body: self.stmts(body),
                },
                Stmt::Let { temp, value } => Stmt::Let {
                    temp: *temp,
                    value: self.val(value, false),
                },
                Stmt::Store {
                    output,
                    index,
                    value,
                } => Stmt::Store {
                    output: *output,
                    index: index.clone(),
                    value: self.val(value, false),
                },
            };
            out.append(&mut self.lets);
            out.push(s);
        }
        out
    }
}

fn max_temp(body: &[Stmt]) -> Option<usize> {
    body.iter()
        .filter_map(|s| match s {
            Stmt::Loop { body, .. } => max_temp(body),
            Stmt::Let { temp, .. } => Some(*temp),
            Stmt::Store { .. } => None,
        })
        .max()
}

/// The nest with `exp`, `tanh` and `log` as polynomials, when it computes in f32 (else as
/// it is).
pub fn expand(nest: &LoopNest) -> LoopNest {
    if nest.compute != DType::F32 {
        return nest.clone();
    }
    let mut e = Expander {
        next_temp: max_temp(&nest.body).map_or(0, |t| t + 1),
        lets: vec![],
    };
    LoopNest {
        body: e.stmts(&nest.body),
        ..nest.clone()
    }
}
