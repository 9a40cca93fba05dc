//! RNN: MXNet's fused multi-layer recurrent network (LSTM, GRU, vanilla tanh/relu), one
//! or two directions, over (T, N, I) data with one flat parameter vector.
//!
//! As MXNet 1.9.1's CPU implementation (and cuDNN's packing): `parameters` holds all
//! weights, then all biases. Weights, per layer and then per direction: W_x (G·H, I_l)
//! and W_h (G·H, H), I_0 = I and I_l = D·H above; biases in the same order: b_x (G·H) and
//! b_h (G·H). Gates: LSTM i, f, g, o (`c = f·c + i·g`, `h = o·tanh(c)`); GRU r, z, n
//! (`n = tanh(x_n + b_xn + r·(W_hn·h + b_hn))`, `h = (1 − z)·n + z·h`); G = 4, 3, 1.
//! Inputs data, parameters, state (L·D, N, H), state_cell (LSTM) and, with
//! use_sequence_length, sequence_length (N,); outputs (T, N, D·H), then the final state
//! and cell (state_outputs). The reverse direction reads the sequence backwards, and its
//! output fills the second half of the features.
//!
//! Beyond MXNet's CPU (which needs cuDNN for them): use_sequence_length (each sequence
//! stops at its length, truncated and clamped to [0, T]; later outputs are 0 and the final
//! state is the one at its last step) and LSTM state clipping (`c` clamped to
//! [lstm_state_clip_min, lstm_state_clip_max]; with lstm_state_clip_nan a NaN becomes the
//! maximum, as cuDNN's clip without NaN propagation). Dropout between layers (p > 0) is
//! applied only in training, and kiln refuses it there; projection_size is refused.
//!
//! The gradient is `_backward_RNN` (as MXNet): backpropagation through time in the
//! reference kernel, for data, parameters and the initial states; lengths get none. The
//! cells, the forward pass and the backpropagation live in `rnn_cell.rs`.

use super::common::{elems, flops, rank_error, strings, Through};
use super::rnn_cell::{backward, forward, mode, Mode, Net, Problem, OP};
use crate::param::{param, ParamDef, ParamType};
use crate::shape::{invalid, set_in, set_out, OpError, Shape};
use crate::{
    Attrs, Compute, Grad, GradCtx, GradGraph, Handle, Inputs, KernelCtx, OpDef, Outputs, Pattern,
    Registry, Tensor,
};

const RNN_PARAMS: &[ParamDef] = &[
    param("state_size", ParamType::Int, None, "hidden size H"),
    param(
        "num_layers",
        ParamType::Int,
        None,
        "number of stacked layers L",
    ),
    param(
        "bidirectional",
        ParamType::Bool,
        Some("False"),
        "a second, backward direction per layer",
    ),
    param(
        "mode",
        ParamType::Enum(&["gru", "lstm", "rnn_relu", "rnn_tanh"]),
        None,
        "the recurrent cell",
    ),
    param(
        "p",
        ParamType::Float,
        Some("0.0"),
        "dropout between layers in training (only 0 is supported in training)",
    ),
    param(
        "state_outputs",
        ParamType::Bool,
        Some("False"),
        "also output the final state (and cell, LSTM)",
    ),
    param(
        "projection_size",
        ParamType::OptInt,
        Some("None"),
        "LSTM projection (not supported)",
    ),
    param(
        "lstm_state_clip_min",
        ParamType::OptFloat,
        Some("None"),
        "lower clip of the LSTM cell state",
    ),
    param(
        "lstm_state_clip_max",
        ParamType::OptFloat,
        Some("None"),
        "upper clip of the LSTM cell state",
    ),
    param(
        "lstm_state_clip_nan",
        ParamType::Bool,
        Some("False"),
        "clipping turns NaN cell states into the maximum",
    ),
    param(
        "use_sequence_length",
        ParamType::Bool,
        Some("False"),
        "take a `sequence_length` input (N,)",
    ),
];

