//! Inception-v3 as in Gluon's `mxnet.gluon.model_zoo.vision.inception_v3` (Szegedy et al.
//! 2015, "Rethinking the Inception Architecture"), without the auxiliary head: every
//! convolution is bias-free and followed by BatchNorm (`eps=0.001`) and ReLU; a stem of
//! five such convolutions and two 3×3/2 max pools, modules A ×3 (`mixed_5b`–`5d`), B
//! (`6a`), C ×4 (`6b`–`6e`), D (`7a`), E ×2 (`7b`, `7c`), 8×8 average pooling, dropout 0.5
//! and the classifier. Branches are concatenated on channels in Gluon's order.
//!
//! Names: `<module>_b<i>_conv<k>` (with `_bn`, `_relu`), `<module>_b<i>_pool`,
//! `<module>_concat`. Input `(batch, 3, 299, 299)`.

use crate::layers::{
    batch_norm_eps, check_classes, concat, dense, dropout, relu, softmax_output, Conv, Pool,
};
use kiln_compiler::{Result, Symbol};

/// Gluon's `_make_basic_conv`: bias-free convolution, BatchNorm(eps 0.001), ReLU.
fn basic_conv(x: &Symbol, conv: Conv, name: &str) -> Result<Symbol> {
    let x = conv.no_bias().apply(x, name)?;
    let x = batch_norm_eps(&x, &format!("{name}_bn"), "0.001")?;
    relu(&x, &format!("{name}_relu"))
}

/// Gluon's `_make_branch`: an optional pool, then basic convolutions, named `<p>_...`.
fn branch(x: &Symbol, p: &str, pool: Option<Pool>, convs: &[Conv]) -> Result<Symbol> {
    let mut y = match pool {
        Some(pool) => pool.apply(x, &format!("{p}_pool"))?,
        None => x.clone(),
    };
    for (k, &conv) in convs.iter().enumerate() {
        y = basic_conv(&y, conv, &format!("{p}_conv{k}"))?;
    }
    Ok(y)
}

fn c(filters: usize, kernel: usize) -> Conv {
    Conv::new(filters, kernel)
}

/// 1×7 (`wide`) or 7×1 convolution with "same" padding.
fn c7(filters: usize, wide: bool) -> Conv {
    if wide {
        Conv::rect(filters, 1, 7).pad2(0, 3)
    } else {
        Conv::rect(filters, 7, 1).pad2(3, 0)
    }
}

/// 1×3 (`wide`) or 3×1 convolution with "same" padding.
fn c3(filters: usize, wide: bool) -> Conv {
    if wide {
        Conv::rect(filters, 1, 3).pad2(0, 1)
    } else {
        Conv::rect(filters, 3, 1).pad2(1, 0)
    }
}

fn avg_same() -> Option<Pool> {
    Some(Pool::avg(3, 1).pad(1))
}

/// Module A (35×35): 1×1; 1×1→5×5; 1×1→3×3→3×3; avg pool→1×1 (`pool_features`).
fn block_a(x: &Symbol, n: &str, pool_features: usize) -> Result<Symbol> {
    let b0 = branch(x, &format!("{n}_b0"), None, &[c(64, 1)])?;
    let b1 = branch(x, &format!("{n}_b1"), None, &[c(48, 1), c(64, 5).pad(2)])?;
    let dbl = [c(64, 1), c(96, 3).pad(1), c(96, 3).pad(1)];
    let b2 = branch(x, &format!("{n}_b2"), None, &dbl)?;
    let b3 = branch(x, &format!("{n}_b3"), avg_same(), &[c(pool_features, 1)])?;
    concat(&[b0, b1, b2, b3], &format!("{n}_concat"))
}

/// Module B (35→17): 3×3/2; 1×1→3×3→3×3/2; 3×3/2 max pool.
fn block_b(x: &Symbol, n: &str) -> Result<Symbol> {
    let b0 = branch(x, &format!("{n}_b0"), None, &[c(384, 3).stride(2)])?;
    let dbl = [c(64, 1), c(96, 3).pad(1), c(96, 3).stride(2)];
    let b1 = branch(x, &format!("{n}_b1"), None, &dbl)?;
    let b2 = branch(x, &format!("{n}_b2"), Some(Pool::max(3, 2)), &[])?;
    concat(&[b0, b1, b2], &format!("{n}_concat"))
}

