//! Math functions as polynomials in the IR, so kernels calling them vectorize: a rewrite
//! of f32 loop nests that replaces `exp` and `tanh` with range reduction, a minimax
//! polynomial and [`Val::Pow2i`] (exact powers of two, built from exponent bits).
//!
//! Stated bounds, against libm in f64, on f32 inputs (`tests/kir.rs` sweeps 2·10^5-point
//! grids through the LLVM JIT and the IR interpreter; the worst seen is in brackets):
//! - `exp`: relative error ≤ 1.5e-7 [7.6e-8] where the result is a normal f32 (x ≥ -87.3);
//!   subnormal results are within two of their spacing, x < -103.97 gives 0 and x > 88.72
//!   gives +inf;
//! - `tanh`: relative error ≤ 2e-7 [1.3e-7]; |x| < 0.625 uses an odd polynomial (no
//!   cancellation near 0), larger |x| `1 − 2/(exp(2|x|) + 1)` with `x`'s sign.
//!
//! NaN stays NaN. The coefficients are Moshier's (Cephes `expf`, `tanhf`). f64 kernels keep
//! the library functions: a polynomial good to f64 costs more than the call saves. Other
//! functions (log, erf, ...) are still calls.

use super::ir::{LoopNest, Stmt, Val};
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
    let scaled = mul(
        mul(e_r, Val::Pow2i(Box::new(half))),
        Val::Pow2i(Box::new(rest)),
    );
    let nan = bin(Binary::Ne, x.clone(), x.clone());
    let big = bin(Binary::Gt, x.clone(), c(EXP_MAX));
    let tiny = bin(Binary::Lt, x.clone(), c(EXP_MIN));
    select(
        nan,
        x,
        select(big, c(f64::INFINITY), select(tiny, c(0.0), scaled)),
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
            Val::Unary(op @ (Unary::Exp | Unary::Tanh), a) => {
                let a = self.val(a, in_reduce);
                let a = self.bind(a, in_reduce);
                if *op == Unary::Exp {
                    exp(a)
                } else {
                    tanh(a)
                }
            }
            Val::Unary(op, a) => Val::Unary(*op, Box::new(self.val(a, in_reduce))),
            Val::Binary(op, a, b) => bin(*op, self.val(a, in_reduce), self.val(b, in_reduce)),
            Val::Select(cond, a, b) => select(
                self.val(cond, in_reduce),
                self.val(a, in_reduce),
                self.val(b, in_reduce),
            ),
            Val::Pow2i(a) => Val::Pow2i(Box::new(self.val(a, in_reduce))),
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

/// The nest with `exp` and `tanh` as polynomials, when it computes in f32 (else as it is).
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
