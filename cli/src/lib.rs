#![cfg_attr(docsrs, feature(doc_cfg))]
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
pub mod log;
pub mod signal;

/// `eprintln!` that never panics: a failed write to stderr (`2>/dev/full`,
/// a closed pipe) is ignored, as there is nowhere left to report it.
#[macro_export]
macro_rules! status {
    () => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr());
    }};
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}

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
    /// Check that mcpbind.lock matches the live servers (exit 1 on a change
    /// `--deny` denies).
    Check(commands::check::Args),
    /// Classify what changed (breaking, review, compatible): live servers
    /// against mcpbind.lock, two lockfiles, or the lockfile at a git revision.
    Diff(commands::diff::Args),
    /// List the locked tools (offline).
    List(commands::list::Args),
    /// Call a tool with JSON arguments and print its result.
    Call(commands::call::Args),
    /// Authorize with a server that has `auth = "oauth"` (OAuth 2.1 with
    /// PKCE in a browser); the tokens are stored per user, outside the
    /// project.
    Login(commands::login::Args),
    /// Remove the stored OAuth tokens of a server.
    Logout(commands::login::LogoutArgs),
}

/// Where the config and the lockfile are.
#[derive(Debug, Clone, clap::Args)]
pub struct Paths {
    /// The server config.
    #[arg(long, value_name = "PATH", default_value = "mcpbind.toml")]
    pub config: PathBuf,
    /// The lockfile [default: mcpbind.lock beside the config, else at the
    /// workspace root; MCPBIND_LOCKFILE overrides].
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
    ///
    /// # Errors
    ///
    /// When the config can't be read, or names none of the selected servers.
    pub fn load_config(&self) -> anyhow::Result<mcpbind::Config> {
        let config = self.paths.load_config()?;
        if let Some(name) = self
            .servers
            .iter()
            .find(|n| !config.servers.contains_key(*n))
        {
            if config.disabled.contains(name) {
                return Err(Hinted::new(
                    format!("server `{name}` is disabled in {}", self.paths.config.display()),
                    "remove `disabled = true` (or `\"disabled\": true`, `\"enabled\": false`) from its entry to use it",
                )
                .into());
            }
            return Err(self.paths.unknown_server(&config, name).into());
        }
        Ok(config)
    }
}

impl Paths {
    /// Finds the lockfile with mcpbind's one lookup
    /// ([`find_lockfile`](mcpbind::find_lockfile)): `MCPBIND_LOCKFILE`,
    /// else `--lockfile` (relative to the current directory) or
    /// `mcpbind.lock` beside the config, else at the workspace root.
    ///
    /// # Errors
    ///
    /// [`mcpbind::LockError`] listing every place it looked, when there is no
    /// lockfile.
    pub fn find_lockfile(&self) -> Result<PathBuf, mcpbind::LockError> {
        let (path, dir) = self.lookup();
        mcpbind::find_lockfile(&path, &dir)
    }

    /// Where `mcpbind lock` writes: `MCPBIND_LOCKFILE`, else `--lockfile`,
    /// else `mcpbind.lock` beside the config; never a lockfile the lookup
    /// would find at the workspace root, which belongs to the root's
    /// config (a member's config locked into it would replace the root's
    /// servers with the member's).
    pub fn lockfile_to_write(&self) -> PathBuf {
        let (path, dir) = self.lookup();
        mcpbind::lock::lockfile_candidates(&path, &dir).remove(0)
    }

    fn lookup(&self) -> (PathBuf, PathBuf) {
        match &self.lockfile {
            Some(path) => (path.clone(), PathBuf::new()),
            None => (
                PathBuf::from(mcpbind::lock::LOCKFILE_NAME),
                self.config.parent().unwrap_or(Path::new("")).to_owned(),
            ),
        }
    }

    /// Loads the config and picks one server of it.
    ///
    /// # Errors
    ///
    /// When the config can't be read or has no server `name`.
    pub fn load_server(&self, name: &str) -> anyhow::Result<mcpbind::ServerConfig> {
        let mut config = self.load_config()?;
        match config.servers.remove(name) {
            Some(server) => Ok(server),
            None => Err(self.unknown_server(&config, name).into()),
        }
    }

    /// The error for a server name the config does not have.
    fn unknown_server(&self, config: &mcpbind::Config, name: &str) -> Hinted {
        let configured: Vec<&str> = config.servers.keys().map(String::as_str).collect();
        Hinted::new(
            format!("server `{name}` is not in {}", self.config.display()),
            format!("configured servers: {}", configured.join(", ")),
        )
    }

