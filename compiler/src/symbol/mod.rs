//! The Symbol API: networks as DAGs of operator nodes, composed at run time, MXNet-style.
//!
//! A [`Symbol`] is a list of output entries of shared, immutable nodes. Composing an
//! operator on symbols creates a node; inputs the caller leaves out become variables
//! named `<node>_<input>` (`fc1_weight`), exactly as MXNet does, so argument lists and
//! checkpoints interoperate. Every node records where it came from ([`Provenance`]).

mod arith;

use crate::call::{OpCall, Operand, ResolvedCall};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::node::{NodeData, Provenance};
use kiln_ops::DType;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::panic::Location;
use std::sync::Arc;

/// A node of a symbol: its data and its input entries.
#[derive(Debug)]
pub struct Node {
    pub data: NodeData,
    pub inputs: Vec<NodeEntry>,
}

/// Dropping a symbol takes its nodes apart from a stack of their own: the default drop
/// recurses through inputs, once per node of the longest chain, which overflows the call
/// stack on deep graphs.
impl Drop for Node {
    fn drop(&mut self) {
        let mut stack: Vec<Arc<Node>> = self.inputs.drain(..).map(|e| e.node).collect();
        while let Some(node) = stack.pop() {
            // The last reference: its inputs move to the stack before it drops.
            if let Some(mut node) = Arc::into_inner(node) {
                stack.extend(node.inputs.drain(..).map(|e| e.node));
            }
        }
    }
}

impl std::ops::Deref for Node {
    type Target = NodeData;
    fn deref(&self) -> &NodeData {
        &self.data
    }
}

/// An output of a node.
#[derive(Clone, Debug)]
pub struct NodeEntry {
    pub node: Arc<Node>,
    pub index: usize,
}

/// A symbolic network: one or more output entries.
#[derive(Clone, Debug)]
pub struct Symbol {
    outputs: Vec<NodeEntry>,
    /// An error from an infallible composition (arithmetic on a grouped symbol), reported
    /// by every fallible operation on this symbol or anything built from it.
    deferred: Option<Arc<str>>,
}

thread_local! {
    static NAME_COUNTERS: RefCell<HashMap<String, usize>> = RefCell::new(HashMap::new());
}

/// MXNet's NameManager: `<hint><n>` with one counter per hint, per thread.
pub(crate) fn auto_name(hint: &str) -> String {
    let hint = hint.to_ascii_lowercase();
    NAME_COUNTERS.with(|c| {
        let mut c = c.borrow_mut();
        let n = c.entry(hint.clone()).or_insert(0);
        let name = format!("{hint}{n}");
        *n += 1;
        name
    })
}

/// Builds a variable: `Symbol::variable("data").shape(&[1, 784]).build()`.
pub struct VariableBuilder {
    name: String,
    attrs: BTreeMap<String, String>,
    provenance: Provenance,
}

impl VariableBuilder {
    pub fn shape(self, shape: &[usize]) -> Self {
        let s = kiln_ops::Value::Shape(shape.iter().map(|&d| d as i64).collect());
        self.attr("__shape__", s.to_mxnet_string())
    }
    pub fn dtype(self, dtype: DType) -> Self {
        self.attr("__dtype__", dtype.mxnet_code())
    }
    pub fn lr_mult(self, mult: f64) -> Self {
        self.attr("__lr_mult__", kiln_ops::param::py_float(mult))
    }
    pub fn wd_mult(self, mult: f64) -> Self {
        self.attr("__wd_mult__", kiln_ops::param::py_float(mult))
    }
    /// An initializer as MXNet's `__init__` JSON (`["zero", {}]`) or a plain name.
    pub fn init(self, init: &str) -> Self {
        let json = if init.trim_start().starts_with('[') {
            init.to_string()
        } else {
            format!("[\"{init}\", {{}}]")
        };
        self.attr("__init__", json)
    }
    /// Any attribute; `lr_mult`-style names are stored as hidden `__lr_mult__`.
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.attrs.insert(key.to_string(), value.to_string());
        self
    }
    pub fn build(self) -> Symbol {
        let data = NodeData::variable(self.name, self.attrs, self.provenance);
        let node = Node {
            data,
            inputs: vec![],
        };
        Symbol::from_node(Arc::new(node))
    }
}

/// Applying an operator to symbols creates a node; inputs left out become variables.
impl Operand for Symbol {
    type Output = Symbol;
    const AUTO_NAME: bool = true;

