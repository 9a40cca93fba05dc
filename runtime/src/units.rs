//! The backend's half of a bound program: the target it compiles for, and each step's
//! kernels compiled by the CPU JIT (LLVM).
//!
//! The backend is chosen by `KILN_BACKEND`: `jit` (the default) or `interp` (every node
//! on its reference kernel, the oracle). Built without the `llvm` feature, `jit` runs
//! library nodes on their native f32 kernels and the rest on reference kernels.

use kiln_compiler::program::{Program, Target};
#[cfg(feature = "llvm")]
use std::sync::Arc;

/// Which kernels an executor runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The operators' reference kernels, node by node.
    Interpreter,
    /// Fused kernels compiled by LLVM, products on gemm, native kernels for library
    /// calls (without LLVM: the native kernels alone).
    Jit,
}

impl Backend {
    /// `KILN_BACKEND` (`jit` or `interp`), else the JIT.
    pub fn from_env() -> Backend {
        match std::env::var("KILN_BACKEND").as_deref() {
            Ok("interp") | Ok("interpreter") => Backend::Interpreter,
            _ => Backend::Jit,
        }
    }

    /// What the compiler targets for this backend.
    pub fn target(self) -> Target {
        match self {
            Backend::Interpreter => Target::reference(),
            #[cfg(feature = "llvm")]
            Backend::Jit => Target::cpu(),
            #[cfg(not(feature = "llvm"))]
            Backend::Jit => Target {
                native: true,
                ..Target::reference()
            },
        }
    }
}

/// A step's compiled code.
pub(crate) enum Code {
    /// Nothing to compile: a node on its native or reference kernel, a store.
    None,
    #[cfg(feature = "llvm")]
    Kernel(Arc<crate::cpu::CompiledKernel>),
    #[cfg(feature = "llvm")]
    Product {
        packs: Vec<Arc<crate::cpu::CompiledKernel>>,
        epilogue: Option<Arc<crate::cpu::CompiledKernel>>,
    },
}

/// Each step's code, compiled for the host CPU.
pub(crate) fn compile(program: &Program) -> Result<Vec<Code>, String> {
    #[cfg(feature = "llvm")]
    {
        use kiln_compiler::kir::{lower, Kernel, Schedule};
        use kiln_compiler::program::StepKind;
        let mut jit = None;
        let g = program.graph();
        let mut out = Vec::with_capacity(program.steps.len());
        for step in &program.steps {
            let mut compile = |ir: &Kernel| -> Result<Arc<crate::cpu::CompiledKernel>, String> {
                let jit = match jit {
                    Some(j) => j,
                    None => *jit.insert(crate::cpu::Jit::global()?),
                };
                let nest = lower(ir, &Schedule::cpu(ir))?;
                jit.compile(&nest).map(|(k, _)| k).map_err(|e| {
                    let names: Vec<&str> = step
                        .nodes
                        .iter()
                        .map(|&id| g.node(id).name.as_str())
                        .collect();
                    format!("compiling the kernel of nodes {}: {e}", names.join(", "))
                })
            };
            out.push(match &step.kind {
                StepKind::Kernel { ir, .. } => Code::Kernel(compile(ir)?),
                StepKind::Product(p) => Code::Product {
                    packs: (p.packs.iter().map(|(ir, _)| compile(ir))).collect::<Result<_, _>>()?,
                    epilogue: p.epilogue.as_ref().map(|(ir, _)| compile(ir)).transpose()?,
                },
                _ => Code::None,
            });
        }
        Ok(out)
    }
    #[cfg(not(feature = "llvm"))]
    Ok(program.steps.iter().map(|_| Code::None).collect())
}