    /// Loads the config.
    ///
    /// # Errors
    ///
    /// When the config can't be read or parsed.
    pub fn load_config(&self) -> anyhow::Result<mcpbind::Config> {
        let config = mcpbind::Config::load(&self.config).with_context(|| {
            format!("failed to load the server config {}", self.config.display())
        })?;
        log::hide_secrets_of(&config);
        // Once per run, before anything else is printed.
        for warning in config.warnings() {
            status!("warning: {warning}");
        }
        Ok(config)
    }
}

/// Runs a parsed command line.
///
/// # Errors
///
/// What the command fails with (see each command's `run`).
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Lock(args) => commands::lock::run(args),
        Command::Generate(args) => commands::generate::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Diff(args) => commands::diff::run(args),
        Command::List(args) => commands::list::run(args),
        Command::Call(args) => commands::call::run(args),
        Command::Login(args) => commands::login::run(args),
        Command::Logout(args) => commands::login::run_logout(args),
    }
}

/// Reports an error that ended a command and gives its exit code: 128 + the
/// signal for a command a signal stopped, 0 for a closed stdout (`mcpbind
/// list | head -1`: the reader has what it wanted), else 1.
pub fn exit_code_of(err: &anyhow::Error) -> ExitCode {
    if let Some(interrupted) = err.downcast_ref::<signal::Interrupted>() {
        status!("error: {interrupted}");
        return interrupted.exit_code();
    }
    let broken_pipe = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::SUCCESS;
    }
    report(err);
    ExitCode::FAILURE
}

/// Prints an error to stderr, cargo style: `error: ` and the message with
/// its causes, then a `help:` line when one of them knows what to do.
pub fn report(err: &anyhow::Error) {
    crate::status!("error: {}", log::redact(&format!("{err:#}")));
    // A hint given as context comes first (anyhow's context is not in the
    // chain as its own type); else the first error that has one.
    let context = err.downcast_ref::<Hinted>().and_then(mcpbind::Help::help);
    if let Some(help) = context.or_else(|| mcpbind_codegen::help(err.as_ref())) {
        crate::status!("help: {}", log::redact(&help));
    }
}

/// A CLI error (or an error's context) with a hint, printed as its `help:`
/// line: the library's, so that [`mcpbind_codegen::help`] finds it too.
pub use mcpbind::Hinted;

/// A tokio runtime for commands that talk to servers.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

#[cfg(test)]
mod docs_tests;

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory as _;
        super::Cli::command().debug_assert();
    }

    /// The hint is found however deep in the chain its error is.
    #[test]
    fn help_is_found_in_the_chain() {
        let stale = mcpbind::LockError::Stale {
            server: "demo".into(),
            path: "mcpbind.lock".into(),
            reason: mcpbind::StaleReason::NotLocked,
        };
        let err =
            anyhow::Error::new(mcpbind_codegen::Error::from(stale)).context("failed to check");
        assert_eq!(
            mcpbind_codegen::help(err.as_ref()).unwrap(),
            "run `mcpbind lock demo` and commit mcpbind.lock"
        );
        assert_eq!(
            format!("{err:#}"),
            "failed to check: server `demo` in mcpbind.lock is out of date (the server is configured but not locked)"
        );
        // A runtime error under the CLI's own context and a codegen error.
        let drift = mcpbind::Error::Drift {
            server: "demo".into(),
            drift: Vec::new(),
        };
        let err = anyhow::Error::new(mcpbind_codegen::Error::Refresh {
            server: "demo".into(),
            source: Box::new(mcpbind_codegen::Error::Build {
                message: "no".into(),
                help: None,
            }),
        })
        .context("failed to build");
        assert!(mcpbind_codegen::help(err.as_ref()).is_none());
        let err = anyhow::Error::new(drift).context("failed to connect");
        assert_eq!(
            mcpbind_codegen::help(err.as_ref()).unwrap(),
            "review with `mcpbind diff demo`, then run `mcpbind lock demo` and rebuild"
        );
        // A hint given as context.
        let err = anyhow::anyhow!("boom").context(super::Hinted::new("failed", "try again"));
        assert_eq!(
            err.downcast_ref::<super::Hinted>()
                .and_then(mcpbind::Help::help)
                .unwrap(),
            "try again"
        );
    }
}
