//! Specs: how a user names an initializer, a metric (or later an optimizer) with its
//! arguments in one string, `NAME(KEY=VALUE,...)`, as MXNet's Python constructors take
//! them: `xavier(rnd_type=gaussian,factor_type=in,magnitude=2)`, `uniform(0.1)`,
//! `top_k_accuracy(top_k=3)`, and lists of specs at the top level (`acc,ce`).
//!
//! Grammar (spaces allowed between tokens):
//! - spec: `NAME` or `NAME(ARG, ...)`; an argument is `KEY=VALUE` or a positional `VALUE`
//!   (positionals first, in the constructor's parameter order, as Python allows);
//! - value: a nested spec (`zero()`), a list `[VALUE, ...]`, a quoted string (`"a,b"` or
//!   `'a,b'`, for text holding `,()[]=` such as a regular expression), or bare text up to
//!   the next `,` `)` `]` at the same depth (`0.5`, `gaussian`, `None`, `.*`).
//!
//! MXNet's own serialized form, the `__init__` attribute written by `Initializer.dumps()`
//! — `["xavier", {"rnd_type": "gaussian", "magnitude": 2}]`, or the `{"initializer":
//! "normal", "sigma": 0.5}` object its registry also accepts, or a bare registered name —
//! parses to the same [`Spec`] ([`Spec::from_json`]): JSON numbers keep their text, `null`
//! reads as `None`, booleans as `True`/`False`.
//!
//! Typed reading ([`Spec::args`], [`Args`]) reports an unknown key, a key given twice, a
//! value of the wrong kind or outside its choices as [`Error::Input`] naming the kind of
//! thing (initializer, metric), its name and the key.

use crate::{Error, Result};
use std::fmt;

/// One parsed `NAME(ARGS)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The name as written (lookups lowercase it, as MXNet's registry does).
    pub name: String,
    pub args: Vec<Arg>,
}

/// One argument: `key=value`, or a positional value (`key` is `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub key: Option<String>,
    pub value: Value,
}

/// An argument's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Bare or quoted text: a number, a word, `None`, a pattern.
    Text(String),
    /// `[a, b, ...]`.
    List(Vec<Value>),
    /// A nested spec with parentheses: `zero()`, `uniform(scale=0.1)`.
    Spec(Spec),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Text(t) => f.write_str(t),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Spec(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if let Some(k) = &a.key {
                write!(f, "{k}=")?;
            }
            write!(f, "{}", a.value)?;
        }
        f.write_str(")")
    }
}

fn syntax(text: &str, at: usize, what: &str) -> Error {
    Error::Input(format!(
        "spec {text:?}: {what} at character {at} (expected NAME(KEY=VALUE, ...))"
    ))
}

