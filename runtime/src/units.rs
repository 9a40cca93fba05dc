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
use std::sync::{Arc, Mutex};

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
/// step has a kernel), the kernels over the pool's threads at once; a failure names the
/// first failing step's nodes.
pub(crate) fn compile(program: &Program) -> crate::Result<Vec<Code>> {
    // Every kernel of the program, with its step.
    let mut jobs: Vec<(usize, &Kernel, &[i64])> = Vec::new();
    for (i, step) in program.steps.iter().enumerate() {
        match &step.kind {
            StepKind::Kernel { ir, dims } => jobs.push((i, ir, dims)),
            StepKind::Product(p) => {
                let parts = p.packs.iter().chain(&p.epilogue);
                jobs.extend(parts.map(|(ir, dims)| (i, ir, dims.as_slice())));
            }
            _ => {}
        }
    }
    let failed = |step: usize, source: BackendError| {
        let g = program.graph();
        let names: Vec<&str> = (program.steps[step].nodes.iter())
            .map(|&id| g.node(id).name.as_str())
            .collect();
        crate::Error::Step {
            nodes: names.join(", "),
            source: Box::new(source),
        }
    };
    let mut compiled = Vec::with_capacity(jobs.len());
    if let Some(&(first, _, _)) = jobs.first() {
        let compiler = host_compiler().map_err(|e| failed(first, e))?;
        let results: Vec<Mutex<Option<Compiled>>> = jobs.iter().map(|_| Mutex::default()).collect();
        crate::cpu::pool::global().run(jobs.len(), &|t| {
            let (_, ir, dims) = jobs[t];
            let result = lower(ir, &Schedule::cpu(ir))
                .map_err(BackendError::from)
                .and_then(|nest| compiler.compile_for(&nest, dims));
            *results[t].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        });
        for (&(step, _, _), result) in jobs.iter().zip(results) {
            let result = result.into_inner().unwrap_or_else(|e| e.into_inner());
            let result = result.unwrap_or_else(|| Err(BackendError::Call("not compiled".into())));
            compiled.push(result.map_err(|e| failed(step, e))?);
        }
    }
    // Handed back to the steps in the order they were taken: one kernel per job.
    let mut kernels = compiled.into_iter();
    let mut code = Vec::with_capacity(program.steps.len());
    for step in &program.steps {
        code.push(match &step.kind {
            StepKind::Kernel { .. } => Code::Kernel(kernels.next().ok_or_else(missing)?),
            StepKind::Product(p) => Code::Product {
                packs: (kernels.by_ref().take(p.packs.len())).collect(),
                epilogue: match &p.epilogue {
                    Some(_) => Some(kernels.next().ok_or_else(missing)?),
                    None => None,
                },
            },
            _ => Code::None,
        });
    }
    Ok(code)
}

/// A step left without its kernel (the jobs were not one per kernel: a bug).
fn missing() -> crate::Error {
    crate::Error::Backend(BackendError::Call(
        "a step's kernel was not compiled".into(),
    ))
}

type Compiled = Result<Arc<dyn HostKernel>, BackendError>;
