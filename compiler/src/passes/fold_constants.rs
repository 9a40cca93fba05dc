//! Constant folding: an operator whose inputs are all constants — or whose value depends
//! only on its inputs' shapes (`zeros_like`, and whatever is computed from it) — is
//! evaluated at compile time and becomes a constant. Side-effecting operators (samplers,
//! Dropout) never fold; constants larger than 2^20 elements are left to run time.

use super::{Pass, PassOutput, Rebuild};
use crate::error::{Error, Result};
use crate::graph::{Entry, Graph};
use crate::infer::infer;
use crate::node::{NodeData, Provenance};
use kiln_ops::shape::is_known;
use kiln_ops::{Compute, Expr, KernelCtx, Shape, Tensor};
use std::collections::{BTreeMap, HashMap};

const MAX_ELEMENTS: usize = 1 << 20;

/// Constant folding, given the shapes (and dtypes; float32 otherwise) of the graph's inputs.
pub struct FoldConstants {
    pub shapes: HashMap<String, Shape>,
    pub dtypes: HashMap<String, kiln_ops::DType>,
}

fn reads_no_input(e: &Expr) -> bool {
    match e {
        Expr::Input(_) => false,
        Expr::Const(_) => true,
        Expr::Unary(_, a) => reads_no_input(a),
        Expr::Binary(_, a, b) => reads_no_input(a) && reads_no_input(b),
        Expr::Select(p, a, b) => reads_no_input(p) && reads_no_input(a) && reads_no_input(b),
    }
}

impl Pass for FoldConstants {
    fn name(&self) -> &'static str {
        "fold_constants"
    }

    fn run(&self, g: &Graph) -> Result<PassOutput> {
        let inferred = infer(g, &self.shapes, &self.dtypes)?;
        let mut r = Rebuild::new(g);
        // The value of each new-graph entry known at compile time.
        let mut constant: HashMap<Entry, Tensor> = HashMap::new();
        for id in g.node_ids() {
            let n = g.node(id);
            let Some(op) = n.op.filter(|op| !op.side_effect) else {
                let new = r.copy(id);
                if let Some(c) = g.constants.get(&id) {
                    constant.insert(
                        Entry {
                            node: new,
                            index: 0,
                        },
                        c.clone(),
                    );
                }
                continue;
            };
            let params = n.params.as_ref().expect("parsed");
            let shape_only = matches!(op.compute, Compute::Scalar(f) if reads_no_input(&f(params)));
            let out_shapes = &inferred.shapes[id.index()];
            let small = out_shapes
                .iter()
                .all(|s| is_known(s) && s.iter().product::<usize>() <= MAX_ELEMENTS);
            let args: Option<Vec<Tensor>> = n
                .inputs
                .iter()
                .map(|&e| {
                    let new = r.get(e)?;
                    constant.get(&new).cloned().or_else(|| {
                        let s = inferred.shape(e);
                        (shape_only && is_known(s)).then(|| {
                            Tensor::zeros(
                                inferred.dtype(e).unwrap_or(kiln_ops::DType::F32),
                                s.clone(),
                            )
                        })
                    })
                })
                .collect();
            let (Some(args), true, false) = (args, small, n.inputs.is_empty()) else {
                r.copy(id);
                continue;
            };
            let dtypes: Vec<_> = inferred.dtypes[id.index()]
                .iter()
                .map(|d| d.unwrap_or(kiln_ops::DType::F32))
                .collect();
            let ctx = KernelCtx {
                attrs: params,
                is_train: false,
                out_shapes,
                out_dtypes: &dtypes,
                rng_key: [0, 0],
            };
            let refs: Vec<&Tensor> = args.iter().collect();
            let values = kiln_ops::evaluate(op, &ctx, &refs).map_err(|e| Error::Node {
                op: op.name.into(),
                node: n.name.clone(),
                msg: format!("constant folding: {e}"),
            })?;
            for (index, value) in values.into_iter().enumerate() {
                let name = if n.num_outputs() == 1 {
                    format!("{}_const", n.name)
                } else {
                    format!("{}_const{index}", n.name)
                };
                let var = r.new.add_node(
                    NodeData::variable(name, BTreeMap::new(), Provenance::Generated),
                    vec![],
                );
                r.new.constants.insert(var, value.clone());
                let e = Entry {
                    node: var,
                    index: 0,
                };
                constant.insert(e, value);
                r.alias(id, index, e);
            }
        }
        Ok(r.finish())
    }
}
