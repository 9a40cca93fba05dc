//! The arithmetic of RNN's reference kernels: the cells (LSTM, GRU, vanilla tanh/relu),
//! the layer-by-layer forward pass over every sequence, and backpropagation through time.
//! Layout and semantics are described in `rnn.rs`.

use super::common::rank_error;
use crate::shape::{invalid, OpError};
use crate::{Attrs, Tensor};

pub(super) const OP: &str = "RNN";

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Mode {
    Lstm,
    Gru,
    Tanh,
    Relu,
}

pub(super) fn mode(a: &Attrs) -> Mode {
    match a.str("mode") {
        "lstm" => Mode::Lstm,
        "gru" => Mode::Gru,
        "rnn_tanh" => Mode::Tanh,
        _ => Mode::Relu,
    }
}

/// The validated configuration.
pub(super) struct Net {
    pub mode: Mode,
    pub layers: usize,
    pub dirs: usize,
    pub hidden: usize,
    clip: (Option<f64>, Option<f64>),
    clip_nan: bool,
}

/// Where one (layer, direction)'s weights and biases start, and its input size.
struct Offsets {
    wx: usize,
    wh: usize,
    bx: usize,
    bh: usize,
    input: usize,
}

/// Hidden sizes and layer counts beyond this are refused (they keep sizes far from
/// overflow).
const MAX_SIZE: i64 = 1 << 20;

impl Net {
    pub(super) fn new(a: &Attrs) -> Result<Net, OpError> {
        let size = |name: &str| match a.int(name) {
            v if (1..=MAX_SIZE).contains(&v) => Ok(v as usize),
            v => invalid(format!(
                "{OP}: `{name}` must be in [1, {MAX_SIZE}], got {v}"
            )),
        };
        if let Some(p) = a.opt_int("projection_size") {
            return invalid(format!(
                "{OP}: projection_size={p} is not supported (MXNet supports it with cuDNN only)"
            ));
        }
        let p = a.float("p");
        if !(0.0..=1.0).contains(&p) {
            return invalid(format!("{OP}: `p` must be in [0, 1], got {p}"));
        }
        let m = mode(a);
        let clip = (
            a.opt_float("lstm_state_clip_min"),
            a.opt_float("lstm_state_clip_max"),
        );
        if let (Some(lo), Some(hi)) = clip {
            if lo > hi {
                return invalid(format!(
                    "{OP}: lstm_state_clip_min {lo} is above lstm_state_clip_max {hi}"
                ));
            }
        }
        Ok(Net {
            mode: m,
            layers: size("num_layers")?,
            dirs: if a.bool("bidirectional") { 2 } else { 1 },
            hidden: size("state_size")?,
            clip: if m == Mode::Lstm { clip } else { (None, None) },
            clip_nan: a.bool("lstm_state_clip_nan"),
        })
    }

    fn gates(&self) -> usize {
        match self.mode {
            Mode::Lstm => 4,
            Mode::Gru => 3,
            Mode::Tanh | Mode::Relu => 1,
        }
    }

    /// G·H: the rows of each weight matrix.
    fn rows(&self) -> usize {
        self.gates() * self.hidden
    }

    fn layer_input(&self, layer: usize, input: usize) -> usize {
        if layer == 0 {
            input
        } else {
            self.dirs * self.hidden
        }
    }

    /// Weights and biases of every layer above the first.
    fn upper_size(&self) -> usize {
        let per_dir = self
            .rows()
            .saturating_mul((self.dirs + 1) * self.hidden)
            .saturating_add(2 * self.rows());
        (self.layers - 1)
            .saturating_mul(self.dirs)
            .saturating_mul(per_dir)
    }

    /// The length of `parameters` for input size `input` (saturating).
    pub(super) fn param_size(&self, input: usize) -> usize {
        let first = input
            .saturating_add(self.hidden)
            .saturating_mul(self.rows())
            .saturating_add(2 * self.rows());
        first
            .saturating_mul(self.dirs)
            .saturating_add(self.upper_size())
    }

