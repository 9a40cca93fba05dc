//! The register tile and its stores.

use super::{mul_add, Real};

/// Where a tile goes: its `rows × cols` corner at `c` (strides `rs`, `cs`), stored or
/// added.
#[derive(Clone, Copy)]
pub(super) struct Out<T> {
    pub c: *mut T,
    pub rs: isize,
    pub cs: isize,
    pub rows: usize,
    pub cols: usize,
    pub add: bool,
}

/// Where a panel of B has its rows, each of a tile's width in contiguous elements.
pub(super) trait PanelRows<T>: Copy {
    /// Row `d`'s first element.
    ///
    /// # Safety
    /// `d` is a row of the panel.
    unsafe fn row(self, d: usize) -> *const T;
}

/// Rows a stride apart from the first: a packed panel, or B's rows in place.
impl<T> PanelRows<T> for (*const T, isize) {
    #[inline(always)]
    unsafe fn row(self, d: usize) -> *const T {
        // SAFETY: row d of the panel (the caller's contract) lies d strides from the first.
        unsafe { self.0.offset(d as isize * self.1) }
    }
}

/// Rows anywhere, through a table of their addresses ([`crate::PackB::rows`]).
pub(super) struct RowTable<T>(pub *const *const T);

// By hand: derived, they would ask `T: Copy` of a table of pointers.
impl<T> Clone for RowTable<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for RowTable<T> {}

impl<T> PanelRows<T> for RowTable<T> {
    #[inline(always)]
    unsafe fn row(self, d: usize) -> *const T {
        // SAFETY: the table holds an address for every row of the panel.
        unsafe { *self.0.add(d) }
    }
}

/// The `MR × NR` tile of the products of `MR` rows of A (`a_rs` apart, their depth
/// `a_ds` apart: A in place, or a packed panel) and `kc` rows of B of `NR` contiguous
/// elements (`b`'s).
#[inline(always)]
pub(super) unsafe fn tile<
    T: Real,
    const MR: usize,
    const NR: usize,
    const FMA: bool,
    B: PanelRows<T>,
>(
    kc: usize,
    a: *const T,
    a_rs: isize,
    a_ds: isize,
    b: B,
) -> [[T; NR]; MR] {
    let rows: [*const T; MR] = std::array::from_fn(|i| a.wrapping_offset(i as isize * a_rs));
    let mut acc = [[T::default(); NR]; MR];
    for d in 0..kc {
        // SAFETY: the caller's rows hold `kc` elements of depth, B's panel `kc` rows.
        let (a, b) = unsafe {
            let at = d as isize * a_ds;
            let b = b.row(d) as *const [T; NR];
            let a: [T; MR] = std::array::from_fn(|i| *rows[i].offset(at));
            (a, b.read_unaligned())
        };
        for i in 0..MR {
            for j in 0..NR {
                acc[i][j] = mul_add::<T, FMA>(a[i], b[j], acc[i][j]);
            }
        }
    }
    acc
}

/// Stores (or adds) a tile to `out`.
#[inline(always)]
pub(super) unsafe fn store<T: Real, const MR: usize, const NR: usize>(
    acc: [[T; NR]; MR],
    out: Out<T>,
) {
    if out.cs == 1 && out.rows == MR && out.cols == NR {
        // A whole tile along contiguous rows: vector stores straight from the registers.
        for (i, sums) in acc.iter().enumerate() {
            // SAFETY: i < out.rows == MR: row i of the tile's corner, inside C (`Out`'s maker).
            let row = unsafe { out.c.offset(i as isize * out.rs) } as *mut [T; NR];
            let old = if out.add {
                // SAFETY: out.cs == 1 and out.cols == NR: the row's NR elements are contiguous in
                // C.
                unsafe { row.read_unaligned() }
            } else {
                [T::default(); NR]
            };
            // SAFETY: as the read: NR contiguous elements of C, unaligned.
            unsafe { row.write_unaligned(std::array::from_fn(|j| old[j] + sums[j])) };
        }
    } else {
        // SAFETY: `store`'s caller passes an `out` whose rows × cols corner lies inside C.
        unsafe { store_corner(&acc, out) };
    }
}

/// Stores (or adds) the top-left corner of a tile: the edges of C, or C with strided rows.
#[inline(never)]
unsafe fn store_corner<T: Real, const MR: usize, const NR: usize>(
    tile: &[[T; NR]; MR],
    out: Out<T>,
) {
    for (i, row) in tile.iter().enumerate().take(out.rows) {
        for (j, &v) in row.iter().enumerate().take(out.cols) {
            // SAFETY: i < out.rows and j < out.cols: inside C; C's elements are distinct and apart
            // from A and B (`run`'s contract), so this reference is the only one.
            let c = unsafe { &mut *out.c.offset(i as isize * out.rs + j as isize * out.cs) };
            *c = if out.add { *c + v } else { v };
        }
    }
}