static RNN: OpDef = OpDef {
    aliases: &["_npx_rnn"],
    doc: "Fused multi-layer RNN (lstm, gru, rnn_tanh, rnn_relu; bidirectional) over (T, N, I) \
          data: parameters is the flat cuDNN-ordered vector (all W_x, W_h per layer and \
          direction, then all b_x, b_h), of size Σ_l D·(G·H·(I_l + H) + 2·G·H); state (and \
          state_cell for LSTM) is (L·D, N, H). Output (T, N, D·H), and with state_outputs the \
          final state and cell.",
    params: RNN_PARAMS,
    inputs: Inputs::Dynamic(rnn_inputs),
    outputs: Outputs::Dynamic(rnn_outputs),
    infer_shape: rnn_shape,
    inplace: &[],
    cost: rnn_cost,
    grad: Grad::Rule(rnn_grad),
    ..OpDef::new(
        OP,
        Pattern::Opaque,
        Compute::Library {
            kernel: "rnn",
            reference: rnn_ref,
        },
    )
};

fn rnn_inputs(a: &Attrs) -> Vec<String> {
    let mut v = strings(&["data", "parameters", "state"]);
    if mode(a) == Mode::Lstm {
        v.push("state_cell".into());
    }
    if a.bool("use_sequence_length") {
        v.push("sequence_length".into());
    }
    v
}

fn rnn_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let mut v = strings(&["output"]);
    if a.bool("state_outputs") {
        v.push("state_output".into());
        if mode(a) == Mode::Lstm {
            v.push("statecell_output".into());
        }
    }
    let n = v.len();
    (v, n)
}

fn rnn_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let net = Net::new(a)?;
    let (lstm, with_len) = (net.mode == Mode::Lstm, a.bool("use_sequence_length"));
    let (h, ld) = (net.hidden, net.layers * net.dirs);
    if !ins[0].is_empty() && ins[0].len() != 3 {
        return rank_error(OP, "data", "3-D (sequence, batch, input)", &ins[0]);
    }
    let mut d = if ins[0].is_empty() {
        vec![0; 3]
    } else {
        ins[0].clone()
    };
    // Sequence and batch from the output, batch from the states and lengths, the input
    // size from the parameters.
    if let [t, n, _] = outs[0].as_slice() {
        d[0] = if d[0] == 0 { *t } else { d[0] };
        d[1] = if d[1] == 0 { *n } else { d[1] };
    }
    let state_slots = if lstm { 2..4 } else { 2..3 };
    for i in state_slots.clone() {
        if let [_, n, _] = ins[i].as_slice() {
            d[1] = if d[1] == 0 { *n } else { d[1] };
        }
    }
    if let (true, Some(&[n])) = (with_len, ins.last().map(Vec::as_slice)) {
        d[1] = if d[1] == 0 { n } else { d[1] };
    }
    if let (0, [p]) = (d[2], ins[1].as_slice()) {
        match net.input_for(*p) {
            Some(i) => d[2] = i,
            None => {
                return invalid(format!(
                    "{OP}: no input size gives {p} parameters for {} layer(s) of {} \
                     direction(s) with state_size {h} ({})",
                    net.layers,
                    net.dirs,
                    a.str("mode")
                ))
            }
        }
    }
    if d[2] != 0 {
        set_in(ins, 1, &[net.param_size(d[2])])?;
    }
    for i in state_slots {
        set_in(ins, i, &[ld, d[1], h])?;
    }
    if with_len {
        let last = ins.len() - 1;
        set_in(ins, last, &[d[1]])?;
    }
    set_out(outs, 0, &[d[0], d[1], net.dirs * h])?;
    for i in 1..outs.len() {
        set_out(outs, i, &[ld, d[1], h])?;
    }
    if d.iter().any(|&x| x != 0) {
        set_in(ins, 0, &d)?;
    }
    Ok(())
}

/// Two FLOPs per multiply-add of the input and recurrent products, per step.
fn rnn_cost(_: &Attrs, ins: &[Shape], _: &[Shape]) -> u64 {
    match ins {
        [d, p, ..] if d.len() == 3 => flops(&[2, d[0] as u64, d[1] as u64, elems(p)]),
        _ => 0,
    }
}

