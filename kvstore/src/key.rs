//! A store's keys: MXNet accepts ints or strings.

use std::fmt;

/// A key of the store.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    Int(i64),
    Str(String),
}

impl Key {
    /// `"int"` or `"str"`, as MXNet's errors say.
    pub fn kind(&self) -> &'static str {
        match self {
            Key::Int(_) => "int",
            Key::Str(_) => "str",
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Int(k) => write!(f, "{k}"),
            Key::Str(k) => write!(f, "'{k}'"),
        }
    }
}

impl From<i64> for Key {
    fn from(k: i64) -> Key {
        Key::Int(k)
    }
}

impl From<i32> for Key {
    fn from(k: i32) -> Key {
        Key::Int(k.into())
    }
}

impl From<&str> for Key {
    fn from(k: &str) -> Key {
        Key::Str(k.to_string())
    }
}

impl From<String> for Key {
    fn from(k: String) -> Key {
        Key::Str(k)
    }
}
