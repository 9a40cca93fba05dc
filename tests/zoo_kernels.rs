//! Every zoo model, compiled for inference with every fusion group as a kernel (no gemm,
//! as a GPU target without cuBLAS): each step is a kernel of the kernel IR or a library
//! call (the only reason a node may stay out), and all of a model's kernels, rendered to
//! CUDA C, compile as one NVRTC module for `compute_90`.

mod common;
#[path = "kir_support/nvrtc.rs"]
mod nvrtc;

use common::fixture;
use kiln::compiler::kir;
use kiln::compiler::program::{compile, Mode, Spec, StepKind, Target};
use kiln::Symbol;
use std::collections::HashMap;

#[test]
fn every_zoo_kernel_lowers_or_is_a_library_call_and_compiles_under_nvrtc() {
    let mut models = 0;
    for entry in std::fs::read_dir(fixture("zoo")).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_suffix("-symbol.json")
        else {
            continue;
        };
        let data = match name {
            "mlp" => vec![1, 784],
            "lenet" => vec![1, 1, 28, 28],
            "inception_v3" => vec![1, 3, 299, 299],
            _ => vec![1, 3, 224, 224],
        };
        let sym = Symbol::load(&path).unwrap();
        let target = Target {
            least_product: None,
            winograd: false,
            native: false,
            symbolic_batch: false,
            ..Target::cpu()
        };
        let shapes = HashMap::from([("data".to_string(), data)]);
        let p = compile(&sym, &Spec::new(shapes, Mode::Inference, target)).unwrap();
        let mut module = String::new();
        for step in &p.steps {
            match &step.kind {
                StepKind::Kernel { ir, .. } => module += &kir::cuda::render(ir).unwrap(),
                _ => {
                    let n = p.graph().node(step.nodes[0]);
                    assert!(
                        n.op.is_some_and(|op| matches!(
                            op.compute,
                            kiln::ops::Compute::Library { .. }
                        )),
                        "{name}: `{}` ({}) is not a kernel",
                        n.name,
                        n.op_name()
                    );
                }
            }
        }
        nvrtc::compile(&module, name);
        models += 1;
    }
    assert!(models >= 10, "{models} zoo models");
}
