//! `mcpbind diff`: what changed on the live servers since they were locked.

use std::process::ExitCode;

/// Which servers to compare.
pub use crate::ServerSelection as Args;

/// Runs `mcpbind diff`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::check::compare(&args, true)
}
