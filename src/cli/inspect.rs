//! `kiln inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... [--dot FILE]`.

use super::parse_shape_arg;
use kiln::compiler::{dot, infer, summary};
use kiln::{Error, Result, Symbol};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The symbol file.
    model: PathBuf,
    /// An input's shape, e.g. `data=1,3,224,224` (repeatable).
    #[arg(long = "shape", value_parser = parse_shape_arg)]
    shapes: Vec<(String, Vec<usize>)>,
    /// Write the graph as Graphviz dot.
    #[arg(long)]
    dot: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let g = sym.to_graph()?;
    let known: HashMap<_, _> = args.shapes.iter().cloned().collect();
    for name in known.keys() {
        if g.variable(name).is_none() {
            return Err(Error::Input(format!(
                "--shape {name}: the model has no input named `{name}` (inputs: {})",
                sym.list_inputs().join(", ")
            )));
        }
    }
    let inferred = infer::infer(&g, &known, &HashMap::new())?;
    let inputs: HashSet<String> = known.keys().cloned().collect();
    println!(
        "{}: {} outputs ({})",
        args.model.display(),
        g.heads.len(),
        sym.list_outputs().join(", ")
    );
    print!("{}", summary::summarize(&g, &inferred, &inputs));
    if let Some(path) = args.dot {
        std::fs::write(&path, dot::to_dot(&g, Some(&inferred.shapes))).map_err(|e| {
            kiln::compiler::Error::Io {
                path: path.display().to_string(),
                source: e,
            }
        })?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
