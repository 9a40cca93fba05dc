//! Reported = executed: for zoo models of every kind (plain chains, residual blocks,
//! depthwise convolutions, concatenations, BatchNorm), in inference and in training, the
//! internal memory the program's layout predicts (`kiln plan`'s figure) is what an
//! executor bound for it allocates, byte for byte — inference with its per-sample prefix
//! in parts of two samples, on any machine. (All of the zoo at once takes 13
//! minutes of JIT compiling in a debug build; `cargo run --release --example
//! memory_report` binds the paper's six networks at batch 32.)

use kiln::compiler::program::Parts;
use kiln::compiler::program::{compile, Mode};
use kiln::runtime::{Config, Device, Executor, GradReqs};
use std::collections::HashMap;

#[test]
fn zoo_models_allocate_what_their_programs_plan() {
    for name in [
        "mlp",
        "lenet",
        "resnet18_v1",
        "mobilenet0.25",
        "squeezenet1.1",
        "inception_bn",
    ] {
        let info = kiln::models::info(name).unwrap();
        let sym = info.build().unwrap();
        let mut data = info.input_shape.to_vec();
        data[0] = 4;
        let config = Config::new().threads(2);
        for mode in [Mode::Inference, Mode::train_parameters(&sym)] {
            let reqs = GradReqs::of(&mode);
            let shapes = HashMap::from([("data".to_string(), data.clone())]);
            let program = compile(&sym, &config.spec(shapes, mode.clone())).unwrap();
            if mode == Mode::Inference && name != "mlp" {
                assert!(
                    matches!(program.parts, Parts::Prefix(_)),
                    "{name} runs whole"
                );
            }
            let planned = program.internal_bytes();
            let exe =
                Executor::simple_bind_with(&config, &sym, Device::Cpu, &[("data", &data)], reqs)
                    .unwrap();
            assert_eq!(
                exe.memory().internal(),
                planned,
                "{} in {mode:?}: executed {:?}",
                info.name,
                exe.memory()
            );
        }
    }
}
