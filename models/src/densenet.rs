//! DenseNet-BC as in Gluon's `mxnet.gluon.model_zoo.vision.densenet`
//! (`densenet{121,161,169,201}`, Huang et al. 2016): a 7×7/2 bias-free convolution,
//! BatchNorm, ReLU and 3×3/2 max pool; four dense blocks whose layers (BatchNorm, ReLU,
//! 1×1 convolution to `4 × growth`, BatchNorm, ReLU, 3×3 convolution to `growth`) each
//! concatenate their output to their input; transitions (BatchNorm, ReLU, 1×1 convolution
//! halving the channels, 2×2/2 average pool) between blocks; a final BatchNorm and ReLU,
//! 7×7 average pooling, flatten and the classifier. No dropout (Gluon's default 0).
//!
//! Names: `conv0`, `block<b>_layer<l>_{bn,relu,conv}<k>`, `block<b>_layer<l>_concat`,
//! `transition<b>_{bn,relu,conv,pool}`, `bn5`, `pool5`, `fc`. Input `(batch, 3, 224, 224)`.

use crate::layers::{
    batch_norm, check_classes, concat, dense, flatten, relu, softmax_output, Conv, Pool,
};
use kiln_compiler::{Error, Result, Symbol};

/// Gluon's `densenet_spec`: initial features, growth rate, layers per block.
fn spec(depth: usize) -> Result<(usize, usize, [usize; 4])> {
    Ok(match depth {
        121 => (64, 32, [6, 12, 24, 16]),
        161 => (96, 48, [6, 12, 36, 24]),
        169 => (64, 32, [6, 12, 32, 32]),
        201 => (64, 32, [6, 12, 48, 32]),
        _ => {
            return Err(Error::Input(format!(
                "unsupported DenseNet depth {depth} (supported: 121, 161, 169, 201)"
            )))
        }
    })
}

/// BatchNorm, ReLU and a bias-free convolution named `<p>_{bn,relu,conv}<k>`.
fn bn_relu_conv(x: &Symbol, conv: Conv, p: &str, k: &str) -> Result<Symbol> {
    let x = batch_norm(x, &format!("{p}_bn{k}"))?;
    let x = relu(&x, &format!("{p}_relu{k}"))?;
    conv.no_bias().apply(&x, &format!("{p}_conv{k}"))
}

/// One dense layer: the input concatenated with `growth` new feature maps.
fn dense_layer(x: &Symbol, growth: usize, p: &str) -> Result<Symbol> {
    let y = bn_relu_conv(x, Conv::new(4 * growth, 1), p, "1")?;
    let y = bn_relu_conv(&y, Conv::new(growth, 3).pad(1), p, "2")?;
    concat(&[x.clone(), y], &format!("{p}_concat"))
}

/// DenseNet-`depth` (121, 161, 169 or 201) with `num_classes` outputs.
pub fn densenet(depth: usize, num_classes: usize) -> Result<Symbol> {
    let (init_features, growth, blocks) = spec(depth)?;
    let num_classes = check_classes(num_classes)?;
    let x = Symbol::var("data");
    let x = Conv::new(init_features, 7)
        .stride(2)
        .pad(3)
        .no_bias()
        .apply(&x, "conv0")?;
    let x = batch_norm(&x, "bn0")?;
    let x = relu(&x, "relu0")?;
    let mut x = Pool::max(3, 2).pad(1).apply(&x, "pool0")?;
    let mut features = init_features;
    for (b, &layers) in blocks.iter().enumerate() {
        let b = b + 1;
        for l in 1..=layers {
            x = dense_layer(&x, growth, &format!("block{b}_layer{l}"))?;
        }
        features += layers * growth;
        if b < blocks.len() {
            features /= 2;
            let p = format!("transition{b}");
            x = bn_relu_conv(&x, Conv::new(features, 1), &p, "")?;
            x = Pool::avg(2, 2).apply(&x, &format!("{p}_pool"))?;
        }
    }
    let x = batch_norm(&x, "bn5")?;
    let x = relu(&x, "relu5")?;
    let x = Pool::avg(7, 7).apply(&x, "pool5")?;
    let x = flatten(&x, "flatten")?;
    let x = dense(&x, "fc", num_classes)?;
    softmax_output(&x)
}
