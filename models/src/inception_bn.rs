//! Inception with BatchNorm (Ioffe & Szegedy 2015, "Inception-BN") with the layer
//! configuration and node names of MXNet's
//! `example/image-classification/symbols/inception-bn.py`, 224×224 branch: every
//! convolution is followed by BatchNorm (`eps=1e-10+1e-5`, `momentum=0.9`,
//! `fix_gamma=False`) and ReLU; type-A modules keep the resolution, type-B modules (3c,
//! 4e) halve it. Input `(batch, 3, 224, 224)`.

use crate::layers::{
    activation, batch_norm_eps, check_classes, concat, dense, flatten, softmax_output, Conv, Pool,
};
use kiln_compiler::{Result, Symbol};

/// The example's epsilon, `1e-10 + 1e-5` as Python prints it.
const EPS: &str = "1.001e-05";

/// Convolution, BatchNorm and ReLU, named `conv_<tag>`, `bn_<tag>`, `relu_<tag>`.
fn cbr(x: &Symbol, conv: Conv, tag: &str) -> Result<Symbol> {
    let x = conv.apply(x, &format!("conv_{tag}"))?;
    let x = batch_norm_eps(&x, &format!("bn_{tag}"), EPS)?;
    activation(&x, &format!("relu_{tag}"), "relu")
}

/// Filters of a type-A module: 1×1, 3×3 reduce, 3×3, double-3×3 reduce, double 3×3,
/// pooling of the projection branch, projection.
struct BlockA(usize, usize, usize, usize, usize, &'static str, usize);

fn block_a(x: &Symbol, b: &BlockA, tag: &str) -> Result<Symbol> {
    let b1 = cbr(x, Conv::new(b.0, 1), &format!("{tag}_1x1"))?;
    let b2 = cbr(x, Conv::new(b.1, 1), &format!("{tag}_3x3_reduce"))?;
    let b2 = cbr(&b2, Conv::new(b.2, 3).pad(1), &format!("{tag}_3x3"))?;
    let b3 = cbr(x, Conv::new(b.3, 1), &format!("{tag}_double_3x3_reduce"))?;
    let b3 = cbr(
        &b3,
        Conv::new(b.4, 3).pad(1),
        &format!("{tag}_double_3x3_0"),
    )?;
    let b3 = cbr(
        &b3,
        Conv::new(b.4, 3).pad(1),
        &format!("{tag}_double_3x3_1"),
    )?;
    let pool = match b.5 {
        "max" => Pool::max(3, 1),
        _ => Pool::avg(3, 1),
    };
    let b4 = pool.pad(1).apply(x, &format!("{}_pool_{tag}_pool", b.5))?;
    let b4 = cbr(&b4, Conv::new(b.6, 1), &format!("{tag}_proj"))?;
    concat(&[b1, b2, b3, b4], &format!("ch_concat_{tag}_chconcat"))
}

/// Filters of a type-B (reduction) module: 3×3 reduce, 3×3, double-3×3 reduce, double 3×3.
struct BlockB(usize, usize, usize, usize);

fn block_b(x: &Symbol, b: &BlockB, tag: &str) -> Result<Symbol> {
    let b1 = cbr(x, Conv::new(b.0, 1), &format!("{tag}_3x3_reduce"))?;
    let b1 = cbr(
        &b1,
        Conv::new(b.1, 3).stride(2).pad(1),
        &format!("{tag}_3x3"),
    )?;
    let b2 = cbr(x, Conv::new(b.2, 1), &format!("{tag}_double_3x3_reduce"))?;
    let b2 = cbr(
        &b2,
        Conv::new(b.3, 3).pad(1),
        &format!("{tag}_double_3x3_0"),
    )?;
    let b2 = cbr(
        &b2,
        Conv::new(b.3, 3).stride(2).pad(1),
        &format!("{tag}_double_3x3_1"),
    )?;
    let b3 = Pool::max(3, 2)
        .pad(1)
        .apply(x, &format!("max_pool_{tag}_pool"))?;
    concat(&[b1, b2, b3], &format!("ch_concat_{tag}_chconcat"))
}

/// Inception-BN with `num_classes` outputs.
pub fn inception_bn(num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    let x = Symbol::var("data");
    let x = cbr(&x, Conv::new(64, 7).stride(2).pad(3), "1")?;
    let x = Pool::max(3, 2).apply(&x, "pool_1")?;
    let x = cbr(&x, Conv::new(64, 1), "2_red")?;
    let x = cbr(&x, Conv::new(192, 3).pad(1), "2")?;
    let x = Pool::max(3, 2).apply(&x, "pool_2")?;
    let x = block_a(&x, &BlockA(64, 64, 64, 64, 96, "avg", 32), "3a")?;
    let x = block_a(&x, &BlockA(64, 64, 96, 64, 96, "avg", 64), "3b")?;
    let x = block_b(&x, &BlockB(128, 160, 64, 96), "3c")?;
    let x = block_a(&x, &BlockA(224, 64, 96, 96, 128, "avg", 128), "4a")?;
    let x = block_a(&x, &BlockA(192, 96, 128, 96, 128, "avg", 128), "4b")?;
    let x = block_a(&x, &BlockA(160, 128, 160, 128, 160, "avg", 128), "4c")?;
    let x = block_a(&x, &BlockA(96, 128, 192, 160, 192, "avg", 128), "4d")?;
    let x = block_b(&x, &BlockB(128, 192, 192, 256), "4e")?;
    let x = block_a(&x, &BlockA(352, 192, 320, 160, 224, "avg", 128), "5a")?;
    let x = block_a(&x, &BlockA(352, 192, 320, 192, 224, "max", 128), "5b")?;
    let x = Pool::avg(7, 1).apply(&x, "global_pool")?;
    let x = flatten(&x, "flatten")?;
    let x = dense(&x, "fc1", num_classes)?;
    softmax_output(&x)
}
