//! Layer helpers shared by the zoo: each applies one MXNet operator with its parameters as
//! the string attributes MXNet stores (`kernel="(3, 3)"`, `no_bias="True"`), under an
//! explicit node name, so every learnable argument is named `<node>_<input>`
//! (`stage1_unit1_conv1_weight`).
//!
//! The defaults are Gluon's (`nn.Conv2D`, `nn.BatchNorm`, `nn.Dense`, ...) as exported by
//! MXNet 1.9.1: convolutions have a bias unless told otherwise, BatchNorm learns gamma
//! (`fix_gamma=False`, `eps=1e-5`, `momentum=0.9`), Dense flattens its input.

use kiln_compiler::{Error, Result, Symbol};

/// MXNet's rendering of a 2-D tuple parameter.
fn pair((a, b): (usize, usize)) -> String {
    format!("({a}, {b})")
}

/// Python's rendering of a boolean parameter.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The number of classes of a classifier head; zero is an error, not a panic later.
pub(crate) fn check_classes(num_classes: usize) -> Result<usize> {
    if num_classes == 0 {
        return Err(Error::Input("num_classes must be at least 1".into()));
    }
    Ok(num_classes)
}

/// A 2-D convolution (`Convolution`), Gluon's `nn.Conv2D`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conv {
    filters: usize,
    kernel: (usize, usize),
    stride: (usize, usize),
    pad: (usize, usize),
    groups: usize,
    bias: bool,
}

impl Conv {
    /// A square `kernel × kernel` convolution with stride 1, no padding and a bias.
    pub fn new(filters: usize, kernel: usize) -> Conv {
        Conv::rect(filters, kernel, kernel)
    }

    /// A `kh × kw` convolution (Inception-v3's 1×7 and 7×1 factorizations).
    pub fn rect(filters: usize, kh: usize, kw: usize) -> Conv {
        Conv {
            filters,
            kernel: (kh, kw),
            stride: (1, 1),
            pad: (0, 0),
            groups: 1,
            bias: true,
        }
    }

    pub fn stride(mut self, s: usize) -> Conv {
        self.stride = (s, s);
        self
    }

    pub fn pad(self, p: usize) -> Conv {
        self.pad2(p, p)
    }

    pub fn pad2(mut self, ph: usize, pw: usize) -> Conv {
        self.pad = (ph, pw);
        self
    }

    /// Grouped convolution (`num_group`); `groups == filters` is depthwise.
    pub fn groups(mut self, g: usize) -> Conv {
        self.groups = g;
        self
    }

    pub fn no_bias(mut self) -> Conv {
        self.bias = false;
        self
    }

    pub fn apply(&self, x: &Symbol, name: &str) -> Result<Symbol> {
        Symbol::op("Convolution")
            .name(name)
            .arg(x)
            .attr("kernel", pair(self.kernel))
            .attr("stride", pair(self.stride))
            .attr("pad", pair(self.pad))
            .attr("num_filter", self.filters)
            .attr("num_group", self.groups)
            .attr("no_bias", py_bool(!self.bias))
            .build()
    }
}

/// 2-D pooling (`Pooling`), Gluon's `MaxPool2D` / `AvgPool2D` / `GlobalAvgPool2D`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pool {
    pool_type: &'static str,
    kernel: usize,
    stride: usize,
    pad: usize,
    full: bool,
    global: bool,
}

impl Pool {
    pub fn max(kernel: usize, stride: usize) -> Pool {
        Pool {
            pool_type: "max",
            kernel,
            stride,
            pad: 0,
            full: false,
            global: false,
        }
    }

    pub fn avg(kernel: usize, stride: usize) -> Pool {
        Pool {
            pool_type: "avg",
            ..Pool::max(kernel, stride)
        }
    }

    /// Average over the whole feature map (`global_pool=True`).
    pub fn global_avg() -> Pool {
        Pool {
            global: true,
            ..Pool::avg(1, 1)
        }
    }

    pub fn pad(mut self, p: usize) -> Pool {
        self.pad = p;
        self
    }

    /// Ceil rounding of the output size (`pooling_convention="full"`, Gluon's `ceil_mode`).
    pub fn full(mut self) -> Pool {
        self.full = true;
        self
    }

    pub fn apply(&self, x: &Symbol, name: &str) -> Result<Symbol> {
        let convention = if self.full { "full" } else { "valid" };
        Symbol::op("Pooling")
            .name(name)
            .arg(x)
            .attr("pool_type", self.pool_type)
            .attr("kernel", pair((self.kernel, self.kernel)))
            .attr("stride", pair((self.stride, self.stride)))
            .attr("pad", pair((self.pad, self.pad)))
            .attr("global_pool", py_bool(self.global))
            .attr("pooling_convention", convention)
            .build()
    }
}

/// Batch normalization with Gluon's defaults and the given epsilon.
pub(crate) fn batch_norm_eps(x: &Symbol, name: &str, eps: &str) -> Result<Symbol> {
    Symbol::op("BatchNorm")
        .name(name)
        .arg(x)
        .attr("eps", eps)
        .attr("momentum", "0.9")
        .attr("fix_gamma", "False")
        .build()
}

/// Batch normalization with Gluon's defaults (`eps=1e-5`).
pub(crate) fn batch_norm(x: &Symbol, name: &str) -> Result<Symbol> {
    batch_norm_eps(x, name, "1e-05")
}

/// `Activation` with `act_type` (`relu`, `tanh`, ...).
pub(crate) fn activation(x: &Symbol, name: &str, act_type: &str) -> Result<Symbol> {
    Symbol::op("Activation")
        .name(name)
        .arg(x)
        .attr("act_type", act_type)
        .build()
}

pub(crate) fn relu(x: &Symbol, name: &str) -> Result<Symbol> {
    activation(x, name, "relu")
}

/// A fully connected layer over the flattened input (Gluon's `nn.Dense`).
pub(crate) fn dense(x: &Symbol, name: &str, units: usize) -> Result<Symbol> {
    Symbol::op("FullyConnected")
        .name(name)
        .arg(x)
        .attr("num_hidden", units)
        .build()
}

pub(crate) fn dropout(x: &Symbol, name: &str, p: &str) -> Result<Symbol> {
    Symbol::op("Dropout").name(name).arg(x).attr("p", p).build()
}

pub(crate) fn flatten(x: &Symbol, name: &str) -> Result<Symbol> {
    Symbol::op("Flatten").name(name).arg(x).build()
}

/// Channel concatenation (`Concat`, `dim=1`), Gluon's `HybridConcurrent(axis=1)`.
pub(crate) fn concat(inputs: &[Symbol], name: &str) -> Result<Symbol> {
    Symbol::op("Concat")
        .name(name)
        .args(inputs)
        .attr("dim", 1)
        .build()
}

/// `elemwise_add`, what `a + b` on symbols exports as.
pub(crate) fn add(a: &Symbol, b: &Symbol, name: &str) -> Result<Symbol> {
    Symbol::op("elemwise_add").name(name).arg(a).arg(b).build()
}

/// The classifier loss every zoo model ends with: `SoftmaxOutput` named `softmax`, so
/// the label argument is `softmax_label`.
pub(crate) fn softmax_output(x: &Symbol) -> Result<Symbol> {
    Symbol::op("SoftmaxOutput").name("softmax").arg(x).build()
}
