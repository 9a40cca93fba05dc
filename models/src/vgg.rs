//! VGG as in Gluon's `mxnet.gluon.model_zoo.vision.vgg` (Simonyan & Zisserman 2014):
//! stages of 3×3 ReLU convolutions (optionally with BatchNorm after each, Gluon's
//! `vgg*_bn`) ending in 2×2/2 max pooling, then two 4096-unit ReLU layers with dropout and
//! the classifier. Node names follow MXNet's symbolic `vgg.py` (`conv3_2`, `fc7`).
//! Input `(batch, 3, 224, 224)`.

use crate::layers::{batch_norm, check_classes, dense, dropout, relu, softmax_output, Conv, Pool};
use kiln_compiler::{Error, Result, Symbol};

/// Convolutions per stage for each depth; the stages have 64, 128, 256, 512, 512 filters.
fn stage_layers(depth: usize) -> Result<[usize; 5]> {
    Ok(match depth {
        11 => [1, 1, 2, 2, 2],
        13 => [2, 2, 2, 2, 2],
        16 => [2, 2, 3, 3, 3],
        19 => [2, 2, 4, 4, 4],
        _ => {
            return Err(Error::Input(format!(
                "unsupported VGG depth {depth} (supported: 11, 13, 16, 19)"
            )))
        }
    })
}

/// VGG-`depth` (11, 13, 16 or 19), with BatchNorm after every convolution if `batch_norm`.
pub fn vgg(depth: usize, batch_norm_layers: bool, num_classes: usize) -> Result<Symbol> {
    let layers = stage_layers(depth)?;
    let num_classes = check_classes(num_classes)?;
    let filters = [64, 128, 256, 512, 512];
    let mut x = Symbol::var("data");
    for (s, (&n, &f)) in layers.iter().zip(&filters).enumerate() {
        let stage = s + 1;
        for k in 1..=n {
            x = Conv::new(f, 3)
                .pad(1)
                .apply(&x, &format!("conv{stage}_{k}"))?;
            if batch_norm_layers {
                x = batch_norm(&x, &format!("bn{stage}_{k}"))?;
            }
            x = relu(&x, &format!("relu{stage}_{k}"))?;
        }
        x = Pool::max(2, 2).apply(&x, &format!("pool{stage}"))?;
    }
    for n in [6, 7] {
        x = dense(&x, &format!("fc{n}"), 4096)?;
        x = relu(&x, &format!("relu{n}"))?;
        x = dropout(&x, &format!("drop{n}"), "0.5")?;
    }
    let x = dense(&x, "fc8", num_classes)?;
    softmax_output(&x)
}
