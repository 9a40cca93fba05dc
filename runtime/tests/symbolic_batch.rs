//! A new batch size does not recompile: kernels linear in the batch size take it as a
//! symbolic dimension, so an executor reshaped to another batch reuses every compiled
//! kernel, and computes what the interpreter computes. (One test in its own binary: it
//! counts the process-wide JIT's compilations.)

use kiln_compiler::autodiff::GradReq;
use kiln_compiler::builders as sym;
use kiln_compiler::Symbol;
use kiln_ops::compare;
use kiln_runtime::{Backend, Device, Executor, GradReqs, NDArray};

/// Convolution + bias + ReLU, average pooling, a flatten into FullyConnected, and an
/// element-wise tail: every group a compiled kernel (max pooling would run its native
/// kernel).
fn net() -> Symbol {
    let x = Symbol::var("data");
    let conv = sym::convolution()
        .data(&x)
        .kernel(&[3, 3])
        .pad(&[1, 1])
        .num_filter(4)
        .name("conv")
        .build()
        .unwrap();
    let act = sym::activation()
        .data(&conv)
        .act_type("relu")
        .build()
        .unwrap();
    let pool = sym::pooling()
        .data(&act)
        .pool_type("avg")
        .kernel(&[2, 2])
        .stride(&[2, 2])
        .build()
        .unwrap();
    let fc = sym::fully_connected()
        .data(&pool)
        .num_hidden(6)
        .name("fc")
        .build()
        .unwrap();
    let t = sym::tanh().data(&fc).build().unwrap();
    &(&t * &t) + 1.0
}

fn fill(exe: &Executor) {
    for (i, a) in exe.arg_arrays().iter().enumerate() {
        let v: Vec<f32> = (0..a.len())
            .map(|k| ((k * 13 + i * 5) % 11) as f32 * 0.07 - 0.3)
            .collect();
        a.copy_from(&NDArray::from_slice(&v, a.shape()).unwrap())
            .unwrap();
    }
}

fn outputs_agree(exe: &Executor) {
    let reference = exe.rebind(Backend::Interpreter).unwrap();
    exe.forward(false);
    reference.forward(false);
    let (got, want) = (
        exe.outputs()[0].to_vec::<f32>().unwrap(),
        reference.outputs()[0].to_vec::<f32>().unwrap(),
    );
    compare::close(&got, &want, 1e-5).unwrap();
}

#[test]
fn reshaping_to_another_batch_reuses_every_kernel() {
    let exe = Executor::simple_bind(
        &net(),
        Device::Cpu,
        &[("data", &[4, 2, 8, 8])],
        GradReqs::All(GradReq::Null),
    )
    .unwrap()
    .rebind(Backend::Jit)
    .unwrap();
    let (_, units) = exe.backend();
    let (kernels, nodes) = (units.kernels + units.products, units.reference);
    assert!(
        kernels >= 3 && nodes == 0,
        "{kernels} kernels, {nodes} nodes"
    );
    fill(&exe);
    outputs_agree(&exe);
    let jit = kiln_runtime::backend::host_compiler().unwrap();
    let before = jit.compiles();
    for batch in [7, 1, 32] {
        let other = exe.reshape(&[("data", &[batch, 2, 8, 8])]).unwrap();
        fill(&other);
        outputs_agree(&other);
        assert_eq!(other.outputs()[0].shape(), &[batch, 6]);
    }
    assert_eq!(jit.compiles(), before, "a reshape compiled new kernels");
}