struct Parser<'a> {
    text: &'a str,
    chars: Vec<(usize, char)>,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            chars: text.char_indices().collect(),
            pos: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn at(&self) -> usize {
        self.chars
            .get(self.pos)
            .map_or(self.text.len(), |&(i, _)| i)
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn name(&mut self) -> Result<String> {
        self.skip_ws();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(syntax(self.text, self.at(), "expected a name"));
        }
        Ok(self.chars[start..self.pos]
            .iter()
            .map(|&(_, c)| c)
            .collect())
    }

    /// `NAME` or `NAME(ARGS)`.
    fn spec(&mut self) -> Result<Spec> {
        let name = self.name()?;
        self.skip_ws();
        let mut args = Vec::new();
        if self.peek() == Some('(') {
            self.pos += 1;
            self.skip_ws();
            if self.peek() == Some(')') {
                self.pos += 1;
            } else {
                loop {
                    args.push(self.arg()?);
                    self.skip_ws();
                    match self.peek() {
                        Some(',') => self.pos += 1,
                        Some(')') => {
                            self.pos += 1;
                            break;
                        }
                        _ => return Err(syntax(self.text, self.at(), "expected ',' or ')'")),
                    }
                }
            }
        }
        Ok(Spec { name, args })
    }

    fn arg(&mut self) -> Result<Arg> {
        self.skip_ws();
        // `key=` when a name is followed by '='; otherwise a positional value.
        let save = self.pos;
        if let Ok(key) = self.name() {
            self.skip_ws();
            if self.peek() == Some('=') {
                self.pos += 1;
                let value = self.value()?;
                return Ok(Arg {
                    key: Some(key),
                    value,
                });
            }
        }
        self.pos = save;
        Ok(Arg {
            key: None,
            value: self.value()?,
        })
    }

    fn value(&mut self) -> Result<Value> {
        self.skip_ws();
        match self.peek() {
            Some('[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.peek() == Some(']') {
                    self.pos += 1;
                    return Ok(Value::List(items));
                }
                loop {
                    items.push(self.value()?);
                    self.skip_ws();
                    match self.peek() {
                        Some(',') => self.pos += 1,
                        Some(']') => {
                            self.pos += 1;
                            return Ok(Value::List(items));
                        }
                        _ => return Err(syntax(self.text, self.at(), "expected ',' or ']'")),
                    }
                }
            }
            Some(q @ ('"' | '\'')) => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(|c| c != q) {
                    self.pos += 1;
                }
                if self.peek().is_none() {
                    return Err(syntax(self.text, self.at(), "unterminated quote"));
                }
                let s = self.chars[start..self.pos]
                    .iter()
                    .map(|&(_, c)| c)
                    .collect();
                self.pos += 1;
                Ok(Value::Text(s))
            }
            _ => {
                // A nested spec is a name directly followed by '('.
                let save = self.pos;
                if self.name().is_ok() {
                    self.skip_ws();
                    if self.peek() == Some('(') {
                        self.pos = save;
                        return Ok(Value::Spec(self.spec()?));
                    }
                }
                self.pos = save;
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| !matches!(c, ',' | ')' | ']' | '(' | '['))
                {
                    self.pos += 1;
                }
                let s: String = self.chars[start..self.pos]
                    .iter()
                    .map(|&(_, c)| c)
                    .collect();
                let s = s.trim();
                if s.is_empty() {
                    return Err(syntax(self.text, self.at(), "expected a value"));
                }
                Ok(Value::Text(s.to_string()))
            }
        }
    }

    fn end(&mut self) -> Result<()> {
        self.skip_ws();
        if self.pos == self.chars.len() {
            Ok(())
        } else {
            Err(syntax(self.text, self.at(), "unexpected text"))
        }
    }
}

impl Spec {
    /// Parses one `NAME(KEY=VALUE, ...)`, or MXNet's JSON form when the text starts with
    /// `[` or `{` ([`Spec::from_json`], with `nickname` as the name key of the object form).
    pub fn parse(text: &str, nickname: &str) -> Result<Spec> {
        let t = text.trim();
        if t.starts_with('[') || t.starts_with('{') {
            return Spec::from_json(t, nickname);
        }
        let mut p = Parser::new(text);
        let spec = p.spec()?;
        p.end()?;
        Ok(spec)
    }

    /// Parses a comma-separated list of specs (`acc,ce`, `f1(average=micro), mse`).
    pub fn parse_list(text: &str) -> Result<Vec<Spec>> {
        let mut p = Parser::new(text);
        let mut specs = vec![p.spec()?];
        loop {
            p.skip_ws();
            match p.peek() {
                None => return Ok(specs),
                Some(',') => {
                    p.pos += 1;
                    specs.push(p.spec()?);
                }
                Some(_) => return Err(syntax(text, p.at(), "expected ',' between specs")),
            }
        }
    }

