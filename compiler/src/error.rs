//! The compiler's typed errors. Each names what the user wrote: the node, its operator,
//! the argument and the shapes involved.

use kiln_ops::ParamError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("unknown operator `{op}`{}", suggest(.similar))]
    UnknownOperator {
        op: String,
        similar: Vec<&'static str>,
    },
    #[error("unsupported operators: {}", list_unsupported(.0))]
    UnsupportedOperators(Vec<(String, String)>),
    #[error("{op} `{node}`: {source}")]
    Param {
        op: String,
        node: String,
        source: ParamError,
    },
    #[error("{op} `{node}`: {msg}")]
    Node {
        op: String,
        node: String,
        msg: String,
    },
    #[error("shape inference: {0}")]
    Shape(String),
    #[error("dtype inference: {0}")]
    DType(String),
    #[error("{0}")]
    Input(String),
    #[error("symbol JSON: {0}")]
    Json(String),
    #[error("{path}: {msg}")]
    Format { path: String, msg: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// Memory for values that could not be had (sizes from the user's files and shapes).
    #[error("cannot allocate {bytes} bytes for {what}")]
    Allocation { what: String, bytes: usize },
    /// Lowering, scheduling, rendering or running a kernel.
    #[error(transparent)]
    Kernel(#[from] crate::kir::KirError),
}

fn suggest(similar: &[&str]) -> String {
    if similar.is_empty() {
        String::new()
    } else {
        format!(" (did you mean {}?)", similar.join(", "))
    }
}

fn list_unsupported(ops: &[(String, String)]) -> String {
    ops.iter()
        .map(|(op, node)| format!("`{op}` (node `{node}`)"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
