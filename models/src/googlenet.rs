//! GoogLeNet (Szegedy et al. 2014) with the layer configuration and node names of MXNet's
//! `example/image-classification/symbols/googlenet.py`: ReLU convolutions without
//! BatchNorm, nine Inception modules (1×1, 3×3, 5×5 and pool-projection branches
//! concatenated), 7×7 average pooling and the classifier, no auxiliary heads.
//!
//! The four stride-2 max pools round up (`pooling_convention="full"`, Caffe's rounding,
//! 112→56→28→14→7 as in the paper): with MXNet's default `valid` rounding the example
//! symbol fails shape inference at 224×224 (apache/mxnet#5032). Input
//! `(batch, 3, 224, 224)`.

use crate::layers::{check_classes, concat, dense, flatten, relu, softmax_output, Conv, Pool};
use kiln_compiler::{Result, Symbol};

/// `Convolution` + ReLU, named `conv_<tag>` and `relu_<tag>`.
fn conv_relu(x: &Symbol, conv: Conv, tag: &str) -> Result<Symbol> {
    let x = conv.apply(x, &format!("conv_{tag}"))?;
    relu(&x, &format!("relu_{tag}"))
}

/// Filter counts of one Inception module: 1×1, 3×3 reduce, 3×3, 5×5 reduce, 5×5, pool
/// projection.
struct Module(usize, usize, usize, usize, usize, usize);

fn inception(x: &Symbol, m: &Module, tag: &str) -> Result<Symbol> {
    let b1 = conv_relu(x, Conv::new(m.0, 1), &format!("{tag}_1x1"))?;
    let b2 = conv_relu(x, Conv::new(m.1, 1), &format!("{tag}_3x3_reduce"))?;
    let b2 = conv_relu(&b2, Conv::new(m.2, 3).pad(1), &format!("{tag}_3x3"))?;
    let b3 = conv_relu(x, Conv::new(m.3, 1), &format!("{tag}_5x5_reduce"))?;
    let b3 = conv_relu(&b3, Conv::new(m.4, 5).pad(2), &format!("{tag}_5x5"))?;
    let b4 = Pool::max(3, 1)
        .pad(1)
        .apply(x, &format!("max_pool_{tag}_pool"))?;
    let b4 = conv_relu(&b4, Conv::new(m.5, 1), &format!("{tag}_proj"))?;
    concat(&[b1, b2, b3, b4], &format!("ch_concat_{tag}_chconcat"))
}

fn stage(mut x: Symbol, modules: &[(&str, Module)]) -> Result<Symbol> {
    for (tag, m) in modules {
        x = inception(&x, m, tag)?;
    }
    Ok(x)
}

/// GoogLeNet with `num_classes` outputs.
pub fn googlenet(num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    let down = Pool::max(3, 2).full();
    let x = Symbol::var("data");
    let x = conv_relu(&x, Conv::new(64, 7).stride(2).pad(3), "conv1")?;
    let x = down.apply(&x, "pool1")?;
    let x = conv_relu(&x, Conv::new(64, 1), "conv2")?;
    let x = conv_relu(&x, Conv::new(192, 3).pad(1), "conv3")?;
    let x = down.apply(&x, "pool3")?;
    let x = stage(
        x,
        &[
            ("in3a", Module(64, 96, 128, 16, 32, 32)),
            ("in3b", Module(128, 128, 192, 32, 96, 64)),
        ],
    )?;
    let x = down.apply(&x, "pool4")?;
    let x = stage(
        x,
        &[
            ("in4a", Module(192, 96, 208, 16, 48, 64)),
            ("in4b", Module(160, 112, 224, 24, 64, 64)),
            ("in4c", Module(128, 128, 256, 24, 64, 64)),
            ("in4d", Module(112, 144, 288, 32, 64, 64)),
            ("in4e", Module(256, 160, 320, 32, 128, 128)),
        ],
    )?;
    let x = down.apply(&x, "pool5")?;
    let x = stage(
        x,
        &[
            ("in5a", Module(256, 160, 320, 32, 128, 128)),
            ("in5b", Module(384, 192, 384, 48, 128, 128)),
        ],
    )?;
    let x = Pool::avg(7, 1).apply(&x, "pool6")?;
    let x = flatten(&x, "flatten")?;
    let x = dense(&x, "fc1", num_classes)?;
    softmax_output(&x)
}
