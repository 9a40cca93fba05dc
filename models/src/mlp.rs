//! The multilayer perceptron of MXNet's `example/image-classification/symbols/mlp.py`:
//! flatten, 128 and 64 hidden ReLU units, then `num_classes` outputs (784-128-64-10 on
//! MNIST).

use crate::layers::{check_classes, dense, flatten, relu, softmax_output};
use kiln_compiler::{Result, Symbol};

/// MLP on flattened input (`data` of shape `(batch, 784)` for MNIST).
pub fn mlp(num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    let mut x = flatten(&Symbol::var("data"), "flatten")?;
    for (i, hidden) in [(1, 128), (2, 64)] {
        x = dense(&x, &format!("fc{i}"), hidden)?;
        x = relu(&x, &format!("relu{i}"))?;
    }
    let x = dense(&x, "fc3", num_classes)?;
    softmax_output(&x)
}
