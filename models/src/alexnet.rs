//! AlexNet as in Gluon's `mxnet.gluon.model_zoo.vision.alexnet` (the single-tower variant
//! of Krizhevsky's "One weird trick" paper, no LRN): five ReLU convolutions with three
//! 3×3/2 max pools, then flatten, two 4096-unit ReLU layers each followed by dropout 0.5,
//! and the classifier (the order MXNet 1.9.1's Gluon exports). Input `(batch, 3, 224, 224)`.

use crate::layers::{check_classes, dense, dropout, flatten, relu, softmax_output, Conv, Pool};
use kiln_compiler::{Result, Symbol};

/// AlexNet with `num_classes` outputs.
pub fn alexnet(num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    let convs = [
        (Conv::new(64, 11).stride(4).pad(2), true),
        (Conv::new(192, 5).pad(2), true),
        (Conv::new(384, 3).pad(1), false),
        (Conv::new(256, 3).pad(1), false),
        (Conv::new(256, 3).pad(1), true),
    ];
    let mut x = Symbol::var("data");
    for (i, (conv, pooled)) in convs.iter().enumerate() {
        let n = i + 1;
        x = conv.apply(&x, &format!("conv{n}"))?;
        x = relu(&x, &format!("relu{n}"))?;
        if *pooled {
            x = Pool::max(3, 2).apply(&x, &format!("pool{n}"))?;
        }
    }
    x = flatten(&x, "flatten")?;
    for n in [6, 7] {
        x = dense(&x, &format!("fc{n}"), 4096)?;
        x = relu(&x, &format!("relu{n}"))?;
        x = dropout(&x, &format!("drop{n}"), "0.5")?;
    }
    let x = dense(&x, "fc8", num_classes)?;
    softmax_output(&x)
}
