//! MXNet symbol JSON (MXNET_SPEC §1): loading, including the legacy `param`/`attr` keys
//! and the upgrade steps for files older than the running version, and saving in the
//! exact layout MXNet 1.9.1's writer produces.

use crate::error::{Error, Result};
use crate::graph::{Entry, Graph, NodeId};
use crate::node::{NodeData, Provenance};
use crate::symbol::Symbol;
use kiln_ops::{lookup, Attrs};
use serde_json::Value;
use std::collections::BTreeMap;

/// The MXNet version kiln writes into `mxnet_version` (1.9.1).
pub const MXNET_VERSION: i64 = 10901;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Json(msg.into()))
}

/// A node as read from the file, before operators are resolved.
struct RawNode {
    op: String,
    name: String,
    attrs: BTreeMap<String, String>,
    inputs: Vec<(usize, usize)>,
}

fn string_map(v: &Value, what: &str) -> Result<BTreeMap<String, String>> {
    let Some(obj) = v.as_object() else {
        return err(format!("{what} is not an object"));
    };
    Ok(obj
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect())
}

fn entry(v: &Value, what: &str) -> Result<(usize, usize)> {
    let items = v.as_array().filter(|a| (2..=3).contains(&a.len()));
    let ids: Option<Vec<usize>> =
        items.and_then(|a| a.iter().map(|x| x.as_u64().map(|x| x as usize)).collect());
    match ids {
        Some(ids) => Ok((ids[0], ids[1])),
        None => err(format!(
            "{what}: expected [node, output, version], found {v}"
        )),
    }
}

fn parse_node(i: usize, v: &Value) -> Result<RawNode> {
    let field = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let op = field("op").ok_or_else(|| Error::Json(format!("node {i} has no string `op`")))?;
    let name =
        field("name").ok_or_else(|| Error::Json(format!("node {i} has no string `name`")))?;
    let mut attrs = BTreeMap::new();
    // 1.x writes `attrs`, nnvm 0.9-1.0 wrote `attr`, pre-nnvm files `param` + `attr`.
    for key in ["param", "attr", "attrs"] {
        if let Some(a) = v.get(key) {
            attrs.extend(string_map(a, &format!("node {i} (`{name}`) `{key}`"))?);
        }
    }
    if v.get("subgraphs")
        .and_then(Value::as_array)
        .is_some_and(|s| !s.is_empty())
    {
        return err(format!(
            "node {i} (`{name}`, op {op}) has subgraphs: control-flow operators are not supported"
        ));
    }
    let inputs = match v.get("inputs") {
        None => vec![],
        Some(Value::Array(items)) => items
            .iter()
            .map(|e| entry(e, &format!("node {i} (`{name}`) input")))
            .collect::<Result<_>>()?,
        Some(other) => {
            return err(format!(
                "node {i} (`{name}`): `inputs` is not an array: {other}"
            ))
        }
    };
    for &(src, _) in &inputs {
        if src >= i {
            return err(format!(
                "node {i} (`{name}`) reads node {src}, which does not come before it"
            ));
        }
    }
    Ok(RawNode {
        op,
        name,
        attrs,
        inputs,
    })
}

/// `mxnet_version` of the file; files without it predate nnvm (0.8.0).
fn saved_version(root: &Value) -> i64 {
    root.get("attrs")
        .and_then(|a| a.get("mxnet_version"))
        .and_then(|v| v.as_array().and_then(|a| a.get(1)).or(Some(v)))
        .and_then(Value::as_i64)
        .unwrap_or(800)
}

const LEGACY_HIDDEN: [&str; 5] = [
    "ctx_group",
    "lr_mult",
    "wd_mult",
    "force_mirroring",
    "mirror_stage",
];

fn is_legacy_hidden(key: &str) -> bool {
    LEGACY_HIDDEN
        .iter()
        .any(|h| key == *h || key.ends_with(&format!("_{h}")))
}

