//! The diff of two snapshots of a server, from `mcpbind-model`: the one drift
//! detector of `mcpbind check`, `mcpbind diff` and the runtime's pin check.

pub use mcpbind_model::diff::*;
