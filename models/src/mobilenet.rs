//! MobileNet v1 as in Gluon's `mxnet.gluon.model_zoo.vision.mobilenet`
//! (`mobilenet{1.0,0.75,0.5,0.25}`, Howard et al. 2017): a 3×3/2 convolution, then 13
//! depthwise-separable pairs (3×3 depthwise, 1×1 pointwise), every convolution bias-free
//! and followed by BatchNorm and ReLU; global average pooling, flatten and the
//! classifier. Channel counts are `int(c × multiplier)`, as Gluon truncates them.
//!
//! Names: `conv0` (`conv0_bn`, `conv0_relu`), `conv<i>_dw`, `conv<i>_pw` for i in 1..=13,
//! `pool`, `flatten`, `fc`. Input `(batch, 3, 224, 224)`.

use crate::layers::{batch_norm, check_classes, dense, flatten, relu, softmax_output, Conv, Pool};
use kiln_compiler::{Error, Result, Symbol};

/// Bias-free convolution named `name`, then `<name>_bn` and `<name>_relu`.
fn conv_bn_relu(x: &Symbol, conv: Conv, name: &str) -> Result<Symbol> {
    let x = conv.no_bias().apply(x, name)?;
    let x = batch_norm(&x, &format!("{name}_bn"))?;
    relu(&x, &format!("{name}_relu"))
}

/// `int(c * multiplier)`, refusing widths that would leave a layer without channels.
fn scaled(c: usize, multiplier: f64) -> Result<usize> {
    let w = (c as f64 * multiplier).trunc();
    if !w.is_finite() || w < 1.0 {
        return Err(Error::Input(format!(
            "MobileNet multiplier {multiplier} leaves a {c}-channel layer with no channels \
             (Gluon supports multipliers of 0.25 and above)"
        )));
    }
    Ok(w as usize)
}

/// MobileNet v1 with width `multiplier` (Gluon ships 1.0, 0.75, 0.5, 0.25).
pub fn mobilenet(multiplier: f64, num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    // (depthwise channels, pointwise channels, stride) of the 13 separable pairs.
    let mut pairs = vec![(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2)];
    pairs.extend([(256, 256, 1), (256, 512, 2)]);
    pairs.extend([(512, 512, 1); 5]);
    pairs.extend([(512, 1024, 2), (1024, 1024, 1)]);

    let x = Symbol::var("data");
    let stem = Conv::new(scaled(32, multiplier)?, 3).stride(2).pad(1);
    let mut x = conv_bn_relu(&x, stem, "conv0")?;
    for (i, &(dw, pw, stride)) in pairs.iter().enumerate() {
        let (dw, pw) = (scaled(dw, multiplier)?, scaled(pw, multiplier)?);
        let n = i + 1;
        let depthwise = Conv::new(dw, 3).stride(stride).pad(1).groups(dw);
        x = conv_bn_relu(&x, depthwise, &format!("conv{n}_dw"))?;
        x = conv_bn_relu(&x, Conv::new(pw, 1), &format!("conv{n}_pw"))?;
    }
    let x = Pool::global_avg().apply(&x, "pool")?;
    let x = flatten(&x, "flatten")?;
    let x = dense(&x, "fc", num_classes)?;
    softmax_output(&x)
}
