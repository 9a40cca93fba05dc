//! Iterator parameters as MXNet's Python passes them, `KEY=VALUE` with values as Python
//! writes them: numbers, `True`/`False`, shapes `(3,224,224)`. Errors name the iterator,
//! the key and the value.

use crate::{Error, Result};

/// `value` as a `T` (a number, a path).
pub fn value<T: std::str::FromStr>(iter: &str, key: &str, value: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| Error::Input(format!("{iter}: {key}={value} is not a valid value")))
}

/// `True`/`False` (or `true`, `false`, `1`, `0`).
pub fn boolean(iter: &str, key: &str, value: &str) -> Result<bool> {
    match value.trim() {
        "True" | "true" | "1" => Ok(true),
        "False" | "false" | "0" => Ok(false),
        _ => Err(Error::Input(format!(
            "{iter}: {key}={value} is not True or False"
        ))),
    }
}

/// A shape, `(3,224,224)`, `[2, 2]` or `3,224,224`; every dimension positive.
pub fn shape(iter: &str, key: &str, text: &str) -> Result<Vec<usize>> {
    let dims: Vec<usize> = (text.trim_matches(|c| "()[] ".contains(c)).split(','))
        .filter(|d| !d.trim().is_empty())
        .map(|d| value(iter, key, d))
        .collect::<Result<_>>()?;
    match dims.is_empty() || dims.contains(&0) {
        true => Err(Error::Input(format!(
            "{iter}: {key}={text} is not a shape of positive dimensions"
        ))),
        false => Ok(dims),
    }
}

/// The error for a key the iterator does not have.
pub fn unknown(iter: &str, key: &str, known: &[&str]) -> Error {
    Error::Input(format!(
        "{iter} has no parameter `{key}` (its parameters: {})",
        known.join(", ")
    ))
}

/// The error for a required key that was not given.
pub fn required(iter: &str, key: &str) -> Error {
    Error::Input(format!("{iter}: {key} is required"))
}
