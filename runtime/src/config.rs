//! One configuration for everything kiln's runtime decides: which kernels an executor
//! runs, which passes and rewrites it compiles with, lazy fusion, threads, the engine,
//! profiling and the kernel cache. A [`Config`] is a value built with its setters; an
//! executor is bound with one ([`crate::Executor::simple_bind_with`]), and the process's
//! own ([`Config::global`]) sizes what exists once per process — the engine, the
//! kernels' pool, the profiler, the JIT (cache folder, vector width), lazy fusion — and
//! is what `simple_bind` uses.
//!
//! The process's configuration is the one [`Config::install`] was given before any of
//! that started, else the defaults with the environment's overrides ([`Config::from_env`]).
//! This is the only place kiln reads `KILN_*` variables:
//!
//! | variable | setting | default |
//! |---|---|---|
//! | `KILN_BACKEND` | [`Config::backend`]: `jit`, or `interp` (reference kernels) | `jit` |
//! | `KILN_DISABLE_PASSES` | [`Config::disable_pass`], comma-separated names | none |
//! | `KILN_DUMP` | [`Config::dump_pass`]: print the graph after these passes (`all`) | none |
//! | `KILN_WINOGRAD` | [`Config::winograd`] (`0` off) | on |
//! | `KILN_WINOGRAD_BANDS` | [`Config::winograd_bands`] (`0` off) | on |
//! | `KILN_SHARED_SUMS` | [`Config::shared_sums`] (`0` off) | on |
//! | `KILN_WINOGRAD_WEIGHT_GRADIENTS` | [`Config::winograd_weight_gradients`] (`0` off) | on |
//! | `KILN_WINOGRAD_LARGE_TILES` | [`Config::winograd_large_tiles`] (`0` off) | on |
//! | `KILN_IMPLICIT_GEMM` | [`Config::implicit_gemm`] (`0` off) | on |
//! | `KILN_FUSED_EPILOGUES` | [`Config::fused_epilogues`] (`0` off) | on |
//! | `KILN_BATCH_PARTS` | [`Config::batch_parts`]: inference's per-sample prefix in parts of the batch (`0` off) | on |
//! | `KILN_LAZY` | [`Config::lazy`]: fuse imperative element-wise chains (`0` off) | on |
//! | `KILN_CPU_THREADS` | [`Config::threads`] of the kernels' pool | the CPU's |
//! | `KILN_ENGINE` | [`Config::engine`]: `threaded` or `naive` (synchronous) | `threaded` |
//! | `KILN_CPU_WORKER_NTHREADS` | the threaded engine's workers | 1 |
//! | `KILN_PROFILE` | [`Config::profile`]: write a Chrome trace there at exit | off |
//! | `KILN_CACHE_DIR` | [`Config::cache_dir`] (compiled kernels under `jit/`) | `$XDG_CACHE_HOME/kiln`, else `~/.cache/kiln` |
//! | `KILN_MEMORY_LIMIT` | [`Config::memory_limit`]: bytes the CPU storage pool may hold (a number, or with `k`, `m`, `g`, `t`: powers of 1024) | the machine's available memory |
//! | `KILN_ISA` | [`Config::isa`]: the widest instruction set products and compiled kernels use (`avx512`, `avx2`, `baseline`) | the CPU's |
//! | `KILN_VECTOR_BITS` | [`Config::vector_bits`] of compiled kernels (128, 256, 512) | this CPU's ([`crate::cpu::wisdom`]) |
//!
//! Test and bench tooling reads its own, in the files that use them, never on kiln's
//! path: `KILN_UPDATE_BUILDERS` (regenerate the typed builders), `KILN_UPDATE_FILETESTS`
//! (rewrite the kernel IR filetests' expectations), `KILN_UPDATE_FIXTURES` (rewrite the
//! kiln-written fixtures), `KILN_REQUIRE_NVRTC=1` (fail, not skip, without NVRTC),
//! `KILN_PRINT_RANDOM` (a child process of the random-stream test), `KILN_GEMM_ONLY` (one
//! shape of the gemm bench). A variable with a value kiln cannot use is an error naming it.

