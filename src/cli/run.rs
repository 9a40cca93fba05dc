//! `kiln run MODEL-symbol.json --params FILE.params --input NAME=FILE.npy... --output FILE.npy...`

use super::{load_inputs, parse_named_path};
use kiln::compiler::formats::npy;
use kiln::compiler::{interpret, RunOptions};
use kiln::ops::shape::fmt_shape;
use kiln::{Error, Result, Symbol};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The symbol file.
    model: PathBuf,
    /// Parameters (`arg:`/`aux:` prefixed names as MXNet checkpoints, or plain names).
    #[arg(long)]
    params: Option<PathBuf>,
    /// An input as NAME=FILE.npy (repeatable).
    #[arg(long = "input", value_parser = parse_named_path)]
    inputs: Vec<(String, PathBuf)>,
    /// Where to write each output, in the model's output order (repeatable).
    #[arg(long = "output")]
    outputs: Vec<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let sym = Symbol::load(&args.model)?;
    let g = sym.to_graph()?;
    if args.outputs.len() > g.heads.len() {
        return Err(Error::Input(format!(
            "{} --output files given but the model has {} outputs ({})",
            args.outputs.len(),
            g.heads.len(),
            sym.list_outputs().join(", ")
        )));
    }
    let (values, _) = load_inputs(&sym, &g, args.params.as_deref(), &args.inputs)?;
    let outs = interpret(&g, &values, RunOptions::default())?;
    let paths = args.outputs.iter().map(Some).chain(std::iter::repeat(None));
    for ((name, t), path) in sym.list_outputs().iter().zip(&outs).zip(paths) {
        let preview: Vec<String> = t.data.iter().take(5).map(|v| format!("{v:.6}")).collect();
        println!(
            "{name}: {} {} [{}{}]",
            fmt_shape(&t.shape),
            t.dtype,
            preview.join(", "),
            if t.len() > 5 { ", ..." } else { "" }
        );
        if let Some(path) = path {
            npy::write_npy(path, t)?;
            println!("  wrote {}", path.display());
        }
    }
    Ok(())
}
