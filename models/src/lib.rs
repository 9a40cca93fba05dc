//! kiln-models: the model zoo as [`Symbol`] builders.
//!
//! Each family lives in its own module and follows one MXNet definition — Gluon's
//! `mxnet.gluon.model_zoo.vision` where it has the network, otherwise MXNet's
//! `example/image-classification/symbols` — with the same operators, in the same order,
//! and the same parameter shapes (the `zoo` integration test checks this against MXNet
//! 1.9.1 exports). Node names are readable MXNet/Gluon-style prefixes (`conv0_weight`,
//! `stage1_unit1_bn1_gamma`), not Gluon's exact auto-generated names.
//!
//! Every model reads the variable `data` and ends with a `SoftmaxOutput` named `softmax`,
//! so its arguments end with `softmax_label`. Builders never panic on bad arguments (an
//! unsupported depth, zero classes): they return an error.
//!
//! ```
//! let net = kiln_models::get("resnet18_v1").unwrap();
//! assert!(net.list_arguments().contains(&"softmax_label".to_string()));
//! ```

mod alexnet;
mod densenet;
mod googlenet;
mod inception_bn;
mod inception_v3;
mod layers;
mod lenet;
mod mlp;
mod mobilenet;
mod resnet;
mod squeezenet;
mod vgg;
pub mod weights;

pub use alexnet::alexnet;
pub use densenet::densenet;
pub use googlenet::googlenet;
pub use inception_bn::inception_bn;
pub use inception_v3::inception_v3;
pub use lenet::lenet;
pub use mlp::mlp;
pub use mobilenet::mobilenet;
pub use resnet::resnet_v1;
pub use squeezenet::{squeezenet, SqueezeNetVersion};
pub use vgg::vgg;

use kiln_compiler::{Error, Result, Symbol};

/// A zoo entry: a name, its default input shape (batch 1) and number of classes.
#[derive(Clone, Copy)]
pub struct ModelInfo {
    /// The registry name, as Gluon's `get_model` spells it where Gluon has the model.
    pub name: &'static str,
    /// The shape of `data` the network is designed for, with batch size 1.
    pub input_shape: &'static [usize],
    /// Classes of the default classifier head.
    pub num_classes: usize,
    builder: fn(usize) -> Result<Symbol>,
}

impl ModelInfo {
    /// Builds the network with its default number of classes.
    pub fn build(&self) -> Result<Symbol> {
        (self.builder)(self.num_classes)
    }

    /// Builds the network with `num_classes` outputs.
    pub fn build_with_classes(&self, num_classes: usize) -> Result<Symbol> {
        (self.builder)(num_classes)
    }
}

impl std::fmt::Debug for ModelInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelInfo")
            .field("name", &self.name)
            .field("input_shape", &self.input_shape)
            .field("num_classes", &self.num_classes)
            .finish()
    }
}

const IMAGENET: &[usize] = &[1, 3, 224, 224];

const fn entry(
    name: &'static str,
    input_shape: &'static [usize],
    num_classes: usize,
    builder: fn(usize) -> Result<Symbol>,
) -> ModelInfo {
    ModelInfo {
        name,
        input_shape,
        num_classes,
        builder,
    }
}

static ZOO: &[ModelInfo] = &[
    entry("mlp", &[1, 784], 10, mlp),
    entry("lenet", &[1, 1, 28, 28], 10, lenet),
    entry("alexnet", IMAGENET, 1000, alexnet),
    entry("vgg11", IMAGENET, 1000, |c| vgg(11, false, c)),
    entry("vgg13", IMAGENET, 1000, |c| vgg(13, false, c)),
    entry("vgg16", IMAGENET, 1000, |c| vgg(16, false, c)),
    entry("vgg19", IMAGENET, 1000, |c| vgg(19, false, c)),
    entry("vgg11_bn", IMAGENET, 1000, |c| vgg(11, true, c)),
    entry("vgg13_bn", IMAGENET, 1000, |c| vgg(13, true, c)),
    entry("vgg16_bn", IMAGENET, 1000, |c| vgg(16, true, c)),
    entry("vgg19_bn", IMAGENET, 1000, |c| vgg(19, true, c)),
    entry("googlenet", IMAGENET, 1000, googlenet),
    entry("inception_bn", IMAGENET, 1000, inception_bn),
    entry("resnet18_v1", IMAGENET, 1000, |c| resnet_v1(18, c)),
    entry("resnet34_v1", IMAGENET, 1000, |c| resnet_v1(34, c)),
    entry("resnet50_v1", IMAGENET, 1000, |c| resnet_v1(50, c)),
    entry("resnet101_v1", IMAGENET, 1000, |c| resnet_v1(101, c)),
    entry("resnet152_v1", IMAGENET, 1000, |c| resnet_v1(152, c)),
    entry("inception_v3", &[1, 3, 299, 299], 1000, inception_v3),
    entry("mobilenet1.0", IMAGENET, 1000, |c| mobilenet(1.0, c)),
    entry("mobilenet0.75", IMAGENET, 1000, |c| mobilenet(0.75, c)),
    entry("mobilenet0.5", IMAGENET, 1000, |c| mobilenet(0.5, c)),
    entry("mobilenet0.25", IMAGENET, 1000, |c| mobilenet(0.25, c)),
    entry("squeezenet1.0", IMAGENET, 1000, |c| {
        squeezenet(SqueezeNetVersion::V1_0, c)
    }),
    entry("squeezenet1.1", IMAGENET, 1000, |c| {
        squeezenet(SqueezeNetVersion::V1_1, c)
    }),
    entry("densenet121", IMAGENET, 1000, |c| densenet(121, c)),
    entry("densenet161", IMAGENET, 1000, |c| densenet(161, c)),
    entry("densenet169", IMAGENET, 1000, |c| densenet(169, c)),
    entry("densenet201", IMAGENET, 1000, |c| densenet(201, c)),
];

/// Every model of the zoo, in a stable order.
pub fn zoo() -> &'static [ModelInfo] {
    ZOO
}

/// The zoo entry called `name`; the error lists every known name.
pub fn info(name: &str) -> Result<&'static ModelInfo> {
    ZOO.iter().find(|m| m.name == name).ok_or_else(|| {
        let known: Vec<&str> = ZOO.iter().map(|m| m.name).collect();
        Error::Input(format!(
            "unknown model `{name}`; the zoo has: {}",
            known.join(", ")
        ))
    })
}

/// Builds the model called `name` with its default number of classes.
pub fn get(name: &str) -> Result<Symbol> {
    info(name)?.build()
}

/// Builds the model called `name` with `num_classes` outputs.
pub fn get_with_classes(name: &str, num_classes: usize) -> Result<Symbol> {
    info(name)?.build_with_classes(num_classes)
}
