//! Module.fit against MXNet 1.9.1 end to end (tests/fixtures/train/module/, made by
//! make_module_fixtures.py): an MLP trained 2 epochs with SGD (momentum, wd) over an
//! NDArrayIter with a padded last batch, from given parameters, on one context and on two
//! through a `local` store — the parameters after each epoch, the training accuracy, the
//! score and the predictions.

use kiln_compiler::builders as sym;
use kiln_compiler::Symbol;
use kiln_io::{LastBatch, NDArrayIter};
use kiln_ops::compare::close_to_scale;
use kiln_runtime::{Device, NDArray};
use kiln_train::metric;
use kiln_train::module::{Fit, OptimizerChoice};
use kiln_train::Module;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/train/module"
);

fn params(file: &str) -> HashMap<String, NDArray> {
    (NDArray::load(format!("{DIR}/{file}")).unwrap().into_iter())
        .map(|(k, v)| (k.strip_prefix("arg:").unwrap().to_string(), v))
        .collect()
}

fn values(a: &NDArray) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn iterator() -> NDArrayIter {
    let data = NDArray::load_npy(format!("{DIR}/data.npy")).unwrap();
    let label = NDArray::load_npy(format!("{DIR}/label.npy")).unwrap();
    NDArrayIter::new(
        vec![("data".into(), data)],
        vec![("softmax_label".into(), label)],
        4,
    )
    .unwrap()
}

fn assert_params(got: &HashMap<String, NDArray>, want: &HashMap<String, NDArray>, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (name, w) in want {
        let worst = close_to_scale(&values(&got[name]), &values(w), 1e-5)
            .unwrap_or_else(|e| panic!("{what}: `{name}`: {e}"));
        assert!(worst <= 1e-5, "{what}: `{name}` {worst}");
    }
}

