//! The reference interpreter: the oracle every backend and pass is tested against.
//!
//! It walks the graph in order and evaluates each operator with its reference semantics
//! ([`kiln_ops::evaluate`]), in f64 with rounding to each entry's storage dtype. Values are
//! dropped as soon as their last consumer has run, so large models fit in memory.

use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::{infer, Inferred};
use kiln_ops::shape::{fmt_shape, is_known};
use kiln_ops::{random, KernelCtx, OpError, Tensor};
use std::collections::HashMap;

/// How to run a graph.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// Training mode: BatchNorm uses batch statistics, Dropout drops.
    pub is_train: bool,
    /// Seed of the counter-based generator behind random operators.
    pub seed: u64,
}

/// Infers every shape from `inputs` (and the graph's constants) and checks that every
/// variable has a value; the error lists each missing one with its inferred shape.
pub fn check_inputs(g: &Graph, inputs: &HashMap<String, Tensor>) -> Result<Inferred> {
    // Constants are inputs whose values the graph carries.
    let constants = g.constants.iter().map(|(id, t)| (&g.node(*id).name, t));
    let known: Vec<(&String, &Tensor)> = inputs.iter().chain(constants).collect();
    let shapes = known
        .iter()
        .map(|(k, t)| ((*k).clone(), t.shape.clone()))
        .collect();
    let dtypes = known.iter().map(|(k, t)| ((*k).clone(), t.dtype)).collect();
    let inferred = infer(g, &shapes, &dtypes)?;
    let missing: Vec<String> = g
        .node_ids()
        .filter(|&id| {
            g.node(id).is_variable()
                && !g.constants.contains_key(&id)
                && !inputs.contains_key(&g.node(id).name)
        })
        .map(|id| {
            format!(
                "{} {}",
                g.node(id).name,
                fmt_shape(inferred.shape(Entry { node: id, index: 0 }))
            )
        })
        .collect();
    if !missing.is_empty() {
        return Err(Error::Input(format!(
            "no value given for: {}",
            missing.join(", ")
        )));
    }
    Ok(inferred)
}

/// Runs `g` on `inputs` (every variable by name) and returns its heads.
pub fn interpret(
    g: &Graph,
    inputs: &HashMap<String, Tensor>,
    opts: RunOptions,
) -> Result<Vec<Tensor>> {
    let inferred = check_inputs(g, inputs)?;
    let mut uses: Vec<usize> = vec![0; g.len()];
    for id in g.node_ids() {
        g.node(id)
            .inputs
            .iter()
            .for_each(|e| uses[e.node.index()] += 1);
    }
    g.heads.iter().for_each(|e| uses[e.node.index()] += 1);
    let mut values: Vec<Option<Vec<Tensor>>> = vec![None; g.len()];
    for id in g.node_ids() {
        let n = g.node(id);
        let outs = if let Some(c) = g.constants.get(&id) {
            vec![c.clone()]
        } else if n.is_variable() {
            vec![inputs[&n.name].clone()]
        } else {
            let args: Vec<&Tensor> = n
                .inputs
                .iter()
                .map(|e| {
                    &values[e.node.index()]
                        .as_ref()
                        .expect("inputs are computed first")[e.index]
                })
                .collect();
            run_node(g, id, &inferred, &args, opts)?
        };
        values[id.index()] = Some(outs);
        for e in &g.node(id).inputs {
            uses[e.node.index()] -= 1;
            if uses[e.node.index()] == 0 {
                values[e.node.index()] = None;
            }
        }
    }
    Ok(g.heads
        .iter()
        .map(|e| values[e.node.index()].as_ref().expect("heads are kept")[e.index].clone())
        .collect())
}

fn run_node(
    g: &Graph,
    id: NodeId,
    inferred: &Inferred,
    args: &[&Tensor],
    opts: RunOptions,
) -> Result<Vec<Tensor>> {
    let n = g.node(id);
    let (op, params) = (
        n.op.expect("operator node"),
        n.params.as_ref().expect("parsed params"),
    );
    let node_err = |msg: String| Error::Node {
        op: op.name.into(),
        node: n.name.clone(),
        msg,
    };
    let out_shapes = &inferred.shapes[id.index()];
    if let Some(s) = out_shapes.iter().find(|s| !is_known(s)) {
        return Err(node_err(format!(
            "output shape is not fully inferred: {}",
            fmt_shape(s)
        )));
    }
    let out_dtypes: Vec<_> = inferred.dtypes[id.index()]
        .iter()
        .map(|d| d.ok_or_else(|| node_err("output dtype is not inferred".into())))
        .collect::<Result<_>>()?;
    let ctx = KernelCtx {
        attrs: params,
        is_train: opts.is_train,
        out_shapes,
        out_dtypes: &out_dtypes,
        rng_key: random::key(opts.seed, id.index() as u64),
    };
    let outs = kiln_ops::evaluate(op, &ctx, args).map_err(|e| match e {
        OpError::Alloc(a) => Error::Allocation {
            what: format!(
                "the output of {}, of shape {}{}",
                n.describe(),
                fmt_shape(&a.shape),
                a.cause()
            ),
            bytes: a.bytes,
        },
        e => {
            let (out_names, _) = n.output_names();
            node_err(e.render(&n.input_names(), &out_names))
        }
    })?;
    if outs.len() != out_shapes.len() || outs.iter().zip(out_shapes).any(|(t, s)| &t.shape != s) {
        let got: Vec<String> = outs.iter().map(|t| fmt_shape(&t.shape)).collect();
        let want: Vec<String> = out_shapes.iter().map(|s| fmt_shape(s)).collect();
        return Err(node_err(format!(
            "reference kernel produced shapes [{}] but inference says [{}]",
            got.join(", "),
            want.join(", ")
        )));
    }
    Ok(outs)
}
