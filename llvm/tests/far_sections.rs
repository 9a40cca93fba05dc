//! A kernel links and runs correctly wherever LLVM's memory manager maps its sections.
//!
//! ORC's RuntimeDyld layer maps each section of an object (code, constants, GOT) on its
//! own, anywhere in the address space. Code that reaches its constants or its GOT by a
//! 32-bit PC-relative offset (the small code model) then reads some other address once
//! the two mappings lie more than 2 GiB apart; RuntimeDyld truncates such offsets without
//! a word. Under AddressSanitizer, whose allocator reserves terabytes, that happened in
//! ordinary runs. This test makes it certain: it leaves only two free places in the upper
//! address space, a page at the top of a large reservation and some pages at its bottom,
//! so a kernel's code and its constants land gigabytes apart.
//!
//! The test rearranges the whole process's address space, so it is alone in its binary.

#![cfg(all(feature = "llvm", target_os = "linux", target_arch = "x86_64"))]

use kiln_compiler::kir::parse_nest;
use kiln_llvm::{Jit, Origin};

/// The reservation the free places are cut from: over 4 GiB, and not a multiple of it,
/// so that a truncated offset cannot land on the right address by chance.
const SPAN: usize = (5 << 30) + (3 << 20);

fn page() -> usize {
    // SAFETY: sysconf reads a constant of the system.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// `len` bytes of inaccessible address space where the kernel chooses (`None`: none left
/// of that size).
fn reserve(len: usize) -> Option<usize> {
    // SAFETY: a fresh anonymous mapping, overlapping nothing.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p as usize)
}

fn release(at: usize, len: usize) {
    // SAFETY: `at..at + len` is address space this test reserved and nothing else uses.
    let r = unsafe { libc::munmap(at as *mut libc::c_void, len) };
    assert_eq!(r, 0, "munmap");
}

/// Reserves every free gap above `floor` (the kernel hands out the highest gap that fits
/// first): chunks of each power-of-two size, largest first, until a chunk of that size
/// would land below `floor`.
fn fill_above(floor: usize) {
    let mut size = 1usize << 46;
    while size >= page() {
        while let Some(p) = reserve(size) {
            if p < floor {
                release(p, size);
                break;
            }
        }
        size /= 2;
    }
}

#[test]
fn kernels_run_with_their_code_and_constants_gigabytes_apart() {
    // Constants (a vectorized loop broadcasts them from a constant pool) and a call of a
    // shim (through a stub and a GOT entry).
    let nest = parse_nest(
        "kernel far(x: float32[D0]) -> (y: float32[D0]) compute float32 {
           for i0 in 0..D0 (Parallel) {
             out0[i0] = add(mul(in0[i0], 1.5), hypot(in0[i0], 0.25))
           }
         }",
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("kiln-far-sections-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Compiled into the cache folder now, so that the second JIT only links it: nothing
    // but the link maps memory once the address space is arranged.
    let first = Jit::new(Some(dir.clone())).unwrap();
    assert_eq!(first.compile(&nest).unwrap().1, Origin::Compiled);
    let second = Jit::new(Some(dir.clone())).unwrap();

    let base = reserve(SPAN).expect("address space for the reservation");
    fill_above(base + SPAN);
    // One free page at the top, sixteen at the bottom: whichever of code and constants
    // is mapped first takes the top page if it fits, and the other goes to the bottom.
    release(base + SPAN - page(), page());
    release(base, 16 * page());
    let (kernel, origin) = second.compile(&nest).unwrap();
    assert_eq!(origin, Origin::Disk);

    let n = 1000usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.01 - 3.0).collect();
    let mut y = vec![0f32; n];
    let buffers = [x.as_ptr() as *mut u8, y.as_mut_ptr().cast()];
    // SAFETY: both buffers hold D0 = n float32 elements; the output overlaps nothing.
    unsafe { kernel.run_range(&buffers, &[n as i64], 0, n as i64) };
    for (i, (&x, &y)) in x.iter().zip(&y).enumerate() {
        let want = (x as f64 * 1.5 + (x as f64).hypot(0.25)) as f32;
        assert!(
            (y - want).abs() <= 1e-5 * want.abs().max(1.0),
            "y[{i}] = {y}, want {want}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