use crate::engine::EngineKind;
use crate::units::Backend;
use crate::{Error, Result};
use kiln_compiler::program::{Mode, Spec, Target};
use kiln_ops::Shape;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Everything the runtime is configured by; see the module's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub backend: Backend,
    pub disabled_passes: HashSet<String>,
    /// Passes after which the graph is printed (`all`: every pass).
    pub dumped_passes: HashSet<String>,
    pub winograd: bool,
    /// Winograd convolutions in bands of tiles where that pays
    /// ([`kiln_compiler::program::Target::winograd_bands`]).
    pub winograd_bands: bool,
    /// Weight gradients share their images among the pool's threads where that pays
    /// ([`kiln_compiler::program::Target::shared_sums`]).
    pub shared_sums: bool,
    /// Weight gradients of 3x3 convolutions by Winograd's algorithm where it pays
    /// ([`kiln_compiler::program::Target::winograd_weight_gradients`]).
    pub winograd_weight_gradients: bool,
    /// Winograd's F(4x4, 3x3) where it pays
    /// ([`kiln_compiler::program::Target::winograd_large_tiles`]).
    pub winograd_large_tiles: bool,
    /// Inference runs its per-sample prefix a few samples at a time (as many as the
    /// pool has threads), so its values take a part's memory instead of the batch's
    /// ([`kiln_compiler::program::parts`]).
    pub batch_parts: bool,
    pub fused_epilogues: bool,
    /// Packs gathered straight into gemm's panels where they read their input at affine
    /// positions ([`kiln_compiler::program::Target::implicit_gemm`]).
    pub implicit_gemm: bool,
    pub lazy: bool,
    /// Threads of the kernels' pool (the caller included); `None`: the CPU's.
    pub threads: Option<usize>,
    pub engine: EngineKind,
    /// Where the profiler writes its trace; `None`: no profiling.
    pub profile: Option<PathBuf>,
    /// kiln's cache folder; `None`: compiled kernels are kept in memory only.
    pub cache_dir: Option<PathBuf>,
    /// The widest instruction set products and compiled kernels use (a narrower CPU's,
    /// to measure its code paths on this one); `None`: the CPU's. Applied to kiln-gemm as
    /// the configuration is first read.
    pub isa: Option<kiln_gemm::Isa>,
    /// The vector width of compiled kernels; `None`: this CPU's, by its instruction sets or
    /// measured once per CPU model ([`crate::cpu::wisdom::vector_bits`]).
    pub vector_bits: Option<u32>,
    /// Bytes the CPU storage pool may hold at once; `None`: a block is refused where it
    /// passes the memory the machine has available ([`crate::storage`]).
    pub memory_limit: Option<usize>,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

static GLOBAL: OnceLock<Config> = OnceLock::new();

impl Config {
    /// The defaults, whatever the `KILN_*` variables say (the cache folder is under the
    /// user's usual cache location).
    pub fn new() -> Config {
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        // The usual per-user cache folders are locations, not kiln settings.
        let cache_dir = (env("XDG_CACHE_HOME").map(|p| p.join("kiln")))
            .or_else(|| env("HOME").map(|p| p.join(".cache/kiln")));
        Config {
            backend: Backend::Jit,
            disabled_passes: HashSet::new(),
            dumped_passes: HashSet::new(),
            winograd: true,
            winograd_bands: true,
            shared_sums: true,
            winograd_weight_gradients: true,
            winograd_large_tiles: true,
            batch_parts: true,
            fused_epilogues: true,
            implicit_gemm: true,
            lazy: true,
            threads: None,
            engine: EngineKind::Threaded { workers: 1 },
            profile: None,
            cache_dir,
            isa: None,
            vector_bits: None,
            memory_limit: None,
        }
    }

    /// The defaults with the `KILN_*` variables' overrides.
    pub fn from_env() -> Result<Config> {
        Config::from_vars(|k| std::env::var(k).ok())
    }

