//! The lockfile model the generator reads (`mcpbind-model`'s, where the
//! runtime's pin check and the CLI use it too), by name.

pub use mcpbind_model::lock::{
    find_lockfile, EntryKind, LockError, LockedEntry, LockedPrompt, LockedResourceTemplate,
    LockedTool, Lockfile, ServerLock, LOCKFILE_ENV, LOCKFILE_NAME,
};