/// MXNet's FixParsing: `lr_mult` becomes `__lr_mult__`, and `<input>_lr_mult` on an operator
/// moves to the variable feeding `<input>`.
fn fix_legacy_attrs(nodes: &mut [RawNode]) {
    for i in 0..nodes.len() {
        let legacy: Vec<String> = nodes[i]
            .attrs
            .keys()
            .filter(|k| is_legacy_hidden(k))
            .cloned()
            .collect();
        if legacy.is_empty() {
            continue;
        }
        let input_names = lookup(&nodes[i].op)
            .and_then(|op| {
                let params = nodes[i].attrs.iter().filter(|(k, _)| !is_legacy_hidden(k));
                let params = params.map(|(k, v)| (k.clone(), v.clone())).collect();
                Attrs::parse(op.params, &params)
                    .ok()
                    .map(|p| op.input_names(&p))
            })
            .unwrap_or_default();
        for key in legacy {
            let value = nodes[i].attrs.remove(&key).unwrap_or_default();
            if let Some(h) = LEGACY_HIDDEN.iter().find(|h| key == **h) {
                nodes[i].attrs.insert(format!("__{h}__"), value);
                continue;
            }
            let (h, arg) = LEGACY_HIDDEN
                .iter()
                .find_map(|h| key.strip_suffix(&format!("_{h}")).map(|arg| (h, arg)))
                .expect("legacy keys end in a hidden name");
            match input_names
                .iter()
                .position(|n| n == arg)
                .and_then(|slot| nodes[i].inputs.get(slot))
            {
                Some(&(src, _)) => {
                    nodes[src].attrs.insert(format!("__{h}__"), value);
                }
                None => {
                    nodes[i].attrs.insert(format!("__{key}__"), value);
                }
            }
        }
    }
}

/// Parses symbol JSON into a Symbol. Every unknown operator is reported at once.
pub fn load_json(text: &str) -> Result<Symbol> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| Error::Json(format!("not valid JSON: {e}")))?;
    let Some(raw_nodes) = root.get("nodes").and_then(Value::as_array) else {
        return err("no `nodes` array");
    };
    let version = saved_version(&root);
    let mut nodes: Vec<RawNode> = raw_nodes
        .iter()
        .enumerate()
        .map(|(i, v)| parse_node(i, v))
        .collect::<Result<_>>()?;
    if version < MXNET_VERSION {
        fix_legacy_attrs(&mut nodes);
    }
    let unknown: Vec<(String, String)> = nodes
        .iter()
        .filter(|n| n.op != "null" && lookup(&n.op).is_none())
        .map(|n| (n.op.clone(), n.name.clone()))
        .collect();
    if !unknown.is_empty() {
        return Err(Error::UnsupportedOperators(unknown));
    }
    let mut graph = Graph::default();
    let mut ids: Vec<NodeId> = Vec::with_capacity(nodes.len());
    for (i, raw) in nodes.into_iter().enumerate() {
        let id = add_raw_node(&mut graph, &ids, i, raw, version)?;
        ids.push(id);
    }
    let heads = match root.get("heads").and_then(Value::as_array) {
        Some(h) => h
            .iter()
            .map(|e| entry(e, "heads"))
            .collect::<Result<Vec<_>>>()?,
        None => return err("no `heads` array"),
    };
    graph.heads = heads
        .into_iter()
        .map(|(n, i)| checked_entry(&graph, &ids, n, i, "heads"))
        .collect::<Result<_>>()?;
    Ok(graph.to_symbol())
}

fn checked_entry(
    g: &Graph,
    ids: &[NodeId],
    node: usize,
    index: usize,
    what: &str,
) -> Result<Entry> {
    let Some(&id) = ids.get(node) else {
        return err(format!("{what}: node {node} does not exist"));
    };
    let n = g.node(id);
    if index >= n.num_outputs() {
        return err(format!(
            "{what}: node {node} (`{}`) has {} outputs, not {}",
            n.name,
            n.num_outputs(),
            index + 1
        ));
    }
    Ok(Entry { node: id, index })
}

