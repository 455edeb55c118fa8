//! The errors of reading, writing and checking a lockfile.

use std::path::{Path, PathBuf};

use super::{LOCKFILE_ENV, LOCKFILE_VERSION, MAX_DEPTH};

/// A lockfile that can't be found, read, trusted or written.
///
/// Messages are a phrase naming the file and line; what to do about it is
/// in [`LockError::help`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockError {
    /// There is no lockfile where it was looked for.
    #[error("{} not found{}", path.display(), looked_at(path, looked))]
    Missing {
        /// The lockfile asked for (or `MCPBIND_LOCKFILE`'s value).
        path: PathBuf,
        /// Every place looked at, in order.
        looked: Vec<PathBuf>,
    },
    /// The lockfile could not be read.
    #[error("failed to read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The lockfile could not be written.
    #[error("failed to write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The lockfile is not valid JSON or not a lockfile.
    #[error("{}:{line}: invalid lockfile: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The lockfile was written by a newer mcpbind.
    #[error("{} has lockfile_version {found}, but this mcpbind reads version {LOCKFILE_VERSION}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: String,
    },
    /// A tool's definition was edited without updating its digest.
    #[error("{}:{line}: server `{server}`, tool `{tool}`: sha256 does not match the definition", path.display())]
    Hash {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the digest.
        line: usize,
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// A server lists the same tool twice.
    #[error("{}:{line}: server `{server}` lists tool `{tool}` twice", path.display())]
    DuplicateTool {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the second entry's digest.
        line: usize,
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// The lockfile no longer matches the config.
    #[error("server `{server}` in {} is out of date ({reason})", path.display())]
    Stale {
        /// The server.
        server: String,
        /// The lockfile.
        path: PathBuf,
        /// What differs.
        reason: StaleReason,
    },
    /// A locked server is no longer in the config.
    #[error("server `{server}` in {} is out of date (the server is no longer configured)", path.display())]
    Unconfigured {
        /// The server.
        server: String,
        /// The lockfile.
        path: PathBuf,
    },
    /// The file is not an mcpbind lockfile (a config, a manifest, notes).
    #[error("{} is not an mcpbind lockfile", path.display())]
    NotALockfile {
        /// The file.
        path: PathBuf,
    },
    /// The lockfile holds git conflict markers.
    #[error("{}:{line}: the lockfile has git conflict markers", path.display())]
    Conflict {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the first marker.
        line: usize,
    },
    /// A server's `tools/list` can't be locked as it is.
    #[error("server `{server}`: {message}")]
    Server {
        /// The server.
        server: String,
        /// What is wrong.
        message: String,
    },
    /// A value nests deeper than a lockfile may.
    #[error(
        "server `{server}`: {what} is nested deeper than a lockfile may be ({MAX_DEPTH} levels)"
    )]
    TooDeep {
        /// The server.
        server: String,
        /// Which value: "tool `name`" or "server_info".
        what: String,
    },
}

impl LockError {
    /// The server this error is about, when it is about one (not a file
    /// that is missing or does not parse).
    pub fn server(&self) -> Option<&str> {
        match self {
            LockError::Hash { server, .. }
            | LockError::DuplicateTool { server, .. }
            | LockError::Stale { server, .. }
            | LockError::Unconfigured { server, .. }
            | LockError::Server { server, .. }
            | LockError::TooDeep { server, .. } => Some(server),
            _ => None,
        }
    }

    /// The tool this error is about: a digest that does not match, a tool
    /// listed twice.
    pub fn tool(&self) -> Option<&str> {
        match self {
            LockError::Hash { tool, .. } | LockError::DuplicateTool { tool, .. } => Some(tool),
            _ => None,
        }
    }

    /// What the user can do about it, when that is known: the CLI, the
    /// macro and the build helper print it as a `help:` line.
    pub fn help(&self) -> Option<String> {
        Some(match self {
            LockError::Missing { path, .. } if std::env::var_os(LOCKFILE_ENV).is_some() => format!(
                "{LOCKFILE_ENV} is set to `{}`: run `mcpbind lock` to create that file, or unset {LOCKFILE_ENV}",
                path.display()
            ),
            LockError::Missing { path, .. } => format!(
                "run `mcpbind lock` to snapshot the servers of mcpbind.toml, and commit {}",
                file_name(path)
            ),
            LockError::Invalid { path, .. } | LockError::Hash { path, .. } => format!(
                "run `mcpbind lock` to rewrite {}",
                file_name(path)
            ),
            LockError::Unconfigured { path, .. } => format!(
                "run `mcpbind lock` (all servers) to drop it from {0}, and commit {0}",
                file_name(path)
            ),
            LockError::NotALockfile { path } => format!(
                "name the lockfile with `--lockfile PATH` (or MCPBIND_LOCKFILE), or move {} out of the way",
                path.display()
            ),
            LockError::Conflict { path, .. } => format!(
                "resolve the conflict (e.g. `git checkout --theirs -- {0}`), then run `mcpbind lock` and commit {0}",
                file_name(path)
            ),
            LockError::DuplicateTool { path, .. } => format!(
                "remove one of the two entries, or run `mcpbind lock` to rewrite {}",
                file_name(path)
            ),
            LockError::Version { .. } => {
                "upgrade mcpbind (and mcpbind-codegen) to a version that reads it".to_owned()
            }
            LockError::Stale { server, path, .. } => format!(
                "run `mcpbind lock {server}` and commit {}",
                file_name(path)
            ),
            LockError::TooDeep { .. } => {
                "no MCP client reads a schema this deep; report it to the server's authors".to_owned()
            }
            LockError::Read { .. } | LockError::Write { .. } | LockError::Server { .. } => {
                return None
            }
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn looked_at(path: &Path, looked: &[PathBuf]) -> String {
    if looked.len() == 1 && looked[0] == path || looked.is_empty() {
        return String::new();
    }
    let places: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
    format!(" (looked at {})", places.join(", "))
}

/// Why a lockfile no longer matches the config (or the live server), as
/// data: [`LockError::Stale`]'s `reason`. It displays as the words the
/// error shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StaleReason {
    /// The server is configured but not locked.
    NotLocked,
    /// The config's filters of this kind (`enabled_tools`/`disabled_tools`
    /// for tools, and so on) differ from the ones it was locked with.
    FiltersChanged {
        /// The kind of entry the filters choose.
        kind: super::EntryKind,
    },
    /// A locked entry the config's filters now leave out.
    FilteredOut {
        /// Its kind.
        kind: super::EntryKind,
        /// Its name.
        name: String,
    },
    /// The live server lists something other than the lockfile
    /// (`mcpbind check`): its first changes, in words.
    ServerChanged {
        /// The first changes, e.g. ``tool `get_forecast`: input schema changed``.
        changes: String,
    },
}

impl std::fmt::Display for StaleReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use super::EntryKind;
        match self {
            StaleReason::NotLocked => f.write_str("the server is configured but not locked"),
            StaleReason::FiltersChanged { kind } => {
                let keys = match kind {
                    EntryKind::Tool => "enabled_tools/disabled_tools",
                    EntryKind::Prompt => "enabled_prompts/disabled_prompts",
                    EntryKind::ResourceTemplate => {
                        "enabled_resource_templates/disabled_resource_templates"
                    }
                };
                write!(f, "its {keys} changed")
            }
            StaleReason::FilteredOut { kind, name } => {
                write!(f, "{} `{name}` is filtered out by the config", kind.noun())
            }
            StaleReason::ServerChanged { changes } => f.write_str(changes),
        }
    }
}