    fn apply(call: ResolvedCall<'_, Symbol>) -> Result<Symbol> {
        let op = call.op;
        let mut inputs = Vec::with_capacity(call.inputs.len());
        for (i, (slot, in_name)) in call.inputs.iter().zip(&call.input_names).enumerate() {
            let entry = match slot {
                Some(s) => {
                    s.check()?;
                    match s.outputs.as_slice() {
                        [one] => one.clone(),
                        outs => {
                            return Err(call.error(format!(
                                "input `{in_name}` must be a single output, but the symbol given has {}",
                                outs.len()
                            )))
                        }
                    }
                }
                None => auto_variable(
                    &call.name,
                    in_name,
                    op.mutable_inputs.contains(&i),
                    &call.attrs,
                ),
            };
            inputs.push(entry);
        }
        let data = NodeData {
            op: Some(op),
            name: call.name,
            attrs: call.attrs,
            params: Some(call.params),
            provenance: call.provenance,
        };
        Ok(Symbol::from_node(Arc::new(Node { data, inputs })))
    }
}

/// A variable MXNet creates for an input the caller left out: named `<node>_<input>`,
/// carrying a copy of the operator's attributes, and — for aux states — the initializer
/// MXNet's composition hook sets (moving variance to one, other states to zero).
fn auto_variable(
    node: &str,
    input: &str,
    mutable: bool,
    attrs: &BTreeMap<String, String>,
) -> NodeEntry {
    let mut attrs = attrs.clone();
    if mutable {
        let init = if input.ends_with("var") {
            "one"
        } else {
            "zero"
        };
        attrs.insert("__init__".into(), format!("[\"{init}\", {{}}]"));
    }
    let data = NodeData::variable(format!("{node}_{input}"), attrs, Provenance::Generated);
    let var = Node {
        data,
        inputs: vec![],
    };
    NodeEntry {
        node: Arc::new(var),
        index: 0,
    }
}

impl Symbol {
    /// A variable with no attributes.
    #[track_caller]
    pub fn var(name: &str) -> Symbol {
        Symbol::variable(name).build()
    }

    /// A variable builder (shape, dtype, lr_mult, wd_mult, init, attributes).
    #[track_caller]
    pub fn variable(name: &str) -> VariableBuilder {
        VariableBuilder {
            name: name.to_string(),
            attrs: BTreeMap::new(),
            provenance: Provenance::caller(Location::caller()),
        }
    }

