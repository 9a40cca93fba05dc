//! Every zoo model, planned for inference: each fusion group lowers to the kernel IR or is
//! a library call (the only reason a group may stay out), and all of a model's kernels,
//! rendered to CUDA C, compile as one NVRTC module for `compute_90`.

mod common;
#[path = "kir_support/nvrtc.rs"]
mod nvrtc;

use common::fixture;
use kiln::compiler::kir;
use kiln::compiler::plan::plan_symbol;
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
        let p = plan_symbol(&sym, &HashMap::from([("data".to_string(), data)]), false).unwrap();
        let mut module = String::new();
        for (i, grp) in p.fusion.groups.iter().enumerate() {
            match kir::from_group(&p.graph, &p.inferred, &grp.nodes, &format!("kernel{i}")) {
                Ok(kernels) => {
                    for l in kernels {
                        module += &kir::cuda::render(&l.kernel).unwrap();
                    }
                }
                Err(e) => assert!(
                    e.contains("library calls keep their kernels"),
                    "{name}: {e}"
                ),
            }
        }
        nvrtc::compile(&module, name);
        models += 1;
    }
    assert!(models >= 10, "{models} zoo models");
}
