use kiln_compiler::infer::infer;
use kiln_compiler::kir::{from_group, lower, matmul, Schedule};
use kiln_compiler::passes::fuse;
use std::collections::HashMap;

#[test]
fn show() {
    let net = kiln_models::get("lenet").unwrap();
    let g = net.to_graph().unwrap();
    let shapes = HashMap::from([
        ("data".to_string(), vec![64, 1, 28, 28]),
        ("softmax_label".to_string(), vec![64]),
    ]);
    let inferred = infer(&g, &shapes, &HashMap::new()).unwrap();
    let grp = &fuse(&g).groups[0];
    let ls = from_group(&g, &inferred, &grp.nodes, "g0").unwrap();
    let mm = matmul::recognize(&ls[0].kernel).unwrap();
    let e = mm.epilogue.unwrap();
    println!(
        "{}",
        kiln_compiler::kir::math::expand(&lower(&e, &Schedule::cpu(&e)).unwrap())
    );
}
