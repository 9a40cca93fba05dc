//! The Executor against MXNet 1.9.1 (tests/fixtures/train, made by make_train_fixtures.py):
//! outputs, every parameter's gradient and the updated aux states of MLP, LeNet and a ResNet
//! basic block with BatchNorm in training mode; explicit head gradients and grad_req add;
//! ten SGD steps of LeNet; checkpoints both ways.

mod common;

use common::{compare, fixture, params};
use kiln::compiler::autodiff::GradReq;
use kiln::models::weights;
use kiln::ops::compare;
use kiln::runtime::{
    load_checkpoint, save_checkpoint, Backend, Device, Executor, GradReqs, NDArray,
};
use kiln::{Symbol, Tensor};
use std::collections::HashMap;

fn nd(t: &Tensor) -> NDArray {
    NDArray::from_tensor(t, Device::Cpu).unwrap()
}

fn symbol(net: &str) -> Symbol {
    Symbol::load(fixture(&format!("train/{net}-symbol.json"))).unwrap()
}

/// Binds `net` with the fixture's values: `arg:`/`aux:` from the file, weights the file
/// leaves out from the deterministic formula.
fn bind(sym: &Symbol, file: &kiln::compiler::ParamFile, reqs: GradReqs) -> Executor {
    let data = file.get("arg:data").expect("fixture has data");
    let shapes = sym.infer_shape(&[("data", &data.shape)]).unwrap();
    let value = |prefix: &str, name: &str, shape: &[usize]| {
        file.get(&format!("{prefix}:{name}"))
            .cloned()
            .unwrap_or_else(|| weights::parameter(name, shape))
    };
    let args: HashMap<String, NDArray> = sym
        .list_arguments()
        .into_iter()
        .zip(&shapes.arguments)
        .map(|(n, s)| (n.clone(), nd(&value("arg", &n, s))))
        .collect();
    let aux: HashMap<String, NDArray> = sym
        .list_auxiliary_states()
        .into_iter()
        .zip(&shapes.aux_states)
        .map(|(n, s)| (n.clone(), nd(&value("aux", &n, s))))
        .collect();
    let exe = Executor::simple_bind(sym, Device::Cpu, &[("data", &data.shape)], reqs).unwrap();
    exe.copy_params_from(&args, &aux, false).unwrap();
    exe
}

fn param_reqs(sym: &Symbol) -> GradReqs {
    GradReqs::Each(
        sym.list_arguments()
            .into_iter()
            .filter(|n| n != "data" && !n.ends_with("label"))
            .map(|n| (n, GradReq::Write))
            .collect(),
    )
}

fn check(what: &str, got: &NDArray, want: &Tensor, failures: &mut Vec<String>) {
    check_within(what, got, want, 1e-5, failures)
}

fn check_within(what: &str, got: &NDArray, want: &Tensor, rtol: f64, failures: &mut Vec<String>) {
    if let Some(msg) = compare(&got.to_tensor().unwrap(), want, rtol) {
        failures.push(format!("{what}: {msg}"));
    }
}

fn check_net(net: &str) {
    let sym = symbol(net);
    let file = params(&format!("train/{net}.params"));
    let exe = bind(&sym, &file, param_reqs(&sym));
    exe.forward(true);
    exe.backward(&[]).unwrap();
    let mut failures = Vec::new();
    check(
        "out:0",
        &exe.outputs()[0],
        file.get("out:0").unwrap(),
        &mut failures,
    );
    let (grads, aux) = (exe.grad_dict(), exe.aux_dict());
    let mut checked = 0;
    for (key, want) in file.named().unwrap() {
        if let Some(name) = key.strip_prefix("grad:") {
            check(key, &grads[name], want, &mut failures);
            checked += 1;
        } else if let Some(name) = key.strip_prefix("aux_after:") {
            check(key, &aux[name], want, &mut failures);
            checked += 1;
        }
    }
    assert!(checked > 0, "{net}: the fixture has gradients");
    assert!(failures.is_empty(), "{net}:\n{}", failures.join("\n"));
}

