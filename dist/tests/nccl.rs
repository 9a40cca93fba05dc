//! NCCL between the GPUs of a job: with a CUDA driver and NCCL, one rank per GPU of this
//! machine sums its GPU's array with the others' (`all_reduce_sum`), the unique id sent
//! over MPI; without them (CI), every rank gets the error naming what is missing.

#![cfg(feature = "nccl")]

mod common;

use common::run_job;
use std::time::Duration;

const N: usize = 1 << 16;

/// Whether this machine can run NCCL, and its GPUs.
fn gpus() -> Option<usize> {
    // SAFETY: only probes whether the libraries can be loaded.
    let present =
        unsafe { cudarc::driver::sys::is_culib_present() && cudarc::nccl::sys::is_culib_present() };
    present
        .then(|| cudarc::driver::CudaContext::device_count().ok())
        .flatten()
        .map(|n| n as usize)
        .filter(|&n| n > 0)
}

#[test]
#[ignore = "a rank of the job nccl_sums_across_ranks_or_says_what_is_missing starts"]
fn worker() {
    let store = kiln_dist::create("dist_sync").unwrap();
    let worker = kiln_dist::Worker::current().unwrap();
    let rank = store.rank();
    match (gpus(), kiln_dist::nccl::NcclGroup::new(&worker, rank)) {
        (Some(_), Ok(group)) => {
            let stream = group.stream();
            let mut values = stream.clone_htod(&vec![rank as f32 + 1.0; N]).unwrap();
            group.all_reduce_sum(&mut values).unwrap();
            let summed = stream.clone_dtoh(&values).unwrap();
            let ranks = store.num_workers() as f32;
            assert_eq!(summed, vec![ranks * (ranks + 1.0) / 2.0; N]);
        }
        (None, Err(e)) => {
            let e = e.to_string();
            assert!(
                e.contains("no CUDA driver (libcuda)") || e.contains("no NCCL library (libnccl)"),
                "{e}"
            );
        }
        (Some(_), Err(e)) => panic!("rank {rank}: NCCL failed on a GPU machine: {e}"),
        (None, Ok(_)) => panic!("rank {rank}: NCCL started where no GPU was found"),
    }
}

#[test]
fn nccl_sums_across_ranks_or_says_what_is_missing() {
    let ranks = gpus().unwrap_or(2);
    let ended = run_job(ranks, &[], Duration::from_secs(300));
    assert!(ended.status.success(), "{}\n{}", ended.stdout, ended.stderr);
}
