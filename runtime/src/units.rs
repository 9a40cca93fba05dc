//! The backend's half of a bound program: the target it compiles for, and each step's
//! kernels compiled by the host's kernel compiler ([`crate::backend`]).
//!
//! The backend is the configuration's ([`crate::Config::backend`]): the JIT (the default)
//! or the interpreter (every node on its reference kernel, the oracle). Without a kernel compiler (kiln built without
//! LLVM), `jit` runs library nodes on their native f32 kernels and the rest on reference
//! kernels.

use crate::backend::{host_compiler, BackendError, HostKernel};
use kiln_compiler::kir::{lower, Kernel, Schedule};
use kiln_compiler::program::{Program, StepKind, Target};
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
    /// What the compiler targets for this backend: without a kernel compiler, the JIT
    /// runs library nodes on their native kernels and the rest on reference kernels.
    pub fn target(self) -> Target {
        match self {
            Backend::Interpreter => Target::reference(),
            // Decided by the build, not by starting the JIT: a host where LLVM fails to
            // start gets that error when it binds.
            Backend::Jit if kiln_llvm::AVAILABLE => Target::cpu(),
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
    Kernel(Arc<dyn HostKernel>),
    Product {
        packs: Vec<Arc<dyn HostKernel>>,
        epilogue: Option<Arc<dyn HostKernel>>,
    },
}

/// Each step's code, compiled for the host CPU (the compiler is asked for only where a
/// step has a kernel); a failure names the step's nodes.
pub(crate) fn compile(program: &Program) -> crate::Result<Vec<Code>> {
    let mut compiler = None;
    let g = program.graph();
    let mut out = Vec::with_capacity(program.steps.len());
    for step in &program.steps {
        let mut compile = |ir: &Kernel, dims: &[i64]| -> crate::Result<Arc<dyn HostKernel>> {
            let compiled = (|| -> Result<Arc<dyn HostKernel>, BackendError> {
                let compiler = match compiler {
                    Some(c) => c,
                    None => *compiler.insert(host_compiler()?),
                };
                compiler.compile_for(&lower(ir, &Schedule::cpu(ir))?, dims)
            })();
            compiled.map_err(|source| {
                let names: Vec<&str> = (step.nodes.iter())
                    .map(|&id| g.node(id).name.as_str())
                    .collect();
                crate::Error::Step {
                    nodes: names.join(", "),
                    source: Box::new(source),
                }
            })
        };
        out.push(match &step.kind {
            StepKind::Kernel { ir, dims } => Code::Kernel(compile(ir, dims)?),
            StepKind::Product(p) => Code::Product {
                packs: (p.packs.iter().map(|(ir, dims)| compile(ir, dims)))
                    .collect::<crate::Result<_>>()?,
                epilogue: (p.epilogue.as_ref().map(|(ir, dims)| compile(ir, dims))).transpose()?,
            },
            _ => Code::None,
        });
    }
    Ok(out)
}
