//! Object code linked into the process by LLVM's ORC JIT (LLJIT), so a kernel compiled by
//! an earlier process loads from its cached object file without generating code again.
//!
//! inkwell wraps only MCJIT, which cannot load object files, so this talks to LLJIT
//! through llvm-sys. Every kernel's object goes into the main JIT dylib under a unique
//! entry symbol; the shims are defined as absolute symbols and anything else an object
//! calls (libm, memset) resolves against the process.

use crate::{Error, Result};
use llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy;
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use std::ffi::{CStr, CString};

/// One LLJIT instance: every object added to it stays mapped until it is dropped.
pub struct ObjectLinker {
    jit: LLVMOrcLLJITRef,
}

// SAFETY: LLJIT is internally synchronized (its execution session locks), and `Jit` only
// adds objects under its host lock.
unsafe impl Send for ObjectLinker {}
// SAFETY: as for Send: concurrent use goes through LLJIT's own locks or `Jit`'s host lock.
unsafe impl Sync for ObjectLinker {}

/// LLVM's text of `e`, where it is an error (consuming it), with what was being done.
fn failure(what: &str, e: LLVMErrorRef) -> Option<String> {
    if e.is_null() {
        return None;
    }
    // SAFETY: a non-null error is consumed by taking its message, which is then freed.
    unsafe {
        let m = LLVMGetErrorMessage(e);
        let text = CStr::from_ptr(m).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(m);
        Some(format!("{what}: {text}"))
    }
}

/// Starting the JIT failed.
fn host(what: &str, e: LLVMErrorRef) -> Result<()> {
    failure(what, e).map_or(Ok(()), |m| Err(Error::Host(m)))
}

fn c_string(s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::Call(format!("symbol name `{s}` holds a NUL byte")))
}

impl ObjectLinker {
    /// An LLJIT for the host, with `symbols` (name, address) defined and the process's
    /// own symbols visible to the objects.
    pub fn new(symbols: &[(&str, usize)]) -> Result<ObjectLinker> {
        let mut jit = std::ptr::null_mut();
        // SAFETY: a null builder asks for the default (host) configuration.
        host("creating the LLVM ORC JIT", unsafe {
            LLVMOrcCreateLLJIT(&mut jit, std::ptr::null_mut())
        })?;
        let linker = ObjectLinker { jit };
        // SAFETY: `jit` is live; the generator and the materialization unit are handed
        // over to the dylib, and the interned names to the unit.
        unsafe {
            let dylib = LLVMOrcLLJITGetMainJITDylib(jit);
            let mut generator = std::ptr::null_mut();
            host(
                "resolving the process's symbols",
                LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                    &mut generator,
                    LLVMOrcLLJITGetGlobalPrefix(jit),
                    None,
                    std::ptr::null_mut(),
                ),
            )?;
            LLVMOrcJITDylibAddGenerator(dylib, generator);
            let mut pairs = Vec::with_capacity(symbols.len());
            for &(name, address) in symbols {
                let name = c_string(name)?;
                pairs.push(LLVMJITCSymbolMapPair {
                    Name: LLVMOrcLLJITMangleAndIntern(jit, name.as_ptr()),
                    Sym: LLVMJITEvaluatedSymbol {
                        Address: address as u64,
                        Flags: LLVMJITSymbolFlags {
                            GenericFlags:
                                LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                                    | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable
                                        as u8,
                            TargetFlags: 0,
                        },
                    },
                });
            }
            let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
            host("defining the shims", LLVMOrcJITDylibDefine(dylib, unit))?;
        }
        Ok(linker)
    }

    /// Links the object file of kernel `kernel` into the process and returns the address
    /// of `entry`, a symbol it defines (unique among the objects linked so far). An object
    /// that fails to link is removed again, so its symbols may be defined anew.
    pub fn link(&self, kernel: &str, object: &[u8], entry: &str) -> Result<usize> {
        let entry = c_string(entry)?;
        // SAFETY: the buffer copies `object` and is owned by LLJIT once added; the lookup
        // links it (resolving its relocations) and returns the entry's address. Releasing
        // the tracker handle keeps what it tracks; removing it unlinks the object.
        unsafe {
            let tracker =
                LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(self.jit));
            let buffer = LLVMCreateMemoryBufferWithMemoryRangeCopy(
                object.as_ptr().cast(),
                object.len(),
                c"kiln kernel".as_ptr(),
            );
            let mut address = 0;
            let failed = failure(
                "adding a kernel object",
                LLVMOrcLLJITAddObjectFileWithRT(self.jit, tracker, buffer),
            )
            .or_else(|| {
                failure(
                    "linking a kernel object",
                    LLVMOrcLLJITLookup(self.jit, &mut address, entry.as_ptr()),
                )
            });
            if failed.is_some() {
                // The link's own failure is the one to report.
                let _ = failure("unlinking", LLVMOrcResourceTrackerRemove(tracker));
            }
            LLVMOrcReleaseResourceTracker(tracker);
            match failed {
                None => Ok(address as usize),
                Some(message) => Err(Error::Kernel {
                    kernel: kernel.to_string(),
                    message,
                }),
            }
        }
    }
}

impl Drop for ObjectLinker {
    fn drop(&mut self) {
        // SAFETY: no kernel of this linker is reachable any more (each holds an `Arc` to
        // it); an error while tearing down has nowhere to go.
        let _ = failure("disposing the LLVM ORC JIT", unsafe {
            LLVMOrcDisposeLLJIT(self.jit)
        });
    }
}
