//! NCCL collectives between the GPUs of a job (the `nccl` feature): one NCCL communicator
//! per rank, each on its GPU, created from a unique id that rank 0 makes and MPI
//! broadcasts — MPI starts the job and carries the id; the GPUs' data moves over NVLink or
//! the network through NCCL. The store's GPU level sums through it once kiln's executors
//! run on GPUs.
//!
//! NCCL and the CUDA driver are loaded at run time (cudarc's dynamic loading), so this
//! builds on any machine; without them [`NcclGroup::new`] says which is missing.

use crate::comm::Comm;
use crate::Worker;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use cudarc::nccl::{Comm as NcclComm, Id, ReduceOp};
use kiln_kvstore::{Error, Result};
use std::sync::Arc;

/// This rank's NCCL communicator and the stream its collectives run on.
pub struct NcclGroup {
    comm: NcclComm,
}

fn nccl_error(what: &str, e: impl std::fmt::Debug) -> Error {
    Error::Input(format!("NCCL: {what}: {e:?}"))
}

impl NcclGroup {
    /// The job's NCCL communicator on this rank's GPU `device` (an ordinal of this
    /// machine). Every rank must call it, as a collective.
    pub fn new(worker: &Worker, device: usize) -> Result<NcclGroup> {
        // SAFETY: only probes whether the libraries can be loaded.
        let present = unsafe {
            (
                cudarc::driver::sys::is_culib_present(),
                cudarc::nccl::sys::is_culib_present(),
            )
        };
        match present {
            (false, _) => {
                return Err(Error::Input(
                    "NCCL: no CUDA driver (libcuda) on this machine".into(),
                ))
            }
            (_, false) => {
                return Err(Error::Input(
                    "NCCL: no NCCL library (libnccl) on this machine".into(),
                ))
            }
            _ => {}
        }
        let context = CudaContext::new(device).map_err(|e| nccl_error("the GPU", e))?;
        let id = unique_id(&worker.0)?;
        let stream: Arc<CudaStream> = context.default_stream();
        let comm = NcclComm::from_rank(stream, worker.rank(), worker.0.size(), id)
            .map_err(|e| nccl_error("creating the communicator", e))?;
        Ok(NcclGroup { comm })
    }

    /// Replaces `values` (on this rank's GPU) by their sum over the ranks, on the
    /// group's stream.
    pub fn all_reduce_sum(&self, values: &mut CudaSlice<f32>) -> Result<()> {
        self.comm
            .all_reduce_in_place(values, &ReduceOp::Sum)
            .map(|_| ())
            .map_err(|e| nccl_error("all-reduce", e))
    }

    /// The stream the group's collectives run on.
    pub fn stream(&self) -> Arc<CudaStream> {
        self.comm.stream()
    }
}

/// Rank 0's NCCL unique id, broadcast to every rank over MPI.
fn unique_id(comm: &Comm) -> Result<Id> {
    let mine = match comm.rank() {
        0 => Some(Id::new().map_err(|e| nccl_error("the unique id", e))?),
        _ => None,
    };
    let mut bytes = [0u8; 128];
    if let Some(id) = &mine {
        for (b, c) in bytes.iter_mut().zip(id.internal()) {
            *b = *c as u8;
        }
    }
    let bytes = comm.call(move |link| {
        use mpi::collective::Root;
        use mpi::topology::Communicator;
        let mut bytes = bytes;
        mpi::request::scope(|scope| {
            let request =
                (link.workers.process_at_rank(0)).immediate_broadcast_into(scope, &mut bytes[..]);
            link.wait(request, &|| "the NCCL unique id".to_string());
        });
        bytes
    })?;
    Ok(mine.unwrap_or_else(|| Id::uninit(bytes.map(|b| b as std::ffi::c_char))))
}
