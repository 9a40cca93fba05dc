//! Compiles rendered Rust kernels with `rustc` into a shared library (linked against this
//! build's `kiln_ops` for the special functions) and calls them through a C shim.

use kiln_compiler::kir::{rust, Buffer, LoopNest};
use kiln_compiler::{DType, Tensor};
use std::path::PathBuf;
use std::process::Command;

type Shim = unsafe extern "C" fn(
    *const *const u8,
    *const usize,
    *const *mut u8,
    *const usize,
    *const i64,
    usize,
);

pub struct RustKernels {
    lib: libloading::Library,
    dir: PathBuf,
}

impl Drop for RustKernels {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn rust_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::I8 => "i8",
        DType::U8 | DType::Bool => "u8",
        DType::F16 => "kiln_ops::half::f16",
        DType::BF16 => "kiln_ops::half::bf16",
    }
}

/// The shim: raw buffers and lengths in, the safe `run` called.
fn shim(nest: &LoopNest) -> String {
    let slice = |b: &Buffer, i: usize, side: &str| {
        let (ptr, from, ty) = if side == "in" {
            ("*const", "from_raw_parts", rust_type(b.dtype))
        } else {
            ("*mut", "from_raw_parts_mut", rust_type(b.dtype))
        };
        format!("std::slice::{from}(*{side}s.add({i}) as {ptr} {ty}, *{side}_lens.add({i}))")
    };
    let mut args: Vec<String> = nest
        .inputs
        .iter()
        .enumerate()
        .map(|(i, b)| slice(b, i, "in"))
        .collect();
    args.extend(
        nest.outputs
            .iter()
            .enumerate()
            .map(|(i, b)| slice(b, i, "out")),
    );
    args.push("std::slice::from_raw_parts(dims, ndims)".into());
    format!(
        "#[no_mangle]\npub unsafe extern \"C\" fn shim_{name}(ins: *const *const u8, in_lens: *const usize, outs: *const *mut u8, out_lens: *const usize, dims: *const i64, ndims: usize) {{\n    {name}::run({});\n}}\n",
        args.join(", "),
        name = nest.name
    )
}

/// This build's `libkiln_ops-*.rlib` (the newest, should several be there).
fn kiln_ops_rlib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    std::fs::read_dir(deps)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("libkiln_ops-") && name.ends_with(".rlib")
        })
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("libkiln_ops rlib beside the test binary")
}

pub fn compile(nests: &[LoopNest], tag: &str) -> RustKernels {
    let dir = std::env::temp_dir().join(format!("kiln-rustc-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut src = String::new();
    for nest in nests {
        src += &rust::render(nest).unwrap();
        src += &shim(nest);
    }
    let file = dir.join("kernels.rs");
    std::fs::write(&file, &src).unwrap();
    let rlib = kiln_ops_rlib();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "cdylib",
            "-O",
            "--crate-name",
            "kernels",
        ])
        .arg("-L")
        .arg(format!("dependency={}", rlib.parent().unwrap().display()))
        .arg("--extern")
        .arg(format!("kiln_ops={}", rlib.display()))
        .arg("--out-dir")
        .arg(&dir)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "rustc failed:\n{}\n{src}",
        String::from_utf8_lossy(&out.stderr)
    );
    // SAFETY: the library is the one just built from our rendered kernels and shims, with
    // no initializers that could misbehave on load.
    let lib = unsafe { libloading::Library::new(dir.join("libkernels.so")) }.unwrap();
    RustKernels { lib, dir }
}

/// `t`'s values in 8-byte words: the kernels view each buffer as a slice of its element
/// type (at most 8 bytes wide), which must be aligned even when it is empty.
fn to_words(t: &Tensor) -> Vec<u64> {
    let mut bytes = Vec::new();
    for &v in &t.data {
        t.dtype.write(v, &mut bytes);
    }
    let mut words = vec![0u64; bytes.len().div_ceil(8).max(1)];
    for (w, c) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        *w = u64::from_ne_bytes(b);
    }
    words
}

fn from_words(dtype: DType, shape: &[usize], words: &[u64]) -> Tensor {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let len = shape.iter().product::<usize>() * dtype.size();
    let data = bytes[..len]
        .chunks(dtype.size())
        .map(|c| dtype.read(c))
        .collect();
    Tensor::new(dtype, shape.to_vec(), data)
}

impl RustKernels {
    pub fn run(
        &self,
        nest: &LoopNest,
        inputs: &[&Tensor],
        dims: &[i64],
        shapes: &[Vec<usize>],
    ) -> Vec<Tensor> {
        let ins: Vec<Vec<u64>> = inputs.iter().map(|t| to_words(t)).collect();
        let in_lens: Vec<usize> = inputs.iter().map(|t| t.len()).collect();
        let mut outs: Vec<Vec<u64>> = nest
            .outputs
            .iter()
            .zip(shapes)
            .map(|(b, s)| to_words(&Tensor::zeros(b.dtype, s.clone())))
            .collect();
        let out_lens: Vec<usize> = shapes.iter().map(|s| s.iter().product()).collect();
        let in_ptrs: Vec<*const u8> = ins.iter().map(|b| b.as_ptr().cast()).collect();
        let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|b| b.as_mut_ptr().cast()).collect();
        // SAFETY: `shim_NAME` has the `Shim` signature (rendered by `shim`); each buffer holds its
        // length of elements of its dtype (in/out_lens), aligned for it (8-byte words), and
        // dims its ndims.
        unsafe {
            let f: libloading::Symbol<Shim> = self
                .lib
                .get(format!("shim_{}", nest.name).as_bytes())
                .unwrap();
            f(
                in_ptrs.as_ptr(),
                in_lens.as_ptr(),
                out_ptrs.as_ptr(),
                out_lens.as_ptr(),
                dims.as_ptr(),
                dims.len(),
            );
        }
        nest.outputs
            .iter()
            .zip(shapes)
            .zip(&outs)
            .map(|((b, s), words)| from_words(b.dtype, s, words))
            .collect()
    }
}
