//! The GPU executor against the reference interpreter, on the emulated device (every
//! launch in the SIMT emulator with the geometry and arguments the CUDA path passes,
//! every product through cuBLAS's conventions, every access checked against the streams'
//! order) or, with `KILN_TEST_DEVICE=cuda`, on GPU 0 (`scripts/gpu-check.sh`).

use kiln_compiler::autodiff::{differentiate, GradReq, TrainingGraph};
use kiln_compiler::program::Mode;
use kiln_compiler::{interpret, RunOptions, Symbol};
use kiln_cuda::emulated::Emulated;
use kiln_cuda::executor::GpuExecutor;
use kiln_cuda::pool::Pool;
use kiln_cuda::Gpu;
use kiln_ops::compare::max_rel_diff;
use kiln_ops::{DType, Tensor};

/// The device the tests run on, and the largest relative difference they accept from
/// the interpreter (the emulator accumulates in f64; cuBLAS and CUDA's math library in
/// f32, in other orders).
fn device() -> (Arc<dyn Gpu>, f64) {
    match std::env::var("KILN_TEST_DEVICE").as_deref() {
        #[cfg(feature = "driver")]
        Ok("cuda") => {
            let cache = std::env::temp_dir().join("kiln-gpu-tests");
            let gpu = kiln_cuda::driver::CudaGpu::new(0, Some(cache)).unwrap();
            (Arc::new(gpu), 1e-4)
        }
        Ok("emulated") | Err(std::env::VarError::NotPresent) => {
            (Arc::new(Emulated::new(1 << 30)), 1e-5)
        }
        other => panic!("KILN_TEST_DEVICE={other:?}: `emulated` or `cuda` (feature `driver`)"),
    }
}
use std::collections::HashMap;
use std::sync::Arc;

/// Plausible inputs: parameters by kiln-models' formula, data in [-1, 1), labels cycling
/// through the classes.
fn inputs(symbol: &Symbol, data: &[usize], classes: usize) -> HashMap<String, Tensor> {
    let inferred = symbol.infer_shape(&[("data", data)]).unwrap();
    let names = symbol.list_arguments().into_iter();
    let mut out = HashMap::new();
    for (name, shape) in names.zip(inferred.arguments) {
        let t = match name.as_str() {
            "data" => {
                let n = shape.iter().product();
                let v = kiln_models::weights::uniform_stream("data", n).collect();
                Tensor::new(DType::F32, shape, v)
            }
            n if n.ends_with("label") => {
                let v = (0..shape[0]).map(|i| (i % classes) as f64).collect();
                Tensor::new(DType::F32, shape, v)
            }
            _ => kiln_models::weights::parameter(&name, &shape),
        };
        out.insert(name, t);
    }
    for (name, shape) in symbol
        .list_auxiliary_states()
        .into_iter()
        .zip(inferred.aux_states)
    {
        let t = kiln_models::weights::parameter(&name, &shape);
        out.insert(name, t);
    }
    out
}

/// The interpreter's training step of `symbol` on `values`: the differentiated graph, and
/// its heads (outputs, then gradients in argument order, then aux updates).
fn training_reference(
    symbol: &Symbol,
    reqs: &HashMap<String, GradReq>,
    values: &HashMap<String, Tensor>,
) -> (TrainingGraph, Vec<Tensor>) {
    let tg = differentiate(&symbol.to_graph().unwrap(), reqs, true).unwrap();
    let train = RunOptions {
        is_train: true,
        seed: 0,
    };
    let want = interpret(&tg.graph, values, train).unwrap();
    (tg, want)
}

