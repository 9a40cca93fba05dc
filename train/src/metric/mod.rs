//! MXNet evaluation metrics (`mx.metric`), by their names.
