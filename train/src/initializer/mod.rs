//! MXNet initializers (`mx.init`), drawn from kiln's Philox streams.
