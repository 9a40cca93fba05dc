//! `kiln ops [--json]`.

use kiln::ops::{registry, OpDef};
use kiln::Result;
use serde_json::json;

#[derive(clap::Args)]
pub struct Args {
    /// One JSON array, an object per operator.
    #[arg(long)]
    json: bool,
}

/// Input and output names under default (or placeholder) parameters, and whether the
/// inputs are variadic.
fn signature(op: &OpDef) -> (Vec<String>, Vec<String>, bool) {
    let (inputs, outputs) = op.nominal_signature();
    (inputs, outputs, op.num_args_param.is_some())
}

pub fn run(args: Args) -> Result<()> {
    let ops = registry().ops();
    if args.json {
        let list: Vec<_> = ops
            .iter()
            .map(|op| {
                let (inputs, outputs, variadic) = signature(op);
                json!({
                    "name": op.name,
                    "aliases": op.aliases,
                    "pattern": op.pattern.name(),
                    "inputs": inputs,
                    "variadic": variadic,
                    "outputs": outputs,
                    "params": op.params.iter().map(|p| json!({
                        "name": p.name,
                        "type": p.ty.describe(),
                        "default": p.default,
                        "doc": p.doc,
                    })).collect::<Vec<_>>(),
                    "dtypes": op.dtypes.iter().map(|d| d.name()).collect::<Vec<_>>(),
                    "doc": op.doc,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&list).unwrap_or_default()
        );
        return Ok(());
    }
    for op in ops {
        let (inputs, _, variadic) = signature(op);
        let aliases = if op.aliases.is_empty() {
            String::new()
        } else {
            format!(" (aliases: {})", op.aliases.join(", "))
        };
        println!("{}{aliases} [{}]", op.name, op.pattern.name());
        if !op.doc.is_empty() {
            println!("    {}", op.doc);
        }
        let inputs = if variadic {
            format!("{} ... (variadic)", inputs.join(", "))
        } else {
            inputs.join(", ")
        };
        println!("    inputs: {inputs}");
        for p in op.params {
            let default = p
                .default
                .map_or_else(|| "required".to_string(), |d| format!("default {d}"));
            println!("    {}: {} ({default})", p.name, p.ty.describe());
        }
        let dtypes: Vec<&str> = op.dtypes.iter().map(|d| d.name()).collect();
        println!("    dtypes: {}", dtypes.join(", "));
    }
    println!("{} operators", ops.len());
    Ok(())
}