    /// Applies the operator `op` (canonical name or alias).
    #[track_caller]
    pub fn op(op: &str) -> OpCall<'static, Symbol> {
        OpCall::new(op)
    }

    pub(crate) fn from_node(node: Arc<Node>) -> Symbol {
        let n = node.num_visible_outputs();
        Symbol {
            outputs: (0..n)
                .map(|index| NodeEntry {
                    node: node.clone(),
                    index,
                })
                .collect(),
            deferred: None,
        }
    }

    pub(crate) fn from_entries(outputs: Vec<NodeEntry>) -> Symbol {
        Symbol {
            outputs,
            deferred: None,
        }
    }

    pub(crate) fn poisoned(mut self, msg: String) -> Symbol {
        self.deferred.get_or_insert_with(|| msg.into());
        self
    }

    /// Reports an error deferred from an infallible composition.
    pub fn check(&self) -> Result<()> {
        match &self.deferred {
            Some(msg) => Err(Error::Input(msg.to_string())),
            None => Ok(()),
        }
    }

    /// Several symbols as one multi-output symbol.
    pub fn group(symbols: &[Symbol]) -> Symbol {
        let deferred = symbols.iter().find_map(|s| s.deferred.clone());
        Symbol {
            outputs: symbols.iter().flat_map(|s| s.outputs.clone()).collect(),
            deferred,
        }
    }

    pub fn outputs(&self) -> &[NodeEntry] {
        &self.outputs
    }

    pub fn num_outputs(&self) -> usize {
        self.outputs.len()
    }

    /// Output `i` as a symbol of its own.
    pub fn output(&self, i: usize) -> Result<Symbol> {
        let e = self.outputs.get(i).ok_or_else(|| {
            Error::Input(format!(
                "output index {i} is out of range: the symbol has {} outputs",
                self.outputs.len()
            ))
        })?;
        Ok(Symbol {
            outputs: vec![e.clone()],
            deferred: self.deferred.clone(),
        })
    }

    /// The output named `name` (as in [`Symbol::list_outputs`]).
    pub fn get(&self, name: &str) -> Result<Symbol> {
        let names = self.list_outputs();
        match names.iter().position(|n| n == name) {
            Some(i) => self.output(i),
            None => Err(Error::Input(format!(
                "no output named `{name}` (outputs: {})",
                names.join(", ")
            ))),
        }
    }

    /// The node name when the symbol has a single output.
    pub fn name(&self) -> Option<&str> {
        match self.outputs.as_slice() {
            [one] => Some(&one.node.name),
            _ => None,
        }
    }

    /// An attribute of the single output's node.
    pub fn attr(&self, key: &str) -> Option<&str> {
        match self.outputs.as_slice() {
            [one] => one.node.attrs.get(key).map(String::as_str),
            _ => None,
        }
    }

    /// Attributes of every node, by node name (MXNet's `attr_dict`).
    pub fn attr_dict(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        self.nodes()
            .into_iter()
            .filter(|n| !n.attrs.is_empty())
            .map(|n| (n.name.clone(), n.attrs.clone()))
            .collect()
    }

    /// Every node reachable from the outputs in MXNet's order: depth-first post-order,
    /// inputs in order, each node once.
    pub fn nodes(&self) -> Vec<Arc<Node>> {
        let mut seen: HashSet<*const Node> = HashSet::new();
        let mut order = Vec::new();
        for head in &self.outputs {
            let mut stack: Vec<(Arc<Node>, usize)> = vec![(head.node.clone(), 0)];
            if !seen.insert(Arc::as_ptr(&head.node)) {
                continue;
            }
            while let Some((node, next)) = stack.pop() {
                if let Some(input) = node.inputs.get(next) {
                    let child = input.node.clone();
                    stack.push((node, next + 1));
                    if seen.insert(Arc::as_ptr(&child)) {
                        stack.push((child, 0));
                    }
                } else {
                    order.push(node);
                }
            }
        }
        order
    }

    /// Variables written by some operator (aux states) — MXNet has no other marker.
    fn aux_set(nodes: &[Arc<Node>]) -> HashSet<*const Node> {
        nodes
            .iter()
            .flat_map(|n| n.mutable_inputs().iter().filter_map(|&i| n.inputs.get(i)))
            .map(|e| Arc::as_ptr(&e.node))
            .collect()
    }

    /// Learnable arguments and inputs, in MXNet's order.
    pub fn list_arguments(&self) -> Vec<String> {
        let nodes = self.nodes();
        let aux = Self::aux_set(&nodes);
        nodes
            .iter()
            .filter(|n| n.is_variable() && !aux.contains(&Arc::as_ptr(n)))
            .map(|n| n.name.clone())
            .collect()
    }

    /// Auxiliary states (variables an operator mutates), in MXNet's order.
    pub fn list_auxiliary_states(&self) -> Vec<String> {
        let nodes = self.nodes();
        let aux = Self::aux_set(&nodes);
        nodes
            .iter()
            .filter(|n| n.is_variable() && aux.contains(&Arc::as_ptr(n)))
            .map(|n| n.name.clone())
            .collect()
    }

    /// Every variable (arguments and aux states), in order.
    pub fn list_inputs(&self) -> Vec<String> {
        self.nodes()
            .iter()
            .filter(|n| n.is_variable())
            .map(|n| n.name.clone())
            .collect()
    }

    /// Output names: `<node>_<output>` for operators, the name itself for variables.
    pub fn list_outputs(&self) -> Vec<String> {
        self.outputs.iter().map(entry_name).collect()
    }

    /// Every visible output of every node, as one symbol (MXNet's `get_internals`).
    pub fn get_internals(&self) -> Symbol {
        let outputs = self
            .nodes()
            .into_iter()
            .flat_map(|n| {
                (0..n.num_visible_outputs()).map(move |index| NodeEntry {
                    node: n.clone(),
                    index,
                })
            })
            .collect();
        Symbol {
            outputs,
            deferred: self.deferred.clone(),
        }
    }

    /// The inputs of the output nodes, grouped (`None` for a variable).
    pub fn get_children(&self) -> Option<Symbol> {
        let outputs: Vec<NodeEntry> = self
            .outputs
            .iter()
            .flat_map(|e| e.node.inputs.clone())
            .collect();
        (!outputs.is_empty()).then(|| Symbol {
            outputs,
            deferred: self.deferred.clone(),
        })
    }

    /// The indexed graph of this symbol.
    pub fn to_graph(&self) -> Result<Graph> {
        self.check()?;
        Ok(Graph::from_symbol(self))
    }
}

/// `<node>_<output>` for an operator output, the node name for a variable.
pub fn entry_name(e: &NodeEntry) -> String {
    if e.node.is_variable() {
        return e.node.name.clone();
    }
    let (names, _) = e.node.output_names();
    format!(
        "{}_{}",
        e.node.name,
        names.get(e.index).map_or("output", String::as_str)
    )
}
