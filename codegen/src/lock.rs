//! The lockfile model, from `mcpbind-model` (where the runtime's pin check
//! and the CLI use it too): read, write, validation and lookup.

pub use mcpbind_model::lock::*;
