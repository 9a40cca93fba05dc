//! Checkpoints exactly as MXNet writes them (MXNET_SPEC §2.3): `prefix-symbol.json` and
//! `prefix-%04d.params`, the latter a dict with `arg:<name>` and `aux:<name>` keys.
//! kiln writes arguments in `list_arguments` order then aux states in
//! `list_auxiliary_states` order, so the bytes depend only on the model.

use crate::ndarray::NDArray;
use crate::{Error, Result};
use kiln_compiler::Symbol;
use std::collections::HashMap;
use std::path::PathBuf;

/// The two file paths of a checkpoint.
pub fn checkpoint_paths(prefix: &str, epoch: usize) -> (PathBuf, PathBuf) {
    (
        PathBuf::from(format!("{prefix}-symbol.json")),
        PathBuf::from(format!("{prefix}-{epoch:04}.params")),
    )
}

/// Writes `symbol` and the given parameters. Parameters the symbol does not have are an
/// error (they would be silently lost otherwise).
pub fn save_checkpoint(
    prefix: &str,
    epoch: usize,
    symbol: &Symbol,
    args: &HashMap<String, NDArray>,
    aux: &HashMap<String, NDArray>,
) -> Result<()> {
    let (json, params) = checkpoint_paths(prefix, epoch);
    let (arg_names, aux_names) = (symbol.list_arguments(), symbol.list_auxiliary_states());
    for (map, names, what) in [
        (args, &arg_names, "argument"),
        (aux, &aux_names, "aux state"),
    ] {
        if let Some(extra) = map.keys().find(|k| !names.contains(k)) {
            return Err(Error::Input(format!(
                "save_checkpoint: the symbol has no {what} `{extra}`"
            )));
        }
    }
    symbol.save(&json)?;
    let mut entries: Vec<(String, &NDArray)> = Vec::new();
    entries.extend(
        arg_names
            .iter()
            .filter_map(|n| args.get(n).map(|a| (format!("arg:{n}"), a))),
    );
    entries.extend(
        aux_names
            .iter()
            .filter_map(|n| aux.get(n).map(|a| (format!("aux:{n}"), a))),
    );
    let named: Vec<(&str, &NDArray)> = entries.iter().map(|(k, a)| (k.as_str(), *a)).collect();
    NDArray::save(&params, &named)
}

/// Named arrays (a checkpoint's arguments or aux states).
pub type NamedArrays = HashMap<String, NDArray>;

/// Reads a checkpoint: the symbol, its arguments and aux states. Keys without an `arg:` or
/// `aux:` prefix are ignored, as MXNet does.
pub fn load_checkpoint(prefix: &str, epoch: usize) -> Result<(Symbol, NamedArrays, NamedArrays)> {
    let (json, params) = checkpoint_paths(prefix, epoch);
    let symbol = Symbol::load(&json)?;
    let (mut args, mut aux) = (HashMap::new(), HashMap::new());
    for (key, array) in NDArray::load(&params)? {
        match key.split_once(':') {
            Some(("arg", name)) => {
                args.insert(name.to_string(), array);
            }
            Some(("aux", name)) => {
                aux.insert(name.to_string(), array);
            }
            _ => {}
        }
    }
    Ok((symbol, args, aux))
}
