//! MXNet optimizers (`mx.optimizer`) and learning-rate schedules, with its exact update rules.