    /// The input size that makes `parameters` `size` long, if one does.
    pub(super) fn input_for(&self, size: usize) -> Option<usize> {
        let first = size.checked_sub(self.upper_size())? / self.dirs;
        let per_input = self.rows();
        let rest = first.checked_sub(2 * self.rows() + self.rows() * self.hidden)?;
        (rest % per_input == 0 && rest > 0 && size == self.param_size(rest / per_input))
            .then_some(rest / per_input)
    }

    /// Offsets of every (layer, direction), indexed layer·D + direction.
    fn offsets(&self, input: usize) -> Vec<Offsets> {
        let g = self.rows();
        let mut v = Vec::new();
        let mut w = 0;
        for l in 0..self.layers {
            let i = self.layer_input(l, input);
            for _ in 0..self.dirs {
                v.push(Offsets {
                    wx: w,
                    wh: w + g * i,
                    bx: 0,
                    bh: 0,
                    input: i,
                });
                w += g * (i + self.hidden);
            }
        }
        for o in &mut v {
            o.bx = w;
            o.bh = w + g;
            w += 2 * g;
        }
        v
    }

    fn clip(&self, c: f64) -> f64 {
        let (lo, hi) = self.clip;
        if c.is_nan() {
            return if self.clip_nan {
                hi.or(lo).unwrap_or(c)
            } else {
                c
            };
        }
        let c = hi.map_or(c, |h| c.min(h));
        lo.map_or(c, |l| c.max(l))
    }

    /// Whether the clip let `c` through (its derivative is 1).
    fn passes(&self, c: f64) -> bool {
        let (lo, hi) = self.clip;
        lo.is_none_or(|l| c > l) && hi.is_none_or(|h| c < h)
    }
}

/// What one step of one sequence leaves for the backward pass.
#[derive(Clone, Default)]
struct Step {
    /// Activated gates (LSTM i, f, g, o; GRU r, z, n; vanilla: the new h).
    gates: Vec<f64>,
    h_prev: Vec<f64>,
    c_prev: Vec<f64>,
    /// LSTM: the cell before and after clipping.
    c_raw: Vec<f64>,
    c: Vec<f64>,
    /// GRU: W_hn·h + b_hn; vanilla relu: the pre-activation.
    extra: Vec<f64>,
}

/// The inputs of one evaluation, as flat f64 slices.
pub(super) struct Problem<'a> {
    pub net: Net,
    steps: usize,
    batch: usize,
    input: usize,
    data: &'a [f64],
    params: &'a [f64],
    h0: &'a [f64],
    c0: Option<&'a [f64]>,
    lengths: Vec<usize>,
}