fn rnn_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let pb = Problem::new(ctx.attrs, ins)?;
    check_dropout(ctx)?;
    let f = forward(&pb);
    let dtype = ins[0].dtype;
    let mut outs = vec![Tensor {
        dtype,
        shape: ctx.out_shapes[0].clone(),
        data: f.out,
    }];
    for (i, data) in [f.hy, f.cy].into_iter().enumerate() {
        if let Some(s) = ctx.out_shapes.get(1 + i) {
            outs.push(Tensor {
                dtype,
                shape: s.clone(),
                data,
            });
        }
    }
    Ok(outs)
}

fn check_dropout(ctx: &KernelCtx) -> Result<(), OpError> {
    let p = ctx.attrs.float("p");
    if ctx.is_train && p > 0.0 && ctx.attrs.int("num_layers") > 1 {
        return invalid(format!(
            "{OP}: dropout between layers (p={p}) in training is not supported"
        ));
    }
    Ok(())
}

fn rnn_grad(g: &mut dyn GradGraph, ctx: &GradCtx) -> Result<Vec<Option<Handle>>, OpError> {
    let mut args = ctx.inputs.to_vec();
    args.extend_from_slice(ctx.out_grads);
    let grads = g.op("_backward_RNN", &args, ctx.raw_attrs)?;
    let n = grads.len();
    Ok(grads
        .into_iter()
        .map(Some)
        .chain((n..ctx.inputs.len()).map(|_| None))
        .collect())
}

static RNN_BACKWARD: OpDef = OpDef {
    doc: "Gradient of RNN by backpropagation through time: from the forward's inputs and the \
          head gradients of its outputs (output, then state and cell with state_outputs), the \
          gradients of data, parameters, state and (LSTM) state_cell; sequence lengths get \
          none. Takes the forward's parameters.",
    params: RNN_PARAMS,
    inputs: Inputs::Dynamic(rnn_backward_inputs),
    outputs: Outputs::Dynamic(rnn_backward_outputs),
    infer_shape: rnn_backward_shape,
    inplace: &[],
    cost: |a, ins, outs| rnn_cost(a, ins, outs).saturating_mul(2),
    grad: Grad::NotDifferentiable,
    ..OpDef::new(
        "_backward_RNN",
        Pattern::Opaque,
        Compute::Library {
            kernel: "rnn_backward",
            reference: rnn_backward_ref,
        },
    )
};

fn rnn_backward_inputs(a: &Attrs) -> Vec<String> {
    let mut v = rnn_inputs(a);
    v.extend(rnn_outputs(a).0.iter().map(|o| format!("ograd_{o}")));
    v
}

fn rnn_backward_outputs(a: &Attrs) -> (Vec<String>, usize) {
    let mut v = strings(&["data_grad", "parameters_grad", "state_grad"]);
    if mode(a) == Mode::Lstm {
        v.push("state_cell_grad".into());
    }
    let n = v.len();
    (v, n)
}

fn rnn_backward_shape(a: &Attrs, ins: &mut [Shape], outs: &mut [Shape]) -> Result<(), OpError> {
    let n_in = rnn_inputs(a).len();
    let n_out = rnn_outputs(a).0.len();
    if ins.len() != n_in + n_out {
        return invalid(format!(
            "_backward_{OP}: expected {} inputs, got {}",
            n_in + n_out,
            ins.len()
        ));
    }
    let inputs: Vec<Option<usize>> = (0..n_in).map(Some).collect();
    let heads: Vec<[usize; 1]> = (0..n_out).map(|o| [n_in + o]).collect();
    let outputs: Vec<&[usize]> = heads.iter().map(|h| h.as_slice()).collect();
    let grads: Vec<usize> = (0..outs.len()).collect();
    let through = Through {
        inputs: &inputs,
        outputs: &outputs,
        grads: &grads,
    };
    through.shapes(rnn_shape, a, ins, outs)
}

