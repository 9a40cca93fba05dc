//! The executor tests' small network and arrays.

use kiln_compiler::builders as sym;
use kiln_compiler::Symbol;
use kiln_runtime::NDArray;

pub fn arr(data: &[f32], shape: &[usize]) -> NDArray {
    NDArray::from_slice(data, shape).unwrap()
}

/// y = tanh(w * x + b), element-wise with broadcasting: w and b are (3,), x is (n, 3).
pub fn net() -> Symbol {
    let x = Symbol::var("x");
    let (w, b) = (
        Symbol::variable("w").shape(&[3]).build(),
        Symbol::variable("b").shape(&[3]).build(),
    );
    let wx = sym::broadcast_mul().lhs(&x).rhs(&w).build().unwrap();
    let z = sym::broadcast_add().lhs(&wx).rhs(&b).build().unwrap();
    sym::tanh().data(&z).name("y").build().unwrap()
}