impl<'a> Problem<'a> {
    pub(super) fn new(a: &Attrs, ins: &[&'a Tensor]) -> Result<Problem<'a>, OpError> {
        let net = Net::new(a)?;
        let lstm = net.mode == Mode::Lstm;
        let x = ins[0];
        if x.shape.len() != 3 {
            return rank_error(OP, "data", "3-D", &x.shape);
        }
        let (steps, batch, input) = (x.shape[0], x.shape[1], x.shape[2]);
        let lengths = match a.bool("use_sequence_length") {
            true => ins[if lstm { 4 } else { 3 }]
                .data
                .iter()
                .map(|&l| (l.trunc().max(0.0) as usize).min(steps))
                .collect(),
            false => vec![steps; batch],
        };
        Ok(Problem {
            net,
            steps,
            batch,
            input,
            data: &x.data,
            params: &ins[1].data,
            h0: &ins[2].data,
            c0: lstm.then(|| ins[3].data.as_slice()),
            lengths,
        })
    }

    /// The time steps of sequence `n` in the order direction `dir` visits them.
    fn order(&self, n: usize, dir: usize) -> Vec<usize> {
        let len = self.lengths[n];
        if dir == 0 {
            (0..len).collect()
        } else {
            (0..len).rev().collect()
        }
    }
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// `out[r] = b[r] + Σ_k W[r][k]·v[k]` for W (rows, v.len()) at `w` and b at `b` in `p`.
fn affine(p: &[f64], w: usize, b: usize, rows: usize, v: &[f64]) -> Vec<f64> {
    (0..rows)
        .map(|r| {
            let row = &p[w + r * v.len()..w + (r + 1) * v.len()];
            p[b + r] + row.iter().zip(v).map(|(a, x)| a * x).sum::<f64>()
        })
        .collect()
}

/// One cell step from input projection `gx` and state (h, c).
fn cell(net: &Net, p: &[f64], o: &Offsets, gx: &[f64], h: &[f64], c: &[f64]) -> Step {
    let hid = net.hidden;
    let gh = affine(p, o.wh, o.bh, net.rows(), h);
    let mut s = Step {
        h_prev: h.to_vec(),
        c_prev: c.to_vec(),
        ..Step::default()
    };
    match net.mode {
        Mode::Lstm => {
            let pre: Vec<f64> = gx.iter().zip(&gh).map(|(a, b)| a + b).collect();
            s.gates = pre
                .iter()
                .enumerate()
                .map(|(k, &v)| if k / hid == 2 { v.tanh() } else { sigmoid(v) })
                .collect();
            let g = &s.gates;
            s.c_raw = (0..hid)
                .map(|k| g[hid + k] * c[k] + g[k] * g[2 * hid + k])
                .collect();
            s.c = s.c_raw.iter().map(|&v| net.clip(v)).collect();
        }
        Mode::Gru => {
            let r: Vec<f64> = (0..hid).map(|k| sigmoid(gx[k] + gh[k])).collect();
            let z: Vec<f64> = (0..hid)
                .map(|k| sigmoid(gx[hid + k] + gh[hid + k]))
                .collect();
            let n: Vec<f64> = (0..hid)
                .map(|k| (gx[2 * hid + k] + r[k] * gh[2 * hid + k]).tanh())
                .collect();
            s.extra = gh[2 * hid..].to_vec();
            s.gates = [r, z, n].concat();
        }
        Mode::Tanh => s.gates = gx.iter().zip(&gh).map(|(a, b)| (a + b).tanh()).collect(),
        Mode::Relu => {
            s.extra = gx.iter().zip(&gh).map(|(a, b)| a + b).collect();
            s.gates = s.extra.iter().map(|v| v.max(0.0)).collect();
        }
    }
    s
}

/// The new hidden state of a step.
fn new_h(net: &Net, s: &Step) -> Vec<f64> {
    let hid = net.hidden;
    let g = &s.gates;
    match net.mode {
        Mode::Lstm => (0..hid).map(|k| g[3 * hid + k] * s.c[k].tanh()).collect(),
        Mode::Gru => (0..hid)
            .map(|k| (1.0 - g[hid + k]) * g[2 * hid + k] + g[hid + k] * s.h_prev[k])
            .collect(),
        Mode::Tanh | Mode::Relu => g.clone(),
    }
}

/// One direction of one layer over every sequence.
struct Direction {
    /// (T, N, H), zero past each sequence's end.
    y: Vec<f64>,
    hy: Vec<f64>,
    cy: Vec<f64>,
    /// Indexed t·N + n.
    steps: Vec<Step>,
}

fn run_direction(pb: &Problem, layer_in: &[f64], ld: usize, dir: usize) -> Direction {
    let net = &pb.net;
    let (hid, n_b) = (net.hidden, pb.batch);
    let o = &net.offsets(pb.input)[ld];
    let mut out = Direction {
        y: vec![0.0; pb.steps * n_b * hid],
        hy: vec![0.0; n_b * hid],
        cy: vec![0.0; n_b * hid],
        steps: vec![Step::default(); pb.steps * n_b],
    };
    for n in 0..n_b {
        let at = (ld * n_b + n) * hid;
        let mut h = pb.h0[at..at + hid].to_vec();
        let mut c = pb.c0.map_or(vec![0.0; hid], |c0| c0[at..at + hid].to_vec());
        for t in pb.order(n, dir) {
            let xi = (t * n_b + n) * o.input;
            let gx = affine(
                pb.params,
                o.wx,
                o.bx,
                net.rows(),
                &layer_in[xi..xi + o.input],
            );
            let s = cell(net, pb.params, o, &gx, &h, &c);
            h = new_h(net, &s);
            if net.mode == Mode::Lstm {
                c = s.c.clone();
            }
            out.y[(t * n_b + n) * hid..][..hid].copy_from_slice(&h);
            out.steps[t * n_b + n] = s;
        }
        out.hy[n * hid..][..hid].copy_from_slice(&h);
        out.cy[n * hid..][..hid].copy_from_slice(&c);
    }
    out
}

/// The forward pass: the output, final states, and per layer its input and directions.
pub(super) struct Forward {
    pub out: Vec<f64>,
    pub hy: Vec<f64>,
    pub cy: Vec<f64>,
    layers: Vec<(Vec<f64>, Vec<Direction>)>,
}

pub(super) fn forward(pb: &Problem) -> Forward {
    let net = &pb.net;
    let (hid, dirs) = (net.hidden, net.dirs);
    let rows = pb.steps * pb.batch;
    let mut input = pb.data.to_vec();
    let (mut hy, mut cy) = (Vec::new(), Vec::new());
    let mut layers = Vec::new();
    for l in 0..net.layers {
        let ds: Vec<Direction> = (0..dirs)
            .map(|d| run_direction(pb, &input, l * dirs + d, d))
            .collect();
        let mut out = vec![0.0; rows * dirs * hid];
        for (d, dir) in ds.iter().enumerate() {
            for r in 0..rows {
                out[(r * dirs + d) * hid..][..hid].copy_from_slice(&dir.y[r * hid..][..hid]);
            }
            hy.extend_from_slice(&dir.hy);
            cy.extend_from_slice(&dir.cy);
        }
        layers.push((std::mem::replace(&mut input, out), ds));
    }
    Forward {
        out: input,
        hy,
        cy,
        layers,
    }
}

/// Gradients of one direction of one layer: accumulates into `dparams` and `dx` (the
/// layer input's gradient) and writes the initial states' gradients at `ld`.
#[allow(clippy::too_many_arguments)]
fn backward_direction(
    pb: &Problem,
    layer_in: &[f64],
    dir: &Direction,
    (ld, d): (usize, usize),
    dy: &[f64],
    heads: (&[f64], &[f64]),
    dparams: &mut [f64],
    dx: &mut [f64],
    dstates: (&mut [f64], &mut [f64]),
) {
    let net = &pb.net;
    let (hid, n_b, dirs, rows) = (net.hidden, pb.batch, net.dirs, net.rows());
    let o = &net.offsets(pb.input)[ld];
    let p = pb.params;
    for n in 0..n_b {
        let at = (ld * n_b + n) * hid;
        let mut dh_next = heads
            .0
            .get(at..at + hid)
            .map_or(vec![0.0; hid], <[f64]>::to_vec);
        let mut dc_next = heads
            .1
            .get(at..at + hid)
            .map_or(vec![0.0; hid], <[f64]>::to_vec);
        for t in pb.order(n, d).into_iter().rev() {
            let s = &dir.steps[t * n_b + n];
            let dh: Vec<f64> = (0..hid)
                .map(|k| dy[(t * n_b + n) * dirs * hid + d * hid + k] + dh_next[k])
                .collect();
            let g = &s.gates;
            // Gradients of the gate pre-activations through W_x (dgx) and W_h (dgh).
            let (dgx, dgh, mut dh_prev, dc_prev) = match net.mode {
                Mode::Lstm => {
                    let mut dpre = vec![0.0; rows];
                    let mut dc_prev = vec![0.0; hid];
                    for k in 0..hid {
                        let (i, f, gg, og) = (g[k], g[hid + k], g[2 * hid + k], g[3 * hid + k]);
                        let tc = s.c[k].tanh();
                        let mut dc = dc_next[k] + dh[k] * og * (1.0 - tc * tc);
                        if !net.passes(s.c_raw[k]) {
                            dc = 0.0;
                        }
                        dpre[k] = dc * gg * i * (1.0 - i);
                        dpre[hid + k] = dc * s.c_prev[k] * f * (1.0 - f);
                        dpre[2 * hid + k] = dc * i * (1.0 - gg * gg);
                        dpre[3 * hid + k] = dh[k] * tc * og * (1.0 - og);
                        dc_prev[k] = dc * f;
                    }
                    (dpre.clone(), dpre, vec![0.0; hid], dc_prev)
                }
                Mode::Gru => {
                    let (mut dgx, mut dgh) = (vec![0.0; rows], vec![0.0; rows]);
                    let mut dh_prev = vec![0.0; hid];
                    for k in 0..hid {
                        let (r, z, nn) = (g[k], g[hid + k], g[2 * hid + k]);
                        let dn = dh[k] * (1.0 - z) * (1.0 - nn * nn);
                        let dz = dh[k] * (s.h_prev[k] - nn) * z * (1.0 - z);
                        let dr = dn * s.extra[k] * r * (1.0 - r);
                        dgx[k] = dr;
                        dgh[k] = dr;
                        dgx[hid + k] = dz;
                        dgh[hid + k] = dz;
                        dgx[2 * hid + k] = dn;
                        dgh[2 * hid + k] = dn * r;
                        dh_prev[k] = dh[k] * z;
                    }
                    (dgx, dgh, dh_prev, vec![0.0; hid])
                }
                Mode::Tanh | Mode::Relu => {
                    let dpre: Vec<f64> = (0..hid)
                        .map(|k| match net.mode {
                            Mode::Tanh => dh[k] * (1.0 - g[k] * g[k]),
                            _ => dh[k] * f64::from(s.extra[k] > 0.0),
                        })
                        .collect();
                    (dpre.clone(), dpre, vec![0.0; hid], vec![0.0; hid])
                }
            };
            let xi = (t * n_b + n) * o.input;
            let x = &layer_in[xi..xi + o.input];
            for r in 0..rows {
                dparams[o.bx + r] += dgx[r];
                dparams[o.bh + r] += dgh[r];
                for (k, &xv) in x.iter().enumerate() {
                    dparams[o.wx + r * o.input + k] += dgx[r] * xv;
                    dx[xi + k] += p[o.wx + r * o.input + k] * dgx[r];
                }
                for k in 0..hid {
                    dparams[o.wh + r * hid + k] += dgh[r] * s.h_prev[k];
                    dh_prev[k] += p[o.wh + r * hid + k] * dgh[r];
                }
            }
            dh_next = dh_prev;
            dc_next = dc_prev;
        }
        dstates.0[at..at + hid].copy_from_slice(&dh_next);
        if let Some(c) = dstates.1.get_mut(at..at + hid) {
            c.copy_from_slice(&dc_next);
        }
    }
}

/// The gradients of every input but the lengths.
pub(super) struct Grads {
    pub data: Vec<f64>,
    pub params: Vec<f64>,
    pub state: Vec<f64>,
    pub state_cell: Vec<f64>,
}

/// Backpropagation through time from the head gradients of the output, the final state and
/// the final cell (empty when the forward has no such output).
pub(super) fn backward(pb: &Problem, d_out: &[f64], d_hy: &[f64], d_cy: &[f64]) -> Grads {
    let f = forward(pb);
    let mut g = Grads {
        data: d_out.to_vec(),
        params: vec![0.0; pb.params.len()],
        state: vec![0.0; pb.h0.len()],
        state_cell: vec![0.0; pb.c0.map_or(0, <[f64]>::len)],
    };
    for (l, (layer_in, dirs)) in f.layers.iter().enumerate().rev() {
        let mut dx = vec![0.0; layer_in.len()];
        for (d, dir) in dirs.iter().enumerate() {
            backward_direction(
                pb,
                layer_in,
                dir,
                (l * pb.net.dirs + d, d),
                &g.data,
                (d_hy, d_cy),
                &mut g.params,
                &mut dx,
                (&mut g.state, &mut g.state_cell),
            );
        }
        g.data = dx;
    }
    g
}
