//! Operator parameters: their declared types and defaults, parsing of MXNet's attribute
//! strings (dmlc::Parameter syntax), and write-back in the form Python MXNet produces.

use crate::DType;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The type of one operator parameter, as dmlc::Parameter declares it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamType {
    Bool,
    Int,
    Float,
    /// One of the listed names.
    Enum(&'static [&'static str]),
    /// A tuple of ints: `(3, 3)`, `[3,3]`, `3`, `()`.
    Shape,
    /// `None` or a tuple of ints (reduction axes: `None`, `1`, `(0, 2)`).
    OptShape,
    /// A tuple whose entries may be `None` (slice begin/end).
    OptTuple,
    OptInt,
    OptFloat,
    OptBool,
    DType,
    OptDType,
    Str,
}

impl ParamType {
    /// A valid value of this type (a stand-in for required parameters in documentation).
    pub fn placeholder(&self) -> &'static str {
        match self {
            ParamType::Bool | ParamType::OptBool => "False",
            ParamType::Int | ParamType::OptInt => "1",
            ParamType::Float | ParamType::OptFloat => "1.0",
            ParamType::Shape | ParamType::OptShape | ParamType::OptTuple => "(1,)",
            ParamType::DType | ParamType::OptDType => "float32",
            ParamType::Enum(names) => names.first().copied().unwrap_or(""),
            ParamType::Str => "",
        }
    }

    pub fn describe(&self) -> String {
        match self {
            ParamType::Bool => "boolean".into(),
            ParamType::Int => "int".into(),
            ParamType::Float => "float".into(),
            ParamType::Enum(names) => format!("{{{}}}", names.join(", ")),
            ParamType::Shape => "tuple of int".into(),
            ParamType::OptShape => "int or tuple of int, optional".into(),
            ParamType::OptTuple => "tuple of int-or-None".into(),
            ParamType::OptInt => "int, optional".into(),
            ParamType::OptFloat => "float, optional".into(),
            ParamType::OptBool => "boolean, optional".into(),
            ParamType::DType => "dtype".into(),
            ParamType::OptDType => "dtype, optional".into(),
            ParamType::Str => "string".into(),
        }
    }
}

/// One declared parameter. `default: None` means required.
#[derive(Clone, Copy, Debug)]
pub struct ParamDef {
    pub name: &'static str,
    pub ty: ParamType,
    pub default: Option<&'static str>,
    pub doc: &'static str,
}

/// Declares a parameter: `param("kernel", ParamType::Shape, None, "...")`.
pub const fn param(
    name: &'static str,
    ty: ParamType,
    default: Option<&'static str>,
    doc: &'static str,
) -> ParamDef {
    ParamDef {
        name,
        ty,
        default,
        doc,
    }
}

/// A parsed parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Shape(Vec<i64>),
    OptShape(Option<Vec<i64>>),
    OptTuple(Vec<Option<i64>>),
    OptInt(Option<i64>),
    OptFloat(Option<f64>),
    OptBool(Option<bool>),
    DType(DType),
    OptDType(Option<DType>),
}

impl Value {
    /// Formats the value as Python MXNet writes it into symbol JSON (`str()` of the value).
    pub fn to_mxnet_string(&self) -> String {
        fn tuple<T>(v: &[T], f: impl Fn(&T) -> String) -> String {
            match v.len() {
                1 => format!("({},)", f(&v[0])),
                _ => format!("({})", v.iter().map(f).collect::<Vec<_>>().join(", ")),
            }
        }
        let none = || "None".to_string();
        match self {
            Value::Bool(b) => py_bool(*b),
            Value::Int(i) => i.to_string(),
            Value::Float(x) => py_float(*x),
            Value::Str(s) => s.clone(),
            Value::Shape(v) => tuple(v, |x| x.to_string()),
            Value::OptShape(v) => v
                .as_ref()
                .map_or_else(none, |v| tuple(v, |x| x.to_string())),
            Value::OptTuple(v) => tuple(v, |x| x.map_or_else(none, |x| x.to_string())),
            Value::OptInt(v) => v.map_or_else(none, |x| x.to_string()),
            Value::OptFloat(v) => v.map_or_else(none, py_float),
            Value::OptBool(v) => v.map_or_else(none, py_bool),
            Value::DType(d) => d.name().to_string(),
            Value::OptDType(d) => d.map_or_else(none, |d| d.name().to_string()),
        }
    }
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.to_string()
}

