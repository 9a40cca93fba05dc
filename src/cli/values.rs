//! The values `run` and `grad` bind: parameters from a `.params` file, inputs from `.npy`
//! files, zeros for labels not given, each checked against the model with an error that
//! names the file and the flag that fixes it.

use super::allocation;
use kiln::compiler::formats::{npy, params as params_format};
use kiln::compiler::infer::{infer, infer_shapes};
use kiln::compiler::{Entry, Graph, NodeId};
use kiln::ops::shape::{fmt_shape, is_known};
use kiln::{DType, Error, Result, Symbol, Tensor};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Values by variable name, and the names the `.params` file gave.
pub struct Loaded {
    pub values: HashMap<String, Tensor>,
    pub from_params: Vec<String>,
}

/// What to do with a `.params` entry that names no variable of the model.
#[derive(Clone, Copy, PartialEq)]
pub enum Extra {
    /// Ignore it, as MXNet's predictor does (a file made for a larger model runs a part of
    /// it).
    Ignore,
    /// Refuse it: a gradient asked for and silently not computed is a lost result.
    Refuse,
}

/// Reads the parameters (MXNet's `arg:`/`aux:` prefixes stripped) and inputs, checks each
/// input's name and dtype against the model, and adds zeros for labels not given, as
/// MXNet's predictor binds them (loss heads read a label even in inference).
pub fn load(
    sym: &Symbol,
    g: &Graph,
    params: Option<&Path>,
    inputs: &[(String, PathBuf)],
    extra: Extra,
) -> Result<Loaded> {
    let variables: HashSet<&str> = g
        .node_ids()
        .filter(|&id| g.node(id).is_variable())
        .map(|id| g.node(id).name.as_str())
        .collect();
    let mut values = HashMap::new();
    let mut from_params = Vec::new();
    if let Some(path) = params {
        let file = params_format::read_params(path)?;
        let named = file.named().ok_or_else(|| {
            Error::Input(format!(
                "--params {}: holds an unnamed list of arrays, not named parameters",
                path.display()
            ))
        })?;
        for (key, t) in named {
            let name = key
                .strip_prefix("arg:")
                .or_else(|| key.strip_prefix("aux:"))
                .unwrap_or(key);
            if extra == Extra::Refuse && !variables.contains(name) {
                return Err(Error::Input(format!(
                    "--params {}: `{key}` is no argument of the model (arguments: {})",
                    path.display(),
                    sym.list_arguments().join(", ")
                )));
            }
            from_params.push(name.to_string());
            values.insert(name.to_string(), t.clone());
        }
    }
    for (name, path) in inputs {
        if !variables.contains(name.as_str()) {
            return Err(Error::Input(format!(
                "--input {name}: the model has no input named `{name}` (inputs: {})",
                sym.list_inputs().join(", ")
            )));
        }
        let t = npy::read_npy(path)?;
        check_fits(g, &values, (name, path), &t, params)?;
        values.insert(name.clone(), t);
    }
    let shapes = values
        .iter()
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let inferred = infer_shapes(g, &shapes)?;
    for id in g.node_ids() {
        let n = g.node(id);
        let shape = &inferred[id.index()][0];
        if n.is_variable()
            && n.name.ends_with("label")
            && !values.contains_key(&n.name)
            && is_known(shape)
        {
            let zeros = Tensor::try_full(DType::F32, shape.clone(), 0.0)
                .map_err(|a| allocation(a, &format!("the label `{}`", n.name)))?;
            values.insert(n.name.clone(), zeros);
        }
    }
    Ok(Loaded {
        values,
        from_params,
    })
}

/// Refuses an input whose shape or dtype the values before it (the parameters, then
/// earlier inputs) rule out, naming the file, what it holds and what the model needs
/// there: inference over everything at once would blame whichever node it reached first
/// (a weight, for float64 data given to a float32 model).
fn check_fits(
    g: &Graph,
    values: &HashMap<String, Tensor>,
    (name, path): (&str, &Path),
    t: &Tensor,
    params: Option<&Path>,
) -> Result<()> {
    let mut shapes: HashMap<String, Vec<usize>> = (values.iter())
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let mut dtypes: HashMap<String, DType> =
        values.iter().map(|(k, t)| (k.clone(), t.dtype)).collect();
    let Ok(before) = infer(g, &shapes, &dtypes) else {
        // The values before disagree among themselves: inference over all says where.
        return Ok(());
    };
    shapes.insert(name.to_string(), t.shape.clone());
    dtypes.insert(name.to_string(), t.dtype);
    let Err(e) = infer(g, &shapes, &dtypes) else {
        return Ok(());
    };
    let Some(node) = g.variable(name) else {
        return Err(Error::Input(format!(
            "--input {name}={}: the model has no input `{name}`",
            path.display()
        )));
    };
    let var = Entry { node, index: 0 };
    let needed = match (before.shape(var), before.dtype(var)) {
        (_, Some(dtype)) if dtype != t.dtype => format!("needs {dtype} values"),
        (shape, _) if !shape.is_empty() => format!("needs shape {}", fmt_shape(shape)),
        _ => "cannot take them".to_string(),
    };
    let given = match params {
        Some(p) => format!("the parameters in {}", p.display()),
        None => "the other inputs".to_string(),
    };
    Err(Error::Input(format!(
        "--input {name}={}: holds {} {} values, but the model {needed} for `{name}` given \
         {given}\n  cause: {e}",
        path.display(),
        fmt_shape(&t.shape),
        t.dtype,
    )))
}

/// Refuses to run without a value for every variable, saying which flag gives each.
pub fn check_complete(g: &Graph, values: &HashMap<String, Tensor>) -> Result<()> {
    let missing: Vec<NodeId> = g
        .node_ids()
        .filter(|&id| {
            let n = g.node(id);
            n.is_variable() && !g.constants.contains_key(&id) && !values.contains_key(&n.name)
        })
        .collect();
    let Some(&first) = missing.first() else {
        return Ok(());
    };
    let shapes = values
        .iter()
        .map(|(k, t)| (k.clone(), t.shape.clone()))
        .collect();
    let inferred = infer_shapes(g, &shapes)?;
    let listed: Vec<String> = missing
        .iter()
        .map(|&id| {
            let (name, shape) = (&g.node(id).name, &inferred[id.index()][0]);
            if shape.is_empty() {
                format!("`{name}` (shape unknown)")
            } else {
                format!("`{name}` {}", fmt_shape(shape))
            }
        })
        .collect();
    Err(Error::Input(format!(
        "no value for {}: give each with --input NAME=FILE.npy (--input {}=FILE.npy) or in \
         the --params file",
        listed.join(", "),
        g.node(first).name
    )))
}