#[test]
fn fit_score_and_predict_equal_mxnets_on_one_and_two_contexts() {
    let symbol = Symbol::load(format!("{DIR}/mlp-symbol.json")).unwrap();
    for contexts in [1, 2] {
        let what = format!("{contexts} context(s)");
        let devices = vec![Device::Cpu; contexts];
        let mut module = Module::new(&symbol, &["data"], &["softmax_label"], &devices).unwrap();
        let mut train = iterator();
        let epochs = Arc::new(Mutex::new(Vec::new()));
        let seen = epochs.clone();
        let mut fit = Fit::new(2);
        fit.optimizer = OptimizerChoice::Named(
            "sgd".into(),
            [
                ("learning_rate", "0.1"),
                ("momentum", "0.9"),
                ("wd", "0.001"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .to_vec(),
        );
        fit.arg_params = Some(params("init.params"));
        fit.epoch_end_callback.push(Box::new(move |end| {
            let copy = (end.arg_params.iter())
                .map(|(k, v)| (k.clone(), v.copy_to(Device::Cpu).unwrap()))
                .collect::<HashMap<_, _>>();
            seen.lock().unwrap().push((copy, end.train[0].1));
            Ok(())
        }));
        module.fit(&mut train, fit).unwrap();
        let expected: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(format!("{DIR}/{contexts}-train.json")).unwrap(),
        )
        .unwrap();
        let epochs = epochs.lock().unwrap();
        assert_eq!(epochs.len(), 2, "{what}");
        for (e, (params_after, accuracy)) in epochs.iter().enumerate() {
            let want = params(&format!("{contexts}-epoch{}.params", e + 1));
            assert_params(params_after, &want, &format!("{what}, epoch {}", e + 1));
            let want = expected["train_accuracy"][e].as_f64().unwrap();
            assert!(
                (accuracy - want).abs() < 1e-9,
                "{what}: accuracy {accuracy} vs {want}"
            );
        }
        let mut scoring = metric::create("acc,ce").unwrap();
        let score = module
            .score(&mut train, scoring.as_mut(), None, true)
            .unwrap();
        let score: HashMap<String, f64> = score.into_iter().collect();
        for (name, want) in expected["score"].as_object().unwrap() {
            let want = want.as_f64().unwrap();
            let got = score[name];
            assert!(
                (got - want).abs() <= 1e-5 * want.abs(),
                "{what}: {name} {got} vs {want}"
            );
        }
        let predicted = module.predict(&mut train, None, true).unwrap();
        let want = NDArray::load_npy(format!("{DIR}/{contexts}-predict.npy")).unwrap();
        assert_eq!(
            predicted[0].shape(),
            want.shape(),
            "{what}: pad rows dropped"
        );
        close_to_scale(&values(&predicted[0]), &values(&want), 1e-5)
            .unwrap_or_else(|e| panic!("{what}: predictions: {e}"));
        // An iterator without labels predicts the same (labels are not copied).
        let data = NDArray::load_npy(format!("{DIR}/data.npy")).unwrap();
        let mut unlabelled = NDArrayIter::new(vec![("data".into(), data)], vec![], 4).unwrap();
        let again = module.predict(&mut unlabelled, None, true).unwrap();
        assert_eq!(
            values(&again[0]),
            values(&predicted[0]),
            "{what}: without labels"
        );
    }
}

/// How a run starts: from the initial parameters, or from checkpoint `begin` of its prefix
/// with or without the optimizer's states.
#[derive(PartialEq)]
enum Start {
    Fresh,
    Resume { states: bool },
}

/// The fixture's MLP with Dropout after its hidden layer: random streams to resume.
fn dropout_mlp() -> Symbol {
    let data = Symbol::var("data");
    let fc1 = sym::fully_connected()
        .data(&data)
        .num_hidden(16)
        .name("fc1")
        .build()
        .unwrap();
    let relu = sym::activation()
        .data(&fc1)
        .act_type("relu")
        .build()
        .unwrap();
    let dropped = sym::dropout().data(&relu).p(0.5).build().unwrap();
    let fc2 = sym::fully_connected()
        .data(&dropped)
        .num_hidden(3)
        .name("fc2")
        .build()
        .unwrap();
    sym::softmax_output()
        .data(&fc2)
        .name("softmax")
        .build()
        .unwrap()
}

/// Parameters after `fit` of `net` for epochs `begin..end` (22 rows in batches of 4, the
/// last one rolled over to the next epoch); a checkpoint with the optimizer's states is
/// saved after each epoch.
fn train(
    net: &Symbol,
    begin: usize,
    end: usize,
    prefix: &str,
    start: Start,
) -> HashMap<String, Vec<f32>> {
    let (mut module, args) = match start {
        Start::Resume { states } => {
            let (m, args, _) = Module::load(
                prefix,
                begin,
                states,
                &["data"],
                &["softmax_label"],
                &[Device::Cpu],
            )
            .unwrap();
            (m, args)
        }
        Start::Fresh => {
            let m = Module::new(net, &["data"], &["softmax_label"], &[Device::Cpu]).unwrap();
            (m, params("init.params"))
        }
    };
    let mut fit = Fit::new(end);
    fit.begin_epoch = begin;
    fit.optimizer = OptimizerChoice::Named(
        "sgd".into(),
        [
            ("learning_rate", "0.1"),
            ("momentum", "0.9"),
            ("lr_scheduler", "factor(step=7,factor=0.5)"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .to_vec(),
    );
    fit.arg_params = Some(args);
    let prefix_owned = prefix.to_string();
    let save = start != Start::Resume { states: false };
    fit.epoch_end_callback.push(Box::new(move |end| match save {
        true => end
            .module
            .save_checkpoint(&prefix_owned, end.epoch + 1, true),
        false => Ok(()),
    }));
    let mut data = (iterator().with_last_batch(LastBatch::RollOver)).with_epoch(begin as u64);
    module.fit(&mut data, fit).unwrap();
    let (args, _) = module.get_params().unwrap();
    args.iter().map(|(k, v)| (k.clone(), values(v))).collect()
}

#[test]
fn a_run_resumed_from_a_checkpoint_ends_bit_for_bit_where_an_uninterrupted_one_does() {
    let dir = std::env::temp_dir().join(format!("kiln-resume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let same = |a: &HashMap<String, Vec<f32>>, b: &HashMap<String, Vec<f32>>| {
        a.iter().all(|(name, x)| {
            let y = &b[name];
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        })
    };
    let mlp = Symbol::load(format!("{DIR}/mlp-symbol.json")).unwrap();
    let (whole, part) = (dir.join("whole"), dir.join("part"));
    let (whole, part) = (whole.to_str().unwrap(), part.to_str().unwrap());
    for (what, net) in [("mlp", &mlp), ("mlp with dropout", &dropout_mlp())] {
        let uninterrupted = train(net, 0, 3, whole, Start::Fresh);
        train(net, 0, 1, part, Start::Fresh);
        let resumed = train(net, 1, 3, part, Start::Resume { states: true });
        assert!(
            same(&uninterrupted, &resumed),
            "{what}: a resumed run differs"
        );
        // Without the optimizer's states (momentum, the schedule's count) it would differ.
        let forgetful = train(net, 1, 3, part, Start::Resume { states: false });
        assert!(
            !same(&uninterrupted, &forgetful),
            "{what}: states made no difference"
        );
    }
    std::fs::remove_file(kiln_train::module::states_path(part, 1)).unwrap();
    let err = Module::load(part, 1, true, &["data"], &["softmax_label"], &[Device::Cpu]).err();
    let message = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("no optimizer states saved"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_optimizer_runs_in_the_store_as_its_updater() {
    use kiln_kvstore::KVStore;
    use kiln_train::Optimizer;
    let mut kv = KVStore::create("local").unwrap();
    let sgd = Optimizer::create("sgd", &[("learning_rate", "0.5")]).unwrap();
    kv.set_updater(Box::new(sgd)).unwrap();
    let array = |v: &[f32]| NDArray::from_slice(v, &[2]).unwrap();
    kv.init(0, &array(&[1.0, 2.0])).unwrap();
    kv.push(0, &[array(&[0.25, 0.5]), array(&[0.75, 1.5])], 0)
        .unwrap();
    let out = array(&[0.0, 0.0]);
    kv.pull(0, std::slice::from_ref(&out), 0).unwrap();
    // w - lr * (g1 + g2), the store's sum handed to SGD.
    assert_eq!(values(&out), [1.0 - 0.5 * 1.0, 2.0 - 0.5 * 2.0]);
    let mut by_name = KVStore::create("local").unwrap();
    by_name
        .set_updater(Box::new(Optimizer::create("sgd", &[]).unwrap()))
        .unwrap();
    by_name.init("w", &array(&[1.0, 2.0])).unwrap();
    let err = by_name
        .push("w", &[array(&[1.0, 1.0])], 0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not an update index"), "{err}");
}

#[test]
fn aggregated_updates_equal_updates_one_by_one() {
    use kiln_train::Optimizer;
    let kwargs = [
        ("learning_rate", "0.1"),
        ("momentum", "0.9"),
        ("wd", "0.01"),
    ];
    let run = |aggregate: usize| {
        let mut opt = Optimizer::create("sgd", &kwargs).unwrap();
        opt.set_aggregate_num(aggregate);
        let arrays: Vec<(NDArray, NDArray)> = (0..5)
            .map(|i| {
                let w: Vec<f32> = (0..6).map(|j| (i * 6 + j) as f32 * 0.1).collect();
                let g: Vec<f32> = (0..6).map(|j| ((i + j) % 3) as f32 - 1.0).collect();
                (
                    NDArray::from_slice(&w, &[6]).unwrap(),
                    NDArray::from_slice(&g, &[6]).unwrap(),
                )
            })
            .collect();
        let params: Vec<(usize, &NDArray, &NDArray)> = arrays
            .iter()
            .enumerate()
            .map(|(i, (w, g))| (i, w, g))
            .collect();
        for _ in 0..3 {
            opt.update_multi(&params).unwrap();
        }
        arrays.iter().map(|(w, _)| values(w)).collect::<Vec<_>>()
    };
    assert_eq!(run(4), run(1));
}