    /// The defaults with overrides from `var` (the `KILN_*` names; empty means unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let var = |k: &str| var(k).filter(|v| !v.is_empty());
        let bad = |k: &str, v: &str, want: &str| Error::Config {
            variable: k.to_string(),
            value: v.to_string(),
            expected: want.to_string(),
        };
        let flag = |k: &str, default: bool| match var(k).as_deref() {
            None => Ok(default),
            Some("0") | Some("false") | Some("off") => Ok(false),
            Some("1") | Some("true") | Some("on") => Ok(true),
            Some(v) => Err(bad(k, v, "0 or 1")),
        };
        let count = |k: &str| -> Result<Option<usize>> {
            var(k)
                .map(|v| match v.parse::<usize>() {
                    Ok(n) if n >= 1 => Ok(n),
                    _ => Err(bad(k, &v, "a count of at least 1")),
                })
                .transpose()
        };
        let names = |k: &str| -> HashSet<String> {
            (var(k).unwrap_or_default().split(','))
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        };
        let mut c = Config::new();
        c.backend = match var("KILN_BACKEND").as_deref() {
            None | Some("jit") => Backend::Jit,
            Some("interp") | Some("interpreter") => Backend::Interpreter,
            Some(v) => return Err(bad("KILN_BACKEND", v, "jit or interp")),
        };
        c.disabled_passes = names("KILN_DISABLE_PASSES");
        c.dumped_passes = names("KILN_DUMP");
        c.winograd = flag("KILN_WINOGRAD", c.winograd)?;
        c.winograd_bands = flag("KILN_WINOGRAD_BANDS", c.winograd_bands)?;
        c.shared_sums = flag("KILN_SHARED_SUMS", c.shared_sums)?;
        c.winograd_weight_gradients = flag(
            "KILN_WINOGRAD_WEIGHT_GRADIENTS",
            c.winograd_weight_gradients,
        )?;
        c.winograd_large_tiles = flag("KILN_WINOGRAD_LARGE_TILES", c.winograd_large_tiles)?;
        c.batch_parts = flag("KILN_BATCH_PARTS", c.batch_parts)?;
        c.fused_epilogues = flag("KILN_FUSED_EPILOGUES", c.fused_epilogues)?;
        c.implicit_gemm = flag("KILN_IMPLICIT_GEMM", c.implicit_gemm)?;
        c.lazy = flag("KILN_LAZY", c.lazy)?;
        c.threads = count("KILN_CPU_THREADS")?.or(c.threads);
        let workers = count("KILN_CPU_WORKER_NTHREADS")?.unwrap_or(1);
        c.engine = match var("KILN_ENGINE").as_deref() {
            None | Some("threaded") => EngineKind::Threaded { workers },
            Some("naive") => EngineKind::Naive,
            Some(v) => return Err(bad("KILN_ENGINE", v, "threaded or naive")),
        };
        c.profile = var("KILN_PROFILE").map(PathBuf::from);
        if let Some(dir) = var("KILN_CACHE_DIR") {
            c.cache_dir = Some(dir.into());
        }
        if let Some(v) = var("KILN_ISA") {
            let isa = kiln_gemm::Isa::parse(&v);
            c.isa = Some(isa.ok_or_else(|| bad("KILN_ISA", &v, "avx512, avx2 or baseline"))?);
        }
        if let Some(v) = var("KILN_VECTOR_BITS") {
            c.vector_bits = match v.as_str() {
                "128" | "256" | "512" => v.parse().ok(),
                _ => return Err(bad("KILN_VECTOR_BITS", &v, "128, 256 or 512")),
            };
        }
        if let Some(v) = var("KILN_MEMORY_LIMIT") {
            let limit = parse_bytes(&v);
            c.memory_limit =
                Some(limit.ok_or_else(|| bad("KILN_MEMORY_LIMIT", &v, "bytes, e.g. 512m or 16g"))?);
        }
        Ok(c)
    }

    /// The process's configuration: the one installed, else [`Config::from_env`] (or,
    /// where a variable is unusable, the defaults, after saying why on stderr: this runs
    /// where no error can be returned).
    pub fn global() -> &'static Config {
        GLOBAL.get_or_init(|| {
            let c = Config::from_env().unwrap_or_else(|e| {
                eprintln!("kiln: {e}; using the defaults");
                Config::new()
            });
            c.limit_isa();
            c
        })
    }

    /// Limits kiln-gemm's products to [`Config::isa`], saying so where a product ran
    /// before with a wider one.
    fn limit_isa(&self) {
        if let Some(isa) = self.isa {
            if !kiln_gemm::limit_isa(isa) {
                eprintln!(
                    "kiln: products already use {}; the {} limit applies to compiled kernels only",
                    kiln_gemm::isa().name(),
                    isa.name()
                );
            }
        }
    }

    /// Makes this the process's configuration (again, where it already is). Fails once
    /// another configuration was read (an executor bound, an array computed): the engine, the pool and the
    /// JIT are made once, from it.
    pub fn install(self) -> Result<()> {
        let wanted = self.clone();
        match GLOBAL.set(self) {
            Ok(()) => {
                wanted.limit_isa();
                Ok(())
            }
            // The refused value is this configuration, handed back: nothing is lost.
            Err(_) if GLOBAL.get() == Some(&wanted) => Ok(()),
            Err(_) => Err(Error::ConfiguredAlready),
        }
    }

    pub fn backend(mut self, backend: Backend) -> Config {
        self.backend = backend;
        self
    }

    pub fn disable_pass(mut self, name: &str) -> Config {
        self.disabled_passes.insert(name.to_string());
        self
    }

    pub fn dump_pass(mut self, name: &str) -> Config {
        self.dumped_passes.insert(name.to_string());
        self
    }

    pub fn winograd(mut self, on: bool) -> Config {
        self.winograd = on;
        self
    }

    pub fn winograd_bands(mut self, on: bool) -> Config {
        self.winograd_bands = on;
        self
    }

    pub fn shared_sums(mut self, on: bool) -> Config {
        self.shared_sums = on;
        self
    }

    pub fn winograd_weight_gradients(mut self, on: bool) -> Config {
        self.winograd_weight_gradients = on;
        self
    }

    pub fn winograd_large_tiles(mut self, on: bool) -> Config {
        self.winograd_large_tiles = on;
        self
    }

    pub fn batch_parts(mut self, on: bool) -> Config {
        self.batch_parts = on;
        self
    }

    pub fn fused_epilogues(mut self, on: bool) -> Config {
        self.fused_epilogues = on;
        self
    }

    pub fn implicit_gemm(mut self, on: bool) -> Config {
        self.implicit_gemm = on;
        self
    }

    pub fn lazy(mut self, on: bool) -> Config {
        self.lazy = on;
        self
    }

    pub fn threads(mut self, threads: usize) -> Config {
        self.threads = Some(threads.max(1));
        self
    }

    pub fn engine(mut self, kind: EngineKind) -> Config {
        self.engine = kind;
        self
    }

    pub fn profile(mut self, path: impl Into<PathBuf>) -> Config {
        self.profile = Some(path.into());
        self
    }

    pub fn cache_dir(mut self, dir: Option<PathBuf>) -> Config {
        self.cache_dir = dir;
        self
    }

    pub fn isa(mut self, isa: Option<kiln_gemm::Isa>) -> Config {
        self.isa = isa;
        self
    }

    pub fn vector_bits(mut self, bits: u32) -> Config {
        self.vector_bits = Some(bits);
        self
    }

    pub fn memory_limit(mut self, bytes: Option<usize>) -> Config {
        self.memory_limit = bytes;
        self
    }

    /// What [`program::compile`](kiln_compiler::program::compile) is given for these
    /// shapes and mode: this configuration's target and passes.
    pub fn spec(&self, shapes: HashMap<String, Shape>, mode: Mode) -> Spec {
        Spec {
            disabled_passes: self.disabled_passes.clone(),
            dumped_passes: self.dumped_passes.clone(),
            ..Spec::new(shapes, mode, self.target())
        }
    }

    /// Threads of the kernels' pool under this configuration.
    pub fn pool_threads(&self) -> usize {
        (self.threads)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// What the compiler targets: the backend's target with this configuration's
    /// Winograd and epilogue choices, its products streamed over the pool's threads (an
    /// index's packed operand in chunks of the host's L2 cache), and inference's
    /// per-sample prefix in parts of as many samples.
    pub fn target(&self) -> Target {
        let target = self.backend.target();
        Target {
            winograd: target.winograd && self.winograd,
            winograd_bands: target.winograd_bands && self.winograd_bands,
            shared_sums: target.shared_sums && self.shared_sums,
            winograd_weight_gradients: target.winograd_weight_gradients
                && self.winograd_weight_gradients,
            winograd_large_tiles: target.winograd_large_tiles && self.winograd_large_tiles,
            fused_epilogues: target.fused_epilogues && self.fused_epilogues,
            implicit_gemm: target.implicit_gemm && self.implicit_gemm,
            // Products run index by index on the threads the kernels' pool has.
            streams: target.kernels.then(|| self.pool_threads()),
            // An index's packed operand in chunks that stay in a core's L2 cache.
            pack_bytes: target.kernels.then(crate::cpu::cache::l2_bytes),
            parts: (target.kernels && self.batch_parts).then(|| self.pool_threads()),
            ..target
        }
    }
}