fn rnn_backward_ref(ctx: &KernelCtx, ins: &[&Tensor]) -> Result<Vec<Tensor>, OpError> {
    let a = ctx.attrs;
    let n_in = rnn_inputs(a).len();
    let pb = Problem::new(a, ins)?;
    check_dropout(ctx)?;
    let heads = &ins[n_in..];
    let head = |i: usize| heads.get(i).map_or(&[][..], |t| t.data.as_slice());
    let g = backward(&pb, head(0), head(1), head(2));
    let like = |t: &Tensor, data| Tensor { data, ..t.clone() };
    let mut grads = vec![
        like(ins[0], g.data),
        like(ins[1], g.params),
        like(ins[2], g.state),
    ];
    if pb.net.mode == Mode::Lstm {
        grads.push(like(ins[3], g.state_cell));
    }
    Ok(grads)
}

pub fn register(r: &mut Registry) {
    r.add(&RNN);
    r.add(&RNN_BACKWARD);
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use crate::Tensor;

    fn kv(
        mode: &'static str,
        layers: &'static str,
        extra: &[(&'static str, &'static str)],
    ) -> Vec<(&'static str, &'static str)> {
        let mut v = vec![("mode", mode), ("state_size", "2"), ("num_layers", layers)];
        v.extend_from_slice(extra);
        v
    }

    #[test]
    fn parameter_size_formula_both_ways() {
        // LSTM, 2 layers, H 4, I 3: 4·4·(3+4) + 32 + 4·4·(4+4) + 32 = 304 (MXNet's).
        let a = [("mode", "lstm"), ("state_size", "4"), ("num_layers", "2")];
        let (ins, outs) = infer("RNN", &a, &[&[5, 2, 3]]).unwrap();
        assert_eq!(ins[1..], [vec![304], vec![2, 2, 4], vec![2, 2, 4]]);
        assert_eq!(outs, vec![vec![5, 2, 4]]);
        // Bidirectional GRU with state outputs: 552 (MXNet's).
        let a = [
            ("mode", "gru"),
            ("state_size", "4"),
            ("num_layers", "2"),
            ("bidirectional", "True"),
            ("state_outputs", "True"),
        ];
        let (ins, outs) = infer("RNN", &a, &[&[5, 2, 3]]).unwrap();
        assert_eq!(ins[1..], [vec![552], vec![4, 2, 4]]);
        assert_eq!(outs, vec![vec![5, 2, 8], vec![4, 2, 4]]);
        // rnn_tanh, 3 bidirectional layers: 296; and the input size back from it.
        let a = [
            ("mode", "rnn_tanh"),
            ("state_size", "4"),
            ("num_layers", "3"),
            ("bidirectional", "1"),
        ];
        let (ins, _) = infer("RNN", &a, &[&[5, 2, 3]]).unwrap();
        assert_eq!(ins[1], vec![296]);
        let (ins, _) = infer_both("RNN", &a, &[&[], &[296]], &[&[5, 2, 8]]).unwrap();
        assert_eq!(ins[0], vec![5, 2, 3]);
        assert_eq!(
            infer_err("RNN", &a, &[&[], &[297]]),
            "RNN: no input size gives 297 parameters for 3 layer(s) of 2 direction(s) with \
             state_size 4 (rnn_tanh)"
        );
        // Lengths (N,) when use_sequence_length.
        let a = kv("lstm", "1", &[("use_sequence_length", "True")]);
        let (ins, _) = infer("RNN", &a, &[&[5, 3, 2]]).unwrap();
        assert_eq!(ins.len(), 5);
        assert_eq!(ins[4], vec![3]);
    }

    #[test]
    fn reports_bad_configurations() {
        assert_eq!(
            infer_err("RNN", &kv("lstm", "1", &[]), &[&[5, 3]]),
            "RNN: `data` must be 3-D (sequence, batch, input), got shape (5, 3)"
        );
        assert_eq!(
            infer_err("RNN", &kv("lstm", "0", &[]), &[&[5, 3, 2]]),
            "RNN: `num_layers` must be in [1, 1048576], got 0"
        );
        assert_eq!(
            infer_err(
                "RNN",
                &kv("lstm", "1", &[("projection_size", "1")]),
                &[&[5, 3, 2]]
            ),
            "RNN: projection_size=1 is not supported (MXNet supports it with cuDNN only)"
        );
        assert_eq!(
            infer_err("RNN", &kv("gru", "1", &[]), &[&[5, 3, 2], &[10]]),
            "input `parameters` has shape (10,) but (36,) is required"
        );
        assert_eq!(
            infer_err("RNN", &kv("gru", "2", &[]), &[&[5, 3, 2], &[], &[2, 3, 3]]),
            "input `state` has shape (2, 3, 3) but (2, 3, 2) is required"
        );
        // H 2, I 1: (2·3 + 4) + (2·4 + 4) = 22 parameters.
        let x = randn(&[2, 1, 1], 1);
        let p = randn(&[22], 2);
        let s = randn(&[2, 1, 2], 3);
        let a = kv("rnn_tanh", "2", &[("p", "0.5")]);
        assert!(
            run("RNN", &a, &[&x, &p, &s], false).is_ok(),
            "inference ignores p"
        );
        assert_eq!(
            message(run("RNN", &a, &[&x, &p, &s], true)),
            "RNN: dropout between layers (p=0.5) in training is not supported"
        );
    }

    #[test]
    fn single_step_by_hand() {
        // One step, H = 1, I = 1: weights then biases (W_x, W_h, b_x, b_h).
        let x = t(&[1, 1, 1], vec![0.5]);
        let h0 = t(&[1, 1, 1], vec![-1.]);
        let a = [
            ("mode", "rnn_tanh"),
            ("state_size", "1"),
            ("num_layers", "1"),
        ];
        let p = t(&[4], vec![2., 3., 0.25, -0.5]);
        let out = run("RNN", &a, &[&x, &p, &h0], false).unwrap();
        // tanh(2·0.5 + 0.25 + 3·(−1) − 0.5)
        assert_close(&out[0].data, &[(-2.25f64).tanh()], 1e-15);
        // LSTM: gates i f g o from rows 0..4 of W_x (all 1), W_h 0, biases 0 and 1.
        let a = [
            ("mode", "lstm"),
            ("state_size", "1"),
            ("num_layers", "1"),
            ("state_outputs", "True"),
        ];
        let mut pv = vec![1., 1., 1., 1., 0., 0., 0., 0.];
        pv.extend([0.; 4]);
        pv.extend([1.; 4]);
        let p = t(&[16], pv);
        let c0 = t(&[1, 1, 1], vec![2.]);
        let out = run("RNN", &a, &[&x, &p, &h0, &c0], false).unwrap();
        let s = 1.0 / (1.0 + (-1.5f64).exp()); // σ(0.5 + 1)
        let c = s * 2. + s * 1.5f64.tanh();
        assert_close(&out[2].data, &[c], 1e-15);
        assert_close(&out[0].data, &[s * c.tanh()], 1e-15);
        assert_eq!(out[1].data, out[0].data);
        // GRU: r, z, n with W_h = 1 so r gates the recurrent part of n.
        let a = [("mode", "gru"), ("state_size", "1"), ("num_layers", "1")];
        let p = t(&[12], vec![1., 1., 1., 1., 1., 1., 0., 0., 0., 0., 0., 0.]);
        let out = run("RNN", &a, &[&x, &p, &h0], false).unwrap();
        let r = 1.0 / (1.0 + (0.5f64).exp()); // σ(0.5 − 1)
        let n = (0.5 - r).tanh();
        assert_close(&out[0].data, &[(1. - r) * n - r], 1e-15);
    }

    #[test]
    fn bidirectional_reverse_reads_backwards_and_lengths_stop_early() {
        // rnn_relu with W_x = 1, W_h = 1, no bias: forward = running sum, reverse = suffix
        // sum (for non-negative data).
        let x = t(&[3, 1, 1], vec![1., 2., 3.]);
        let h0 = t(&[2, 1, 1], vec![0., 0.]);
        let a = [
            ("mode", "rnn_relu"),
            ("state_size", "1"),
            ("num_layers", "1"),
            ("bidirectional", "True"),
            ("state_outputs", "True"),
        ];
        let p = t(&[8], vec![1., 1., 1., 1., 0., 0., 0., 0.]);
        let out = run("RNN", &a, &[&x, &p, &h0], false).unwrap();
        assert_eq!(out[0].data, vec![1., 6., 3., 5., 6., 3.]);
        assert_eq!(out[1].data, vec![6., 6.]);
        // Length 2: the third step is 0, the reverse direction starts at step 1.
        let mut a = a.to_vec();
        a.push(("use_sequence_length", "True"));
        let len = t(&[1], vec![2.]);
        let out = run("RNN", &a, &[&x, &p, &h0, &len], false).unwrap();
        assert_eq!(out[0].data, vec![1., 3., 3., 2., 0., 0.]);
        assert_eq!(out[1].data, vec![3., 3.]);
    }

    #[test]
    fn lstm_clipping() {
        let x = t(&[1, 1, 1], vec![3.]);
        let h0 = t(&[1, 1, 1], vec![0.]);
        let c0 = t(&[1, 1, 1], vec![5.]);
        let mut pv = vec![1.; 4];
        pv.extend([0.; 12]);
        let p = t(&[16], pv);
        // All gates see 3: c = σ(3)·5 + σ(3)·tanh(3) ≈ 5.71, clipped to 1.5.
        let a = [
            ("mode", "lstm"),
            ("state_size", "1"),
            ("num_layers", "1"),
            ("state_outputs", "True"),
            ("lstm_state_clip_min", "-1"),
            ("lstm_state_clip_max", "1.5"),
        ];
        let out = run("RNN", &a, &[&x, &p, &h0, &c0], false).unwrap();
        assert_eq!(out[2].data, vec![1.5]);
    }

    fn inputs(mode: &str, layers: usize, dirs: usize, t_n_i: [usize; 3], p: usize) -> Vec<Tensor> {
        let h = 2;
        let mut w = randn(&[p], 2);
        w.data.iter_mut().for_each(|v| *v *= 0.8);
        let mut v = vec![randn(&t_n_i, 1), w, randn(&[layers * dirs, t_n_i[1], h], 3)];
        if mode == "lstm" {
            v.push(randn(&[layers * dirs, t_n_i[1], h], 4));
        }
        v
    }

    /// The parameter count for H = 2 and input size `i`.
    fn params(
        mode: &'static str,
        layers: &'static str,
        extra: &[(&'static str, &'static str)],
        i: usize,
    ) -> usize {
        let (ins, _) = infer("RNN", &kv(mode, layers, extra), &[&[3, 2, i]]).unwrap();
        ins[1][0]
    }

    #[test]
    fn gradients_match_finite_differences() {
        for mode in ["lstm", "gru", "rnn_tanh", "rnn_relu"] {
            // One layer, state outputs.
            let extra = [("state_outputs", "True")];
            let m = mode;
            let p = params(mode, "1", &extra, 3);
            let ins = inputs(mode, 1, 1, [3, 2, 3], p);
            check_grad("RNN", &kv(m, "1", &extra), &ins, false, &[]);
            // Two bidirectional layers, a single step of batch 1.
            let extra = [("bidirectional", "True"), ("state_outputs", "True")];
            let p = params(mode, "2", &extra, 1);
            let ins = inputs(mode, 2, 2, [1, 1, 1], p);
            check_grad("RNN", &kv(m, "2", &extra), &ins, true, &[]);
        }
        // Two bidirectional GRU layers over 7 steps, no state outputs.
        let extra = [("bidirectional", "True")];
        let p = params("gru", "2", &extra, 3);
        let ins = inputs("gru", 2, 2, [7, 1, 3], p);
        check_grad("RNN", &kv("gru", "2", &extra), &ins, false, &[]);
        // Lengths (2, 0, 3) and clipping.
        let extra = [
            ("bidirectional", "True"),
            ("state_outputs", "True"),
            ("use_sequence_length", "True"),
            ("lstm_state_clip_min", "-0.3"),
            ("lstm_state_clip_max", "0.4"),
        ];
        let p = params("lstm", "1", &extra, 2);
        let mut ins = inputs("lstm", 1, 2, [3, 3, 2], p);
        ins.push(t(&[3], vec![2., 0., 3.]));
        check_grad("RNN", &kv("lstm", "1", &extra), &ins, false, &[4]);
        let g = analytic_grad("RNN", &kv("lstm", "1", &extra), &ins, &[], false).unwrap();
        assert!(g[4].is_none(), "lengths get no gradient");
    }
}
