//! Neural-network operators (FullyConnected, Convolution, Deconvolution, Pooling,
//! UpSampling, norms, RNN, sequence operators, losses, ...). One family per file, each with
//! its own `register()`.
//!
//! Every forward operator here has a symbolic gradient rule. Where the backward pass needs
//! a kernel of its own, the rule applies a backward operator named as MXNet's
//! (`_backward_Convolution`, ...) defined in the same file, with the forward's parameters,
//! inference run through the forward's, and a naive reference kernel; some gradients are
//! composed instead (Dropout's `elemwise_mul` with the forward's mask, SequenceMask and
//! SequenceReverse of the head gradient, bilinear UpSampling through
//! `_backward_Deconvolution`; smooth_l1 is element-wise). Loss operators' rules ignore the
//! head gradient.

mod activation;
mod batch_norm;
mod common;
mod conv;
mod conv_cols;
mod deconv;
mod dropout;
mod fully_connected;
mod l2norm;
mod loss;
mod loss_ops;
mod lrn;
mod norm;
mod pooling;
mod rnn;
mod rnn_cell;
mod sequence;
mod softmax;
mod upsampling;

use crate::Registry;

pub fn register(r: &mut Registry) {
    fully_connected::register(r);
    conv::register(r);
    conv_cols::register(r);
    deconv::register(r);
    pooling::register(r);
    activation::register(r);
    batch_norm::register(r);
    dropout::register(r);
    l2norm::register(r);
    lrn::register(r);
    norm::register(r);
    softmax::register(r);
    loss::register(r);
    loss_ops::register(r);
    sequence::register(r);
    rnn::register(r);
    upsampling::register(r);
}

/// One finite-difference gradient case per differentiable operator of this family (the
/// registry-wide coverage test in `grad.rs` runs them and fails for any operator missing).
#[cfg(test)]
pub(crate) const GRAD_CASES: &[crate::testutil::GradCase] = &[
    (
        "FullyConnected",
        &[("num_hidden", "3")],
        &[&[2, 7], &[3, 7], &[3]],
        false,
        false,
    ),
    (
        "Convolution",
        &[
            ("kernel", "(3, 2)"),
            ("num_filter", "4"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 0)"),
            ("num_group", "2"),
        ],
        &[&[2, 4, 5, 6], &[4, 2, 3, 2], &[4]],
        false,
        false,
    ),
    (
        "Pooling",
        &[
            ("kernel", "(2, 2)"),
            ("pool_type", "avg"),
            ("stride", "(2, 2)"),
        ],
        &[&[2, 3, 5, 5]],
        false,
        false,
    ),
    (
        "LeakyReLU",
        &[("act_type", "elu")],
        &[&[3, 7]],
        false,
        false,
    ),
    (
        "BatchNorm",
        &[("fix_gamma", "False")],
        &[&[3, 2, 3], &[2], &[2], &[2], &[2]],
        false,
        true,
    ),
    ("Dropout", &[("p", "0.3")], &[&[3, 7]], false, true),
    ("LRN", &[("nsize", "3")], &[&[2, 5, 3, 3]], false, false),
    ("softmax", &[("axis", "1")], &[&[3, 4, 2]], false, false),
    ("log_softmax", &[], &[&[3, 7]], false, false),
    (
        "SoftmaxActivation",
        &[("mode", "channel")],
        &[&[2, 3, 4]],
        false,
        false,
    ),
    (
        "Deconvolution",
        &[
            ("kernel", "(3, 2)"),
            ("num_filter", "4"),
            ("num_group", "2"),
            ("stride", "(2, 1)"),
            ("pad", "(1, 0)"),
            ("adj", "(1, 0)"),
            ("no_bias", "False"),
        ],
        &[&[2, 2, 3, 2], &[2, 2, 3, 2], &[4]],
        false,
        false,
    ),
    (
        "LayerNorm",
        &[("axis", "1")],
        &[&[2, 3, 4], &[3], &[3]],
        false,
        false,
    ),
    ("InstanceNorm", &[], &[&[2, 3, 5], &[3], &[3]], false, false),
    (
        "GroupNorm",
        &[("num_groups", "2")],
        &[&[2, 4, 3], &[2], &[2]],
        false,
        false,
    ),
    (
        "L2Normalization",
        &[("mode", "channel")],
        &[&[2, 3, 4]],
        false,
        false,
    ),
    (
        "UpSampling",
        &[
            ("sample_type", "nearest"),
            ("scale", "2"),
            ("num_args", "2"),
        ],
        &[&[1, 2, 2, 3], &[1, 1, 2, 3]],
        false,
        false,
    ),
    ("smooth_l1", &[("scalar", "1.5")], &[&[3, 7]], false, false),
    // Labels in [-1, 1) truncate to class 0: their numeric gradient is 0, as the rule's.
    ("softmax_cross_entropy", &[], &[&[3, 4], &[3]], false, false),
    (
        "RNN",
        &[
            ("mode", "lstm"),
            ("state_size", "2"),
            ("num_layers", "2"),
            ("bidirectional", "True"),
            ("state_outputs", "True"),
        ],
        &[&[3, 2, 2], &[224], &[4, 2, 2], &[4, 2, 2]],
        false,
        true,
    ),
    // Positive inputs: lengths in [0.5, 1.5) truncate to 0 or 1, flat in between.
    (
        "SequenceMask",
        &[("use_sequence_length", "True"), ("value", "2")],
        &[&[4, 3, 2], &[3]],
        true,
        false,
    ),
    (
        "SequenceLast",
        &[("axis", "1")],
        &[&[3, 4, 2]],
        false,
        false,
    ),
    ("SequenceReverse", &[], &[&[4, 3, 1]], false, false),
];

