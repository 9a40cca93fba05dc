//! Optimizer arguments as strings written the way Python writes them (`0.9`, `1e-3`,
//! `True`, `None`, `[2, 4]`), as `kiln train --optimizer-param KEY=VALUE` passes them.
//! Every argument must be used by the optimizer it is given to; what is left over, given
//! twice or malformed is an error naming the optimizer and the argument.

use crate::{Error, Result};

/// The keyword arguments of one optimizer, consumed as the optimizer reads them.
pub struct Args<'a> {
    optimizer: &'a str,
    entries: Vec<(&'a str, &'a str, bool)>,
}

impl<'a> Args<'a> {
    pub fn new(optimizer: &'a str, kwargs: &[(&'a str, &'a str)]) -> Result<Args<'a>> {
        let mut entries: Vec<(&str, &str, bool)> = Vec::with_capacity(kwargs.len());
        for &(key, value) in kwargs {
            let key = key.trim();
            if entries.iter().any(|(k, _, _)| *k == key) {
                return Err(Error::Input(format!(
                    "optimizer `{optimizer}`: argument `{key}` is given twice"
                )));
            }
            entries.push((key, value.trim(), false));
        }
        Ok(Args { optimizer, entries })
    }

    fn error(&self, key: &str, value: &str, why: impl std::fmt::Display) -> Error {
        Error::Input(format!(
            "optimizer `{}`: argument `{key}` = `{value}`: {why}",
            self.optimizer
        ))
    }

    /// The raw value of `key`, marked used.
    pub fn raw(&mut self, key: &str) -> Option<&'a str> {
        let entry = self.entries.iter_mut().find(|(k, _, _)| *k == key)?;
        entry.2 = true;
        Some(entry.1)
    }

    pub fn f64(&mut self, key: &str, default: f64) -> Result<f64> {
        Ok(self.opt_f64(key)?.unwrap_or(default))
    }

    /// A float that may be `None` (absent, or written `None`).
    pub fn opt_f64(&mut self, key: &str) -> Result<Option<f64>> {
        match self.raw(key) {
            None | Some("None") => Ok(None),
            Some(v) => parse_f64(v).map(Some).map_err(|e| self.error(key, v, e)),
        }
    }

    pub fn bool(&mut self, key: &str, default: bool) -> Result<bool> {
        match self.raw(key) {
            None => Ok(default),
            Some("True" | "true" | "1") => Ok(true),
            Some("False" | "false" | "0") => Ok(false),
            Some(v) => Err(self.error(key, v, "not a boolean (True or False)")),
        }
    }

    pub fn count(&mut self, key: &str, default: u64) -> Result<u64> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => match parse_int(v) {
                Ok(n) if n >= 0 => Ok(n as u64),
                Ok(n) => Err(self.error(key, v, format!("{n} is negative"))),
                Err(e) => Err(self.error(key, v, e)),
            },
        }
    }

    /// Errors on an argument nothing used, listing the ones the optimizer knows.
    pub fn finish(self, known: &[&str]) -> Result<()> {
        match self.entries.iter().find(|(_, _, used)| !used) {
            None => Ok(()),
            Some((key, _, _)) => Err(Error::Input(format!(
                "optimizer `{}`: unknown argument `{key}` (it takes {})",
                self.optimizer,
                known.join(", ")
            ))),
        }
    }

    pub fn optimizer(&self) -> &str {
        self.optimizer
    }
}

/// A text that is not the number asked for; callers say whose value it was.
#[derive(Debug, thiserror::Error)]
#[error("`{text}` is not {expected}")]
pub struct BadNumber {
    pub text: String,
    /// "a number" or "an integer".
    pub expected: &'static str,
}

/// A Python float literal (`0.1`, `1e-3`, `.5`, `2`, `-1`, `inf`).
pub fn parse_f64(v: &str) -> std::result::Result<f64, BadNumber> {
    let v = v.trim();
    let digits = v.replace('_', "");
    match digits.parse::<f64>() {
        Ok(x) if !x.is_nan() => Ok(x),
        _ => Err(BadNumber {
            text: v.into(),
            expected: "a number",
        }),
    }
}

/// A Python integer literal.
pub fn parse_int(v: &str) -> std::result::Result<i64, BadNumber> {
    let v = v.trim();
    v.replace('_', "").parse::<i64>().map_err(|_| BadNumber {
        text: v.into(),
        expected: "an integer",
    })
}

/// Splits `a=1,b=[2,3],c='x'` at the commas outside brackets and quotes.
pub fn split_top_level(s: &str) -> std::result::Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("`{s}`: unbalanced `{c}`"));
                }
            }
            (None, ',') if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 || quote.is_some() {
        return Err(format!("`{s}`: unbalanced brackets or quotes"));
    }
    parts.push(&s[start..]);
    Ok(parts)
}
