//! What a stdio server's process may touch: `[servers.NAME.sandbox]`.
//!
//! This module holds the model (always on, like the rest of the config);
//! `sandbox/plan.rs` and `sandbox/grants.rs` decide what a spawn grants,
//! `sandbox/linux.rs` enforces it when a server is spawned (Landlock for
//! files and HOME, a user, network and PID namespace for the network and
//! `processes`, `setrlimit` for limits) and `sandbox/proxy.rs` serves a
//! network allow-list from outside the namespace. A setting the platform cannot enforce fails the connection with
//! a [`SandboxError`] (the client's `Error::Sandbox`), or is reported as a warning
//! when `required = false`.

use std::num::NonZeroU64;
use std::path::PathBuf;

use serde::Deserialize;

/// A server's sandbox (`[servers.NAME.sandbox]`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SandboxConfig {
    /// Whether the server may use the network (`network`).
    pub network: NetworkPolicy,
    /// The files it may read and write beyond what its runtime needs
    /// (`read`, `write`); `None` when neither key is set: files are not
    /// confined.
    pub files: Option<FileAccess>,
    /// Its HOME (`home`).
    pub home: HomePolicy,
    /// Resource limits (`memory`, `cpu`, `open_files`, `processes`,
    /// `file_size`).
    pub limits: Limits,
    /// Whether a setting the platform cannot enforce fails the connection
    /// (`required`, default true) or is only reported as a warning.
    pub required: bool,
}

/// `network`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NetworkPolicy {
    /// `network = true` (the default): no restriction.
    Allow,
    /// `network = false`: no network at all (not even loopback).
    Deny,
    /// `network = ["host:port", …]`: only these, through a proxy outside
    /// the server's network namespace (`*.example.com:443` for example.com's
    /// subdomains); the server gets `HTTP_PROXY` and the like.
    AllowList(Vec<String>),
}

/// `read` and `write`, resolved against the config file's directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileAccess {
    /// Readable (files and directories, recursively).
    pub read: Vec<PathBuf>,
    /// Readable and writable.
    pub write: Vec<PathBuf>,
}

/// `home`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HomePolicy {
    /// `home = "inherit"` (the default): the agent's HOME.
    #[default]
    Inherit,
    /// `home = "isolated"`: a fresh, empty directory for each start of the
    /// server, removed when it ends.
    Isolated,
}

/// Resource limits, each applied with `setrlimit` to the server's process
/// (and inherited by its children).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// `memory`: bytes of data (heap) the process may allocate
    /// (`RLIMIT_DATA`; address space reserved but not used is not counted,
    /// so V8 and the JVM still start).
    pub memory: Option<NonZeroU64>,
    /// `cpu`: seconds of CPU time (`RLIMIT_CPU`); the process is killed
    /// past it.
    pub cpu_seconds: Option<NonZeroU64>,
    /// `open_files`: open file descriptors (`RLIMIT_NOFILE`).
    pub open_files: Option<NonZeroU64>,
    /// `processes`: processes and threads (`RLIMIT_NPROC`), counted in the
    /// server's own user namespace, so its children and not the agent's;
    /// as root (whom the kernel never holds to `RLIMIT_NPROC`), a pids
    /// cgroup of the server's own.
    pub processes: Option<NonZeroU64>,
    /// `file_size`: bytes of any one file the process writes
    /// (`RLIMIT_FSIZE`; a write past it fails with `EFBIG`, or kills a
    /// process that does not ignore `SIGXFSZ`). A whole disk cannot be
    /// bounded without root (quotas, a size-limited mount).
    pub file_size: Option<NonZeroU64>,
}

impl SandboxConfig {
    /// Whether the server runs in its own user namespace: for
    /// `network = false` (with a network namespace) and for `processes`
    /// (so that the count is the server's own).
    #[doc(hidden)]
    pub fn needs_user_namespace(&self) -> bool {
        self.network != NetworkPolicy::Allow || self.limits.processes.is_some()
    }

