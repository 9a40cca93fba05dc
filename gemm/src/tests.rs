//! kiln's product against the f64 sum of the products, in every layout and path.

use super::*;

/// Layouts of an operand: row-major, column-major, or both strides padded.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Rows,
    Cols,
    Padded,
}

/// `(rs, cs, len)` of a `rows × cols` matrix in `layout`.
fn strides(rows: usize, cols: usize, layout: Layout) -> (isize, isize, usize) {
    match layout {
        Layout::Rows => (cols as isize, 1, rows * cols),
        Layout::Cols => (1, rows as isize, rows * cols),
        Layout::Padded => (2 * cols as isize + 1, 2, rows * (2 * cols + 1)),
    }
}

/// A compiled form of the product (B's panels packed by the packer where one is given)
/// and its name.
type Form<T> = unsafe fn(&Product<T>, Option<&dyn PackB<T>>);
type Variant<T> = (&'static str, Form<T>);

/// The compiled forms of the product this machine runs (whatever `run` would choose).
#[cfg(target_arch = "x86_64")]
fn variants<T>(baseline: Form<T>, avx2: Form<T>, avx512: Form<T>) -> Vec<Variant<T>> {
    let mut forms = vec![("baseline", baseline)];
    let fma = is_x86_feature_detected!("fma");
    if fma && is_x86_feature_detected!("avx2") {
        forms.push(("avx2", avx2));
    }
    if fma && is_x86_feature_detected!("avx512f") {
        forms.push(("avx512", avx512));
    }
    forms
}

/// The f32 forms this machine runs.
fn f32_forms() -> Vec<Variant<f32>> {
    #[cfg(target_arch = "x86_64")]
    return variants(f32_baseline, f32_avx2, f32_avx512);
    #[cfg(not(target_arch = "x86_64"))]
    return vec![("baseline", f32_baseline)];
}

/// The f64 forms this machine runs.
fn f64_forms() -> Vec<Variant<f64>> {
    #[cfg(target_arch = "x86_64")]
    return variants(f64_baseline, f64_avx2, f64_avx512);
    #[cfg(not(target_arch = "x86_64"))]
    return vec![("baseline", f64_baseline)];
}

/// Runs `m × n × k` products with each compiled form, in every layout of A, B and C, with
/// and without accumulation, against the f64 sum of the products (C starts at a known
/// value).
fn check<T: Real + Into<f64> + From<f32>>(
    forms: &[Variant<T>],
    (m, n, k): (usize, usize, usize),
    tolerance: f64,
) {
    for &(form, product) in forms {
        check_form(form, product, (m, n, k), tolerance, Packer::None);
    }
}

/// A [`PackB`] reading B's elements one by one through its strides; with `rows`, B's
/// panels are read where they lie where its rows are contiguous, every third row from its
/// spill instead (as an operand's edges would be).
struct ByElement<T> {
    b: Strided<T>,
    rows: bool,
}

// SAFETY: the tests' B vectors are only read while the products run.
unsafe impl<T> Sync for ByElement<T> {}

impl<T: Real> PackB<T> for ByElement<T> {
    unsafe fn pack(
        &self,
        d0: usize,
        w0: usize,
        depth: usize,
        width: usize,
        panel: usize,
        dst: *mut T,
    ) {
        for q in (0..width).step_by(panel) {
            for d in 0..depth {
                for w in 0..panel {
                    let (i, j) = ((d0 + d) as isize, (w0 + q + w) as isize);
                    let v = match q + w < width {
                        // SAFETY: (i, j) inside B (the caller's contract).
                        true => unsafe { *self.b.ptr.offset(i * self.b.rs + j * self.b.cs) },
                        false => T::default(),
                    };
                    // SAFETY: panel q / panel's row d, column w: inside `dst`'s width rounded
                    // up to `panel` by depth elements.
                    unsafe { *dst.add(q * depth + d * panel + w) = v };
                }
            }
        }
    }

    unsafe fn rows(
        &self,
        d0: usize,
        w0: usize,
        depth: usize,
        (width, panel): (usize, usize),
        rows: *mut *const T,
        spill: *mut T,
    ) -> bool {
        if !self.rows || self.b.cs != 1 {
            return false;
        }
        for q in 0..width / panel {
            for d in 0..depth {
                let at = (d0 + d) as isize * self.b.rs + (w0 + q * panel) as isize;
                // SAFETY: row d of panel q, inside B, and its slots of `rows` and `spill`
                // (the caller's contract).
                unsafe {
                    let mut row = self.b.ptr.offset(at);
                    if d % 3 == 1 {
                        let slot = spill.add(q * depth * panel + d * panel);
                        std::ptr::copy_nonoverlapping(row, slot, panel);
                        row = slot;
                    }
                    *rows.add(q * depth + d) = row;
                }
            }
        }
        true
    }
}

/// How a product's B reaches its panels.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Packer {
    /// As the product's strides say.
    None,
    /// Packed by [`ByElement`].
    Packed,
    /// Read where they lie through [`ByElement`]'s tables of rows where it can.
    Rows,
}