/// Python's `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16.
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{x:e}"); // shortest digits: "-1.25e-5"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if !(-4..16).contains(&exp) {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        return format!(
            "{sign}{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        );
    }
    let point = exp + 1; // digits before the decimal point
    let mut s = String::from(sign);
    if point <= 0 {
        s.push_str("0.");
        s.push_str(&"0".repeat((-point) as usize));
        s.push_str(&digits);
    } else if point as usize >= digits.len() {
        s.push_str(&digits);
        s.push_str(&"0".repeat(point as usize - digits.len()));
        s.push_str(".0");
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    s
}

/// Why one attribute string could not be used.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamError {
    #[error("unknown attribute `{name}` (valid: {valid})")]
    Unknown { name: String, valid: String },
    #[error("required attribute `{name}` is missing")]
    Missing { name: String },
    #[error("attribute `{name}` = {value:?} is not a valid {expected}")]
    Invalid {
        name: String,
        value: String,
        expected: String,
    },
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    s.parse::<i64>().ok().or_else(|| {
        // Python writes longs as `3L` in very old files.
        s.strip_suffix('L').and_then(|s| s.parse().ok())
    })
}

fn parse_float(s: &str) -> Option<f64> {
    let s = s.trim();
    match s.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" => Some(f64::INFINITY),
        "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

fn is_none(s: &str) -> bool {
    s.trim() == "None"
}

/// Splits `(a, b)`, `[a,b]`, `a` or `()` into its trimmed items.
fn tuple_items(s: &str) -> Option<Vec<&str>> {
    let s = s.trim();
    let inner =
        if (s.starts_with('(') && s.ends_with(')')) || (s.starts_with('[') && s.ends_with(']')) {
            &s[1..s.len() - 1]
        } else {
            s
        };
    let items: Vec<&str> = inner.split(',').map(str::trim).collect();
    // `(3,)` leaves a trailing empty item, `()` a single one.
    let items: Vec<&str> = match items.as_slice() {
        [""] => vec![],
        [rest @ .., ""] => rest.to_vec(),
        _ => items,
    };
    if items.iter().any(|i| i.is_empty()) {
        return None;
    }
    Some(items)
}

fn parse_shape(s: &str) -> Option<Vec<i64>> {
    tuple_items(s)?.into_iter().map(parse_int).collect()
}

/// Parses one attribute string according to its declared type.
pub fn parse_value(def: &ParamDef, s: &str) -> Result<Value, ParamError> {
    let invalid = || ParamError::Invalid {
        name: def.name.to_string(),
        value: s.to_string(),
        expected: def.ty.describe(),
    };
    let opt = |v: Option<Value>| v.ok_or_else(invalid);
    match def.ty {
        ParamType::Bool => opt(parse_bool(s).map(Value::Bool)),
        ParamType::Int => opt(parse_int(s).map(Value::Int)),
        ParamType::Float => opt(parse_float(s).map(Value::Float)),
        ParamType::Str => Ok(Value::Str(s.to_string())),
        ParamType::Enum(names) => {
            let t = s.trim().trim_matches('\'').trim_matches('"');
            opt(names
                .iter()
                .find(|n| **n == t)
                .map(|n| Value::Str(n.to_string())))
        }
        ParamType::Shape => opt(parse_shape(s).map(Value::Shape)),
        ParamType::OptShape if is_none(s) => Ok(Value::OptShape(None)),
        ParamType::OptShape => opt(parse_shape(s).map(|v| Value::OptShape(Some(v)))),
        ParamType::OptTuple => {
            let items = tuple_items(s).ok_or_else(invalid)?;
            let v: Option<Vec<Option<i64>>> = items
                .into_iter()
                .map(|i| {
                    if is_none(i) {
                        Some(None)
                    } else {
                        parse_int(i).map(Some)
                    }
                })
                .collect();
            opt(v.map(Value::OptTuple))
        }
        ParamType::OptInt if is_none(s) => Ok(Value::OptInt(None)),
        ParamType::OptInt => opt(parse_int(s).map(|v| Value::OptInt(Some(v)))),
        ParamType::OptFloat if is_none(s) => Ok(Value::OptFloat(None)),
        ParamType::OptFloat => opt(parse_float(s).map(|v| Value::OptFloat(Some(v)))),
        ParamType::OptBool if is_none(s) => Ok(Value::OptBool(None)),
        ParamType::OptBool => opt(parse_bool(s).map(|v| Value::OptBool(Some(v)))),
        ParamType::DType => opt(DType::parse(s).map(Value::DType)),
        ParamType::OptDType if is_none(s) => Ok(Value::OptDType(None)),
        ParamType::OptDType => opt(DType::parse(s).map(|v| Value::OptDType(Some(v)))),
    }
}

/// Hidden attributes (`__shape__`, `__lr_mult__`, ...) travel with a node but are not
/// operator parameters.
pub fn is_hidden_attr(key: &str) -> bool {
    key.len() > 4 && key.starts_with("__") && key.ends_with("__")
}

/// An operator's parameters after parsing: every declared parameter has a value (the
/// user's or the default), in declaration order.
#[derive(Clone, Debug)]
pub struct Attrs {
    schema: &'static [ParamDef],
    values: Vec<Value>,
}

impl PartialEq for Attrs {
    fn eq(&self, other: &Attrs) -> bool {
        std::ptr::eq(self.schema, other.schema) && self.values == other.values
    }
}

impl Attrs {
    /// Parses the parameters of one operator from its string attributes. Hidden attributes
    /// (`__x__`) are skipped; any other unknown key is an error.
    pub fn parse(
        schema: &'static [ParamDef],
        raw: &BTreeMap<String, String>,
    ) -> Result<Attrs, ParamError> {
        for key in raw.keys() {
            if !is_hidden_attr(key) && !schema.iter().any(|p| p.name == key) {
                let valid = schema.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
                return Err(ParamError::Unknown {
                    name: key.clone(),
                    valid: if valid.is_empty() {
                        "none".into()
                    } else {
                        valid
                    },
                });
            }
        }
        let values = schema
            .iter()
            .map(
                |p| match raw.get(p.name).map(String::as_str).or(p.default) {
                    Some(s) => parse_value(p, s),
                    None => Err(ParamError::Missing {
                        name: p.name.to_string(),
                    }),
                },
            )
            .collect::<Result<_, _>>()?;
        Ok(Attrs { schema, values })
    }

    pub fn schema(&self) -> &'static [ParamDef] {
        self.schema
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static ParamDef, &Value)> {
        self.schema.iter().zip(&self.values)
    }

    /// Every parameter as MXNet writes it into symbol JSON: what an operator built from
    /// these parameters (an expansion's) is given.
    pub fn to_mxnet_strings(&self) -> Vec<(&'static str, String)> {
        self.iter()
            .map(|(p, v)| (p.name, v.to_mxnet_string()))
            .collect()
    }

    /// The value of a declared parameter. Asking for an undeclared name is a bug in the
    /// operator definition, caught by the registry's own tests.
    pub fn get(&self, name: &str) -> &Value {
        match self.schema.iter().position(|p| p.name == name) {
            Some(i) => &self.values[i],
            None => panic!("operator definition bug: parameter `{name}` is not declared"),
        }
    }

    fn mismatch(&self, name: &str, want: &str) -> ! {
        panic!(
            "operator definition bug: parameter `{name}` is {:?}, not {want}",
            self.get(name)
        )
    }

    pub fn bool(&self, name: &str) -> bool {
        match self.get(name) {
            Value::Bool(b) => *b,
            _ => self.mismatch(name, "bool"),
        }
    }
    pub fn int(&self, name: &str) -> i64 {
        match self.get(name) {
            Value::Int(i) => *i,
            _ => self.mismatch(name, "int"),
        }
    }
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Value::Float(x) => *x,
            _ => self.mismatch(name, "float"),
        }
    }
    /// Enum and string parameters.
    pub fn str(&self, name: &str) -> &str {
        match self.get(name) {
            Value::Str(s) => s,
            _ => self.mismatch(name, "string"),
        }
    }
    pub fn shape(&self, name: &str) -> &[i64] {
        match self.get(name) {
            Value::Shape(v) => v,
            _ => self.mismatch(name, "tuple"),
        }
    }
    pub fn opt_shape(&self, name: &str) -> Option<&[i64]> {
        match self.get(name) {
            Value::OptShape(v) => v.as_deref(),
            _ => self.mismatch(name, "optional tuple"),
        }
    }
    pub fn opt_tuple(&self, name: &str) -> &[Option<i64>] {
        match self.get(name) {
            Value::OptTuple(v) => v,
            _ => self.mismatch(name, "tuple of optional ints"),
        }
    }
    pub fn opt_int(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Value::OptInt(v) => *v,
            _ => self.mismatch(name, "optional int"),
        }
    }
    pub fn opt_float(&self, name: &str) -> Option<f64> {
        match self.get(name) {
            Value::OptFloat(v) => *v,
            _ => self.mismatch(name, "optional float"),
        }
    }
    pub fn opt_bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Value::OptBool(v) => *v,
            _ => self.mismatch(name, "optional bool"),
        }
    }
    pub fn dtype(&self, name: &str) -> DType {
        match self.get(name) {
            Value::DType(d) => *d,
            _ => self.mismatch(name, "dtype"),
        }
    }
    pub fn opt_dtype(&self, name: &str) -> Option<DType> {
        match self.get(name) {
            Value::OptDType(d) => *d,
            _ => self.mismatch(name, "optional dtype"),
        }
    }

    /// A compact `name=value` listing of the non-default parameters (for dumps and errors).
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for (p, v) in self.iter() {
            let text = v.to_mxnet_string();
            let default = p.default.and_then(|d| parse_value(p, d).ok());
            if default.as_ref() != Some(v) {
                if !s.is_empty() {
                    s.push_str(", ");
                }
                let _ = write!(s, "{}={}", p.name, text);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python() {
        for (x, s) in [
            (0.001, "0.001"),
            (1e-5, "1e-05"),
            (0.9, "0.9"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (1e16, "1e+16"),
            (123456.0, "123456.0"),
            (0.0001, "0.0001"),
            (1.0507009873554805, "1.0507009873554805"),
        ] {
            assert_eq!(py_float(x), s, "{x}");
        }
    }

    static SCHEMA: &[ParamDef] = &[
        param("kernel", ParamType::Shape, None, ""),
        param("no_bias", ParamType::Bool, Some("False"), ""),
        param("axis", ParamType::OptShape, Some("None"), ""),
        param("begin", ParamType::OptTuple, Some("()"), ""),
        param("act", ParamType::Enum(&["relu", "tanh"]), Some("relu"), ""),
    ];

    fn raw(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn parses_mxnet_syntax() {
        let a = Attrs::parse(
            SCHEMA,
            &raw(&[
                ("kernel", "[3,3]"),
                ("no_bias", "true"),
                ("begin", "(None, -2)"),
                ("__lr_mult__", "2"),
            ]),
        )
        .unwrap();
        assert_eq!(a.shape("kernel"), &[3, 3]);
        assert!(a.bool("no_bias"));
        assert_eq!(a.opt_shape("axis"), None);
        assert_eq!(a.opt_tuple("begin"), &[None, Some(-2)]);
        assert_eq!(a.get("kernel").to_mxnet_string(), "(3, 3)");
        assert_eq!(Value::Shape(vec![2]).to_mxnet_string(), "(2,)");
        assert_eq!(a.summary(), "kernel=(3, 3), no_bias=True, begin=(None, -2)");
    }

    #[test]
    fn reports_bad_attributes() {
        let e = Attrs::parse(SCHEMA, &raw(&[("kernel", "3"), ("kernal", "3")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown attribute `kernal` (valid: kernel, no_bias, axis, begin, act)"
        );
        let e = Attrs::parse(SCHEMA, &raw(&[])).unwrap_err();
        assert_eq!(e.to_string(), "required attribute `kernel` is missing");
        let e = Attrs::parse(SCHEMA, &raw(&[("kernel", "3"), ("act", "gelu")])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "attribute `act` = \"gelu\" is not a valid {relu, tanh}"
        );
    }
}
