//! No hangs: a job of three ranks where one fails stops within 30 s, non-zero, naming the
//! rank — whether it raises an error mid-epoch, is killed mid-step, or leaves the job
//! early; and ranks with different batch counts in an epoch (MXNet's classic `dist_sync`
//! hang) finish cleanly with the same weights.
//!
//! Each case runs this test binary's `worker` on three ranks under `mpirun`; rank 1 does
//! what `KILN_DIST_FAULT` says. The errors, kills and uneven counts are played with
//! `dist_sync` and again with `dist_async` (one more rank, a server).

mod common;

use common::{fit_args, module, run_job_with_servers, save, MLP_SGD};
use kiln_dist::launch::first_failure;
use kiln_runtime::NDArray;
use kiln_train::StoreChoice;
use std::path::PathBuf;
use std::time::Duration;

const RANKS: usize = 3;
const BATCH: usize = 4;
/// What a failing job must end within.
const STOPPED_WITHIN: Duration = Duration::from_secs(30);

/// A rank of a job (run by `mpirun`, not by the test harness itself).
#[test]
#[ignore = "a rank of the jobs the other tests start"]
fn worker() {
    if kiln_dist::serve().unwrap() {
        return;
    }
    let fault = std::env::var("KILN_DIST_FAULT").expect("a fault to play");
    let store = kiln_dist::create(&std::env::var("KILN_DIST_STORE").unwrap()).unwrap();
    let rank = store.rank();
    // Uneven: rank r has r + 1 batches; otherwise three each.
    let batches = if fault == "uneven" { rank + 1 } else { 3 };
    let rows: Vec<usize> = (0..batches * BATCH).map(|i| 100 * rank + i).collect();
    let mut data = common::iterator(&MLP_SGD, &rows, BATCH);
    let epochs = match (fault.as_str(), rank) {
        ("early", 1) => 1,
        _ => 2,
    };
    let mut fit = fit_args(&MLP_SGD, epochs, Some(StoreChoice::Value(store)));
    let fault_here = rank == 1;
    fit.batch_end_callback.push(Box::new(move |end| {
        if fault_here && end.epoch == 1 && end.nbatch == 1 {
            match fault.as_str() {
                "error" => {
                    return Err(kiln_train::Error::Input(
                        "the data of batch 1 is corrupt".into(),
                    ))
                }
                // SAFETY: kill and getpid have no preconditions.
                "kill" => unsafe {
                    libc::kill(libc::getpid(), libc::SIGKILL);
                },
                _ => {}
            }
        }
        Ok(())
    }));
    let mut module = module(&MLP_SGD, 1);
    module.fit(&mut data, fit).unwrap();
    if let Some(dir) = std::env::var_os("KILN_DIST_TEST_OUT") {
        save(
            &module,
            &PathBuf::from(dir).join(format!("rank{rank}.params")),
        );
    }
}

/// The job with `fault` on rank 1 through store `store` (with a server for dist_async).
fn job(fault: &str, store: &str, out: Option<&std::path::Path>) -> common::Ended {
    let servers = usize::from(store == "dist_async");
    let mut env = vec![
        ("KILN_DIST_FAULT", fault.as_ref()),
        ("KILN_DIST_STORE", store.as_ref()),
    ];
    env.extend(out.map(|dir| ("KILN_DIST_TEST_OUT", dir.as_os_str())));
    run_job_with_servers(RANKS, servers, &env, Duration::from_secs(120))
}

/// Runs the job with `fault` on rank 1 and checks it stopped in time, non-zero.
fn stops(fault: &str, store: &str) -> common::Ended {
    let ended = job(fault, store, None);
    assert!(
        !ended.status.success(),
        "{fault}, {store}: the job succeeded"
    );
    assert!(
        ended.took < STOPPED_WITHIN,
        "{fault}, {store}: the job took {:?} to stop",
        ended.took
    );
    ended
}

#[test]
fn a_rank_raising_an_error_stops_the_job_naming_it() {
    for (store, ranks) in [("dist_sync", 3), ("dist_async", 4)] {
        let ended = stops("error", store);
        let said = format!(
            "kiln: rank 1 of {ranks} failed: the data of batch 1 is corrupt; stopping the job"
        );
        assert!(ended.stderr.contains(&said), "{store}: {}", ended.stderr);
        assert_eq!(first_failure(&ended.stderr).map(|f| f.rank), Some(1));
    }
}

#[test]
fn a_rank_killed_mid_step_stops_the_job_naming_it() {
    for store in ["dist_sync", "dist_async"] {
        let ended = stops("kill", store);
        let failure =
            (first_failure(&ended.stderr)).unwrap_or_else(|| panic!("{store}: {}", ended.stderr));
        assert_eq!(
            failure.to_string(),
            "rank 1 was killed by signal 9 (Killed)",
            "{store}"
        );
    }
}

#[test]
fn a_rank_leaving_early_stops_the_job_naming_it() {
    let ended = stops("early", "dist_sync");
    // The ranks still training see rank 1 finish while they wait for it.
    assert!(
        ended.stderr.contains("stopping: rank 1 finished after"),
        "{}",
        ended.stderr
    );
}

#[test]
fn ranks_with_different_batch_counts_finish_with_the_same_weights() {
    // Asynchronous workers wait for no one: they finish, each with its own weights.
    let ended = job("uneven", "dist_async", None);
    assert!(ended.status.success(), "dist_async: {}", ended.stderr);
    let dir = std::env::temp_dir().join(format!("kiln-dist-uneven-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ended = job("uneven", "dist_sync", Some(&dir));
    assert!(ended.status.success(), "{}", ended.stderr);
    let load = |rank: usize| {
        let mut arrays = NDArray::load(dir.join(format!("rank{rank}.params"))).unwrap();
        arrays.sort_by(|a, b| a.0.cmp(&b.0));
        (arrays.into_iter())
            .map(|(name, a)| (name, a.to_vec::<f32>().unwrap()))
            .collect::<Vec<_>>()
    };
    let first = load(0);
    for rank in 1..RANKS {
        assert!(
            load(rank) == first,
            "rank {rank}'s weights differ from rank 0's"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