#[cfg(test)]
mod tests {
    use crate::param::parse_value;
    use crate::shape::{checked_size, is_known, Shape};
    use crate::testutil::{attrs, op, run};
    use crate::{DType, Grad, Tensor};

    const NN_OPS: &[&str] = &[
        "FullyConnected",
        "Convolution",
        "Pooling",
        "LeakyReLU",
        "BatchNorm",
        "Dropout",
        "LRN",
        "softmax",
        "log_softmax",
        "SoftmaxActivation",
        "SoftmaxOutput",
        "LinearRegressionOutput",
        "LogisticRegressionOutput",
        "MAERegressionOutput",
        "Deconvolution",
        "LayerNorm",
        "InstanceNorm",
        "GroupNorm",
        "L2Normalization",
        "UpSampling",
        "MakeLoss",
        "softmax_cross_entropy",
        "RNN",
        "SequenceMask",
        "SequenceLast",
        "SequenceReverse",
    ];

    const BACKWARD_OPS: &[&str] = &[
        "_backward_FullyConnected",
        "_backward_Convolution",
        "_backward_Pooling",
        "_backward_LeakyReLU",
        "_backward_BatchNorm",
        "_backward_LRN",
        "_backward_softmax",
        "_backward_log_softmax",
        "_backward_SoftmaxActivation",
        "_backward_SoftmaxOutput",
        "_backward_LinearRegressionOutput",
        "_backward_LogisticRegressionOutput",
        "_backward_MAERegressionOutput",
        "_backward_Deconvolution",
        "_backward_LayerNorm",
        "_backward_InstanceNorm",
        "_backward_GroupNorm",
        "_backward_L2Normalization",
        "_backward_UpSampling",
        "_backward_MakeLoss",
        "_backward_softmax_cross_entropy",
        "_backward_RNN",
        "_backward_SequenceLast",
    ];

    /// Every forward operator has a gradient rule; backward operators have none.
    #[test]
    fn forward_operators_are_differentiable() {
        for name in NN_OPS {
            assert!(matches!(op(name).grad, Grad::Rule(_)), "{name} has no rule");
        }
        for name in BACKWARD_OPS {
            assert!(
                matches!(op(name).grad, Grad::NotDifferentiable),
                "{name} is a backward operator"
            );
        }
        assert!(op("BatchNorm").aux_update.is_some());
        assert!(matches!(op("smooth_l1").grad, Grad::Elemwise));
        assert!(op("MakeLoss").loss);
    }

    #[test]
    fn every_default_parses_and_every_op_is_documented() {
        for name in NN_OPS.iter().chain(BACKWARD_OPS) {
            let o = op(name);
            assert!(!o.doc.is_empty(), "{name} has no doc");
            for p in o.params {
                if let Some(d) = p.default {
                    parse_value(p, d).unwrap_or_else(|e| panic!("{name}: {e}"));
                }
            }
        }
    }

