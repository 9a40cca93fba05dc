//! What every node carries, in the Symbol and in the Graph alike.

use kiln_ops::{Attrs, OpDef};
use std::collections::BTreeMap;
use std::fmt;
use std::panic::Location;

/// Where a node came from, kept through every pass so late errors still name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// A Symbol API call at this Rust source location.
    Source {
        file: &'static str,
        line: u32,
        column: u32,
    },
    /// Node `id` of a loaded symbol JSON file.
    Json { id: usize },
    /// Created by the compiler (auto-created variables, passes).
    Generated,
    /// Declared in a `network!` macro (whose errors point at the call's span).
    Macro,
    /// Part of the gradient of the named forward node.
    Gradient { of: String },
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::Source { file, line, column } => write!(f, "{file}:{line}:{column}"),
            Provenance::Json { id } => write!(f, "JSON node {id}"),
            Provenance::Generated => f.write_str("generated"),
            Provenance::Macro => f.write_str("network!"),
            Provenance::Gradient { of } => write!(f, "gradient of `{of}`"),
        }
    }
}

impl Provenance {
    pub(crate) fn caller(loc: &'static Location<'static>) -> Provenance {
        Provenance::Source {
            file: loc.file(),
            line: loc.line(),
            column: loc.column(),
        }
    }
}

/// A variable (`op: None`) or an operator application, without its inputs.
#[derive(Clone, Debug)]
pub struct NodeData {
    pub op: Option<&'static OpDef>,
    pub name: String,
    /// Attributes as MXNet stores them: operator parameters as given plus hidden `__x__`
    /// attributes. This is what JSON write-back emits.
    pub attrs: BTreeMap<String, String>,
    /// The operator's parsed parameters (defaults filled in); `None` for variables.
    pub params: Option<Attrs>,
    pub provenance: Provenance,
}

impl NodeData {
    pub fn variable(
        name: String,
        attrs: BTreeMap<String, String>,
        provenance: Provenance,
    ) -> NodeData {
        NodeData {
            op: None,
            name,
            attrs,
            params: None,
            provenance,
        }
    }

    pub fn is_variable(&self) -> bool {
        self.op.is_none()
    }

    pub fn op_name(&self) -> &'static str {
        self.op.map_or("null", |op| op.name)
    }

    /// All output names and the number of visible outputs.
    pub fn output_names(&self) -> (Vec<String>, usize) {
        match (self.op, &self.params) {
            (Some(op), Some(p)) => op.output_names(p),
            _ => (vec!["output".into()], 1),
        }
    }

    pub fn num_outputs(&self) -> usize {
        self.output_names().0.len()
    }

    pub fn num_visible_outputs(&self) -> usize {
        self.output_names().1
    }

    pub fn input_names(&self) -> Vec<String> {
        match (self.op, &self.params) {
            (Some(op), Some(p)) => op.input_names(p),
            _ => vec![],
        }
    }

    /// Indices of the inputs this node writes (aux states).
    pub fn mutable_inputs(&self) -> &'static [usize] {
        self.op.map_or(&[], |op| op.mutable_inputs)
    }

    /// `Op \`name\`` for messages.
    pub fn describe(&self) -> String {
        format!(
            "{} `{}`",
            self.op.map_or("variable", |op| op.name),
            self.name
        )
    }
}
