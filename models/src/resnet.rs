//! ResNet v1 as in Gluon's `mxnet.gluon.model_zoo.vision.resnet` (`resnet{18,34,50,101,
//! 152}_v1`, He et al. 2015): a 7×7/2 convolution, BatchNorm, ReLU and 3×3/2 max pool, four
//! stages of residual blocks, global average pooling and the classifier.
//!
//! Blocks follow Gluon's `BasicBlockV1` (18, 34: two bias-free 3×3 convolutions) and
//! `BottleneckV1` (50+: a 1×1 convolution carrying the stride, a bias-free 3×3 and a 1×1
//! expansion, the 1×1s with biases as Gluon's default). A block that changes the channel
//! count has a projection shortcut (bias-free 1×1 convolution + BatchNorm). The residual
//! sum keeps Gluon's operand order (`residual + x` in the basic block, `x + residual` in
//! the bottleneck), which fixes the exported node order.
//!
//! Names: `conv0`, `bn0`, `stage<s>_unit<u>_{conv,bn,relu}<k>`,
//! `stage<s>_unit<u>_downsample_{conv,bn}`, `stage<s>_unit<u>_{add,relu}`, `pool1`, `fc`.
//! Input `(batch, 3, 224, 224)`.

use crate::layers::{add, batch_norm, check_classes, dense, relu, softmax_output, Conv, Pool};
use kiln_compiler::{Error, Result, Symbol};

/// Which residual block a depth uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Basic,
    Bottleneck,
}

/// Gluon's `resnet_spec`: block kind, blocks per stage, channels (stem, then each stage).
fn spec(depth: usize) -> Result<(Block, [usize; 4], [usize; 5])> {
    let basic = [64, 64, 128, 256, 512];
    let bottleneck = [64, 256, 512, 1024, 2048];
    Ok(match depth {
        18 => (Block::Basic, [2, 2, 2, 2], basic),
        34 => (Block::Basic, [3, 4, 6, 3], basic),
        50 => (Block::Bottleneck, [3, 4, 6, 3], bottleneck),
        101 => (Block::Bottleneck, [3, 4, 23, 3], bottleneck),
        152 => (Block::Bottleneck, [3, 8, 36, 3], bottleneck),
        _ => {
            return Err(Error::Input(format!(
                "unsupported ResNet depth {depth} (supported: 18, 34, 50, 101, 152)"
            )))
        }
    })
}

/// Convolution + BatchNorm, named `<p>_conv<k>` and `<p>_bn<k>`, then ReLU if `with_relu`.
fn conv_bn(x: &Symbol, conv: Conv, p: &str, k: &str, with_relu: bool) -> Result<Symbol> {
    let x = conv.apply(x, &format!("{p}_conv{k}"))?;
    let x = batch_norm(&x, &format!("{p}_bn{k}"))?;
    if with_relu {
        relu(&x, &format!("{p}_relu{k}"))
    } else {
        Ok(x)
    }
}

/// One residual unit named `p` with `channels` outputs.
fn unit(
    x: &Symbol,
    block: Block,
    channels: usize,
    stride: usize,
    project: bool,
    p: &str,
) -> Result<Symbol> {
    let body = match block {
        Block::Basic => {
            let conv3x3 = Conv::new(channels, 3).pad(1).no_bias();
            let y = conv_bn(x, conv3x3.stride(stride), p, "1", true)?;
            conv_bn(&y, conv3x3, p, "2", false)?
        }
        Block::Bottleneck => {
            let mid = channels / 4;
            let y = conv_bn(x, Conv::new(mid, 1).stride(stride), p, "1", true)?;
            let y = conv_bn(&y, Conv::new(mid, 3).pad(1).no_bias(), p, "2", true)?;
            conv_bn(&y, Conv::new(channels, 1), p, "3", false)?
        }
    };
    let residual = if project {
        let r = Conv::new(channels, 1)
            .stride(stride)
            .no_bias()
            .apply(x, &format!("{p}_downsample_conv"))?;
        batch_norm(&r, &format!("{p}_downsample_bn"))?
    } else {
        x.clone()
    };
    let sum = match block {
        Block::Basic => add(&residual, &body, &format!("{p}_add"))?,
        Block::Bottleneck => add(&body, &residual, &format!("{p}_add"))?,
    };
    relu(&sum, &format!("{p}_relu"))
}

/// ResNet-`depth` v1 (18, 34, 50, 101 or 152) with `num_classes` outputs.
pub fn resnet_v1(depth: usize, num_classes: usize) -> Result<Symbol> {
    let (block, layers, channels) = spec(depth)?;
    let num_classes = check_classes(num_classes)?;
    let x = Symbol::var("data");
    let x = Conv::new(channels[0], 7)
        .stride(2)
        .pad(3)
        .no_bias()
        .apply(&x, "conv0")?;
    let x = batch_norm(&x, "bn0")?;
    let x = relu(&x, "relu0")?;
    let mut x = Pool::max(3, 2).pad(1).apply(&x, "pool0")?;
    for (s, &units) in layers.iter().enumerate() {
        let (in_ch, out_ch) = (channels[s], channels[s + 1]);
        let stride = if s == 0 { 1 } else { 2 };
        for u in 0..units {
            let p = format!("stage{}_unit{}", s + 1, u + 1);
            x = if u == 0 {
                unit(&x, block, out_ch, stride, in_ch != out_ch, &p)?
            } else {
                unit(&x, block, out_ch, 1, false, &p)?
            };
        }
    }
    let x = Pool::global_avg().apply(&x, "pool1")?;
    let x = dense(&x, "fc", num_classes)?;
    softmax_output(&x)
}
