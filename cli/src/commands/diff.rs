//! `mcpbind diff`: what changed on the live servers since they were locked.

use std::process::ExitCode;

use crate::Paths;

/// Show how the live servers' tools differ from mcpbind.lock (exit 1 on drift).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    paths: Paths,
    /// Servers to compare [default: all configured servers].
    #[arg(value_name = "SERVER")]
    servers: Vec<String>,
}

/// Runs `mcpbind diff`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    super::check::compare(&args.paths, &args.servers, true)
}
