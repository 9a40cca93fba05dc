//! LeNet-5 as in MXNet's `example/image-classification/symbols/lenet.py` (LeCun et al.
//! 1998): two 5×5 convolutions (20 and 50 filters) each followed by tanh and 2×2/2 max
//! pooling, a 500-unit tanh layer and the classifier. Input `(batch, 1, 28, 28)`.

use crate::layers::{activation, check_classes, dense, flatten, softmax_output, Conv, Pool};
use kiln_compiler::{Result, Symbol};

/// LeNet-5 with `num_classes` outputs.
pub fn lenet(num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    let mut x = Symbol::var("data");
    for (i, filters) in [(1, 20), (2, 50)] {
        x = Conv::new(filters, 5).apply(&x, &format!("conv{i}"))?;
        x = activation(&x, &format!("tanh{i}"), "tanh")?;
        x = Pool::max(2, 2).apply(&x, &format!("pool{i}"))?;
    }
    let x = flatten(&x, "flatten")?;
    let x = dense(&x, "fc1", 500)?;
    let x = activation(&x, "tanh3", "tanh")?;
    let x = dense(&x, "fc2", num_classes)?;
    softmax_output(&x)
}