/// One training step of zoo model `name` on the emulated device, its outputs and every
/// gradient against the interpreter's.
fn training_step_matches(name: &str, data: &[usize], classes: usize) {
    let symbol = kiln_models::get_with_classes(name, classes).unwrap();
    let values = inputs(&symbol, data, classes);
    let (gpu, tolerance) = device();
    let pool = Arc::new(Pool::new(gpu).unwrap());
    let mode = Mode::train_parameters(&symbol);
    let ex = GpuExecutor::bind(pool.clone(), &symbol, &[("data", data)], mode.clone()).unwrap();
    for (n, v) in &values {
        ex.set(n, v).unwrap();
    }
    let allocs = pool.stats().device_allocs;
    for _ in 0..2 {
        ex.forward().unwrap();
        ex.backward(&[]).unwrap();
    }
    assert_eq!(pool.stats().device_allocs, allocs, "steps allocate nothing");

    let Mode::Training(reqs) = mode else {
        unreachable!()
    };
    let (tg, want) = training_reference(&symbol, &reqs, &values);
    let got = ex.outputs().unwrap();
    for (o, (g, w)) in got.iter().zip(&want).enumerate() {
        let d = max_rel_diff(&g.data, &w.data).unwrap();
        assert!(d < tolerance, "{name}: output {o} differs by {d}");
    }
    for (k, (id, req)) in tg.grads.iter().enumerate() {
        assert_eq!(*req, GradReq::Write);
        let arg = &tg.graph.node(*id).name;
        let w = &want[tg.num_outputs + k];
        let d = max_rel_diff(&ex.grad(arg).unwrap().data, &w.data).unwrap();
        assert!(
            d < 10.0 * tolerance,
            "{name}: gradient of `{arg}` differs by {d}"
        );
    }
    println!("{name}: {} host steps", ex.host_steps());
}

#[test]
fn mlp_trains_as_the_interpreter_does() {
    training_step_matches("mlp", &[8, 784], 10);
}

#[test]
fn lenet_trains_as_the_interpreter_does() {
    training_step_matches("lenet", &[4, 1, 28, 28], 10);
}

/// ResNet-18 inference (64×64 images keep the emulator's time in bounds: every layer
/// kind of the 224×224 network runs, on smaller planes).
#[test]
fn resnet18_infers_as_the_interpreter_does() {
    let data = [1, 3, 64, 64];
    let symbol = kiln_models::get_with_classes("resnet18_v1", 10).unwrap();
    let values = inputs(&symbol, &data, 10);
    let (gpu, tolerance) = device();
    let pool = Arc::new(Pool::new(gpu).unwrap());
    let ex = GpuExecutor::bind(pool, &symbol, &[("data", &data)], Mode::Inference).unwrap();
    for (n, v) in &values {
        ex.set(n, v).unwrap();
    }
    ex.forward().unwrap();
    let g = symbol.to_graph().unwrap();
    let want = interpret(&g, &values, RunOptions::default()).unwrap();
    let got = ex.outputs().unwrap();
    let d = max_rel_diff(&got[0].data, &want[0].data).unwrap();
    assert!(d < tolerance, "resnet18_v1: output differs by {d}");
}

/// A network without a loss takes its head gradient at backward; `grad_req = add`
/// accumulates: two steps hold twice the interpreter's gradients.
#[test]
fn head_gradients_and_accumulated_gradients() {
    let x = Symbol::var("x");
    let fc = kiln_compiler::builders::fully_connected()
        .data(&x)
        .num_hidden(6)
        .name("fc")
        .build()
        .unwrap();
    let out = kiln_compiler::builders::activation()
        .data(&fc)
        .act_type("tanh")
        .name("act")
        .build()
        .unwrap();
    let (gpu, tolerance) = device();
    let pool = Arc::new(Pool::new(gpu).unwrap());
    let reqs: HashMap<String, GradReq> = ["x", "fc_weight", "fc_bias"]
        .into_iter()
        .map(|n| (n.to_string(), GradReq::Add))
        .collect();
    let mode = Mode::Training(reqs.clone());
    let ex = GpuExecutor::bind(pool, &out, &[("x", &[4, 5])], mode).unwrap();
    let mut values = HashMap::new();
    for (name, shape) in [
        ("x", vec![4, 5]),
        ("fc_weight", vec![6, 5]),
        ("fc_bias", vec![6]),
    ] {
        let t = kiln_models::weights::parameter(name, &shape);
        ex.set(name, &t).unwrap();
        values.insert(name.to_string(), t);
    }
    let head = kiln_models::weights::parameter("head", &[4, 6]);
    assert!(ex.backward(&[]).is_err(), "the head gradient is missing");
    for _ in 0..2 {
        ex.forward().unwrap();
        ex.backward(std::slice::from_ref(&head)).unwrap();
    }
    values.insert("act_output_head_grad".to_string(), head);
    let (tg, want) = training_reference(&out, &reqs, &values);
    for (k, (id, _)) in tg.grads.iter().enumerate() {
        let arg = &tg.graph.node(*id).name;
        let twice: Vec<f64> = want[tg.num_outputs + k]
            .data
            .iter()
            .map(|v| 2.0 * v)
            .collect();
        let d = max_rel_diff(&ex.grad(arg).unwrap().data, &twice).unwrap();
        assert!(d < tolerance, "gradient of `{arg}` differs by {d}");
    }
}
