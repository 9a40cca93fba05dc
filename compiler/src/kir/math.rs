//! Math functions as polynomials in the IR, so kernels calling them vectorize: a rewrite
//! of f32 loop nests that replaces `exp`, `expm1`, `tanh`, `log`, `log1p` and `erf` with
//! range reduction, polynomials and [`Val::Bits`] (exact powers of two and frexp splits,
//! from the exponent bits).
//!
//! Stated bounds, against libm in f64, on f32 inputs (`tests/kir.rs` sweeps 2·10^5-point
//! grids through the LLVM JIT and the IR interpreter; the worst seen is in brackets):
//! - `exp`: relative error ≤ 1.5e-7 [7.6e-8] where the result is a normal f32 (x ≥ -87.3);
//!   subnormal results are within two of their spacing, x < -103.97 gives 0 and x > 88.72
//!   gives +inf;
//! - `expm1`: relative error ≤ 1.5e-7 [1.1e-7], near 0 included; −1 below −25;
//! - `tanh`: relative error ≤ 2e-7 [1.3e-7]; |x| < 0.625 uses an odd polynomial (no
//!   cancellation near 0), larger |x| `1 − 2/(exp(2|x|) + 1)` with `x`'s sign;
//! - `log`: relative error ≤ 1.5e-7 [7.7e-8] on positive inputs from the smallest
//!   subnormal (scaled by 2^24 first) to the largest f32; log(0) = −∞, log(x < 0) = NaN,
//!   log(∞) = ∞;
//! - `log1p`: relative error ≤ 2.5e-7 [1.7e-7] on [−1, ∞], near 0 included;
//! - `erf`: relative error ≤ 2.5e-7 [2.1e-7], worst just above |x| = 1 where the series
//!   hands over to Abramowitz and Stegun's form.
//!
//! NaN stays NaN. The coefficients of exp, tanh and log are Moshier's (Cephes `expf`,
//! `tanhf`, `logf`). f64 kernels keep the library functions: a polynomial good to f64
//! costs more than the call saves. Other functions (sin, cbrt, gamma, ...) are still
//! calls.

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

/// Binds a value read more than once to a temporary, or inside a reduction to a local of
/// it (returning what reads it), so expansions do not repeat subexpressions.
pub type Bind<'a> = &'a mut dyn FnMut(Val) -> Val;

/// exp's range reduction of `x` clamped to `[min, EXP_MAX]`: `(x, n, r, r²)` with
/// `x = n·ln2 + r`, |r| ≤ ln2/2, `n` integral, `x` and the parts bound.
fn reduce_exp(x: Val, min: f64, b: Bind) -> (Val, Val, Val, Val) {
    let x = b(x);
    let clamped = b(bin(
        Binary::Max,
        bin(Binary::Min, x.clone(), c(EXP_MAX)),
        c(min),
    ));
    let n = b(Val::Unary(
        Unary::Round,
        Box::new(mul(clamped.clone(), c(LOG2E))),
    ));
    let r = b(add(
        add(clamped, mul(n.clone(), c(-LN2_HI))),
        mul(n.clone(), c(-LN2_LO)),
    ));
    let r2 = b(mul(r.clone(), r.clone()));
    (x, n, r, r2)
}

