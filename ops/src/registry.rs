//! The operator registry, built by calling each family's `register()` explicitly (no
//! link-time registration: the same registry runs inside the proc-macro).

use crate::OpDef;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Default)]
pub struct Registry {
    ops: Vec<&'static OpDef>,
    by_name: HashMap<&'static str, &'static OpDef>,
}

impl Registry {
    /// Adds an operator. Two definitions claiming one name is a bug in kiln-ops, caught by
    /// every test that touches the registry.
    pub fn add(&mut self, op: &'static OpDef) {
        for name in std::iter::once(&op.name).chain(op.aliases) {
            if let Some(prev) = self.by_name.insert(name, op) {
                panic!(
                    "operator name `{name}` is claimed by both {} and {}",
                    prev.name, op.name
                );
            }
        }
        self.ops.push(op);
    }

    /// Looks an operator up by its canonical name or an alias.
    pub fn get(&self, name: &str) -> Option<&'static OpDef> {
        self.by_name.get(name).copied()
    }

    /// Every operator, in registration order.
    pub fn ops(&self) -> &[&'static OpDef] {
        &self.ops
    }

    /// Names close to `name` (for "did you mean" in errors).
    pub fn similar(&self, name: &str) -> Vec<&'static str> {
        let lower = name.to_ascii_lowercase();
        let mut v: Vec<&'static str> = self
            .by_name
            .keys()
            .filter(|n| {
                let n = n.to_ascii_lowercase();
                n == lower
                    || n.contains(&lower)
                    || (lower.len() > 3 && lower.contains(&n))
                    || edit_distance(&n, &lower) <= (lower.len() / 6).max(1)
            })
            .copied()
            .collect();
        v.sort_unstable();
        v
    }
}

/// Levenshtein distance between two ASCII names (typos: a letter missing, extra,
/// swapped for another).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The registry of every operator kiln knows.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        crate::elemwise::register(&mut r);
        crate::nn::register(&mut r);
        crate::tensor_ops::register(&mut r);
        crate::sampling::register(&mut r);
        r
    })
}

/// Looks an operator up in the global registry.
pub fn lookup(name: &str) -> Option<&'static OpDef> {
    registry().get(name)
}
