//! `kiln run MODEL-symbol.json --params FILE.params --input NAME=FILE.npy... --output FILE.npy...`
//!
//! Binds an executor (inference) and runs one forward pass: fused kernels compiled by the
//! CPU JIT, gemm products and native kernels for library calls; `KILN_BACKEND=interp` runs
//! every node on its reference kernel. The backend used is printed on stderr.
//!
//! Output paths are checked before anything is computed, and the outputs are put in place
//! only once every one of them is written: a failed run leaves no output file, and an
//! earlier file of the same name stays as it was.

use super::output::{check_writable, Staged};
use super::parse_named_path;
use super::values::{self, Extra};
use kiln::compiler::autodiff::GradReq;
use kiln::compiler::check_inputs;
use kiln::compiler::formats::npy;
use kiln::ops::shape::fmt_shape;
use kiln::runtime::{Device, Executor, GradReqs, NDArray};
use kiln::{Error, Result, Symbol};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The symbol file.
    model: PathBuf,
    /// Parameters (`arg:`/`aux:` prefixed names as MXNet checkpoints, or plain names);
    /// names the model does not have are ignored, as MXNet's predictor does.
    #[arg(long)]
    params: Option<PathBuf>,
    /// An input as NAME=FILE.npy (repeatable).
    #[arg(long = "input", value_parser = parse_named_path)]
    inputs: Vec<(String, PathBuf)>,
    /// Where to write each output as .npy, in the model's output order (repeatable);
    /// checked before running, written only once every output is computed.
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
    for path in &args.outputs {
        check_writable("--output", path)?;
    }
    let mut values = values::load(
        &sym,
        &g,
        args.params.as_deref(),
        &args.inputs,
        Extra::Ignore,
    )?
    .values;
    values::check_complete(&g, &values)?;
    check_inputs(&g, &values)?;
    // Constants the graph carries are bound like parameters.
    for (id, t) in &g.constants {
        values.insert(g.node(*id).name.clone(), t.clone());
    }
    let arrays = |names: Vec<String>| -> Result<std::collections::HashMap<String, NDArray>> {
        names
            .into_iter()
            .map(|n| {
                let t = values.get(&n).ok_or_else(|| {
                    Error::Input(format!(
                        "no value for `{n}`: give it with --input or --params"
                    ))
                })?;
                Ok((n, NDArray::from_tensor(t, Device::Cpu)?))
            })
            .collect()
    };
    let args_map = arrays(sym.list_arguments())?;
    let aux_map = arrays(sym.list_auxiliary_states())?;
    let exe = Executor::bind(
        &sym,
        Device::Cpu,
        &args_map,
        &Default::default(),
        &aux_map,
        GradReqs::All(GradReq::Null),
    )?;
    let (backend, units) = exe.backend();
    eprintln!("backend: {backend:?} ({units})");
    exe.forward(false);
    let outs = exe
        .outputs()
        .iter()
        .map(NDArray::to_tensor)
        .collect::<Result<Vec<_>>>()?;
    let mut staged = Staged::default();
    for (t, path) in outs.iter().zip(&args.outputs) {
        staged.add(path, &npy::save_npy(t))?;
    }
    staged.persist()?;
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
            println!("  wrote {}", path.display());
        }
    }
    Ok(())
}