fn add_raw_node(
    g: &mut Graph,
    ids: &[NodeId],
    i: usize,
    raw: RawNode,
    version: i64,
) -> Result<NodeId> {
    let provenance = Provenance::Json { id: i };
    if let Some(st) = raw
        .attrs
        .get("__storage_type__")
        .filter(|s| !matches!(s.as_str(), "0" | "-1" | "default"))
    {
        return err(format!(
            "node {i} (`{}`): sparse storage (`__storage_type__` = {st}) is not supported",
            raw.name
        ));
    }
    if raw.op == "null" {
        return Ok(g.add_node(NodeData::variable(raw.name, raw.attrs, provenance), vec![]));
    }
    let op = lookup(&raw.op).expect("unknown operators were reported before");
    let mut attrs = raw.attrs;
    if version < 905
        && matches!(op.name, "argmax" | "argmin")
        && attrs.get("axis").map(String::as_str) == Some("-1")
    {
        attrs.remove("axis");
    }
    let params = Attrs::parse(op.params, &attrs).map_err(|source| Error::Param {
        op: op.name.into(),
        node: raw.name.clone(),
        source,
    })?;
    let what = format!("node {i} (`{}`) input", raw.name);
    let mut inputs: Vec<Entry> = raw
        .inputs
        .iter()
        .map(|&(n, idx)| checked_entry(g, ids, n, idx, &what))
        .collect::<Result<_>>()?;
    let input_names = op.input_names(&params);
    if version < 900 && inputs.len() < input_names.len() {
        // Before 0.9.0 aux states were not stored as inputs: create them as MXNet does.
        for name in &input_names[inputs.len()..] {
            let var = NodeData::variable(
                format!("{}_{name}", raw.name),
                attrs.clone(),
                Provenance::Generated,
            );
            inputs.push(Entry {
                node: g.add_node(var, vec![]),
                index: 0,
            });
        }
    }
    if inputs.len() != input_names.len() {
        return Err(Error::Node {
            op: op.name.into(),
            node: raw.name,
            msg: format!(
                "has {} inputs but takes {} ({})",
                inputs.len(),
                input_names.len(),
                input_names.join(", ")
            ),
        });
    }
    if version < 904 {
        // Before 0.9.4 the composition hook that names aux initializers did not run.
        for &slot in op.mutable_inputs {
            let var = inputs[slot].node;
            let init = if input_names[slot].ends_with("var") {
                "one"
            } else {
                "zero"
            };
            g.g[var]
                .data
                .attrs
                .entry("__init__".into())
                .or_insert_with(|| format!("[\"{init}\", {{}}]"));
        }
    }
    let data = NodeData {
        op: Some(op),
        name: raw.name,
        attrs,
        params: Some(params),
        provenance,
    };
    Ok(g.add_node(data, inputs))
}

/// A JSON value as MXNet's dmlc writer lays it out.
enum Out {
    Str(String),
    Int(i64),
    Arr(Vec<Out>, bool),
    Obj(Vec<(String, Out)>, bool),
}

/// dmlc's rule: an array breaks lines when it has more than 10 items or its items are
/// not plain values; an object when it has more than one key.
fn pod_array(items: Vec<Out>) -> Out {
    let multi = items.len() > 10;
    Out::Arr(items, multi)
}

fn object(fields: Vec<(String, Out)>) -> Out {
    let multi = fields.len() > 1;
    Out::Obj(fields, multi)
}

