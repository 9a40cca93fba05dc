//! Shape and dtype inference over a graph: each operator's inference runs forward and
//! backward until nothing changes, so shapes flow from data to weights (FullyConnected's
//! weight from `num_hidden` and the data) and back from outputs to inputs.

use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::symbol::Symbol;
use kiln_ops::shape::{fits, fmt_shape, is_known, TOO_LARGE};
use kiln_ops::{Attrs, DType, OpDef, OpError, Shape, Slot, Value};
use std::collections::HashMap;

/// The shape and dtype of every entry, hidden outputs included: `[node][output]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inferred {
    pub shapes: Vec<Vec<Shape>>,
    pub dtypes: Vec<Vec<Option<DType>>>,
}

impl Inferred {
    pub fn shape(&self, e: Entry) -> &Shape {
        &self.shapes[e.node.index()][e.index]
    }
    pub fn dtype(&self, e: Entry) -> Option<DType> {
        self.dtypes[e.node.index()][e.index]
    }
}

/// Shapes a variable declares through its `__shape__` attribute.
fn declared_shape(g: &Graph, id: NodeId) -> Result<Shape> {
    let n = g.node(id);
    let Some(text) = n.attrs.get("__shape__") else {
        return Ok(Shape::new());
    };
    let def = kiln_ops::param("__shape__", kiln_ops::ParamType::Shape, None, "");
    match kiln_ops::param::parse_value(&def, text) {
        Ok(Value::Shape(dims)) if dims.iter().all(|&d| d >= 0) => {
            Ok(dims.iter().map(|&d| d as usize).collect())
        }
        _ => Err(Error::Shape(format!(
            "variable `{}`: `__shape__` = {text:?} is not a shape",
            n.name
        ))),
    }
}

fn declared_dtype(g: &Graph, id: NodeId) -> Result<Option<DType>> {
    let n = g.node(id);
    match n.attrs.get("__dtype__") {
        None => Ok(None),
        Some(text) => DType::parse(text).map(Some).ok_or_else(|| {
            Error::DType(format!(
                "variable `{}`: `__dtype__` = {text:?} is not a dtype",
                n.name
            ))
        }),
    }
}

/// Renders an operator's inference error with the node, its inputs' names and shapes.
fn node_error(g: &Graph, id: NodeId, err: &OpError, shapes: &[Vec<Shape>]) -> String {
    let n = g.node(id);
    let in_names = n.input_names();
    let (out_names, _) = n.output_names();
    let inputs: Vec<String> = n
        .inputs
        .iter()
        .zip(&in_names)
        .map(|(e, name)| format!("{name}={}", fmt_shape(&shapes[e.node.index()][e.index])))
        .collect();
    format!(
        "{} at {}: {} (inputs: {})",
        n.describe(),
        n.provenance,
        err.render(&in_names, &out_names),
        inputs.join(", ")
    )
}

/// Runs each operator's inference over the graph, forward then backward, until nothing
/// changes. Inference only refines what it is given (or fails), so a refined input simply
/// replaces the entry's value.
fn fixpoint<T: Clone + PartialEq>(
    g: &Graph,
    values: &mut [Vec<T>],
    infer: impl Fn(&OpDef, &Attrs, &mut [T], &mut [T]) -> Result<(), OpError>,
    error: impl Fn(NodeId, &OpError, &[Vec<T>]) -> Error,
) -> Result<()> {
    let op_ids: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| !g.node(id).is_variable())
        .collect();
    for _round in 0..=g.len() {
        let mut changed = false;
        for &id in op_ids.iter().chain(op_ids.iter().rev()) {
            let n = g.node(id);
            let (op, params) = (
                n.op.expect("operator node"),
                n.params.as_ref().expect("parsed params"),
            );
            let mut ins: Vec<T> = n
                .inputs
                .iter()
                .map(|e| values[e.node.index()][e.index].clone())
                .collect();
            let mut outs = values[id.index()].clone();
            infer(op, params, &mut ins, &mut outs).map_err(|e| error(id, &e, values))?;
            for (e, v) in n.inputs.iter().zip(ins) {
                let slot = &mut values[e.node.index()][e.index];
                if *slot != v {
                    *slot = v;
                    changed = true;
                }
            }
            if values[id.index()] != outs {
                values[id.index()] = outs;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    Ok(())
}

/// Infers every entry's shape from `known` variable shapes plus `__shape__` attributes.
/// Unknown dimensions stay 0; use [`Inferred::shape`] and [`is_known`] to check.
pub fn infer_shapes(g: &Graph, known: &HashMap<String, Shape>) -> Result<Vec<Vec<Shape>>> {
    let mut shapes: Vec<Vec<Shape>> = g
        .node_ids()
        .map(|id| vec![Shape::new(); g.node(id).num_outputs()])
        .collect();
    for id in g.node_ids().filter(|&id| g.node(id).is_variable()) {
        let n = g.node(id);
        let mut s = declared_shape(g, id)?;
        if let Some(k) = known.get(&n.name) {
            kiln_ops::shape::unify(kiln_ops::Slot::Out(0), &mut s, k).map_err(|_| {
                Error::Shape(format!(
                    "variable `{}`: given shape {} contradicts its declared shape {}",
                    n.name,
                    fmt_shape(k),
                    fmt_shape(&s)
                ))
            })?;
        }
        if !fits(&s) {
            return Err(Error::Shape(format!(
                "variable `{}`: shape {}, {TOO_LARGE}",
                n.name,
                fmt_shape(&s)
            )));
        }
        shapes[id.index()][0] = s;
    }
    fixpoint(
        g,
        &mut shapes,
        |op, params, ins, outs| {
            (op.infer_shape)(params, ins, outs)?;
            check_sizes(ins, outs)
        },
        |id, e, shapes| Error::Shape(node_error(g, id, e, shapes)),
    )?;
    Ok(shapes)
}

/// Every shape an operator's inference left in `ins` and `outs` is one an array can have:
/// sizes, byte counts and indices computed from inferred shapes then cannot overflow.
fn check_sizes(ins: &[Shape], outs: &[Shape]) -> Result<(), OpError> {
    let slots = ins.iter().enumerate().map(|(i, s)| (Slot::In(i), s));
    let slots = slots.chain(outs.iter().enumerate().map(|(i, s)| (Slot::Out(i), s)));
    for (slot, s) in slots {
        if !fits(s) {
            return Err(OpError::TooLarge {
                slot,
                shape: s.clone(),
            });
        }
    }
    Ok(())
}

/// Infers every entry's dtype; variables nobody constrains default to float32, as MXNet.
pub fn infer_dtypes(g: &Graph, known: &HashMap<String, DType>) -> Result<Vec<Vec<Option<DType>>>> {
    let mut dtypes: Vec<Vec<Option<DType>>> = g
        .node_ids()
        .map(|id| vec![None; g.node(id).num_outputs()])
        .collect();
    let vars: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| g.node(id).is_variable())
        .collect();
    for &id in &vars {
        dtypes[id.index()][0] = known
            .get(&g.node(id).name)
            .copied()
            .or(declared_dtype(g, id)?);
    }
    let error = |id: NodeId, e: &OpError, _: &[Vec<Option<DType>>]| {
        let n = g.node(id);
        let (out_names, _) = n.output_names();
        Error::DType(format!(
            "{} at {}: {}",
            n.describe(),
            n.provenance,
            e.render(&n.input_names(), &out_names)
        ))
    };
    let infer =
        |op: &OpDef, params: &Attrs, ins: &mut [Option<DType>], outs: &mut [Option<DType>]| {
            (op.infer_dtype)(params, ins, outs)
        };
    fixpoint(g, &mut dtypes, infer, error)?;
    // What nothing constrains is float32; propagate that too.
    for &id in &vars {
        dtypes[id.index()][0].get_or_insert(DType::F32);
    }
    fixpoint(g, &mut dtypes, infer, error)?;
    Ok(dtypes)
}

/// Shapes of a symbol's arguments, outputs and aux states, in list order.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolShapes {
    pub arguments: Vec<Shape>,
    pub outputs: Vec<Shape>,
    pub aux_states: Vec<Shape>,
}

