//! An operator application in the making — the operator's name, its inputs by position or
//! by name, its attributes as MXNet strings — shared by every kind of operand: a
//! [`Symbol`](crate::Symbol) builds a node, an NDArray (kiln-runtime) runs the operator.
//! The generated typed builders produce these, so both get them from the one definition.

use crate::error::{Error, Result};
use crate::node::Provenance;
use kiln_ops::{lookup, registry, Attrs, OpDef};
use std::collections::BTreeMap;
use std::panic::Location;

/// Something an operator can be applied to.
pub trait Operand: Sized {
    /// What applying an operator gives (a `Symbol`; output arrays).
    type Output;
    /// Whether an unnamed call gets an MXNet-style auto name (`convolution0`).
    const AUTO_NAME: bool;
    fn apply(call: ResolvedCall<'_, Self>) -> Result<Self::Output>;
}

/// `OpCall::new("FullyConnected").arg(&x).attr("num_hidden", 10).build()`.
pub struct OpCall<'a, T> {
    op: String,
    name: Option<String>,
    positional: Vec<&'a T>,
    named: Vec<(String, &'a T)>,
    attrs: BTreeMap<String, String>,
    provenance: Provenance,
}

/// A call whose operator, parameters and input slots are known.
pub struct ResolvedCall<'a, T> {
    pub op: &'static OpDef,
    /// The node name: given, auto-generated, or the operator's name.
    pub name: String,
    /// The attributes as given (plus `num_args` filled in), as MXNet stores them.
    pub attrs: BTreeMap<String, String>,
    pub params: Attrs,
    pub input_names: Vec<String>,
    /// One per input slot; `None` where the caller gave nothing.
    pub inputs: Vec<Option<&'a T>>,
    pub provenance: Provenance,
}

impl<T> ResolvedCall<'_, T> {
    /// An error about this call, naming the operator and node.
    pub fn error(&self, msg: impl Into<String>) -> Error {
        Error::Node {
            op: self.op.name.into(),
            node: self.name.clone(),
            msg: msg.into(),
        }
    }
}

impl<'a, T: Operand> OpCall<'a, T> {
    /// A call of `op` (canonical name or alias); the caller's location is its provenance.
    #[track_caller]
    pub fn new(op: &str) -> Self {
        OpCall {
            op: op.to_string(),
            name: None,
            positional: vec![],
            named: vec![],
            attrs: BTreeMap::new(),
            provenance: Provenance::caller(Location::caller()),
        }
    }
    /// The node's name (default: `<op><n>`, as MXNet's NameManager).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
    /// Where the call comes from, when not the caller's location (a macro's).
    pub fn provenance(mut self, provenance: Provenance) -> Self {
        self.provenance = provenance;
        self
    }
    /// The next positional input.
    pub fn arg(mut self, input: &'a T) -> Self {
        self.positional.push(input);
        self
    }
    /// Positional inputs.
    pub fn args(mut self, inputs: impl IntoIterator<Item = &'a T>) -> Self {
        self.positional.extend(inputs);
        self
    }
    /// An input by its name (`weight`, `gamma`).
    pub fn input(mut self, name: &str, input: &'a T) -> Self {
        self.named.push((name.to_string(), input));
        self
    }
    /// A parameter or attribute, as the string MXNet would store (`"(3, 3)"`, `10`).
    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {
        self.attrs.insert(key.to_string(), value.to_string());
        self
    }

    /// Applies the operator.
    pub fn build(self) -> Result<T::Output> {
        T::apply(self.resolve()?)
    }

    /// Looks the operator up, parses the parameters and places the inputs in their slots.
    pub fn resolve(self) -> Result<ResolvedCall<'a, T>> {
        let op = lookup(&self.op).ok_or_else(|| Error::UnknownOperator {
            op: self.op.clone(),
            similar: registry().similar(&self.op),
        })?;
        let name = match self.name {
            Some(n) => n,
            None if T::AUTO_NAME => crate::symbol::auto_name(&self.op),
            None => op.name.to_string(),
        };
        let mut attrs = self.attrs;
        if let Some(key) = op.num_args_param {
            attrs
                .entry(key.into())
                .or_insert_with(|| self.positional.len().to_string());
        }
        let params = Attrs::parse(op.params, &attrs).map_err(|source| Error::Param {
            op: op.name.into(),
            node: name.clone(),
            source,
        })?;
        let input_names = op.input_names(&params);
        let mut call = ResolvedCall {
            op,
            name,
            attrs,
            params,
            inputs: vec![None; input_names.len()],
            input_names,
            provenance: self.provenance,
        };
        if self.positional.len() > call.input_names.len() {
            return Err(call.error(format!(
                "takes {} inputs ({}) but {} were given",
                call.input_names.len(),
                call.input_names.join(", "),
                self.positional.len()
            )));
        }
        for (slot, s) in call.inputs.iter_mut().zip(self.positional) {
            *slot = Some(s);
        }
        for (key, s) in self.named {
            let Some(i) = call.input_names.iter().position(|n| *n == key) else {
                return Err(call.error(format!(
                    "has no input `{key}` (inputs: {})",
                    call.input_names.join(", ")
                )));
            };
            if call.inputs[i].replace(s).is_some() {
                return Err(call.error(format!("input `{key}` is given twice")));
            }
        }
        Ok(call)
    }
}
