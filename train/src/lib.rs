//! The training module of the MXNet paper: optimizers with MXNet's exact update rules and
//! learning-rate schedules ([`optimizer`]), initializers ([`initializer`]) and evaluation
//! metrics ([`metric`]), by MXNet's names and defaults, so a user's `Module.fit` script
//! translates word for word. Updates are engine operations on the runtime's NDArrays.

mod error;
mod host;
pub mod initializer;
pub mod metric;
pub mod module;
pub mod optimizer;
pub mod spec;

pub use error::{Error, Result};
pub use module::{Module, StoreChoice};
pub use optimizer::Optimizer;
