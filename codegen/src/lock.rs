//! The lockfile model the generator reads (`mcpbind-model`'s, where the
//! runtime's pin check and the CLI use it too), by name.

pub use mcpbind_model::lock::{
    config_beside, find_lockfile, EntryKind, LockError, LockedEntry, LockedPrompt,
    LockedResourceTemplate, LockedTool, Lockfile, ServerLock, CONFIG_NAME, LOCKFILE_ENV,
    LOCKFILE_NAME,
};
