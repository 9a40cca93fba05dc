//! What libjpeg's two ISLOW DCTs share: the 13-bit fixed-point constants of the
//! Loeffler–Ligtenberg–Moschytz factorization, the 2 extra bits between passes, and an
//! 8-lane vector type in which one pass runs over eight rows or columns at once.

pub const CONST_BITS: u32 = 13;
pub const PASS1_BITS: u32 = 2;

pub const FIX_0_298631336: i32 = 2446;
pub const FIX_0_390180644: i32 = 3196;
pub const FIX_0_541196100: i32 = 4433;
pub const FIX_0_765366865: i32 = 6270;
pub const FIX_0_899976223: i32 = 7373;
pub const FIX_1_175875602: i32 = 9633;
pub const FIX_1_501321110: i32 = 12299;
pub const FIX_1_847759065: i32 = 15137;
pub const FIX_1_961570560: i32 = 16069;
pub const FIX_2_053119869: i32 = 16819;
pub const FIX_2_562915447: i32 = 20995;
pub const FIX_3_072711026: i32 = 25172;

/// An 8-lane vector of `i32`, wrapping as libjpeg's arithmetic is on damaged data (valid
/// data never comes near overflow). Its loops compile to single vector instructions.
#[derive(Clone, Copy)]
pub struct Lanes(pub [i32; 8]);

impl Lanes {
    #[inline(always)]
    pub fn zip(self, other: Lanes, f: impl Fn(i32, i32) -> i32) -> Lanes {
        let mut out = [0; 8];
        for ((o, a), b) in out.iter_mut().zip(self.0).zip(other.0) {
            *o = f(a, b);
        }
        Lanes(out)
    }

    #[inline(always)]
    pub fn map(self, f: impl Fn(i32) -> i32) -> Lanes {
        let mut out = [0; 8];
        for (o, a) in out.iter_mut().zip(self.0) {
            *o = f(a);
        }
        Lanes(out)
    }
}

impl std::ops::Add for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn add(self, other: Lanes) -> Lanes {
        self.zip(other, i32::wrapping_add)
    }
}

impl std::ops::Sub for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn sub(self, other: Lanes) -> Lanes {
        self.zip(other, i32::wrapping_sub)
    }
}

impl std::ops::Mul<i32> for Lanes {
    type Output = Lanes;
    #[inline(always)]
    fn mul(self, c: i32) -> Lanes {
        self.map(|x| x.wrapping_mul(c))
    }
}

/// `x` divided by `2^n`, rounded half up, as libjpeg's `DESCALE`.
pub fn descale(x: i32, n: u32) -> i32 {
    x.wrapping_add(1 << (n - 1)) >> n
}

/// What the 1-D passes need of eight lanes of `i32`: wrapping sums, differences and
/// products by a constant, and shifts. [`Lanes`] is the portable form; `super::avx2` has
/// one vector register per value, so both run the same butterflies.
pub trait Vector:
    Copy
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<i32, Output = Self>
{
    /// Each lane shifted left by `n`.
    fn shl(self, n: u32) -> Self;
    /// Each lane's [`descale`].
    fn descale(self, n: u32) -> Self;
}

impl Vector for Lanes {
    #[inline(always)]
    fn shl(self, n: u32) -> Lanes {
        self.map(|x| x << n)
    }

    #[inline(always)]
    fn descale(self, n: u32) -> Lanes {
        self.map(|x| descale(x, n))
    }
}

#[inline(always)]
pub fn transpose(v: &[Lanes; 8]) -> [Lanes; 8] {
    let mut out = [Lanes([0; 8]); 8];
    for (i, row) in out.iter_mut().enumerate() {
        for (value, lanes) in row.0.iter_mut().zip(v) {
            *value = lanes.0[i];
        }
    }
    out
}