impl Symbol {
    /// MXNet's `infer_shape_partial`: unknown dimensions are 0, unknown shapes empty.
    pub fn infer_shape_partial(&self, known: &[(&str, &[usize])]) -> Result<SymbolShapes> {
        let g = self.to_graph()?;
        let known: HashMap<String, Shape> = known
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_vec()))
            .collect();
        let shapes = infer_shapes(&g, &known)?;
        let of = |e: Entry| shapes[e.node.index()][e.index].clone();
        let var = |id: NodeId| of(Entry { node: id, index: 0 });
        Ok(SymbolShapes {
            arguments: g.argument_ids().into_iter().map(var).collect(),
            outputs: g.heads.iter().map(|&e| of(e)).collect(),
            aux_states: g.aux_state_ids().into_iter().map(var).collect(),
        })
    }

    /// MXNet's `infer_shape`; an argument or output that stays unknown is an error naming it.
    pub fn infer_shape(&self, known: &[(&str, &[usize])]) -> Result<SymbolShapes> {
        let s = self.infer_shape_partial(known)?;
        let names = [
            self.list_arguments(),
            self.list_outputs(),
            self.list_auxiliary_states(),
        ];
        let lists = [&s.arguments, &s.outputs, &s.aux_states];
        let unknown: Vec<String> = names
            .iter()
            .zip(lists)
            .flat_map(|(names, shapes)| names.iter().zip(shapes.iter()))
            .filter(|(_, s)| !is_known(s))
            .map(|(n, s)| format!("{n}={}", fmt_shape(s)))
            .collect();
        if !unknown.is_empty() {
            return Err(Error::Shape(format!(
                "cannot infer the shapes of: {}",
                unknown.join(", ")
            )));
        }
        Ok(s)
    }

    /// Dtypes of arguments, outputs and aux states (unconstrained arguments are float32).
    pub fn infer_type(
        &self,
        known: &[(&str, DType)],
    ) -> Result<(Vec<DType>, Vec<DType>, Vec<DType>)> {
        let g = self.to_graph()?;
        let known: HashMap<String, DType> =
            known.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let d = infer_dtypes(&g, &known)?;
        let of = |e: Entry| -> Result<DType> {
            d[e.node.index()][e.index].ok_or_else(|| {
                Error::DType(format!("cannot infer the dtype of `{}`", g.entry_name(e)))
            })
        };
        let var = |id: NodeId| of(Entry { node: id, index: 0 });
        Ok((
            g.argument_ids()
                .into_iter()
                .map(var)
                .collect::<Result<_>>()?,
            g.heads.iter().map(|&e| of(e)).collect::<Result<_>>()?,
            g.aux_state_ids()
                .into_iter()
                .map(var)
                .collect::<Result<_>>()?,
        ))
    }
}

/// Shapes and dtypes of every entry of `g`.
pub fn infer(
    g: &Graph,
    shapes: &HashMap<String, Shape>,
    dtypes: &HashMap<String, DType>,
) -> Result<Inferred> {
    Ok(Inferred {
        shapes: infer_shapes(g, shapes)?,
        dtypes: infer_dtypes(g, dtypes)?,
    })
}
