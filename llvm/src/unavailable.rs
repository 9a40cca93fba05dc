//! The crate's types without LLVM: none of them can be made, so every method is
//! unreachable, and [`Jit::new`] says why.

use crate::{Error, Origin, Result};
use kiln_compiler::kir::LoopNest;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// No JIT without LLVM.
pub enum Jit {}

/// No compiled kernels without LLVM.
pub enum CompiledKernel {}

impl Jit {
    pub fn new(_disk: Option<PathBuf>) -> Result<Jit> {
        Err(Error::Unavailable)
    }

    pub fn cache_folder(&self) -> std::result::Result<Option<&Path>, &str> {
        match *self {}
    }

    pub fn compiles(&self) -> usize {
        match *self {}
    }

    pub fn with_max_isa(self, _isa: &str) -> Jit {
        match self {}
    }

    pub fn with_vector_bits(self, _bits: u32) -> Jit {
        match self {}
    }

    pub fn with_streaming(self, _bytes: Option<usize>) -> Jit {
        match self {}
    }

    pub fn compile(&self, _nest: &LoopNest) -> Result<(Arc<CompiledKernel>, Origin)> {
        match *self {}
    }

    pub fn compile_for(
        &self,
        _nest: &LoopNest,
        _dims: &[i64],
    ) -> Result<(Arc<CompiledKernel>, Origin)> {
        match *self {}
    }
}

impl CompiledKernel {
    pub fn num_buffers(&self) -> usize {
        match *self {}
    }

    pub fn rows(&self, _dims: &[i64]) -> Result<Option<(i64, i64)>> {
        match *self {}
    }

    /// # Safety
    /// Never callable: no value exists.
    pub unsafe fn run_range(&self, _buffers: &[*mut u8], _dims: &[i64], _lo: i64, _hi: i64) {
        match *self {}
    }
}
