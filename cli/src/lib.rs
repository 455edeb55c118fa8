//! The `mcpbind` command: lock, generate and list the tools of MCP servers.
//!
//! `main.rs` only parses, runs and maps the outcome to an exit code: 0 on
//! success, 1 on failure or drift, 2 on a usage error (clap's).
#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

pub mod commands;

/// Typed bindings to the tools of MCP servers.
#[derive(Debug, Parser)]
#[command(name = "mcpbind", version, about, propagate_version = true)]
pub struct Cli {
    /// Print what the runtime does to stderr: connections, calls (server,
    /// tool, request id, attempt, outcome, duration), retries, pin drift and
    /// the circuit breaker. `-vv` adds rmcp's own messages.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// How `-v` prints: `text`, or `json` (one object per line).
    #[arg(long, global = true, value_enum, value_name = "FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How `-v` output is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Snapshot servers' tools/list into mcpbind.lock.
    Lock(commands::lock::Args),
    /// Generate Rust bindings from mcpbind.lock.
    Generate(commands::generate::Args),
    /// Check that mcpbind.lock matches the live servers (exit 1 on drift).
    Check(commands::check::Args),
    /// Show how the live servers' tools differ from mcpbind.lock.
    Diff(commands::diff::Args),
    /// List the locked tools (offline).
    List(commands::list::Args),
    /// Call a tool with JSON arguments and print its result.
    Call(commands::call::Args),
}

/// Where the config and the lockfile are.
#[derive(Debug, Clone, clap::Args)]
pub struct Paths {
    /// The server config.
    #[arg(long, value_name = "PATH", default_value = "mcpbind.toml")]
    pub config: PathBuf,
    /// The lockfile [default: mcpbind.lock beside the config].
    #[arg(long, value_name = "PATH")]
    pub lockfile: Option<PathBuf>,
}

/// The config, the lockfile, and which of the configured servers to act on.
#[derive(Debug, Clone, clap::Args)]
pub struct ServerSelection {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub paths: Paths,
    /// Servers to act on [default: all configured servers].
    #[arg(value_name = "SERVER")]
    pub servers: Vec<String>,
}

impl ServerSelection {
    /// Loads the config and checks that every named server is in it.
    pub fn load_config(&self) -> anyhow::Result<mcpbind::Config> {
        let config = self.paths.load_config()?;
        if let Some(name) = self
            .servers
            .iter()
            .find(|n| !config.servers.contains_key(*n))
        {
            anyhow::bail!(
                "server `{name}` is not in {}\nhelp: configured servers: {}",
                self.paths.config.display(),
                config
                    .servers
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        Ok(config)
    }
}

impl Paths {
    /// The lockfile path: given, or `mcpbind.lock` beside the config.
    pub fn lockfile(&self) -> PathBuf {
        match &self.lockfile {
            Some(p) => p.clone(),
            None => self
                .config
                .parent()
                .unwrap_or(Path::new(""))
                .join("mcpbind.lock"),
        }
    }

    /// Loads the config.
    pub fn load_config(&self) -> anyhow::Result<mcpbind::Config> {
        mcpbind::Config::load(&self.config)
            .with_context(|| format!("failed to load the server config {}", self.config.display()))
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Lock(args) => commands::lock::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Diff(args) => commands::diff::run(args),
        Command::List(args) => commands::list::run(args),
        Command::Call(args) => commands::call::run(args),
    }
}

/// Prints an error and its causes to stderr, cargo style.
pub fn report(err: &anyhow::Error) {
    eprintln!("error: {err}");
    let mut causes = err.chain().skip(1).peekable();
    if causes.peek().is_some() {
        eprintln!("\nCaused by:");
        for cause in causes {
            for line in cause.to_string().lines() {
                eprintln!("  {line}");
            }
        }
    }
}

/// A tokio runtime for commands that talk to servers.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory as _;
        super::Cli::command().debug_assert();
    }
}
