//! A program's kernels as one module: each rendered to CUDA C under its schedule (the
//! block schedule where its reductions allow, else element-wise), all in one translation
//! unit so a bind compiles once, and the launch geometry each takes.

use crate::device::{KernelCode, LaunchConfig, Module, Schedule};
use crate::error::Result;
use kiln_compiler::kir::{cuda, gpu, interp, Kernel};
use kiln_compiler::program::{Program, StepKind};

/// Threads per block of element-wise kernels.
pub const BLOCK: u32 = 256;
/// Blocks a launch asks for at most: grid-stride loops and row loops cover the rest, and
/// this many blocks fill every multiprocessor of current GPUs several times over.
pub const MAX_GRID: i64 = 1 << 16;

/// Kernels collected into a module, identical ones once.
#[derive(Default)]
pub struct ModuleBuilder {
    kernels: Vec<KernelCode>,
}

impl ModuleBuilder {
    /// Adds `k` (or finds it already added) and returns the name it is launched by: its
    /// own, or with a suffix where another kernel has that name.
    pub fn add(&mut self, k: &Kernel) -> Result<String> {
        let same_name = |name: &str| self.kernels.iter().find(|c| c.ir.name == name);
        let mut name = k.name.clone();
        let mut n = 1;
        while let Some(c) = same_name(&name) {
            let renamed = Kernel {
                name: c.ir.name.clone(),
                ..k.clone()
            };
            if c.ir == renamed {
                return Ok(name);
            }
            n += 1;
            name = format!("{}_{n}", k.name);
        }
        let ir = Kernel {
            name: name.clone(),
            ..k.clone()
        };
        // The block schedule where the kernel's reductions allow (as `cuda::render` picks).
        let (schedule, cuda) = match gpu::block_reduce(&ir, cuda::REDUCTION_BLOCK) {
            Ok(gk) => {
                let cuda = cuda::render_block(&gk)?;
                (Schedule::Block(Box::new(gk)), cuda)
            }
            // Why not (no reduction, or one over other axes) only picks the other schedule.
            Err(_) => (Schedule::ElementWise, cuda::render(&ir)?),
        };
        self.kernels.push(KernelCode { ir, schedule, cuda });
        Ok(name)
    }

    /// The kernel added as `name`.
    pub fn code(&self, name: &str) -> Result<&KernelCode> {
        (self.kernels.iter().find(|c| c.ir.name == name))
            .ok_or_else(|| crate::GpuError::invalid("module", format!("no kernel `{name}`")))
    }

    pub fn build(self, name: &str) -> Module {
        Module {
            name: name.to_string(),
            kernels: self.kernels,
        }
    }
}

/// Every kernel of `program` — its kernel steps, its products' packs and epilogues — as
/// one module (what a bind on a GPU compiles; `kiln bench jit --device cuda` times it).
pub fn of_program(program: &Program, name: &str) -> Result<Module> {
    let mut module = ModuleBuilder::default();
    for step in &program.steps {
        match &step.kind {
            StepKind::Kernel { ir, .. } => drop(module.add(ir)?),
            StepKind::Product(p) => {
                for (ir, _) in p.packs.iter().chain(&p.epilogue) {
                    module.add(ir)?;
                }
            }
            StepKind::Reference | StepKind::Native | StepKind::Store { .. } => {}
        }
    }
    Ok(module.build(name))
}

/// How kernel `code` is launched under `dims`, and the element count it is given (the
/// element-wise schedule's last parameter).
pub fn geometry(code: &KernelCode, dims: &[i64]) -> Result<(LaunchConfig, Option<i64>)> {
    let launch = |grid: i64, block: u32| LaunchConfig {
        grid: grid.clamp(1, MAX_GRID) as u32,
        block,
        shared_bytes: 0,
    };
    Ok(match &code.schedule {
        Schedule::ElementWise => {
            let mut n = 1;
            for e in &code.ir.domain {
                n *= interp::extent(e, dims)?;
            }
            (
                launch((n + i64::from(BLOCK) - 1) / i64::from(BLOCK), BLOCK),
                Some(n),
            )
        }
        Schedule::Block(gk) => (launch(interp::extent(&gk.rows, dims)?, gk.block), None),
    })
}