    /// MXNet's registry forms: `["name", {kwargs}]` (what `Initializer.dumps()` writes),
    /// `{"<nickname>": "name", kwargs...}`, or a JSON string holding a name.
    pub fn from_json(text: &str, nickname: &str) -> Result<Spec> {
        let bad = |why: &str| Error::Input(format!("{nickname} {text:?}: {why}"));
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(&format!("not JSON ({e})")))?;
        let (name, kwargs) = match &json {
            serde_json::Value::Array(items) => match items.as_slice() {
                [serde_json::Value::String(n), serde_json::Value::Object(kw)] => {
                    (n.clone(), kw.iter().collect::<Vec<_>>())
                }
                [serde_json::Value::String(n)] => (n.clone(), Vec::new()),
                _ => return Err(bad("expected [\"name\", {arguments}]")),
            },
            serde_json::Value::Object(map) => {
                let Some(serde_json::Value::String(n)) = map.get(nickname) else {
                    return Err(bad(&format!("expected a \"{nickname}\" key naming it")));
                };
                (
                    n.clone(),
                    map.iter().filter(|(k, _)| *k != nickname).collect(),
                )
            }
            serde_json::Value::String(n) => (n.clone(), Vec::new()),
            _ => return Err(bad("expected [\"name\", {arguments}]")),
        };
        let args = kwargs
            .into_iter()
            .map(|(k, v)| {
                Ok(Arg {
                    key: Some(k.clone()),
                    value: json_value(v).map_err(|why| bad(&format!("argument {k}: {why}")))?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Spec { name, args })
    }

    /// The arguments read against a constructor's parameter list (in its positional order),
    /// for error messages called `<kind> <name>` (e.g. `initializer xavier`).
    pub fn args<'s>(&'s self, kind: &'static str, params: &[&'static str]) -> Result<Args<'s>> {
        let what = format!("{kind} {}", self.name.to_lowercase());
        let mut values: Vec<Option<&'s Value>> = vec![None; params.len()];
        for (i, arg) in self.args.iter().enumerate() {
            let slot = match &arg.key {
                None => {
                    if self.args[..i].iter().any(|a| a.key.is_some()) {
                        return Err(Error::Input(format!(
                            "{what}: positional argument {} after keyword arguments",
                            arg.value
                        )));
                    }
                    if i >= params.len() {
                        return Err(Error::Input(format!(
                            "{what}: takes at most {} arguments ({}), got {}",
                            params.len(),
                            params.join(", "),
                            self.args.len()
                        )));
                    }
                    i
                }
                Some(k) => params.iter().position(|p| p == k).ok_or_else(|| {
                    Error::Input(format!(
                        "{what}: unknown argument '{k}' (it takes {})",
                        if params.is_empty() {
                            "no arguments".to_string()
                        } else {
                            params.join(", ")
                        }
                    ))
                })?,
            };
            if values[slot].is_some() {
                return Err(Error::Input(format!(
                    "{what}: argument '{}' given twice",
                    params[slot]
                )));
            }
            values[slot] = Some(&arg.value);
        }
        Ok(Args {
            what,
            params: params.to_vec(),
            values,
        })
    }
}

fn json_value(v: &serde_json::Value) -> Result<Value, String> {
    Ok(match v {
        serde_json::Value::Null => Value::Text("None".into()),
        serde_json::Value::Bool(b) => Value::Text(if *b { "True" } else { "False" }.into()),
        serde_json::Value::Number(n) => Value::Text(n.to_string()),
        serde_json::Value::String(s) => Value::Text(s.clone()),
        serde_json::Value::Array(items) => {
            Value::List(items.iter().map(json_value).collect::<Result<_, _>>()?)
        }
        serde_json::Value::Object(_) => return Err("an object is not an argument value".into()),
    })
}

/// A spec's arguments matched to a constructor's parameters.
#[derive(Debug)]
pub struct Args<'s> {
    what: String,
    params: Vec<&'static str>,
    values: Vec<Option<&'s Value>>,
}

impl<'s> Args<'s> {
    /// What the errors call the thing (`initializer xavier`).
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&'s Value> {
        let i = self.params.iter().position(|p| *p == key)?;
        self.values[i]
    }

    /// An error about `key`'s value.
    pub fn invalid(&self, key: &str, why: impl fmt::Display) -> Error {
        match self.get(key) {
            Some(v) => Error::Input(format!("{}: {key}={v}: {why}", self.what)),
            None => Error::Input(format!("{}: {key}: {why}", self.what)),
        }
    }

    /// Text of `key` (not a list or a nested spec), if given.
    pub fn text(&self, key: &str) -> Result<Option<&'s str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Text(t)) => Ok(Some(t)),
            Some(_) => Err(self.invalid(key, "expected a single value")),
        }
    }

    /// A finite number, `default` when absent.
    pub fn number(&self, key: &str, default: f64) -> Result<f64> {
        Ok(self.opt_number(key)?.unwrap_or(default))
    }

    /// A finite number, or `None` when absent.
    pub fn opt_number(&self, key: &str) -> Result<Option<f64>> {
        let Some(t) = self.text(key)? else {
            return Ok(None);
        };
        match t.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Some(x)),
            _ => Err(self.invalid(key, "expected a finite number")),
        }
    }

    /// An integer, `None` for an absent key or the text `None`.
    pub fn opt_int(&self, key: &str) -> Result<Option<i64>> {
        match self.text(key)? {
            None | Some("None") => Ok(None),
            Some(t) => parse_int(t)
                .map(Some)
                .ok_or_else(|| self.invalid(key, "expected an integer or None")),
        }
    }

    /// One of `choices`, `default` when absent.
    pub fn choice(
        &self,
        key: &str,
        choices: &[&'static str],
        default: &'static str,
    ) -> Result<&'s str> {
        match self.text(key)? {
            None => Ok(default),
            Some(t) if choices.contains(&t) => Ok(t),
            Some(_) => Err(self.invalid(key, format!("expected one of {}", choices.join(", ")))),
        }
    }

    /// `true`/`false` (Python's `True`/`False`, or 1/0).
    pub fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.text(key)? {
            None => Ok(default),
            Some("True" | "true" | "1") => Ok(true),
            Some("False" | "false" | "0") => Ok(false),
            Some(_) => Err(self.invalid(key, "expected True or False")),
        }
    }

    /// A required argument's presence.
    pub fn require(&self, key: &str) -> Result<&'s Value> {
        self.get(key).ok_or_else(|| {
            Error::Input(format!("{}: missing required argument '{key}'", self.what))
        })
    }
}