/// Checks `product` in every layout (B through [`ByElement`] as `packer` says).
fn check_form<T: Real + Into<f64> + From<f32>>(
    form: &str,
    product: Form<T>,
    (m, n, k): (usize, usize, usize),
    tolerance: f64,
    packer: Packer,
) {
    let layouts = [Layout::Rows, Layout::Cols, Layout::Padded];
    for la in layouts {
        for lb in layouts {
            for lc in [Layout::Rows, Layout::Cols] {
                for accumulate in [false, true] {
                    let (a_rs, a_cs, a_len) = strides(m, k, la);
                    let (b_rs, b_cs, b_len) = strides(k, n, lb);
                    let (c_rs, c_cs, c_len) = strides(m, n, lc);
                    let value = |i: usize, salt: usize| {
                        T::from((((i * 37 + salt * 11) % 23) as f32 - 11.0) / 8.0)
                    };
                    let a: Vec<T> = (0..a_len).map(|i| value(i, 1)).collect();
                    let b: Vec<T> = (0..b_len).map(|i| value(i, 2)).collect();
                    let mut c: Vec<T> = (0..c_len).map(|i| value(i, 3)).collect();
                    let before = c.clone();
                    let at = |rs: isize, cs: isize, i: usize, j: usize| {
                        (i as isize * rs + j as isize * cs) as usize
                    };
                    let b_strided = Strided {
                        ptr: b.as_ptr(),
                        rs: b_rs,
                        cs: b_cs,
                    };
                    let by_element = ByElement {
                        b: b_strided,
                        rows: packer == Packer::Rows,
                    };
                    let by_element =
                        (packer != Packer::None).then_some(&by_element as &dyn PackB<T>);
                    // SAFETY: `strides` sizes each vector for every element its strides reach; C
                    // (rows or columns, never padded) has distinct elements in its own vector;
                    // `variants` gives only the forms whose instruction sets this machine has.
                    unsafe {
                        product(
                            &Product {
                                m,
                                n,
                                k,
                                a: Strided {
                                    ptr: a.as_ptr(),
                                    rs: a_rs,
                                    cs: a_cs,
                                },
                                b: b_strided,
                                c: c.as_mut_ptr(),
                                c_rs,
                                c_cs,
                                accumulate,
                            },
                            by_element,
                        )
                    };
                    for i in 0..m {
                        for j in 0..n {
                            let mut want: f64 = if accumulate {
                                before[at(c_rs, c_cs, i, j)].into()
                            } else {
                                0.0
                            };
                            for d in 0..k {
                                let (x, y): (f64, f64) = (
                                    a[at(a_rs, a_cs, i, d)].into(),
                                    b[at(b_rs, b_cs, d, j)].into(),
                                );
                                want += x * y;
                            }
                            let got: f64 = c[at(c_rs, c_cs, i, j)].into();
                            assert!(
                                (got - want).abs() <= tolerance * (1.0 + want.abs()),
                                "{form} {m}x{n}x{k} A {la:?} B {lb:?} (packer {packer:?}) C {lc:?} \
                                 accumulate {accumulate}: C[{i}, {j}] = {got}, expected {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Shapes that reach each path: vector products (both forms), dot blocks, whole and
/// partial tiles (and the shorter ones for 1 to 4 last rows) in both orientations, the
/// last 1 to 3 columns as dot products, several depth, row and column blocks.
const SHAPES: [(usize, usize, usize); 16] = [
    (1, 37, 19),
    (50, 49, 70),
    (12, 35, 130),
    (29, 1, 40),
    (1, 1, 5),
    (5, 3, 0),
    (7, 9, 33),
    (13, 70, 17),
    (70, 13, 17),
    (31, 130, 300),
    (200, 66, 9),
    (3, 300, 64),
    (64, 100, 2),
    (40, 4200, 3),
    (16, 40, 20),
    (9, 70, 600),
];

#[test]
fn products_in_f32_match_the_f64_sum() {
    let forms = f32_forms();
    for shape in SHAPES {
        check::<f32>(&forms, shape, 1e-5);
    }
}

/// Small blocks (whatever a machine's caches would give, in the extreme): every product
/// crosses several depth, row and column blocks, each tile size's edge included.
#[test]
fn products_in_small_blocks_match_the_f64_sum() {
    let forms = f32_forms();
    let small = Blocking {
        kc: 16,
        mc: 13,
        nc: 70,
    };
    with_blocking(small, || {
        for shape in SHAPES {
            check::<f32>(&forms, shape, 1e-5);
        }
    });
}

/// B's contiguous rows packed instead of read in place, as on a machine that measured
/// in-place panels slower: the same products.
#[test]
fn products_with_b_packed_match_the_f64_sum() {
    let forms = f32_forms();
    with_in_place_b_slowdown(f64::INFINITY, || {
        for shape in SHAPES {
            check::<f32>(&forms, shape, 1e-5);
        }
    });
}

/// Every compiled form in f32 and f64, in the machine's blocks and in small ones, B
/// reaching its panels through `packer`.
fn check_every_form(packer: Packer) {
    let small = Blocking {
        kc: 16,
        mc: 13,
        nc: 70,
    };
    for shape in SHAPES {
        for (form, product) in f32_forms() {
            check_form::<f32>(form, product, shape, 1e-5, packer);
            with_blocking(small, || {
                check_form::<f32>(form, product, shape, 1e-5, packer)
            });
        }
        for (form, product) in f64_forms() {
            check_form::<f64>(form, product, shape, 1e-12, packer);
            with_blocking(small, || {
                check_form::<f64>(form, product, shape, 1e-12, packer)
            });
        }
    }
}

/// B's panels packed by a [`PackB`] (as a convolution's windows are).
#[test]
fn products_packing_b_by_a_packer_match_the_f64_sum() {
    check_every_form(Packer::Packed);
}

/// B's whole panels read where their rows lie, through tables of the rows' addresses
/// (spilled rows among them), the narrow ones packed; B with strided rows packed
/// instead.
#[test]
fn products_reading_b_by_rows_match_the_f64_sum() {
    check_every_form(Packer::Rows);
}

#[test]
fn products_in_f64_match_the_f64_sum() {
    let forms = f64_forms();
    for shape in SHAPES {
        check::<f64>(&forms, shape, 1e-12);
    }
}

#[test]
fn a_warm_thread_multiplies_without_allocating() {
    let (m, n, k) = (50, 90, 300);
    let (a, b) = (vec![1.0f32; m * k], vec![0.5f32; k * n]);
    let mut c = vec![0.0f32; m * n];
    // SAFETY: A (m × k, column-major), B (k × n, column-major) and C (m × n, row-major) are
    // vectors of exactly those sizes; C is its own vector.
    let product = |c: &mut Vec<f32>| unsafe {
        run(&Product {
            m,
            n,
            k,
            a: Strided {
                ptr: a.as_ptr(),
                rs: 1,
                cs: m as isize,
            },
            b: Strided {
                ptr: b.as_ptr(),
                rs: 1,
                cs: k as isize,
            },
            c: c.as_mut_ptr(),
            c_rs: n as isize,
            c_cs: 1,
            accumulate: false,
        })
    };
    product(&mut c);
    let lines = WORKSPACE.with(|ws| ws.borrow().capacity());
    product(&mut c);
    assert_eq!(WORKSPACE.with(|ws| ws.borrow().capacity()), lines);
    assert!(
        lines * 64 >= machine_blocking::<f64>().workspace_bytes(size_of::<f64>(), f64::tile().1)
    );
    assert!(c.iter().all(|&v| v == 150.0));
}
