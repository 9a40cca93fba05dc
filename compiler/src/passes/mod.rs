//! Graph passes: named, pure functions from a graph to a graph (or an analysis), composed
//! into pipelines.
//!
//! A pass never mutates the graph it is given; it returns a new one and an [`EntryMap`]
//! saying where every old entry went, so handles users hold can be followed. Every pass
//! can be switched off by name ([`Pipeline::disable`]; the runtime's configuration,
//! `KILN_DISABLE_PASSES=a,b`) for debugging and ablations, and the graph printed after it
//! ([`Pipeline::dump`]; `KILN_DUMP=name` or `all`).

mod cse;
mod duplicate;
mod expand;
mod fold_bn;
mod fold_constants;
pub mod fusion;
mod inference;
mod mirror;
mod prune;
mod rebuild;
mod scale_shift;
mod simplify;

pub use cse::Cse;
pub use duplicate::DuplicateCheap;
pub use expand::Expand;
pub use fold_bn::fold_batch_norm;
pub use fold_constants::FoldConstants;
pub use fusion::{fuse, Fusion, Group};
pub use inference::InferenceMode;
pub use mirror::{mirror, MirrorOutput};
pub use prune::Prune;
pub use scale_shift::BatchNormToScaleShift;
pub use simplify::Simplify;

pub(crate) use rebuild::Rebuild;

use crate::error::Result;
use crate::graph::{Entry, Graph};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Where each entry of a pass's input went: `map[node][output]` (`None`: removed).
pub type EntryMap = Vec<Vec<Option<Entry>>>;

/// A rewritten graph and where the old entries went.
pub struct PassOutput {
    pub graph: Graph,
    pub map: EntryMap,
}

/// A graph-to-graph pass.
pub trait Pass {
    fn name(&self) -> &'static str;
    fn run(&self, g: &Graph) -> Result<PassOutput>;
}

/// The map of a graph onto itself.
pub fn identity_map(g: &Graph) -> EntryMap {
    g.node_ids()
        .map(|id| {
            (0..g.node(id).num_outputs())
                .map(|index| Some(Entry { node: id, index }))
                .collect()
        })
        .collect()
}

/// `second ∘ first`.
pub fn compose(first: &EntryMap, second: &EntryMap) -> EntryMap {
    first
        .iter()
        .map(|outs| {
            outs.iter()
                .map(|e| e.and_then(|e| second[e.node.index()][e.index]))
                .collect()
        })
        .collect()
}

/// What a pipeline run did: each pass's time (skipped passes are absent).
#[derive(Debug, Default)]
pub struct Report {
    pub timings: Vec<(&'static str, Duration)>,
    pub skipped: Vec<&'static str>,
}

/// Passes run in order.
pub struct Pipeline {
    passes: Vec<Box<dyn Pass>>,
    disabled: HashSet<String>,
    /// Passes after which the graph is printed to stderr (`all`: every one).
    dumped: HashSet<String>,
}

impl Pipeline {
    pub fn new(passes: Vec<Box<dyn Pass>>) -> Pipeline {
        Pipeline {
            passes,
            disabled: HashSet::new(),
            dumped: HashSet::new(),
        }
    }

    /// The passes every compilation runs: simplify, CSE, then prune what they left unused.
    /// (Duplicating cheap producers is left out of training graphs: a copy in a backward
    /// kernel would keep the producer's inputs alive through the whole forward pass.)
    pub fn standard() -> Pipeline {
        Pipeline::new(vec![Box::new(Simplify), Box::new(Cse), Box::new(Prune)])
    }

    /// For inference: also turn Dropout and BlockGrad into identities first, and recompute
    /// cheap producers in their consumers' kernels.
    pub fn inference() -> Pipeline {
        Pipeline::new(vec![
            Box::new(InferenceMode),
            Box::new(Simplify),
            Box::new(Cse),
            Box::new(Prune),
        ])
    }

    /// Appends a pass.
    pub fn push(&mut self, pass: Box<dyn Pass>) -> &mut Self {
        self.passes.push(pass);
        self
    }

    pub fn disable(&mut self, name: &str) -> &mut Self {
        self.disabled.insert(name.to_string());
        self
    }

    /// Prints the graph to stderr after pass `name` (`all`: after every pass).
    pub fn dump(&mut self, name: &str) -> &mut Self {
        self.dumped.insert(name.to_string());
        self
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    pub fn run(&self, g: &Graph) -> Result<(PassOutput, Report)> {
        let mut graph = g.clone();
        let mut map = identity_map(g);
        let mut report = Report::default();
        for pass in &self.passes {
            if self.disabled.contains(pass.name()) {
                report.skipped.push(pass.name());
                continue;
            }
            let start = Instant::now();
            let out = pass.run(&graph)?;
            report.timings.push((pass.name(), start.elapsed()));
            map = compose(&map, &out.map);
            graph = out.graph;
            if self.dumped.contains("all") || self.dumped.contains(pass.name()) {
                eprintln!("== after {}\n{graph}", pass.name());
            }
        }
        Ok((PassOutput { graph, map }, report))
    }
}