fn newline(out: &mut String, scopes: &[bool]) {
    if scopes.last().copied().unwrap_or(true) {
        out.push('\n');
        out.push_str(&"  ".repeat(scopes.len()));
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write(v: &Out, out: &mut String, scopes: &mut Vec<bool>) {
    match v {
        Out::Str(s) => write_string(out, s),
        Out::Int(i) => out.push_str(&i.to_string()),
        Out::Arr(items, multi) => {
            out.push('[');
            scopes.push(*multi);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                newline(out, scopes);
                write(item, out, scopes);
            }
            scopes.pop();
            if *multi && !items.is_empty() {
                newline(out, scopes);
            }
            out.push(']');
        }
        Out::Obj(fields, multi) => {
            out.push('{');
            scopes.push(*multi);
            for (i, (k, item)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                newline(out, scopes);
                write_string(out, k);
                out.push_str(": ");
                write(item, out, scopes);
            }
            scopes.pop();
            if *multi && !fields.is_empty() {
                newline(out, scopes);
            }
            out.push('}');
        }
    }
}

fn entry_out(node: usize, index: usize, version: usize) -> Out {
    Out::Arr(
        vec![
            Out::Int(node as i64),
            Out::Int(index as i64),
            Out::Int(version as i64),
        ],
        false,
    )
}

/// Writes symbol JSON as MXNet 1.9.1 does (canonical operator names, sorted attributes,
/// `node_row_ptr` with hidden outputs, version 1 on inputs an operator mutates).
pub fn save_json(sym: &Symbol) -> Result<String> {
    let g = sym.to_graph()?;
    let mut mutations: BTreeMap<NodeId, usize> = BTreeMap::new();
    let mut nodes = Vec::with_capacity(g.len());
    for id in g.node_ids() {
        let n = g.node(id);
        let mut fields = vec![
            ("op".to_string(), Out::Str(n.op_name().into())),
            ("name".into(), Out::Str(n.name.clone())),
        ];
        if !n.attrs.is_empty() {
            fields.push((
                "attrs".into(),
                object(
                    n.attrs
                        .iter()
                        .map(|(k, v)| (k.clone(), Out::Str(v.clone())))
                        .collect(),
                ),
            ));
        }
        let inputs = n
            .inputs
            .iter()
            .enumerate()
            .map(|(slot, e)| {
                let version = if n.mutable_inputs().contains(&slot) {
                    let v = mutations.entry(e.node).or_insert(0);
                    *v += 1;
                    *v
                } else {
                    0
                };
                entry_out(e.node.index(), e.index, version)
            })
            .collect();
        fields.push(("inputs".into(), pod_array(inputs)));
        nodes.push(Out::Obj(fields, true));
    }
    let arg_nodes = g
        .node_ids()
        .filter(|&id| g.node(id).is_variable())
        .map(|id| Out::Int(id.index() as i64))
        .collect();
    let mut row_ptr = vec![Out::Int(0)];
    let mut total = 0;
    for id in g.node_ids() {
        total += g.node(id).num_outputs();
        row_ptr.push(Out::Int(total as i64));
    }
    let heads = g
        .heads
        .iter()
        .map(|e| entry_out(e.node.index(), e.index, 0))
        .collect();
    let version = Out::Arr(vec![Out::Str("int".into()), Out::Int(MXNET_VERSION)], false);
    let root = Out::Obj(
        vec![
            ("nodes".into(), Out::Arr(nodes, true)),
            ("arg_nodes".into(), pod_array(arg_nodes)),
            ("node_row_ptr".into(), pod_array(row_ptr)),
            ("heads".into(), pod_array(heads)),
            (
                "attrs".into(),
                object(vec![("mxnet_version".into(), version)]),
            ),
        ],
        true,
    );
    let mut out = String::new();
    write(&root, &mut out, &mut Vec::new());
    Ok(out)
}

impl Symbol {
    /// Loads MXNet symbol JSON.
    pub fn from_json(text: &str) -> Result<Symbol> {
        load_json(text)
    }

    /// Serializes as MXNet 1.9.1 does.
    pub fn to_json(&self) -> Result<String> {
        save_json(self)
    }

    /// Loads a `*-symbol.json` file.
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Symbol> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        load_json(&text).map_err(|e| Error::Format {
            path: path.display().to_string(),
            msg: e.to_string(),
        })
    }

    /// Saves as a `*-symbol.json` file, whole or not at all ([`super::atomic`]).
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        let path = path.as_ref();
        super::atomic::write_atomically(path, self.to_json()?.as_bytes())
            .map_err(|e| Error::io(path, e))
    }
}
