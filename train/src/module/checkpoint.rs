//! Checkpoints of a module: MXNet's `prefix-symbol.json`, `prefix-%04d.params` and, with
//! the optimizer's states, `prefix-%04d.states` (kiln's format: the optimizer's
//! `save_states`, update counts and schedule included). Each file is written whole or not
//! at all.

use super::Module;
use crate::{Error, Result};
use kiln_compiler::formats::atomic::write_atomically;
use kiln_runtime::checkpoint::{load_checkpoint, save_checkpoint, NamedArrays};
use kiln_runtime::Device;
use std::path::{Path, PathBuf};

/// The path of a checkpoint's optimizer states.
pub fn states_path(prefix: &str, epoch: usize) -> PathBuf {
    PathBuf::from(format!("{prefix}-{epoch:04}.states"))
}

impl Module {
    /// MXNet's `save_checkpoint`: the symbol, the parameters (averaged over the devices)
    /// and, when `save_optimizer_states`, the optimizer's states.
    pub fn save_checkpoint(
        &self,
        prefix: &str,
        epoch: usize,
        save_optimizer_states: bool,
    ) -> Result<()> {
        let (args, aux) = self.get_params()?;
        if save_optimizer_states {
            // First, so that a checkpoint whose parameters exist has its states too.
            self.save_optimizer_states(&states_path(prefix, epoch))?;
        }
        save_checkpoint(prefix, epoch, &self.symbol, &args, &aux)?;
        Ok(())
    }

    /// MXNet's `save_optimizer_states`. With a store that updates on servers the states
    /// are theirs, and not saved (as MXNet: an error).
    pub fn save_optimizer_states(&self, path: &Path) -> Result<()> {
        self.states_here("save_optimizer_states")?;
        let optimizer = self.optimizer().ok_or_else(|| {
            Error::Input("save_optimizer_states: the optimizer is not initialized".into())
        })?;
        let bytes = optimizer.save_states()?;
        write_atomically(path, &bytes).map_err(|e| Error::Input(format!("{}: {e}", path.display())))
    }

    /// MXNet's `load_optimizer_states`: the states `save_optimizer_states` wrote, into the
    /// initialized optimizer (same optimizer, same parameters).
    pub fn load_optimizer_states(&mut self, path: &Path) -> Result<()> {
        self.states_here("load_optimizer_states")?;
        let bytes =
            std::fs::read(path).map_err(|e| Error::Input(format!("{}: {e}", path.display())))?;
        let mut optimizer = self.optimizer().ok_or_else(|| {
            Error::Input("load_optimizer_states: the optimizer is not initialized".into())
        })?;
        (optimizer.load_states(&bytes))
            .map_err(|e| Error::Input(format!("{}: {e}", path.display())))
    }

    /// An error when the optimizer's states live on a store's servers.
    fn states_here(&self, what: &str) -> Result<()> {
        match self.kvstore.as_ref().filter(|kv| kv.updates_on_servers()) {
            Some(kv) => Err(Error::Input(format!(
                "{what}: with kvstore `{}` the optimizer's states are on the servers",
                kv.type_name()
            ))),
            None => Ok(()),
        }
    }

    /// MXNet's `Module.load`: a module of the checkpoint's symbol, with its parameters to
    /// give `init_params` (or `fit`) once bound; with `load_optimizer_states`, the states
    /// file is read when the optimizer is initialized.
    pub fn load(
        prefix: &str,
        epoch: usize,
        load_optimizer_states: bool,
        data_names: &[&str],
        label_names: &[&str],
        contexts: &[Device],
    ) -> Result<(Module, NamedArrays, NamedArrays)> {
        let (symbol, args, aux) = load_checkpoint(prefix, epoch)?;
        let mut module = Module::new(&symbol, data_names, label_names, contexts)?;
        if load_optimizer_states {
            let path = states_path(prefix, epoch);
            if !path.exists() {
                return Err(Error::Input(format!(
                    "{}: no optimizer states saved with this checkpoint",
                    path.display()
                )));
            }
            module.preload_states = Some(path);
        }
        Ok((module, args, aux))
    }
}
