//! A model summary: per node its output shape, dtype, parameter count and FLOPs (from the
//! operators' cost functions), totals per operator and for the whole graph. Inference
//! bounds every shape's size; totals over many of them saturate rather than wrap.

use crate::graph::{Entry, Graph};
use crate::infer::Inferred;
use kiln_ops::shape::{fmt_shape, is_known, size};
use std::collections::{BTreeMap, HashSet};
use std::fmt;

pub struct NodeRow {
    pub id: usize,
    pub op: &'static str,
    pub name: String,
    pub output: String,
    pub dtype: &'static str,
    pub params: usize,
    pub flops: Option<u64>,
}

pub struct Summary {
    pub rows: Vec<NodeRow>,
    pub num_nodes: usize,
    pub num_outputs: usize,
    /// Per operator: node count and FLOPs.
    pub by_op: BTreeMap<&'static str, (usize, u64)>,
    /// Learnable parameters: arguments that are neither inputs nor labels.
    pub params: usize,
    pub aux: usize,
    pub flops: u64,
    /// Operators whose FLOPs are unknown (shapes not inferred).
    pub unknown_flops: usize,
    /// Parameters whose shapes are unknown.
    pub unknown_params: usize,
}

/// Summarizes `g`; `inputs` names the data inputs (not parameters). Variables ending in
/// `label` are inputs too, as MXNet's Module treats them.
pub fn summarize(g: &Graph, inferred: &Inferred, inputs: &HashSet<String>) -> Summary {
    let aux = g.aux_ids();
    let is_param = |e: Entry| {
        let n = g.node(e.node);
        n.is_variable() && !inputs.contains(&n.name) && !n.name.ends_with("label")
    };
    let mut s = Summary {
        rows: vec![],
        num_nodes: g.len(),
        num_outputs: g.heads.len(),
        by_op: BTreeMap::new(),
        params: 0,
        aux: 0,
        flops: 0,
        unknown_flops: 0,
        unknown_params: 0,
    };
    for id in g.node_ids() {
        let n = g.node(id);
        let e = Entry { node: id, index: 0 };
        let Some(op) = n.op else {
            let known = is_known(inferred.shape(e));
            if aux.contains(&id) {
                s.aux = s.aux.saturating_add(size(inferred.shape(e)));
            } else if is_param(e) {
                let count = if known { size(inferred.shape(e)) } else { 0 };
                s.params = s.params.saturating_add(count);
                s.unknown_params += usize::from(!known);
            }
            continue;
        };
        let ins: Vec<_> = n
            .inputs
            .iter()
            .map(|&e| inferred.shape(e).clone())
            .collect();
        let outs = &inferred.shapes[id.index()];
        let flops = ins.iter().chain(outs).all(|s| is_known(s)).then(|| {
            (op.cost)(
                n.params.as_ref().expect("operators have parsed params"),
                &ins,
                outs,
            )
        });
        s.flops = s.flops.saturating_add(flops.unwrap_or(0));
        s.unknown_flops += usize::from(flops.is_none());
        let per_op = s.by_op.entry(op.name).or_default();
        per_op.0 += 1;
        per_op.1 = per_op.1.saturating_add(flops.unwrap_or(0));
        s.rows.push(NodeRow {
            id: id.index(),
            op: op.name,
            name: n.name.clone(),
            output: fmt_shape(inferred.shape(e)),
            dtype: inferred.dtype(e).map_or("?", |d| d.name()),
            params: n
                .inputs
                .iter()
                .filter(|&&e| is_param(e) || aux.contains(&e.node))
                .map(|&e| size(inferred.shape(e)))
                .fold(0, usize::saturating_add),
            flops,
        });
    }
    s
}

/// `1.23 G`, `45.60 M`, ...
pub fn human(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2} G", x / 1e9),
        x if x >= 1e6 => format!("{:.2} M", x / 1e6),
        x if x >= 1e3 => format!("{:.2} K", x / 1e3),
        x => format!("{x:.0} "),
    }
}

impl Summary {
    /// The totals, without the per-node table.
    pub fn totals(&self) -> String {
        let mut t = format!(
            "{} nodes, {} operators; parameters: {} ({:.1} MB as float32), aux states: {}; {}FLOPs",
            self.num_nodes,
            self.rows.len(),
            self.params,
            self.params as f64 * 4.0 / 1e6,
            self.aux,
            human(self.flops as f64)
        );
        if self.unknown_flops > 0 || self.unknown_params > 0 {
            t.push_str(&format!(
                " (unknown shapes: {} operators, {} parameters; give every input's shape)",
                self.unknown_flops, self.unknown_params
            ));
        }
        t
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:>5}  {:<22} {:<34} {:<22} {:<8} {:>10} {:>12}",
            "id", "op", "name", "output", "dtype", "params", "FLOPs"
        )?;
        for r in &self.rows {
            let flops = r.flops.map_or_else(|| "?".to_string(), |x| human(x as f64));
            writeln!(
                f,
                "{:>5}  {:<22} {:<34} {:<22} {:<8} {:>10} {:>12}",
                r.id, r.op, r.name, r.output, r.dtype, r.params, flops
            )?;
        }
        writeln!(f, "\nFLOPs by operator:")?;
        for (op, (count, flops)) in &self.by_op {
            writeln!(
                f,
                "  {op:<22} {count:>5} nodes {:>12}FLOPs",
                human(*flops as f64)
            )?;
        }
        writeln!(f, "\n{}", self.totals())
    }
}
