//! `kiln train` and `kiln init` end to end: the MLP of tests/fixtures/train/module trained
//! from the command line gives MXNet's Module.fit parameters after each epoch (one and two
//! contexts), resumes from its checkpoints, and refuses bad input before training, leaving
//! what was saved untouched.

use kiln::runtime::NDArray;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/train/module");

fn kiln<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(args)
        .output()
        .unwrap()
}

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kiln-train-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `arg:` parameters of a .params file, as values.
fn params(path: &Path) -> HashMap<String, Vec<f32>> {
    (NDArray::load(path).unwrap().into_iter())
        .filter_map(|(k, v)| {
            Some((
                k.strip_prefix("arg:")?.to_string(),
                v.to_vec::<f32>().unwrap(),
            ))
        })
        .collect()
}

/// The MLP's training command with MXNet's fixture settings up to epoch `epochs`, and
/// `extra` (whose flags replace the settings' of the same name).
fn train(prefix: &Path, epochs: &str, extra: &[&str]) -> Output {
    kiln(&train_args(
        &fixture("mlp-symbol.json"),
        prefix,
        epochs,
        extra,
    ))
}

/// The arguments of `train`'s command for the network `symbol`.
fn train_args(symbol: &str, prefix: &Path, epochs: &str, extra: &[&str]) -> Vec<String> {
    let settings = [
        ("--data", fixture("data.npy")),
        ("--label", fixture("label.npy")),
        ("--arg-params", fixture("init.params")),
        ("--batch-size", "4".into()),
        ("--epochs", epochs.into()),
        ("--save-prefix", prefix.to_str().unwrap().into()),
    ];
    let mut args = vec!["train", symbol, "--save-optimizer-states"];
    for (flag, value) in &settings {
        if !extra.contains(flag) {
            args.extend([*flag, value.as_str()]);
        }
    }
    for param in ["learning_rate=0.1", "momentum=0.9", "wd=0.001"] {
        args.extend(["--optimizer-param", param]);
    }
    args.extend_from_slice(extra);
    args.into_iter().map(String::from).collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_close(got: &HashMap<String, Vec<f32>>, want: &HashMap<String, Vec<f32>>, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (name, w) in want {
        kiln::ops::compare::close_to_scale(&got[name], w, 1e-5)
            .unwrap_or_else(|e| panic!("{what}: `{name}`: {e}"));
    }
}

#[test]
fn trains_as_mxnets_module_fit_on_one_and_two_contexts() {
    for (contexts, flag) in [(1, "cpu(0)"), (2, "cpu(0),cpu(1)")] {
        let dir = scratch(&format!("fit{contexts}"));
        let out = train(&dir.join("mlp"), "2", &["--contexts", flag]);
        assert!(out.status.success(), "{}", stderr(&out));
        let log = stderr(&out);
        assert!(log.contains("Epoch[0] Train-accuracy=0.375000"), "{log}");
        assert!(log.contains("Epoch[1] Train-accuracy=0.458333"), "{log}");
        for epoch in [1, 2] {
            let got = params(&dir.join(format!("mlp-{epoch:04}.params")));
            let want = params(Path::new(&fixture(&format!(
                "{contexts}-epoch{epoch}.params"
            ))));
            assert_close(
                &got,
                &want,
                &format!("{contexts} context(s), epoch {epoch}"),
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn resumes_from_the_newest_checkpoint_bit_for_bit() {
    let dir = scratch("resume");
    let whole = train(&dir.join("whole"), "2", &[]);
    assert!(whole.status.success(), "{}", stderr(&whole));
    let first = train(&dir.join("part"), "1", &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let resumed = train(&dir.join("part"), "2", &["--resume"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(
        !stderr(&resumed).contains("Epoch[0]"),
        "epoch 0 ran again: {}",
        stderr(&resumed)
    );
    let a = std::fs::read(dir.join("whole-0002.params")).unwrap();
    let b = std::fs::read(dir.join("part-0002.params")).unwrap();
    assert!(
        a == b,
        "the resumed run's parameters differ from the uninterrupted run's"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_before_training_and_saves_nothing() {
    let dir = scratch("bad");
    let prefix = dir.join("mlp");
    let ok = train(&prefix, "1", &[]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    let saved = std::fs::read(dir.join("mlp-0001.params")).unwrap();
    let (data, predictions) = (fixture("data.npy"), fixture("1-predict.npy"));
    let lenet = fixture("../lenet.params");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--optimizer", "sgdx"], "sgdx"),
        (vec!["--optimizer-param", "momentun=0.9"], "momentun"),
        (
            vec!["--optimizer-param", "learning_rate=fast"],
            "learning_rate",
        ),
        (vec!["--initializer", "xavier(magnitud=2)"], "magnitud"),
        (vec!["--metric", "accuracyy"], "accuracyy"),
        (vec!["--label", &data], "softmax_label"),
        (vec!["--arg-params", &predictions], "--arg-params"),
        (
            vec!["--arg-params", &lenet],
            "is not a parameter of the network",
        ),
        (
            vec!["--eval-label", &data],
            "--eval-label needs --eval-data",
        ),
        (
            vec!["--eval-data", &data],
            "give the validation ones with --eval-label",
        ),
        (vec!["--kvstore", "bogus"], "unknown kvstore type `bogus`"),
        (vec!["--contexts", "gpu(0)"], "GPU"),
        (vec!["--last-batch", "wrap"], "last_batch_handle `wrap`"),
    ];
    for (extra, named) in cases {
        let out = train(&prefix, "1", &extra);
        let message = stderr(&out);
        assert!(!out.status.success(), "{extra:?} was accepted");
        assert!(
            message.contains(named),
            "{extra:?}: {message:?} does not name {named:?}"
        );
        assert!(!message.contains("panicked"), "{extra:?}: {message}");
        assert_eq!(
            std::fs::read(dir.join("mlp-0001.params")).unwrap(),
            saved,
            "{extra:?} overwrote a checkpoint"
        );
    }
    // A checkpoint of another network under the prefix: refused, nothing saved.
    std::fs::copy(fixture("../lenet-symbol.json"), dir.join("mlp-symbol.json")).unwrap();
    let out = train(&prefix, "2", &["--begin-epoch", "1"]);
    let message = stderr(&out);
    assert!(
        !out.status.success(),
        "another network's checkpoint was accepted"
    );
    assert!(message.contains("another network"), "{message}");
    assert!(
        !dir.join("mlp-0002.params").exists(),
        "a failed run saved a checkpoint"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn init_writes_parameters_by_mxnets_dispatch_that_train_reads() {
    let dir = scratch("init");
    let out_path = dir.join("init.params");
    let symbol = fixture("mlp-symbol.json");
    let out = kiln(&[
        "init",
        &symbol,
        "--shape",
        "data=4,10",
        "--shape",
        "softmax_label=4",
        "--initializer",
        "xavier(rnd_type=gaussian,factor_type=in,magnitude=2)",
        "--seed",
        "3",
        "--output",
        out_path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let p = params(&out_path);
    assert_eq!(p.len(), 4, "{:?}", p.keys());
    assert!(
        p["fc1_bias"]
            .iter()
            .chain(&p["fc2_bias"])
            .all(|&b| b == 0.0),
        "biases start at 0"
    );
    // Xavier, gaussian, fan in 10, magnitude 2: sigma = sqrt(2 / 10); 160 draws.
    let w = &p["fc1_weight"];
    let var = w.iter().map(|&x| (x as f64).powi(2)).sum::<f64>() / w.len() as f64;
    let sigma = (2.0f64 / 10.0).sqrt();
    assert!(
        (var.sqrt() / sigma - 1.0).abs() < 0.25,
        "std {} vs {sigma}",
        var.sqrt()
    );
    let trained = train(
        &dir.join("mlp"),
        "1",
        &["--arg-params", out_path.to_str().unwrap()],
    );
    assert!(trained.status.success(), "{}", stderr(&trained));
    for (extra, named) in [
        (["--shape", "date=4,10"], "no argument `date`"),
        (["--initializer", "xavier(rnd=1)"], "rnd"),
    ] {
        let mut args = vec![
            "init",
            symbol.as_str(),
            "--output",
            out_path.to_str().unwrap(),
        ];
        if extra[0] != "--shape" {
            args.extend(["--shape", "data=4,10"]);
        }
        args.extend(extra);
        let out = kiln(&args);
        assert!(
            !out.status.success() && stderr(&out).contains(named),
            "{extra:?}: {}",
            stderr(&out)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The fixture's MLP with Dropout after its hidden layer (random streams to resume).
const DROPOUT_MLP: &str = r#"{
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "fc1_weight", "inputs": []},
    {"op": "null", "name": "fc1_bias", "inputs": []},
    {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "16"},
     "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"}, "inputs": [[3, 0, 0]]},
    {"op": "Dropout", "name": "drop1", "attrs": {"p": "0.5"}, "inputs": [[4, 0, 0]]},
    {"op": "null", "name": "fc2_weight", "inputs": []},
    {"op": "null", "name": "fc2_bias", "inputs": []},
    {"op": "FullyConnected", "name": "fc2", "attrs": {"num_hidden": "3"},
     "inputs": [[5, 0, 0], [6, 0, 0], [7, 0, 0]]},
    {"op": "null", "name": "softmax_label", "inputs": []},
    {"op": "SoftmaxOutput", "name": "softmax", "inputs": [[8, 0, 0], [9, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2, 6, 7, 9],
  "heads": [[10, 0, 0]]
}"#;

#[test]
fn killed_at_random_points_and_resumed_it_ends_with_the_uninterrupted_weights() {
    let dir = scratch("kill");
    let symbol = dir.join("dropout-mlp-symbol.json");
    std::fs::write(&symbol, DROPOUT_MLP).unwrap();
    let symbol = symbol.to_str().unwrap();
    let epochs = "6";
    // Shuffled, the short last batch rolled over into the next epoch, Dropout masks and
    // a schedule: each is state a resumed run must restore.
    let extra = [
        "--shuffle",
        "--seed",
        "5",
        "--last-batch",
        "roll_over",
        "--optimizer-param",
        "lr_scheduler=factor(step=9,factor=0.5)",
    ];
    let whole = kiln(&train_args(symbol, &dir.join("whole"), epochs, &extra));
    assert!(whole.status.success(), "{}", stderr(&whole));
    let last = dir.join(format!("killed-{:04}.params", 6));
    let mut resume = extra.to_vec();
    resume.push("--resume");
    let args = train_args(symbol, &dir.join("killed"), epochs, &resume);
    // splitmix64 for the kill times: reproducible, spread over a run's length.
    let mut state = 0x5eed_u64;
    let (mut kills, mut runs) = (0, 0);
    while !last.exists() {
        runs += 1;
        assert!(runs < 60, "no progress after {runs} runs");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(&args)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let delay = (z ^ (z >> 31)) % 120;
        std::thread::sleep(std::time::Duration::from_millis(delay));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        child.wait().unwrap();
    }
    assert!(
        kills > 0,
        "no run was killed: the delays are too long for this machine"
    );
    let a = std::fs::read(dir.join("whole-0006.params")).unwrap();
    let b = std::fs::read(&last).unwrap();
    assert!(
        a == b,
        "after {kills} kills in {runs} runs the weights differ from an uninterrupted run's"
    );
    let leftovers: Vec<_> = (std::fs::read_dir(&dir).unwrap())
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| !n.starts_with("whole-") && !n.starts_with("killed-"))
        .collect();
    eprintln!("{kills} kills in {runs} runs; other files: {leftovers:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_draws_the_curves_into_a_png_after_every_epoch() {
    let dir = scratch("plot");
    let plot = dir.join("curves.png");
    let plot_arg = plot.to_str().unwrap();
    let data = fixture("data.npy");
    let label = fixture("label.npy");
    let extra = [
        "--plot",
        plot_arg,
        "--metric",
        "acc,ce",
        "--eval-data",
        &data,
        "--eval-label",
        &label,
    ];
    let out = train(&dir.join("mlp"), "3", &extra);
    assert!(out.status.success(), "{}", stderr(&out));
    let image = image::open(&plot).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), (800, 500));
    // Four curves in four colours of the palette, the axes and labels in black.
    let mut colours: Vec<[u8; 3]> = image.pixels().map(|p| p.0).collect();
    colours.sort();
    colours.dedup();
    assert!(
        colours.len() > 8,
        "{} colours: nothing drawn?",
        colours.len()
    );
    let bad = train(
        &dir.join("other"),
        "1",
        &["--plot", "/no/such/folder/curves.png"],
    );
    assert!(
        !bad.status.success() && stderr(&bad).contains("--plot"),
        "{}",
        stderr(&bad)
    );
    assert!(
        !dir.join("other-0001.params").exists(),
        "trained although --plot cannot be written"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Images from a RecordIO file (ImageRecordIter: shuffled, randomly cropped and mirrored,
/// the last batch wrapping into the next epoch) train, and a run resumed from a checkpoint
/// ends with an uninterrupted run's weights.
#[test]
fn trains_on_image_records_and_resumes_bit_for_bit() {
    let dir = scratch("records");
    let rec = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data/images/images.rec");
    let run = |prefix: &str, epochs: &str, extra: &[&str]| {
        let prefix = dir.join(prefix);
        let mut args = vec![
            "train",
            "mlp",
            "--data",
            rec.to_str().unwrap(),
            "--image-shape",
            "3,16,16",
            "--iter-param",
            "resize=20",
            "--iter-param",
            "rand_crop=True",
            "--iter-param",
            "rand_mirror=True",
            "--shuffle",
            "--seed",
            "4",
            "--batch-size",
            "5",
            "--epochs",
            epochs,
            "--save-prefix",
            prefix.to_str().unwrap(),
            "--save-optimizer-states",
            "--optimizer-param",
            "learning_rate=0.05",
            "--optimizer-param",
            "momentum=0.9",
        ];
        args.extend_from_slice(extra);
        let out = kiln(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        out
    };
    let whole = run("whole", "3", &[]);
    assert!(
        stderr(&whole).contains("Epoch[2] Train-accuracy="),
        "{}",
        stderr(&whole)
    );
    run("part", "1", &[]);
    run("part", "3", &["--resume"]);
    assert!(
        std::fs::read(dir.join("whole-0003.params")).unwrap()
            == std::fs::read(dir.join("part-0003.params")).unwrap(),
        "a resumed run over images differs"
    );
    let refused = kiln(&[
        "train",
        "mlp",
        "--data",
        rec.to_str().unwrap(),
        "--batch-size",
        "4",
        "--epochs",
        "1",
    ]);
    assert!(
        stderr(&refused).contains("images need --image-shape C,H,W"),
        "{}",
        stderr(&refused)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
