//! Checkpoints of a module: MXNet's `prefix-symbol.json` and `prefix-%04d.params`.

use super::Module;
use crate::Result;
use kiln_runtime::checkpoint::{load_checkpoint, save_checkpoint, NamedArrays};
use kiln_runtime::Device;

impl Module {
    /// MXNet's `save_checkpoint`: the symbol and the parameters (averaged over the
    /// devices), each file written whole or not at all.
    pub fn save_checkpoint(&self, prefix: &str, epoch: usize) -> Result<()> {
        let (args, aux) = self.get_params()?;
        save_checkpoint(prefix, epoch, &self.symbol, &args, &aux)?;
        Ok(())
    }

    /// MXNet's `Module.load`: a module of the checkpoint's symbol, with the parameters to
    /// give `init_params` or `set_params` once bound.
    pub fn load(
        prefix: &str,
        epoch: usize,
        data_names: &[&str],
        label_names: &[&str],
        contexts: &[Device],
    ) -> Result<(Module, NamedArrays, NamedArrays)> {
        let (symbol, args, aux) = load_checkpoint(prefix, epoch)?;
        let module = Module::new(&symbol, data_names, label_names, contexts)?;
        Ok((module, args, aux))
    }
}