#[test]
fn mlp_matches_mxnet() {
    check_net("mlp");
}

#[test]
fn lenet_matches_mxnet() {
    check_net("lenet");
}

#[test]
fn resnet_block_with_batchnorm_in_training_matches_mxnet() {
    check_net("resblock");
}

#[test]
fn batchnorm_fix_gamma_and_global_stats_match_mxnet() {
    check_net("resblock_fixgamma");
}

#[test]
fn head_gradients_and_grad_req_add_match_mxnet() {
    let sym = symbol("heads");
    let file = params("train/heads.params");
    let heads: Vec<NDArray> = (0..2)
        .map(|i| nd(file.get(&format!("head:{i}")).unwrap()))
        .collect();
    let exe = bind(&sym, &file, param_reqs(&sym));
    exe.forward(true);
    exe.backward(&heads).unwrap();
    let mut failures = Vec::new();
    for name in ["fc_weight", "fc_bias"] {
        check(
            name,
            &exe.grad_dict()[name],
            file.get(&format!("grad:{name}")).unwrap(),
            &mut failures,
        );
    }
    let reqs = GradReqs::Each(HashMap::from([
        ("fc_weight".to_string(), GradReq::Add),
        ("fc_bias".to_string(), GradReq::Write),
    ]));
    let exe = bind(&sym, &file, reqs);
    for _ in 0..2 {
        exe.forward(true);
        exe.backward(&heads).unwrap();
    }
    for name in ["fc_weight", "fc_bias"] {
        check(
            name,
            &exe.grad_dict()[name],
            file.get(&format!("grad_add:{name}")).unwrap(),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Ten steps of plain SGD (lr 0.01) on LeNet: `forward; backward; w -= 0.01 * g`, pushed
/// asynchronously; the weights after step 10 match MXNet's element by element within
/// 1e-5 relative on the interpreter (which computes in f64). The JIT's f32 sums (gemm's
/// blocked order, not MXNet's) differ from the interpreter's by about 1e-6 per step, which
/// grows to 3e-5 by step seven; there a near-tie in max pooling resolves the other way
/// and routes one element's gradient elsewhere (conv1_weight's gradient jumps by 6e-2 of
/// its scale), so on the JIT each weight is compared by the norm of its difference.
#[test]
fn lenet_trains_like_mxnet() {
    lenet_steps(Backend::Interpreter, None);
    lenet_steps(Backend::Jit, Some(1e-3));
}

/// `||got − want|| / ||want||`, once the shapes are the same and no value is NaN or
/// infinite where MXNet's is finite (a NaN norm would pass any bound).
fn relative_norm(got: &Tensor, want: &Tensor) -> Result<f64, compare::Mismatch> {
    compare::same_shape(&got.shape, &want.shape)?;
    compare::within(&got.data, &want.data, |_| f64::INFINITY)?;
    let diff: f64 = got
        .data
        .iter()
        .zip(&want.data)
        .map(|(a, b)| (a - b).powi(2))
        .sum();
    let norm: f64 = want.data.iter().map(|b| b * b).sum();
    Ok((diff / norm.max(1e-30)).sqrt())
}

/// With `norm`, each weight within that relative norm of MXNet's; else element by element
/// within 1e-5.
fn lenet_steps(backend: Backend, norm: Option<f64>) {
    let sym = symbol("lenet");
    let file = params("train/lenet_sgd.params");
    let exe = bind(&sym, &file, param_reqs(&sym)).rebind(backend).unwrap();
    let grads = exe.grad_dict();
    let mut weights: Vec<(String, NDArray)> = exe
        .arg_dict()
        .into_iter()
        .filter(|(n, _)| grads.contains_key(n))
        .collect();
    for step in 1..=10 {
        exe.forward(true);
        if step == 1 {
            let mut failures = Vec::new();
            check(
                "out1:0",
                &exe.outputs()[0],
                file.get("out1:0").unwrap(),
                &mut failures,
            );
            assert!(failures.is_empty(), "{failures:?}");
        }
        exe.backward(&[]).unwrap();
        for (name, w) in &mut weights {
            *w -= &(&grads[name.as_str()] * 0.01);
        }
    }
    let mut failures = Vec::new();
    for (name, w) in &weights {
        let want = file.get(&format!("step10:{name}")).unwrap();
        match norm {
            None => check(name, w, want, &mut failures),
            Some(bound) => match relative_norm(&w.to_tensor().unwrap(), want) {
                Ok(r) => {
                    println!("{backend:?} {name}: |w - mxnet| / |mxnet| = {r:.1e}");
                    if r > bound {
                        failures.push(format!("{name}: relative norm {r:.1e} > {bound:.0e}"));
                    }
                }
                Err(e) => failures.push(format!("{name}: {e}")),
            },
        }
    }
    assert!(failures.is_empty(), "{backend:?}:\n{}", failures.join("\n"));
}

#[test]
fn loads_an_mxnet_checkpoint() {
    let prefix = fixture("train/ckpt/mxnet_resblock");
    let (sym, args, aux) = load_checkpoint(prefix.to_str().unwrap(), 3).unwrap();
    let expected = params("train/ckpt/mxnet_resblock-expected.params");
    let data = expected.get("data").unwrap();
    let exe = Executor::simple_bind(
        &sym,
        Device::Cpu,
        &[("data", &data.shape)],
        GradReqs::All(GradReq::Null),
    )
    .unwrap();
    exe.copy_params_from(&args, &aux, false).unwrap();
    exe.forward_with(false, &[("data", &nd(data))]).unwrap();
    let mut failures = Vec::new();
    check(
        "out:0",
        &exe.outputs()[0],
        expected.get("out:0").unwrap(),
        &mut failures,
    );
    assert!(failures.is_empty(), "{failures:?}");
}

/// kiln's checkpoint of the same block, checked once in MXNet by check_kiln_checkpoint.py;
/// the bytes must not drift (`KILN_UPDATE_FIXTURES=1` rewrites them, then rerun the script).
#[test]
fn writes_a_checkpoint_mxnet_loads() {
    let (sym, args, aux) =
        load_checkpoint(fixture("train/ckpt/mxnet_resblock").to_str().unwrap(), 3).unwrap();
    let dir = std::env::temp_dir().join(format!("kiln-ckpt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("kiln_resblock");
    save_checkpoint(prefix.to_str().unwrap(), 3, &sym, &args, &aux).unwrap();
    // Round trip.
    let (back, args2, aux2) = load_checkpoint(prefix.to_str().unwrap(), 3).unwrap();
    assert_eq!(back.to_json().unwrap(), sym.to_json().unwrap());
    for (name, a) in &args {
        assert_eq!(
            args2[name].to_vec::<f32>().unwrap(),
            a.to_vec::<f32>().unwrap()
        );
    }
    assert_eq!(aux2.len(), aux.len());
    // The inference output the MXNet script compares against, from the interpreter (the
    // committed bytes are its).
    let expected = params("train/ckpt/mxnet_resblock-expected.params");
    let data = expected.get("data").unwrap();
    let exe = Executor::simple_bind(
        &sym,
        Device::Cpu,
        &[("data", &data.shape)],
        GradReqs::All(GradReq::Null),
    )
    .unwrap()
    .rebind(Backend::Interpreter)
    .unwrap();
    exe.copy_params_from(&args, &aux, false).unwrap();
    exe.forward_with(false, &[("data", &nd(data))]).unwrap();
    let out = exe.outputs()[0].clone();
    NDArray::save(
        dir.join("kiln_resblock-expected.params"),
        &[("data", &nd(data)), ("out:0", &out)],
    )
    .unwrap();
    let committed = fixture("train/ckpt");
    for file in [
        "kiln_resblock-symbol.json",
        "kiln_resblock-0003.params",
        "kiln_resblock-expected.params",
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        if std::env::var_os("KILN_UPDATE_FIXTURES").is_some() {
            std::fs::write(committed.join(file), &bytes).unwrap();
        } else {
            let want =
                std::fs::read(committed.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(
                want == bytes,
                "{file} differs from the checkpoint MXNet accepted"
            );
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