    /// Resolves relative `read` and `write` paths against `dir` (the config
    /// file's directory).
    pub(crate) fn resolve_paths(&mut self, dir: &std::path::Path) {
        if let Some(files) = &mut self.files {
            for path in files.read.iter_mut().chain(files.write.iter_mut()) {
                if path.is_relative() {
                    *path = dir.join(&*path);
                }
            }
        }
    }
}

/// `[servers.NAME.sandbox]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSandbox {
    network: Option<RawNetwork>,
    read: Option<Vec<PathBuf>>,
    write: Option<Vec<PathBuf>>,
    home: Option<String>,
    memory: Option<RawSize>,
    cpu: Option<u64>,
    open_files: Option<u64>,
    processes: Option<u64>,
    file_size: Option<RawSize>,
    required: Option<bool>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawNetwork {
    On(bool),
    Hosts(Vec<String>),
}

/// A size: bytes, or a string with a binary suffix (`"512M"`, `"2G"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum RawSize {
    Bytes(u64),
    Text(String),
}

impl RawSandbox {
    pub(crate) fn into_sandbox(self) -> Result<SandboxConfig, String> {
        let network = match self.network {
            None | Some(RawNetwork::On(true)) => NetworkPolicy::Allow,
            Some(RawNetwork::On(false)) => NetworkPolicy::Deny,
            Some(RawNetwork::Hosts(hosts)) => {
                if let Some(bad) = hosts.iter().find(|h| !is_host_port(h)) {
                    return Err(format!(
                        "sandbox `network` entry `{bad}` is not `host:port`"
                    ));
                }
                NetworkPolicy::AllowList(hosts)
            }
        };
        let files = match (self.read, self.write) {
            (None, None) => None,
            (read, write) => Some(FileAccess {
                read: read.unwrap_or_default(),
                write: write.unwrap_or_default(),
            }),
        };
        let home = match self.home.as_deref() {
            None | Some("inherit") => HomePolicy::Inherit,
            Some("isolated") => HomePolicy::Isolated,
            Some(other) => {
                return Err(format!(
                    "unknown sandbox home `{other}`, expected `inherit` or `isolated`"
                ))
            }
        };
        let positive = |key: &str, value: Option<u64>| match value {
            Some(0) => Err(format!("sandbox `{key}` must be at least 1")),
            other => Ok(other),
        };
        let memory = self
            .memory
            .map(|size| parse_size("memory", size))
            .transpose()?;
        let file_size = self
            .file_size
            .map(|size| parse_size("file_size", size))
            .transpose()?;
        Ok(SandboxConfig {
            network,
            files,
            home,
            limits: Limits {
                memory: positive("memory", memory)?.and_then(NonZeroU64::new),
                cpu_seconds: positive("cpu", self.cpu)?.and_then(NonZeroU64::new),
                open_files: positive("open_files", self.open_files)?.and_then(NonZeroU64::new),
                processes: positive("processes", self.processes)?.and_then(NonZeroU64::new),
                file_size: positive("file_size", file_size)?.and_then(NonZeroU64::new),
            },
            required: self.required.unwrap_or(true),
        })
    }
}

fn is_host_port(entry: &str) -> bool {
    entry
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0))
}

fn parse_size(key: &str, size: RawSize) -> Result<u64, String> {
    let text = match size {
        RawSize::Bytes(n) => return Ok(n),
        RawSize::Text(text) => text,
    };
    let trimmed = text.trim();
    let (digits, unit) = trimmed.split_at(
        trimmed
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(trimmed.len()),
    );
    let shift = match unit.trim().trim_end_matches("iB").trim_end_matches('B') {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        _ => u32::MAX,
    };
    match digits.parse::<u64>() {
        Ok(n) if shift != u32::MAX => n
            .checked_mul(1 << shift)
            .ok_or_else(|| format!("sandbox `{key}` {text:?} is too large")),
        _ => Err(format!(
            "sandbox `{key}` must be bytes or a size like \"512M\" or \"2G\", not {text:?}"
        )),
    }
}

