//! The diff of two snapshots of a server, from `mcpbind-core`: the one drift
//! detector of `mcpbind check`, `mcpbind diff` and the runtime's pin check.

pub use mcpbind_core::diff::*;
