//! MXNet's memory heuristics, for comparison: the program's graph run node by node on
//! reference kernels (no fusion), planned with each [`Strategy`] the way MXNet 1.x plans
//! (in place only where the operator declares an in-place pair, a convolution's im2col
//! buffer as its temporary space). `kiln plan` and the memory report print these beside
//! the arena the program really runs with.

use super::layout::{plan, StepUse, Strategy, STRATEGIES};
use super::{compile, entry_bytes, Spec, Target};
use crate::error::Result;
use crate::graph::{Entry, Graph, NodeId};
use crate::infer::Inferred;
use crate::Symbol;
use std::collections::HashSet;

/// Bytes of a convolution's im2col buffer (one group's column matrix), MXNet's
/// temporary space for it: it runs direct and transposed convolutions alike as im2col (or
/// col2im) and a gemm.
fn im2col_bytes(g: &Graph, id: NodeId, inferred: &Inferred) -> usize {
    let n = g.node(id);
    if n.op.is_none_or(|op| op.convolution.is_none()) {
        return 0;
    }
    let (Some(p), Some(data)) = (n.params.as_ref(), n.inputs.first()) else {
        return 0;
    };
    let ins = inferred.shape(*data);
    let out = &inferred.shapes[id.index()][0];
    if ins.len() < 3 || out.len() < 3 {
        return 0;
    }
    let kernel: usize = p.shape("kernel").iter().map(|&k| k as usize).product();
    let groups = p.int("num_group").max(1) as usize;
    let dsize = inferred.dtype(*data).map_or(4, |d| d.size());
    ins[1] / groups * kernel * out[2..].iter().product::<usize>() * dsize
}

/// Bytes each of MXNet's strategies (naive, inplace, coshare, both) plans for `symbol`
/// as `spec` compiles it, by name.
pub fn mxnet_strategies(symbol: &Symbol, spec: &Spec) -> Result<Vec<(&'static str, usize)>> {
    let reference = Spec {
        target: Target::reference(),
        ..spec.clone()
    };
    let p = compile(symbol, &reference)?;
    let (g, inferred) = (p.graph(), &p.inferred);
    let overwrites: Vec<Box<dyn Fn(usize, usize) -> bool + '_>> = p
        .steps
        .iter()
        .map(|s| {
            let pairs = s
                .nodes
                .first()
                .and_then(|&id| g.node(id).op)
                .map_or(&[][..], |op| op.inplace);
            Box::new(move |i, o| pairs.contains(&(i, o))) as Box<dyn Fn(usize, usize) -> bool>
        })
        .collect();
    let uses: Vec<StepUse> = (p.steps.iter().zip(&overwrites))
        .map(|(s, f)| StepUse {
            inputs: &s.inputs,
            outputs: &s.outputs,
            workspace: (s.nodes.iter())
                .map(|&id| im2col_bytes(g, id, inferred))
                .filter(|&b| b > 0)
                .collect(),
            overwrites: f.as_ref(),
        })
        .collect();
    // Outputs are MXNet's memory too; gradients go to the bound arrays.
    let t = &p.training;
    let outputs: HashSet<Entry> = g.heads[..t.num_outputs].iter().copied().collect();
    let external: HashSet<Entry> = g.heads[t.num_outputs..].iter().copied().collect();
    let stored = |e: Entry| !g.node(e.node).is_variable() && !external.contains(&e);
    let bytes = |e: Entry| entry_bytes(inferred, e);
    Ok(STRATEGIES
        .iter()
        .filter(|(_, s)| *s != Strategy::Arena)
        .map(|&(name, s)| (name, plan(&uses, &bytes, &stored, &outputs, s).bytes))
        .collect())
}