/// `exp(x)`: x = n·ln2 + r with |r| ≤ ln2/2, exp(r) by a degree-7 polynomial, times 2^n.
pub fn exp(x: Val, b: Bind) -> Val {
    let (x, n, r, r2) = reduce_exp(x, EXP_MIN, b);
    let e_r = add(add(mul(horner(&r, &EXP_POLY), r2), r), c(1.0));
    // 2^n in two halves: each is a normal number where 2^n itself would overflow or be
    // subnormal, and the products round once.
    let half = b(Val::Unary(Unary::Floor, Box::new(mul(n.clone(), c(0.5)))));
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
pub fn log(x: Val, b: Bind) -> Val {
    let x = b(x);
    let tiny = b(bin(Binary::Lt, x.clone(), c(f32::MIN_POSITIVE as f64)));
    let scaled = b(select(
        tiny.clone(),
        mul(x.clone(), c(SUBNORMAL_SCALE)),
        x.clone(),
    ));
    let shift = select(tiny, c(-24.0), c(0.0));
    let m = b(bits(BitOp::Mantissa, scaled.clone()));
    let e = add(bits(BitOp::Exponent, scaled), shift);
    // m in [0.5, 1): below √½ use 2m − 1 and e − 1, else m − 1.
    let low = b(bin(Binary::Lt, m.clone(), c(SQRT_HALF)));
    let z = b(select(
        low.clone(),
        add(add(m.clone(), m.clone()), c(-1.0)),
        add(m, c(-1.0)),
    ));
    let e = b(add(e, select(low, c(-1.0), c(0.0))));
    let z2 = b(mul(z.clone(), z.clone()));
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
pub fn tanh(x: Val, b: Bind) -> Val {
    let x = b(x);
    let a = b(Val::Unary(Unary::Abs, Box::new(x.clone())));
    let z = b(mul(x.clone(), x.clone()));
    let small = add(mul(mul(horner(&z, &TANH_POLY), z), x.clone()), x.clone());
    let e = exp(mul(a.clone(), c(2.0)), b);
    let large = b(add(c(1.0), bin(Binary::Div, c(-2.0), add(e, c(1.0)))));
    let signed = select(
        bin(Binary::Lt, x.clone(), c(0.0)),
        Val::Unary(Unary::Neg, Box::new(large.clone())),
        large,
    );
    select(bin(Binary::Lt, a, c(TANH_SMALL)), small, signed)
}

/// ln(2^-36): below it `expm1` is −1 in f32.
const EXPM1_MIN: f64 = -25.0;

/// `expm1(x) = exp(x) − 1` from exp's reduction `x = n·ln2 + r`: `2^n·(e^r − 1) + (2^n − 1)`,
/// both terms exact enough that nothing cancels (for n = 0 it is the polynomial itself);
/// for n > 24, where `2^n − 1` rounds to `2^n`, `e^r·2^n − 1` with 2^n in halves as exp.
pub fn expm1(x: Val, b: Bind) -> Val {
    let (x, n, r, r2) = reduce_exp(x, EXPM1_MIN, b);
    let em1_r = b(add(mul(horner(&r, &EXP_POLY), r2), r));
    let t = b(bits(BitOp::Pow2i, n.clone()));
    let moderate = add(mul(t.clone(), em1_r.clone()), add(t, c(-1.0)));
    let half = b(Val::Unary(Unary::Floor, Box::new(mul(n.clone(), c(0.5)))));
    let rest = add(n.clone(), Val::Unary(Unary::Neg, Box::new(half.clone())));
    let large = add(
        mul(
            mul(add(em1_r, c(1.0)), bits(BitOp::Pow2i, half)),
            bits(BitOp::Pow2i, rest),
        ),
        c(-1.0),
    );
    let nan = bin(Binary::Ne, x.clone(), x.clone());
    let big = bin(Binary::Gt, x.clone(), c(EXP_MAX));
    select(
        nan,
        x,
        select(
            big,
            c(f64::INFINITY),
            select(bin(Binary::Gt, n, c(24.0)), large, moderate),
        ),
    )
}

/// `log1p(x)`: with `u = 1 + x` rounded, `log(u)·x/(u − 1)`, which cancels the rounding of
/// `u` (Goldberg's formula); `x` itself where `u` rounds to 1, and ∞ at ∞.
pub fn log1p(x: Val, b: Bind) -> Val {
    let x = b(x);
    let u = b(add(x.clone(), c(1.0)));
    let d = b(add(u.clone(), c(-1.0)));
    let scaled = mul(log(u, b), bin(Binary::Div, x.clone(), d.clone()));
    let exact = bin(
        Binary::Add,
        bin(Binary::Eq, d, c(0.0)),
        bin(Binary::Eq, x.clone(), c(f64::INFINITY)),
    );
    select(exact, x, scaled)
}

/// erf's Maclaurin series, `2/√π · (−1)^k / (k!·(2k + 1))` for k = 10 down to 0, in powers
/// of x²: below |x| = 1 the first term left out is under 1.2e-9.
const ERF_SERIES: [f64; 11] = {
    let mut c = [0.0; 11];
    let mut k = 0;
    let mut factorial = 1.0;
    while k < 11 {
        if k > 0 {
            factorial *= k as f64;
        }
        let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
        c[10 - k] = sign * std::f64::consts::FRAC_2_SQRT_PI / (factorial * (2 * k + 1) as f64);
        k += 1;
    }
    c
};
/// Abramowitz and Stegun 7.1.26: `erf(x) = 1 − t·P(t)·exp(−x²)`, `t = 1/(1 + p·x)`, with an
/// absolute error under 1.5e-7 for x ≥ 0.
const ERF_P: f64 = 0.3275911;
const ERF_TAIL: [f64; 5] = [
    1.061405429,
    -1.453152027,
    1.421413741,
    -0.284496736,
    0.254829592,
];

/// `erf(x)`: the odd series below |x| = 1 (no cancellation near 0), Abramowitz and
/// Stegun's rational form times `exp(−x²)` above, with x's sign.
pub fn erf(x: Val, b: Bind) -> Val {
    let x = b(x);
    let a = b(Val::Unary(Unary::Abs, Box::new(x.clone())));
    let z = b(mul(x.clone(), x.clone()));
    let series = mul(horner(&z, &ERF_SERIES), x.clone());
    let t = b(bin(
        Binary::Div,
        c(1.0),
        add(mul(a.clone(), c(ERF_P)), c(1.0)),
    ));
    let tail = mul(
        mul(horner(&t, &ERF_TAIL), t),
        exp(Val::Unary(Unary::Neg, Box::new(z)), b),
    );
    let large = b(add(c(1.0), Val::Unary(Unary::Neg, Box::new(tail))));
    let signed = select(
        bin(Binary::Lt, x, c(0.0)),
        Val::Unary(Unary::Neg, Box::new(large.clone())),
        large,
    );
    select(bin(Binary::Lt, a, c(1.0)), series, signed)
}

/// Rewrites values, binding the values an expansion reads several times (its argument,
/// the range reduction's parts) to new temporaries, or inside a reduction to new locals
/// of it, so an expansion of an expansion stays the size of both, not their product.
struct Expander {
    next_temp: usize,
    lets: Vec<Stmt>,
    /// Inside a reduction: its locals rewritten so far, and where each of its original
    /// locals went (expansions insert locals before the one that reads them).
    scope: Option<(Vec<Val>, Vec<usize>)>,
}

impl Expander {
    fn bind(&mut self, v: Val) -> Val {
        if matches!(
            v,
            Val::Temp(_) | Val::Local(_) | Val::Load { .. } | Val::Const(_)
        ) {
            return v;
        }
        if let Some((locals, _)) = &mut self.scope {
            locals.push(v);
            return Val::Local(locals.len() - 1);
        }
        let temp = self.next_temp;
        self.next_temp += 1;
        self.lets.push(Stmt::Let { temp, value: v });
        Val::Temp(temp)
    }

    fn val(&mut self, v: &Val) -> Val {
        match v {
            Val::Const(_) | Val::Load { .. } | Val::Index(_) | Val::Temp(_) | Val::Shared(_) => {
                v.clone()
            }
            Val::Local(l) => match &self.scope {
                Some((_, moved)) => Val::Local(moved[*l]),
                None => v.clone(),
            },
            Val::Unary(
                op @ (Unary::Exp
                | Unary::Expm1
                | Unary::Tanh
                | Unary::Log
                | Unary::Log1p
                | Unary::Erf),
                a,
            ) => {
                let a = self.val(a);
                let b: Bind = &mut |v| self.bind(v);
                match op {
                    Unary::Exp => exp(a, b),
                    Unary::Expm1 => expm1(a, b),
                    Unary::Tanh => tanh(a, b),
                    Unary::Log => log(a, b),
                    Unary::Log1p => log1p(a, b),
                    _ => erf(a, b),
                }
            }
            Val::Unary(op, a) => Val::Unary(*op, Box::new(self.val(a))),
            Val::Binary(op, a, b) => bin(*op, self.val(a), self.val(b)),
            Val::Select(cond, a, b) => select(self.val(cond), self.val(a), self.val(b)),
            Val::Bits(op, a) => Val::Bits(*op, Box::new(self.val(a))),
            Val::Reduce {
                combiner,
                extents,
                locals,
                body,
            } => {
                let outer = self.scope.replace((Vec::new(), Vec::new()));
                for l in locals {
                    let v = self.val(l);
                    let (new, moved) = self.scope.as_mut().expect("inside the reduction");
                    new.push(v);
                    moved.push(new.len() - 1);
                }
                let body = self.val(body);
                let (locals, _) =
                    std::mem::replace(&mut self.scope, outer).expect("inside the reduction");
                Val::Reduce {
                    combiner: *combiner,
                    extents: extents.clone(),
                    locals,
                    body: Box::new(body),
                }
            }
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
                    value: self.val(value),
                },
                Stmt::Store {
                    output,
                    index,
                    value,
                } => Stmt::Store {
                    output: *output,
                    index: index.clone(),
                    value: self.val(value),
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

/// The nest with `exp`, `expm1`, `tanh`, `log`, `log1p` and `erf` as polynomials, when it computes in f32 (else as
/// it is).
pub fn expand(nest: &LoopNest) -> LoopNest {
    if nest.compute != DType::F32 {
        return nest.clone();
    }
    let mut e = Expander {
        next_temp: max_temp(&nest.body).map_or(0, |t| t + 1),
        lets: vec![],
        scope: None,
    };
    LoopNest {
        body: e.stmts(&nest.body),
        ..nest.clone()
    }
}