/// A `[servers.NAME.sandbox]` setting that cannot be enforced where the
/// server is spawned (and `required` is not `false`), or whose
/// preparation failed: `mcpbind-sandbox` returns it, and the client's
/// `Error::Sandbox` carries it as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot sandbox server `{server}`: `{setting}` cannot be enforced here: {reason}")]
#[non_exhaustive]
pub struct SandboxError {
    /// The server.
    pub server: String,
    /// The setting, as in `[servers.NAME.sandbox]` (`network`, `read`,
    /// `processes`).
    pub setting: String,
    /// Why.
    pub reason: String,
}

impl SandboxError {
    /// The error of `setting` of `server`, for `reason`.
    pub fn new(
        server: impl Into<String>,
        setting: impl Into<String>,
        reason: impl Into<String>,
    ) -> SandboxError {
        SandboxError {
            server: server.into(),
            setting: setting.into(),
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Result<SandboxConfig, String> {
        let raw: RawSandbox = toml::from_str(body).map_err(|e| e.to_string())?;
        raw.into_sandbox()
    }

    #[test]
    fn parses_every_key() {
        let sandbox = parse(
            "network = false\nread = [\"./data\"]\nwrite = [\"out\"]\nhome = \"isolated\"\nmemory = \"512M\"\ncpu = 30\nopen_files = 64\nprocesses = 16\nfile_size = \"1M\"\nrequired = false\n",
        )
        .unwrap();
        assert_eq!(sandbox.network, NetworkPolicy::Deny);
        let files = sandbox.files.as_ref().unwrap();
        assert_eq!(files.read, [PathBuf::from("./data")]);
        assert_eq!(files.write, [PathBuf::from("out")]);
        assert_eq!(sandbox.home, HomePolicy::Isolated);
        assert_eq!(
            sandbox.limits,
            Limits {
                memory: NonZeroU64::new(512 << 20),
                cpu_seconds: NonZeroU64::new(30),
                open_files: NonZeroU64::new(64),
                processes: NonZeroU64::new(16),
                file_size: NonZeroU64::new(1 << 20),
            }
        );
        assert!(!sandbox.required);
        assert!(sandbox.needs_user_namespace());
    }

    #[test]
    fn defaults_confine_nothing() {
        let sandbox = parse("").unwrap();
        assert_eq!(sandbox.network, NetworkPolicy::Allow);
        assert_eq!(sandbox.files, None);
        assert_eq!(sandbox.home, HomePolicy::Inherit);
        assert_eq!(sandbox.limits, Limits::default());
        assert!(sandbox.required);
        assert!(!sandbox.needs_user_namespace());
        // `read = []` alone confines files to the runtime's own.
        assert_eq!(
            parse("read = []").unwrap().files,
            Some(FileAccess::default())
        );
    }

    #[test]
    fn refuses_what_it_cannot_mean() {
        for (body, wanted) in [
            (
                "home = \"tmp\"",
                "unknown sandbox home `tmp`, expected `inherit` or `isolated`",
            ),
            (
                "memory = \"lots\"",
                "sandbox `memory` must be bytes or a size like \"512M\" or \"2G\", not \"lots\"",
            ),
            ("cpu = 0", "sandbox `cpu` must be at least 1"),
            (
                "network = [\"example.com\"]",
                "sandbox `network` entry `example.com` is not `host:port`",
            ),
        ] {
            assert_eq!(parse(body).unwrap_err(), wanted, "{body}");
        }
        assert!(parse("netwrok = false")
            .unwrap_err()
            .contains("unknown field `netwrok`"));
        assert_eq!(
            parse("network = [\"api.github.com:443\"]").unwrap().network,
            NetworkPolicy::AllowList(vec!["api.github.com:443".into()])
        );
        assert_eq!(
            parse("memory = \"2GiB\"").unwrap().limits.memory,
            NonZeroU64::new(2 << 30)
        );
    }
}