/// Module C (17×17) with factorized 7×7 convolutions of width `c7x7`.
fn block_c(x: &Symbol, n: &str, c7x7: usize) -> Result<Symbol> {
    let b0 = branch(x, &format!("{n}_b0"), None, &[c(192, 1)])?;
    let b1_convs = [c(c7x7, 1), c7(c7x7, true), c7(192, false)];
    let b1 = branch(x, &format!("{n}_b1"), None, &b1_convs)?;
    let b2_convs = [
        c(c7x7, 1),
        c7(c7x7, false),
        c7(c7x7, true),
        c7(c7x7, false),
        c7(192, true),
    ];
    let b2 = branch(x, &format!("{n}_b2"), None, &b2_convs)?;
    let b3 = branch(x, &format!("{n}_b3"), avg_same(), &[c(192, 1)])?;
    concat(&[b0, b1, b2, b3], &format!("{n}_concat"))
}

/// Module D (17→8): 1×1→3×3/2; 1×1→1×7→7×1→3×3/2; 3×3/2 max pool.
fn block_d(x: &Symbol, n: &str) -> Result<Symbol> {
    let b0 = branch(
        x,
        &format!("{n}_b0"),
        None,
        &[c(192, 1), c(320, 3).stride(2)],
    )?;
    let b1_convs = [
        c(192, 1),
        c7(192, true),
        c7(192, false),
        c(192, 3).stride(2),
    ];
    let b1 = branch(x, &format!("{n}_b1"), None, &b1_convs)?;
    let b2 = branch(x, &format!("{n}_b2"), Some(Pool::max(3, 2)), &[])?;
    concat(&[b0, b1, b2], &format!("{n}_concat"))
}

/// Module E (8×8): the 3×3 branches split into parallel 1×3 and 3×1 convolutions.
fn block_e(x: &Symbol, n: &str) -> Result<Symbol> {
    let b0 = branch(x, &format!("{n}_b0"), None, &[c(320, 1)])?;
    let split = |y: &Symbol, p: &str| -> Result<Symbol> {
        let a = branch(y, &format!("{p}a"), None, &[c3(384, true)])?;
        let b = branch(y, &format!("{p}b"), None, &[c3(384, false)])?;
        concat(&[a, b], &format!("{p}_concat"))
    };
    let b1 = branch(x, &format!("{n}_b1"), None, &[c(384, 1)])?;
    let b1 = split(&b1, &format!("{n}_b1"))?;
    let b2 = branch(x, &format!("{n}_b2"), None, &[c(448, 1), c(384, 3).pad(1)])?;
    let b2 = split(&b2, &format!("{n}_b2"))?;
    let b3 = branch(x, &format!("{n}_b3"), avg_same(), &[c(192, 1)])?;
    concat(&[b0, b1, b2, b3], &format!("{n}_concat"))
}

/// Inception-v3 with `num_classes` outputs.
pub fn inception_v3(num_classes: usize) -> Result<Symbol> {
    let num_classes = check_classes(num_classes)?;
    let x = Symbol::var("data");
    let x = basic_conv(&x, c(32, 3).stride(2), "conv0")?;
    let x = basic_conv(&x, c(32, 3), "conv1")?;
    let x = basic_conv(&x, c(64, 3).pad(1), "conv2")?;
    let x = Pool::max(3, 2).apply(&x, "pool0")?;
    let x = basic_conv(&x, c(80, 1), "conv3")?;
    let x = basic_conv(&x, c(192, 3), "conv4")?;
    let x = Pool::max(3, 2).apply(&x, "pool1")?;
    let x = block_a(&x, "mixed_5b", 32)?;
    let x = block_a(&x, "mixed_5c", 64)?;
    let x = block_a(&x, "mixed_5d", 64)?;
    let x = block_b(&x, "mixed_6a")?;
    let x = block_c(&x, "mixed_6b", 128)?;
    let x = block_c(&x, "mixed_6c", 160)?;
    let x = block_c(&x, "mixed_6d", 160)?;
    let x = block_c(&x, "mixed_6e", 192)?;
    let x = block_d(&x, "mixed_7a")?;
    let x = block_e(&x, "mixed_7b")?;
    let x = block_e(&x, "mixed_7c")?;
    let x = Pool::avg(8, 8).apply(&x, "pool2")?;
    let x = dropout(&x, "dropout", "0.5")?;
    let x = dense(&x, "fc", num_classes)?;
    softmax_output(&x)
}