    /// Shape inference never panics, whatever shapes arrive: unknown, partial, wrong rank,
    /// absurdly large (the graph layer bounds sizes). Where it infers every shape of a
    /// small call, the reference kernel run on inputs of those shapes computes outputs of
    /// exactly the inferred shapes.
    #[test]
    fn inference_survives_odd_shapes() {
        let attr_sets: &[(&str, &[(&str, &str)])] = &[
            ("FullyConnected", &[("num_hidden", "3")]),
            (
                "FullyConnected",
                &[("num_hidden", "3"), ("flatten", "False")],
            ),
            (
                "Convolution",
                &[
                    ("kernel", "(3, 3)"),
                    ("num_filter", "4"),
                    ("num_group", "2"),
                ],
            ),
            (
                "Convolution",
                &[("kernel", "(2,)"), ("num_filter", "2"), ("layout", "NWC")],
            ),
            (
                "Pooling",
                &[("kernel", "(2, 2)"), ("pooling_convention", "full")],
            ),
            ("Pooling", &[("global_pool", "True"), ("layout", "NHWC")]),
            ("LeakyReLU", &[("act_type", "prelu")]),
            ("LeakyReLU", &[("act_type", "rrelu")]),
            ("BatchNorm", &[("axis", "-1")]),
            ("Dropout", &[("axes", "(0, 2)")]),
            ("LRN", &[("nsize", "5")]),
            ("softmax", &[("use_length", "True"), ("axis", "1")]),
            ("log_softmax", &[]),
            ("SoftmaxActivation", &[("mode", "channel")]),
            ("SoftmaxOutput", &[("multi_output", "True")]),
            ("SoftmaxOutput", &[]),
            ("LinearRegressionOutput", &[]),
            ("_backward_FullyConnected", &[("num_hidden", "3")]),
            (
                "_backward_FullyConnected",
                &[
                    ("num_hidden", "3"),
                    ("flatten", "False"),
                    ("no_bias", "True"),
                ],
            ),
            (
                "_backward_Convolution",
                &[
                    ("kernel", "(3, 3)"),
                    ("num_filter", "4"),
                    ("num_group", "2"),
                ],
            ),
            (
                "_backward_Convolution",
                &[("kernel", "(2,)"), ("num_filter", "2"), ("layout", "NWC")],
            ),
            (
                "_backward_Pooling",
                &[("kernel", "(2, 2)"), ("pool_type", "avg")],
            ),
            (
                "_backward_Pooling",
                &[("global_pool", "True"), ("layout", "NHWC")],
            ),
            ("_backward_LeakyReLU", &[("act_type", "prelu")]),
            ("_backward_LeakyReLU", &[("act_type", "rrelu")]),
            ("_backward_BatchNorm", &[("axis", "-1")]),
            ("_backward_LRN", &[("nsize", "5")]),
            (
                "_backward_softmax",
                &[("use_length", "True"), ("axis", "1")],
            ),
            ("_backward_softmax", &[("dtype", "float64")]),
            ("_backward_log_softmax", &[]),
            ("_backward_SoftmaxActivation", &[("mode", "channel")]),
            ("_backward_SoftmaxOutput", &[("multi_output", "True")]),
            ("_backward_LinearRegressionOutput", &[]),
            (
                "Deconvolution",
                &[
                    ("kernel", "(3, 3)"),
                    ("num_filter", "4"),
                    ("num_group", "2"),
                    ("stride", "(2, 2)"),
                    ("adj", "(1, 1)"),
                    ("no_bias", "False"),
                ],
            ),
            (
                "Deconvolution",
                &[
                    ("kernel", "(2,)"),
                    ("num_filter", "2"),
                    ("target_shape", "(7,)"),
                    ("stride", "(3,)"),
                ],
            ),
            (
                "Deconvolution",
                &[
                    ("kernel", "(2, 2, 2)"),
                    ("num_filter", "2"),
                    ("layout", "NDHWC"),
                ],
            ),
            (
                "_backward_Deconvolution",
                &[("kernel", "(3, 3)"), ("num_filter", "4"), ("pad", "(1, 1)")],
            ),
            ("LayerNorm", &[("axis", "1")]),
            ("InstanceNorm", &[]),
            ("GroupNorm", &[("num_groups", "2")]),
            ("_backward_LayerNorm", &[]),
            ("_backward_InstanceNorm", &[]),
            ("_backward_GroupNorm", &[("num_groups", "3")]),
            ("L2Normalization", &[("mode", "channel")]),
            ("L2Normalization", &[("mode", "spatial")]),
            ("_backward_L2Normalization", &[("mode", "instance")]),
            (
                "UpSampling",
                &[
                    ("sample_type", "nearest"),
                    ("scale", "3"),
                    ("num_args", "3"),
                ],
            ),
            (
                "UpSampling",
                &[
                    ("sample_type", "nearest"),
                    ("scale", "2"),
                    ("num_args", "2"),
                    ("multi_input_mode", "sum"),
                ],
            ),
            (
                "UpSampling",
                &[
                    ("sample_type", "bilinear"),
                    ("scale", "2"),
                    ("num_args", "2"),
                    ("num_filter", "4"),
                ],
            ),
            (
                "_backward_UpSampling",
                &[
                    ("sample_type", "nearest"),
                    ("scale", "2"),
                    ("num_args", "2"),
                ],
            ),
            ("MakeLoss", &[("normalization", "valid")]),
            ("_backward_MakeLoss", &[("normalization", "batch")]),
            ("smooth_l1", &[("scalar", "2")]),
            ("softmax_cross_entropy", &[]),
            ("_backward_softmax_cross_entropy", &[]),
            (
                "RNN",
                &[
                    ("mode", "lstm"),
                    ("state_size", "4"),
                    ("num_layers", "2"),
                    ("bidirectional", "True"),
                    ("state_outputs", "True"),
                    ("use_sequence_length", "True"),
                ],
            ),
            (
                "RNN",
                &[
                    ("mode", "gru"),
                    ("state_size", "1000000"),
                    ("num_layers", "1000000"),
                ],
            ),
            (
                "_backward_RNN",
                &[
                    ("mode", "rnn_relu"),
                    ("state_size", "3"),
                    ("num_layers", "1"),
                    ("state_outputs", "True"),
                ],
            ),
            (
                "SequenceMask",
                &[("use_sequence_length", "True"), ("axis", "1")],
            ),
            ("SequenceLast", &[("use_sequence_length", "True")]),
            ("SequenceReverse", &[]),
            ("_backward_SequenceLast", &[("use_sequence_length", "True")]),
        ];
        let big = usize::MAX / 2;
        let shapes: &[&[usize]] = &[
            &[],
            &[0],
            &[3],
            &[2, 0],
            &[2, 6],
            &[0, 0, 0],
            &[2, 4, 5],
            &[2, 4, 0, 5],
            &[2, 4, 5, 5],
            &[1, 1, 1, 1, 1],
            &[big, big, big, big],
            &[usize::MAX, usize::MAX, usize::MAX],
            &[1, usize::MAX, usize::MAX, usize::MAX],
            &[2, 4, 5, 5, 5, 5],
        ];
        let mut ran = 0;
        for (name, kv) in attr_sets {
            let o = op(name);
            let a = attrs(o, kv);
            let n_in = o.input_names(&a).len();
            let n_out = o.output_names(&a).0.len();
            for s in shapes {
                for t in shapes {
                    // Data gets `s`; every other input and every output gets `t`.
                    let mut ins = vec![t.to_vec(); n_in];
                    ins[0] = s.to_vec();
                    let mut outs = vec![t.to_vec(); n_out];
                    let inferred = (o.infer_shape)(&a, &mut ins, &mut outs);
                    let _ = (o.cost)(&a, &ins, &outs);
                    let small =
                        |sh: &Shape| is_known(sh) && checked_size(sh).is_some_and(|n| n <= 1000);
                    if inferred.is_err() || !ins.iter().chain(&outs).all(small) {
                        continue;
                    }
                    let call = format!("{name} {kv:?} on {s:?}, {t:?}: {ins:?} -> {outs:?}");
                    let inputs: Vec<Tensor> = ins
                        .iter()
                        .map(|sh| Tensor::full(DType::F64, sh.clone(), 1.0))
                        .collect();
                    let got = run(name, kv, &inputs, false)
                        .unwrap_or_else(|e| panic!("{call}: the reference kernel: {e}"));
                    let got: Vec<&Shape> = got.iter().map(|g| &g.shape).collect();
                    assert_eq!(got, outs.iter().collect::<Vec<_>>(), "{call}");
                    ran += 1;
                }
            }
        }
        // 433 calls when written: most operators infer every shape from several of these.
        assert!(ran >= 400, "only {ran} calls ran on the reference kernel");
    }

