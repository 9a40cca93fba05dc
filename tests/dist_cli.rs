//! `kiln launch` and `kiln train --kvstore dist_sync|dist_async` end to end: two ranks
//! train the MLP of tests/fixtures/train/module on their halves of the data (with
//! dist_async, through a server rank), each line of output prefixed by its rank, rank 0
//! writing the checkpoints; a failing rank's status and name come back; unknown store
//! types and what a store cannot do are refused by name.

use kiln::runtime::NDArray;
use std::process::{Command, Output};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/train/module");
const KILN: &str = env!("CARGO_BIN_EXE_kiln");

fn launch(ranks: &str, command: &[&str]) -> Output {
    launch_with_servers(ranks, "0", command)
}

fn launch_with_servers(ranks: &str, servers: &str, command: &[&str]) -> Output {
    Command::new(KILN)
        .args(["launch", "-n", ranks, "--servers", servers, "--"])
        .args(command)
        .output()
        .unwrap()
}

fn train_args(prefix: &str, kvstore: &str) -> Vec<String> {
    let fixture = |name: &str| format!("{FIXTURES}/{name}");
    [
        KILN,
        "train",
        &fixture("mlp-symbol.json"),
        "--data",
        &fixture("data.npy"),
        "--label",
        &fixture("label.npy"),
        "--arg-params",
        &fixture("init.params"),
        "--batch-size",
        "4",
        "--epochs",
        "2",
        "--kvstore",
        kvstore,
        "--save-prefix",
        prefix,
        "--optimizer-param",
        "learning_rate=0.1",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn two_ranks_train_with_dist_sync_and_rank_0_saves() {
    for compression in [None, Some("2bit")] {
        two_ranks_train("dist_sync", "0", compression);
    }
}

#[test]
fn two_ranks_train_with_dist_async_through_a_server() {
    two_ranks_train("dist_async", "1", None);
}

fn two_ranks_train(kvstore: &str, servers: &str, compression: Option<&str>) {
    let dir = std::env::temp_dir().join(format!("kiln-dist-cli-{kvstore}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("mlp");
    let mut args = train_args(prefix.to_str().unwrap(), kvstore);
    if let Some(kind) = compression {
        args.extend(["--gc-type", kind, "--gc-threshold", "0.01"].map(String::from));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = launch_with_servers("2", servers, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for rank in [
        "[rank 0] Epoch[1] Train-accuracy=",
        "[rank 1] Epoch[1] Train-accuracy=",
    ] {
        assert!(stderr.contains(rank), "no `{rank}` in\n{stderr}");
    }
    assert_eq!(
        stderr.matches("Saved checkpoint to").count(),
        2,
        "rank 0 alone saves, once an epoch:\n{stderr}"
    );
    let saved = NDArray::load(format!("{}-0002.params", prefix.display())).unwrap();
    let initial = NDArray::load(format!("{FIXTURES}/init.params")).unwrap();
    assert_eq!(saved.len(), initial.len());
    for (name, value) in &saved {
        let (_, start) = (initial.iter())
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} is not a parameter"));
        assert_ne!(
            value.to_vec::<f32>().unwrap(),
            start.to_vec::<f32>().unwrap(),
            "{name} was not trained"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_rank_is_named_and_its_status_returned() {
    let start = std::time::Instant::now();
    let script = "if [ $OMPI_COMM_WORLD_RANK = 1 ]; then exit 3; fi; sleep 60";
    let out = launch("2", &["sh", "-c", script]);
    assert_eq!(out.status.code(), Some(3));
    assert!(start.elapsed().as_secs() < 30, "rank 0 was not stopped");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("kiln launch: rank 1 exited with status 3; the other ranks were stopped"),
        "{stderr}"
    );
}

/// The error `kiln train` prints, refusing `--kvstore kvstore` with `extra` flags.
fn refused(kvstore: &str, extra: &[&str]) -> String {
    let mut args = train_args("/nonexistent/never", kvstore);
    args.extend(extra.iter().map(|a| a.to_string()));
    let out = Command::new(KILN).args(&args[1..]).output().unwrap();
    assert!(!out.status.success(), "{kvstore} {extra:?} ran");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn store_types_and_compression_are_checked_by_name() {
    for (kvstore, extra, expected) in [
        (
            "dist_async",
            &[][..],
            "the asynchronous store needs server ranks; start the job with `kiln launch -n N --servers S`",
        ),
        (
            "dist_async",
            &["--save-optimizer-states"],
            "--save-optimizer-states: with --kvstore dist_async the optimizer's states are on the servers",
        ),
        ("mpi", &[], "unknown kvstore type `mpi`"),
        (
            "local",
            &["--gc-type", "2bit"],
            "--gc-type 2bit: gradients are compressed between the workers of a dist store",
        ),
        ("dist_sync", &["--gc-type", "3bit"], "unknown `type` '3bit'"),
    ] {
        let stderr = refused(kvstore, extra);
        assert!(stderr.contains(expected), "{kvstore} {extra:?}: {stderr}");
    }
}

#[test]
fn bench_dist_reports_traffic_overlap_and_the_model() {
    let traces = std::env::temp_dir().join(format!("kiln-bench-dist-{}", std::process::id()));
    let out = Command::new(KILN)
        .args(["bench", "dist", "--ranks", "1,2", "--runs", "2", "--json"])
        .arg("--profile")
        .arg(&traces)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = (stdout.lines())
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|row: &serde_json::Value| row["workload"] == "dist")
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    let two = &rows[1]["train"];
    let sent = two["bytes_per_step"].as_f64().unwrap();
    // LeNet's 431,080 f32 parameters: each of two ranks sends the half it does not sum,
    // then the half it summed.
    assert_eq!(sent, 431_080.0 * 4.0, "{two}");
    // Three buckets (the classifier's small arrays, fc1's weight alone, the convolutions'),
    // each a reduce-scatter and an all-gather.
    assert_eq!(two["collectives_per_step"].as_f64(), Some(6.0), "{two}");
    let overlap = two["overlap"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&overlap), "{two}");
    assert!(traces.join("train-2-ranks.json").exists());
    assert!(
        stdout.contains("ResNet-50") && stdout.contains("Inception-v3"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&traces).unwrap();
}