/// Bytes as a number, optionally followed by `k`, `m`, `g` or `t` (powers of 1024, either
/// case, an optional `b` after); `None` where it is not one, or overflows.
fn parse_bytes(v: &str) -> Option<usize> {
    let v = v.trim().to_ascii_lowercase();
    let v = v.strip_suffix('b').unwrap_or(&v);
    let (digits, shift) = match v.char_indices().last()? {
        (i, 'k') => (&v[..i], 10),
        (i, 'm') => (&v[..i], 20),
        (i, 'g') => (&v[..i], 30),
        (i, 't') => (&v[..i], 40),
        _ => (v, 0),
    };
    let n: usize = digits.trim().parse().ok()?;
    n.checked_mul(1 << shift).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from(vars: &[(&str, &str)]) -> Result<Config> {
        let vars: HashMap<String, String> = (vars.iter())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_vars(|k| vars.get(k).cloned())
    }

    #[test]
    fn variables_override_the_defaults() {
        assert_eq!(from(&[]).unwrap(), Config::new());
        let c = from(&[
            ("KILN_BACKEND", "interp"),
            ("KILN_DISABLE_PASSES", "cse, simplify"),
            ("KILN_WINOGRAD", "0"),
            ("KILN_WINOGRAD_BANDS", "0"),
            ("KILN_SHARED_SUMS", "0"),
            ("KILN_WINOGRAD_WEIGHT_GRADIENTS", "0"),
            ("KILN_WINOGRAD_LARGE_TILES", "0"),
            ("KILN_BATCH_PARTS", "0"),
            ("KILN_IMPLICIT_GEMM", "0"),
            ("KILN_LAZY", "off"),
            ("KILN_CPU_THREADS", "3"),
            ("KILN_ENGINE", "threaded"),
            ("KILN_CPU_WORKER_NTHREADS", "2"),
            ("KILN_PROFILE", "trace.json"),
            ("KILN_CACHE_DIR", "/tmp/k"),
            ("KILN_VECTOR_BITS", "512"),
            ("KILN_ISA", "avx2"),
            ("KILN_MEMORY_LIMIT", "16G"),
        ])
        .unwrap();
        let want = (Config::new())
            .backend(Backend::Interpreter)
            .disable_pass("cse")
            .disable_pass("simplify")
            .winograd(false)
            .winograd_bands(false)
            .shared_sums(false)
            .winograd_weight_gradients(false)
            .winograd_large_tiles(false)
            .batch_parts(false)
            .implicit_gemm(false)
            .lazy(false)
            .threads(3)
            .engine(EngineKind::Threaded { workers: 2 })
            .profile("trace.json")
            .cache_dir(Some("/tmp/k".into()))
            .vector_bits(512)
            .isa(Some(kiln_gemm::Isa::Avx2))
            .memory_limit(Some(16 << 30));
        assert_eq!(c, want);
        assert!(!c.target().winograd && !c.target().kernels);
    }

    #[test]
    fn an_unusable_value_is_an_error_naming_the_variable() {
        for (k, v) in [
            ("KILN_BACKEND", "gpu"),
            ("KILN_ISA", "sse"),
            ("KILN_LAZY", "maybe"),
            ("KILN_CPU_THREADS", "0"),
            ("KILN_ENGINE", "fast"),
            ("KILN_VECTOR_BITS", "384"),
            ("KILN_MEMORY_LIMIT", "lots"),
            ("KILN_MEMORY_LIMIT", "0"),
            ("KILN_MEMORY_LIMIT", "99999999999t"),
        ] {
            let e = from(&[(k, v)]).unwrap_err().to_string();
            assert!(e.contains(k) && e.contains(v), "{e}");
        }
    }

    #[test]
    fn byte_counts_read_with_their_units() {
        let cases = [
            ("4096", 4096),
            ("512m", 512 << 20),
            ("16GB", 16 << 30),
            ("2 k", 2048),
        ];
        for (text, bytes) in cases {
            assert_eq!(parse_bytes(text), Some(bytes), "{text}");
        }
        for text in ["", "m", "-1", "1.5g", "12x"] {
            assert_eq!(parse_bytes(text), None, "{text}");
        }
    }
}
