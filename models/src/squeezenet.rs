//! SqueezeNet as in Gluon's `mxnet.gluon.model_zoo.vision.squeezenet` (Iandola et al.
//! 2016; version 1.1 from the official repository): a stem convolution, eight Fire
//! modules (1×1 squeeze, then parallel 1×1 and 3×3 expands concatenated) with
//! ceil-rounded 3×3/2 max pools between them, dropout 0.5, a 1×1 convolution to the
//! classes, ReLU, 13×13 average pooling and flatten. All convolutions have biases.
//!
//! Names follow the Caffe original: `conv1`, `fire<k>_squeeze1x1`, `fire<k>_expand1x1`,
//! `fire<k>_expand3x3` (each with `_relu`), `fire<k>_concat`, `conv10`.
//! Input `(batch, 3, 224, 224)`.

use crate::layers::{check_classes, concat, dropout, flatten, relu, softmax_output, Conv, Pool};
use kiln_compiler::{Result, Symbol};

/// The two published SqueezeNet versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SqueezeNetVersion {
    /// The paper's network: 7×7/2 stem with 96 filters.
    V1_0,
    /// 2.4× less computation: 3×3/2 stem with 64 filters, pools moved earlier.
    V1_1,
}

/// A convolution followed by ReLU (`<name>` and `<name>_relu`).
fn conv_relu(x: &Symbol, conv: Conv, name: &str) -> Result<Symbol> {
    let x = conv.apply(x, name)?;
    relu(&x, &format!("{name}_relu"))
}

/// Fire module `fire<k>` with squeeze width `s` and both expand widths `e`.
fn fire(x: &Symbol, k: usize, s: usize, e: usize) -> Result<Symbol> {
    let squeezed = conv_relu(x, Conv::new(s, 1), &format!("fire{k}_squeeze1x1"))?;
    let e1 = conv_relu(&squeezed, Conv::new(e, 1), &format!("fire{k}_expand1x1"))?;
    let e3 = conv_relu(
        &squeezed,
        Conv::new(e, 3).pad(1),
        &format!("fire{k}_expand3x3"),
    )?;
    concat(&[e1, e3], &format!("fire{k}_concat"))
}

/// One step of the feature extractor.
enum Step {
    MaxPool,
    /// A Fire module: squeeze and expand widths.
    Fire(usize, usize),
}

/// SqueezeNet `version` with `num_classes` outputs.
pub fn squeezenet(version: SqueezeNetVersion, num_classes: usize) -> Result<Symbol> {
    use Step::{Fire, MaxPool};
    let num_classes = check_classes(num_classes)?;
    let (stem, steps) = match version {
        SqueezeNetVersion::V1_0 => (
            Conv::new(96, 7).stride(2),
            vec![
                MaxPool,
                Fire(16, 64),
                Fire(16, 64),
                Fire(32, 128),
                MaxPool,
                Fire(32, 128),
                Fire(48, 192),
                Fire(48, 192),
                Fire(64, 256),
                MaxPool,
                Fire(64, 256),
            ],
        ),
        SqueezeNetVersion::V1_1 => (
            Conv::new(64, 3).stride(2),
            vec![
                MaxPool,
                Fire(16, 64),
                Fire(16, 64),
                MaxPool,
                Fire(32, 128),
                Fire(32, 128),
                MaxPool,
                Fire(48, 192),
                Fire(48, 192),
                Fire(64, 256),
                Fire(64, 256),
            ],
        ),
    };
    let mut x = conv_relu(&Symbol::var("data"), stem, "conv1")?;
    // Caffe numbering: fire2..fire9; a pool takes the number of the layer before it.
    let mut k = 1;
    for step in steps {
        x = match step {
            MaxPool => Pool::max(3, 2).full().apply(&x, &format!("pool{k}"))?,
            Fire(s, e) => {
                k += 1;
                fire(&x, k, s, e)?
            }
        };
    }
    let x = dropout(&x, "drop9", "0.5")?;
    let x = conv_relu(&x, Conv::new(num_classes, 1), "conv10")?;
    let x = Pool::avg(13, 13).apply(&x, "pool10")?;
    let x = flatten(&x, "flatten")?;
    softmax_output(&x)
}
