//! An executor under faults: a failure upstream of a bound input reaches its outputs at
//! `wait_to_read`, and the executor runs again once the error was reported. Its own test
//! binary: the error also reaches the global engine's `wait_all`, which other tests call.

use kiln_compiler::autodiff::GradReq;
use kiln_runtime::{Device, Engine, Executor, FnProperty, GradReqs};

#[path = "support/tanh_net.rs"]
mod tanh_net;
use tanh_net::{arr, net};

#[test]
fn a_panic_writing_an_input_surfaces_at_the_outputs_and_forward_recovers() {
    let reqs = GradReqs::All(GradReq::Null);
    let exe = Executor::simple_bind(&net(), Device::Cpu, &[("x", &[2, 3])], reqs).unwrap();
    let args = exe.arg_dict();
    let (w, b, x) = (
        [0.3f32, -0.7, 0.2],
        [0.1f32, 0.0, -0.4],
        [0.5f32, -1.0, 2.0],
    );
    args["w"].copy_from(&arr(&w, &[3])).unwrap();
    args["b"].copy_from(&arr(&b, &[3])).unwrap();
    let input = &args["x"];
    let writes = [input.var().clone()];
    // A user's data loader, run by the engine, panics while it fills the input.
    Engine::global().push_fn("loader", &[], &writes, FnProperty::Normal, 0, || {
        panic!("corrupt record 7")
    });
    exe.forward(false);
    let err = exe.outputs()[0].wait_to_read().unwrap_err();
    assert_eq!(err.op.as_ref(), "loader");
    assert_eq!(err.message.as_ref(), "panicked: corrupt record 7");
    // The input carries the error until a wait reports it; then it can be written again.
    assert_eq!(input.wait_to_read(), Err(err));
    input.copy_from(&arr(&[x, x].concat(), &[2, 3])).unwrap();
    exe.forward(false);
    let y = exe.outputs()[0].to_vec::<f32>().unwrap();
    let want: Vec<f32> = (0..6)
        .map(|i| (x[i % 3] * w[i % 3] + b[i % 3]).tanh())
        .collect();
    for (got, want) in y.iter().zip(&want) {
        assert!((got - want).abs() < 1e-6, "{y:?} vs {want:?}");
    }
    assert_eq!(y.len(), want.len());
    let first = Engine::global().wait_all().unwrap_err();
    assert_eq!(
        first.op.as_ref(),
        "loader",
        "wait_all reports the panic too"
    );
}