/// An integer written as an integer or an integral float (`3`, `-1`, `3.0`).
pub(crate) fn parse_int(t: &str) -> Option<i64> {
    t.parse::<i64>().ok().or_else(|| {
        let x = t.parse::<f64>().ok()?;
        (x.fract() == 0.0 && x.abs() < 9.0e15).then_some(x as i64)
    })
}

/// A number as Python's `json.dumps` writes the value MXNet received: an integer as
/// written (`3`), a float in Python's repr (`0.07`, `1.0`, `1e-05`).
pub(crate) fn py_number(text: Option<&str>, value: f64) -> String {
    match text {
        Some(t) if t.parse::<i64>().is_ok() => t.to_string(),
        _ => kiln_ops::param::py_float(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn parses_names_arguments_lists_and_nesting() {
        let s = Spec::parse(
            r#"mixed(patterns=["bias", .*], initializers=[zero(), uniform(0.1)])"#,
            "initializer",
        )
        .unwrap();
        assert_eq!(s.name, "mixed");
        assert_eq!(s.args[0].value, Value::List(vec![text("bias"), text(".*")]));
        let Value::List(inits) = &s.args[1].value else {
            panic!("{s:?}")
        };
        assert_eq!(
            inits[1],
            Value::Spec(Spec {
                name: "uniform".into(),
                args: vec![Arg {
                    key: None,
                    value: text("0.1")
                }]
            })
        );
        assert_eq!(Spec::parse("one", "initializer").unwrap().args, vec![]);
        assert_eq!(
            Spec::parse_list("acc, f1(average=micro),ce").unwrap().len(),
            3
        );
    }

    #[test]
    fn json_forms_read_as_specs() {
        let mut s = Spec::from_json(
            r#"["xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}]"#,
            "initializer",
        )
        .unwrap();
        let mut t = Spec::parse(
            "xavier(rnd_type=gaussian,factor_type=in,magnitude=2)",
            "initializer",
        )
        .unwrap();
        // JSON objects are unordered; arguments are read by key.
        s.args.sort_by(|a, b| a.key.cmp(&b.key));
        t.args.sort_by(|a, b| a.key.cmp(&b.key));
        assert_eq!(s, t);
        let o = Spec::parse(r#"{"initializer": "normal", "sigma": 0.5}"#, "initializer").unwrap();
        assert_eq!(o.to_string(), "normal(sigma=0.5)");
        assert!(Spec::from_json("[1, {}]", "initializer").is_err());
    }

    #[test]
    fn syntax_errors_say_where() {
        for bad in [
            "",
            "xavier(",
            "xavier(a=1",
            "xavier(a=1))",
            "x(a=[1,2)",
            "x('a)",
        ] {
            let e = Spec::parse(bad, "initializer").unwrap_err().to_string();
            assert!(e.contains("at character"), "{bad}: {e}");
        }
    }

    #[test]
    fn arguments_are_checked_by_name() {
        let s = Spec::parse("xavier(magnitude=2, foo=1)", "initializer").unwrap();
        let e = s
            .args("initializer", &["rnd_type", "magnitude"])
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "initializer xavier: unknown argument 'foo' (it takes rnd_type, magnitude)"
        );
        let s = Spec::parse("xavier(gaussian, rnd_type=uniform)", "initializer").unwrap();
        let e = s
            .args("initializer", &["rnd_type"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("'rnd_type' given twice"), "{e}");
        let s = Spec::parse("uniform(scale=abc)", "initializer").unwrap();
        let a = s.args("initializer", &["scale"]).unwrap();
        assert_eq!(
            a.number("scale", 0.07).unwrap_err().to_string(),
            "initializer uniform: scale=abc: expected a finite number"
        );
    }
}
