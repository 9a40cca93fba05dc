//! Generates `builders.rs`, the typed builders, from the operator registry (the
//! rust-analyzer "sourcegen" pattern: generated code is committed, and this test fails
//! when it is stale). Regenerate with `KILN_UPDATE_BUILDERS=1 cargo test -p kiln-compiler`.

use kiln_ops::{registry, OpDef, ParamType};
use std::fmt::Write;

const KEYWORDS: &[&str] = &[
    "as", "box", "break", "const", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod",
    "move", "mut", "ref", "return", "self", "static", "struct", "trait", "type", "use", "where",
    "while", "dyn", "abstract", "final", "override", "yield", "macro", "try", "gen",
];

/// `FullyConnected` → `fully_connected`, `_plus_scalar` → `plus_scalar`, `LRN` → `lrn`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.trim_start_matches('_').chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let prev_lower = i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
        let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
        if c.is_uppercase()
            && i > 0
            && (prev_lower || (next_lower && chars[i - 1].is_uppercase()))
            && !out.ends_with('_')
        {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn camel(name: &str) -> String {
    snake(name)
        .split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            c.next()
                .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
        })
        .collect()
}

fn ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// The Rust type a setter takes and the expression turning it into a `Value`.
fn setter(ty: ParamType) -> (&'static str, &'static str) {
    match ty {
        ParamType::Bool | ParamType::OptBool => ("bool", "Value::Bool(v)"),
        ParamType::Int | ParamType::OptInt => ("i64", "Value::Int(v)"),
        ParamType::Float | ParamType::OptFloat => ("f64", "Value::Float(v)"),
        ParamType::Enum(_) | ParamType::Str => ("&str", "Value::Str(v.to_string())"),
        ParamType::Shape | ParamType::OptShape => ("&[i64]", "Value::Shape(v.to_vec())"),
        ParamType::OptTuple => ("&[Option<i64>]", "Value::OptTuple(v.to_vec())"),
        ParamType::DType | ParamType::OptDType => ("DType", "Value::DType(v)"),
    }
}

/// Operator and parameter docs as one rustdoc line; brackets escaped so that MXNet's
/// `shape[0]` is not read as an intra-doc link.
fn doc_line(doc: &str) -> String {
    doc.replace('\n', " ")
        .replace('[', "\\[")
        .replace(']', "\\]")
}

fn render_op(op: &OpDef, out: &mut String) {
    let (fname, sname) = (ident(&snake(op.name)), camel(op.name));
    let doc = if op.doc.is_empty() { "" } else { op.doc };
    let _ = writeln!(out, "/// `{}`: {}", op.name, doc_line(doc));
    let _ = writeln!(
        out,
        "pub struct {sname}<'a, T> {{\n    call: OpCall<'a, T>,\n}}\n"
    );
    let _ = writeln!(out, "/// Applies `{}`.", op.name);
    let _ = writeln!(out, "#[track_caller]\npub fn {fname}<'a, T: Operand>() -> {sname}<'a, T> {{\n    {sname} {{ call: OpCall::new(\"{}\") }}\n}}\n", op.name);
    let _ = writeln!(out, "impl<'a, T: Operand> {sname}<'a, T> {{");
    if op.num_args_param.is_some() {
        let _ = writeln!(out, "    /// Positional inputs, in order.\n    pub fn args(mut self, inputs: impl IntoIterator<Item = &'a T>) -> Self {{\n        self.call = self.call.args(inputs);\n        self\n    }}");
    } else {
        for input in op.nominal_signature().0 {
            let _ = writeln!(out, "    /// Input `{input}`.\n    pub fn {}(mut self, s: &'a T) -> Self {{\n        self.call = self.call.input(\"{input}\", s);\n        self\n    }}", ident(&input));
        }
    }
    let _ = writeln!(out, "    /// An input by name.\n    pub fn input(mut self, name: &str, s: &'a T) -> Self {{\n        self.call = self.call.input(name, s);\n        self\n    }}");
    for p in op.params {
        let (ty, value) = setter(p.ty);
        let default = p
            .default
            .map_or_else(|| "required".to_string(), |d| format!("default `{d}`"));
        let _ = writeln!(
            out,
            "    /// {} ({}, {default}).",
            doc_line(p.doc),
            p.ty.describe()
        );
        let _ = writeln!(out, "    pub fn {}(mut self, v: {ty}) -> Self {{\n        self.call = self.call.attr(\"{}\", {value}.to_mxnet_string());\n        self\n    }}", ident(p.name), p.name);
    }
    let _ = writeln!(out, "    /// The node's name.\n    pub fn name(mut self, name: &str) -> Self {{\n        self.call = self.call.name(name);\n        self\n    }}");
    let _ = writeln!(out, "    /// Any attribute as MXNet's string form.\n    pub fn attr(mut self, key: &str, value: impl ToString) -> Self {{\n        self.call = self.call.attr(key, value);\n        self\n    }}");
    let _ = writeln!(out, "    /// Applies the operator (a Symbol builds a node, an NDArray runs it).\n    pub fn build(self) -> Result<T::Output> {{\n        self.call.build()\n    }}\n}}\n");
}

pub fn render() -> String {
    let mut out = String::from(
        "//! Typed builders, one per operator, for any operand (a `Symbol` builds a node, an\n\
         //! NDArray runs the operator), generated from the operator registry by\n\
         //! `builders_gen.rs` — do not edit; regenerate with\n\
         //! `KILN_UPDATE_BUILDERS=1 cargo test -p kiln-compiler builders`.\n\
         //!\n\
         //! ```\n\
         //! use kiln_compiler::{builders as sym, Symbol};\n\
         //! let x = Symbol::var(\"data\");\n\
         //! let fc = sym::fully_connected().data(&x).num_hidden(10).name(\"fc1\").build().unwrap();\n\
         //! assert_eq!(fc.list_arguments(), [\"data\", \"fc1_weight\", \"fc1_bias\"]);\n\
         //! ```\n\n\
         #![allow(clippy::all)]\n\n\
         use crate::call::{OpCall, Operand};\nuse crate::Result;\n#[allow(unused_imports)]\nuse kiln_ops::{DType, Value};\n\n",
    );
    let mut ops: Vec<&OpDef> = registry().ops().to_vec();
    ops.sort_by_key(|op| snake(op.name));
    for op in ops {
        render_op(op, &mut out);
    }
    out
}

#[test]
fn builders_are_fresh() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/builders.rs");
    let want = render();
    let have = std::fs::read_to_string(path).unwrap_or_default();
    if have != want {
        if std::env::var_os("KILN_UPDATE_BUILDERS").is_some() {
            std::fs::write(path, want).expect("write builders.rs");
        } else {
            panic!("compiler/src/builders.rs is stale: run `KILN_UPDATE_BUILDERS=1 cargo test -p kiln-compiler builders`");
        }
    }
}

#[test]
fn names_are_rust_style_and_unique() {
    assert_eq!(snake("FullyConnected"), "fully_connected");
    assert_eq!(snake("_plus_scalar"), "plus_scalar");
    assert_eq!(snake("LRN"), "lrn");
    assert_eq!(snake("SoftmaxOutput"), "softmax_output");
    assert_eq!(camel("elemwise_add"), "ElemwiseAdd");
    let mut names: Vec<String> = registry().ops().iter().map(|op| snake(op.name)).collect();
    names.sort();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "two operators map to one builder name");
}