    /// Attributes as MXNet 1.x writes them into symbol JSON (model-zoo ResNet, Inception,
    /// SSD), including the ones kiln ignores.
    #[test]
    fn parses_mxnet_json_attributes() {
        let cases: &[(&str, &[(&str, &str)])] = &[
            (
                "Convolution",
                &[
                    ("kernel", "(3, 3)"),
                    ("no_bias", "True"),
                    ("num_filter", "64"),
                    ("pad", "(1, 1)"),
                    ("stride", "(1, 1)"),
                    ("workspace", "256"),
                    ("cudnn_tune", "limited_workspace"),
                    ("cudnn_off", "False"),
                    ("layout", "NCHW"),
                    ("dilate", "(1, 1)"),
                    ("num_group", "1"),
                ],
            ),
            (
                "BatchNorm",
                &[
                    ("eps", "2e-05"),
                    ("fix_gamma", "False"),
                    ("momentum", "0.9"),
                    ("use_global_stats", "False"),
                    ("axis", "1"),
                    ("cudnn_off", "False"),
                    ("output_mean_var", "False"),
                ],
            ),
            (
                "Pooling",
                &[
                    ("global_pool", "True"),
                    ("kernel", "(7, 7)"),
                    ("pool_type", "avg"),
                    ("pooling_convention", "full"),
                    ("stride", "(2, 2)"),
                    ("pad", "(0, 0)"),
                    ("cudnn_off", "False"),
                    ("count_include_pad", "True"),
                    ("p_value", "None"),
                    ("layout", "None"),
                ],
            ),
            (
                "FullyConnected",
                &[("num_hidden", "1000"), ("flatten", "True")],
            ),
            (
                "Dropout",
                &[("p", "0.5"), ("mode", "training"), ("axes", "()")],
            ),
            (
                "LeakyReLU",
                &[
                    ("act_type", "leaky"),
                    ("slope", "0.1"),
                    ("lower_bound", "0.125"),
                ],
            ),
            (
                "LRN",
                &[
                    ("alpha", "0.0001"),
                    ("beta", "0.75"),
                    ("knorm", "2"),
                    ("nsize", "5"),
                ],
            ),
            (
                "softmax",
                &[
                    ("axis", "-1"),
                    ("temperature", "None"),
                    ("dtype", "None"),
                    ("use_length", "False"),
                ],
            ),
            (
                "Softmax",
                &[
                    ("grad_scale", "1"),
                    ("multi_output", "1"),
                    ("normalization", "valid"),
                ],
            ),
            (
                "SoftmaxOutput",
                &[("ignore_label", "-1"), ("use_ignore", "true")],
            ),
            (
                "Deconvolution",
                &[
                    ("adj", "(0, 0)"),
                    ("cudnn_off", "False"),
                    ("cudnn_tune", "None"),
                    ("dilate", "(1, 1)"),
                    ("kernel", "(4, 4)"),
                    ("layout", "None"),
                    ("no_bias", "True"),
                    ("num_filter", "21"),
                    ("num_group", "21"),
                    ("pad", "(0, 0)"),
                    ("stride", "(2, 2)"),
                    ("target_shape", "(0, 0)"),
                    ("workspace", "512"),
                ],
            ),
            (
                "RNN",
                &[
                    ("bidirectional", "False"),
                    ("lstm_state_clip_max", "None"),
                    ("lstm_state_clip_min", "None"),
                    ("lstm_state_clip_nan", "False"),
                    ("mode", "lstm"),
                    ("num_layers", "2"),
                    ("p", "0.0"),
                    ("projection_size", "None"),
                    ("state_outputs", "True"),
                    ("state_size", "200"),
                    ("use_sequence_length", "False"),
                ],
            ),
            (
                "UpSampling",
                &[
                    ("multi_input_mode", "concat"),
                    ("num_args", "1"),
                    ("num_filter", "0"),
                    ("sample_type", "nearest"),
                    ("scale", "2"),
                    ("workspace", "512"),
                ],
            ),
            (
                "LayerNorm",
                &[
                    ("axis", "-1"),
                    ("eps", "1e-05"),
                    ("output_mean_var", "False"),
                ],
            ),
            (
                "MakeLoss",
                &[
                    ("grad_scale", "1.0"),
                    ("normalization", "null"),
                    ("valid_thresh", "0.0"),
                ],
            ),
        ];
        for (name, kv) in cases {
            attrs(op(name), kv);
        }
    }
}
