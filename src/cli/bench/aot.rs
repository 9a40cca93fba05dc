//! `--aot`: W2–W4 through the code `network!` and `include_symbol!` generated while this
//! tool was built, against the JIT executor on the same network and values, in one run.

use super::{report, time, Args};
use kiln::compiler::autodiff::GradReq;
use kiln::runtime::optim::Sgd;
use kiln::runtime::{random, Device, Engine, Executor, GradReqs, NDArray};
use kiln::{DType, Error, Result, Symbol};
use serde_json::json;

kiln::network! {
    /// W2's MLP, named as `bench mlp-train`'s.
    Mlp(batch = 128) {
        input data: [batch, 784];
        input softmax_label: [batch];
        let fc1 = FullyConnected(data, num_hidden = 512);
        let relu1 = Activation(fc1, act_type = "relu");
        let fc2 = FullyConnected(relu1, num_hidden = 512);
        let relu2 = Activation(fc2, act_type = "relu");
        let fc3 = FullyConnected(relu2, num_hidden = 10);
        output softmax = SoftmaxOutput(fc3, softmax_label);
    }
}

// W3's LeNet, as the main-job example declares it.
include!("../../../examples/networks/lenet.rs");

// W4: MXNet's resnet18_v1 (gluon model zoo), batch 1.
kiln::include_symbol!(
    Resnet18 = "tests/fixtures/models/resnet18_v1-symbol.json",
    data = [1, 3, 224, 224]
);

/// What the three generated structs share, for one timing routine.
trait Generated {
    const INPUTS: &'static [(&'static str, &'static [usize])];
    fn symbol() -> Symbol;
    fn param_mut(&mut self, name: &str) -> Option<&mut [f32]>;
    fn run(&mut self, inputs: &[&[f32]], train: bool) -> Result<usize>;
}

macro_rules! generated {
    ($t:ty, $train:expr) => {
        impl Generated for $t {
            const INPUTS: &'static [(&'static str, &'static [usize])] = <$t>::INPUTS;
            fn symbol() -> Symbol {
                <$t>::symbol()
            }
            fn param_mut(&mut self, name: &str) -> Option<&mut [f32]> {
                <$t>::param_mut(self, name)
            }
            fn run(&mut self, inputs: &[&[f32]], train: bool) -> Result<usize> {
                let step: fn(&mut $t, &[&[f32]]) -> Result<usize> = $train;
                match train {
                    true => step(self, inputs),
                    false => Ok(self.forward(inputs)?[0].len()),
                }
            }
        }
    };
}

generated!(Mlp, |n, i| Ok(n.train_step(i, 0.1)?[0].len()));
generated!(LeNet, |n, i| Ok(n.train_step(i, 0.1)?[0].len()));
generated!(Resnet18, |_, _| Err(Error::Input(
    "resnet18_v1 is not a loss network".into()
)));

pub fn run(args: &Args) -> Result<()> {
    if args.batch.is_some() {
        return Err(Error::Input(
            "--aot runs the batch sizes the networks were declared with (no --batch)".into(),
        ));
    }
    match args.workload.as_str() {
        "mlp-train" => compare(args, Mlp::new(|_, _, _| {}), true),
        "lenet-train" => compare(args, LeNet::new(|_, _, _| {}), true),
        "resnet18-infer" => compare(args, Resnet18::new(|_, _, _| {}), false),
        other => Err(Error::Input(format!(
            "--aot runs mlp-train, lenet-train and resnet18-infer, not `{other}`"
        ))),
    }
}

/// Times the JIT executor and the generated code on the same random values: a training
/// step (forward, backward, SGD lr 0.1 with gradients rescaled by the batch) or an
/// inference pass.
fn compare<N: Generated>(args: &Args, mut net: N, train: bool) -> Result<()> {
    let reqs = GradReqs::All(if train { GradReq::Write } else { GradReq::Null });
    let exe = Executor::simple_bind(&N::symbol(), Device::Cpu, N::INPUTS, reqs)?;
    random::seed(7);
    let inputs: Vec<&str> = N::INPUTS.iter().map(|(n, _)| *n).collect();
    let mut given: std::collections::HashMap<String, Vec<f32>> = Default::default();
    for (name, a) in exe.arg_dict().into_iter().chain(exe.aux_dict()) {
        let values = match name.as_str() {
            "softmax_label" => (0..a.len()).map(|i| (i * 7 % 10) as f32).collect(),
            n if n.ends_with("_var") => {
                random::uniform(0.5, 1.5, a.shape(), DType::F32)?.to_vec()?
            }
            _ => random::uniform(-0.1, 0.1, a.shape(), DType::F32)?.to_vec()?,
        };
        a.copy_from(&NDArray::from_slice(&values, a.shape())?)?;
        match net.param_mut(&name) {
            Some(p) => p.copy_from_slice(&values),
            None if inputs.contains(&name.as_str()) => {
                given.insert(name.clone(), values);
            }
            None => {
                return Err(Error::Input(format!(
                    "the generated network has no `{name}`"
                )))
            }
        }
    }
    let batch = N::INPUTS[0].1[0];
    let sgd = Sgd {
        lr: 0.1,
        wd: 0.0,
        rescale_grad: 1.0 / batch as f64,
    };
    let grads = exe.grad_dict();
    let updates = (exe.arg_dict().iter())
        .filter_map(|(n, a)| Some(sgd.operator(a, grads.get(n)?)))
        .collect::<Result<Vec<_>>>()?;
    let mut failed = None;
    let jit = time(args.runs, || {
        exe.forward(train);
        if train {
            if let Err(e) = exe.backward(&[]) {
                failed.get_or_insert(e);
            }
            for u in &updates {
                Engine::global().push(u, 1);
            }
        }
        if let Err(e) = Engine::global().wait_all() {
            failed.get_or_insert(Error::from(e));
        }
    });
    let slices: Vec<&[f32]> = (inputs.iter())
        .map(|n| given.get(*n).map(Vec::as_slice).unwrap_or_default())
        .collect();
    let aot = time(args.runs, || {
        if let Err(e) = net.run(&slices, train) {
            failed.get_or_insert(e);
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    report(
        args,
        "kiln jit",
        jit,
        json!({ "batch": batch }),
        &format!("batch {batch}"),
    );
    let ratio = aot.0 / jit.0;
    report(
        args,
        "kiln aot",
        aot,
        json!({ "batch": batch, "jit_ratio": ratio }),
        &format!("batch {batch}, {ratio:.2}x the JIT's time"),
    );
    Ok(())
}
