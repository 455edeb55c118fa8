//! From a server's sandbox config to what its spawn applies: the paths it
//! may read and write (its runtime's own installation included), the HOME
//! and temp dir it gets, and what this platform cannot enforce.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::grants;
use mcpbind_model::sandbox::{HomePolicy, NetworkPolicy, SandboxConfig};

/// System directories every program needs to start (read and execute).
const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc",
    // What runtimes read about the machine (CPUs, cgroup limits; its
    // `/proc` files are ruled in the child, once its own `/proc` is
    // mounted: linux.rs).
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
];

/// Devices every program may use (read and write).
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The variables that point a server at the allow-list's proxy.
pub(crate) const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// What a spawn applies, computed before the fork.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Files are confined to these (read, execute) and `write`; `None`:
    /// files are not confined.
    pub(crate) read: Option<Vec<PathBuf>>,
    /// Read and write.
    pub(crate) write: Vec<PathBuf>,
    /// Variables set for the server (`HOME`, `TMPDIR`, `npm_config_cache`).
    pub(crate) env: Vec<(&'static str, PathBuf)>,
    /// Directories made for this start, removed when it ends.
    pub(crate) scratch: Vec<PathBuf>,
    /// No network: a user and network namespace.
    pub(crate) deny_network: bool,
    /// A user, PID and mount namespace, with a `/proc` of the server's
    /// own: under every sandbox, so that no setting leaves the agent's
    /// processes (their environment, memory, signals) in reach.
    pub(crate) user_namespace: bool,
    /// The setting a refused namespace is reported as (see
    /// [`namespace_setting`]).
    pub(crate) namespace_setting: &'static str,
    /// `network = [...]`: the namespace gets a loopback and a proxy on it
    /// that lets these `host:port` pairs through (`proxy.rs`).
    pub(crate) allow_list: Option<Vec<String>>,
    /// The settings this platform cannot enforce, and why.
    pub(crate) unenforced: Vec<Unenforced>,
    /// The setting that confines files: `read` (with `read`/`write`), or
    /// `home` (`home = "isolated"` alone, which confines HOME only).
    pub(crate) files_setting: &'static str,
}

/// A setting that cannot be enforced here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unenforced {
    /// The key, as in `[servers.NAME.sandbox]`.
    pub(crate) setting: &'static str,
    /// Why.
    pub(crate) reason: String,
}

/// What the spawn knows of the server ([`confine`](crate::confine)'s
/// `target`).
pub struct Target<'a> {
    /// The server's name, as in `[servers.NAME]`.
    pub server: &'a str,
    /// The command, as configured.
    pub program: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// Its working directory, if configured.
    pub cwd: Option<&'a Path>,
    /// The `PATH` the server gets.
    pub path: Option<std::ffi::OsString>,
}

impl Plan {
    /// The plan for `sandbox`; creates the isolated HOME and temp dir.
    pub(crate) fn new(sandbox: &SandboxConfig, target: &Target<'_>) -> std::io::Result<Plan> {
        let mut plan = Plan {
            deny_network: sandbox.network == NetworkPolicy::Deny,
            user_namespace: true,
            namespace_setting: namespace_setting(sandbox),
            files_setting: "read",
            ..Plan::default()
        };
        if let NetworkPolicy::AllowList(hosts) = &sandbox.network {
            plan.deny_network = true;
            plan.allow_list = Some(hosts.clone());
            let proxy = PathBuf::from(format!("http://127.0.0.1:{}", super::proxy::PORT));
            for var in PROXY_VARIABLES {
                plan.env.push((var, proxy.clone()));
            }
            // Node 24 and later honour the variables only when asked.
            plan.env.push(("NODE_USE_ENV_PROXY", PathBuf::from("1")));
        }
        let home = grants::agent_home();
        if sandbox.home == HomePolicy::Isolated {
            let dir = plan.scratch_dir(target.server, "home")?;
            plan.env.push(("HOME", dir.clone()));
            plan.write.push(dir);
        }
        if let Some(files) = &sandbox.files {
            let tmp = plan.scratch_dir(target.server, "tmp")?;
            plan.env.push(("TMPDIR", tmp.clone()));
            plan.write.push(tmp);
            plan.write.extend(files.write.iter().cloned());
            let mut read: Vec<PathBuf> = SYSTEM_READ.iter().map(PathBuf::from).collect();
            read.extend(files.read.iter().cloned());
            read.extend(runtime_paths(target));
            plan.write.extend(DEVICES.iter().map(PathBuf::from));
            plan.read = Some(read);
        } else if let (HomePolicy::Isolated, Some(home)) = (sandbox.home, &home) {
            // Files are not confined, but HOME is: everything else stays
            // writable, and what the server runs from is readable.
            plan.files_setting = "home";
            plan.write.extend(grants::all_but(home));
            plan.write.extend(grants::cwd_in(home, target.cwd));
            plan.write.extend(DEVICES.iter().map(PathBuf::from));
            plan.read = Some(runtime_paths(target));
        }
        {
            // A sandboxed package manager gets caches of its own, never the
            // agent's (which unconfined runs execute from): whatever the
            // settings, `npx`/`uvx` do not write the agent's caches on their
            // own (a server that writes them on purpose is stopped only by
            // confining files).
            let caches = grants::private_caches(
                target.server,
                target.program,
                target.args,
                home.as_deref(),
            )?;
            plan.env.extend(caches.env);
            plan.write.extend(caches.write);
            if let Some(read) = &mut plan.read {
                read.extend(caches.read);
            }
        }
        Ok(plan)
    }

    /// A new empty directory for this start of the server.
    fn scratch_dir(&mut self, server: &str, what: &str) -> std::io::Result<PathBuf> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "mcpbind-{server}-{what}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        create_private_dir(&dir)?;
        self.scratch.push(dir.clone());
        Ok(dir)
    }
}

/// The setting a refused namespace names (the error's `setting`, and the
/// one `required = false` drops with the namespace): `network` when it is
/// not `true`, else `processes`, else the one confining files, else the
/// first limit (`memory`, `cpu`, `open_files`, `file_size`); `network` for
/// a sandbox table with no setting at all.
pub(crate) fn namespace_setting(sandbox: &SandboxConfig) -> &'static str {
    let limits = &sandbox.limits;
    if sandbox.network != NetworkPolicy::Allow {
        "network"
    } else if limits.processes.is_some() {
        "processes"
    } else if sandbox.files.is_some() {
        "read"
    } else if sandbox.home == HomePolicy::Isolated {
        "home"
    } else if limits.memory.is_some() {
        "memory"
    } else if limits.cpu_seconds.is_some() {
        "cpu"
    } else if limits.open_files.is_some() {
        "open_files"
    } else if limits.file_size.is_some() {
        "file_size"
    } else {
        "network"
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new().mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir(dir)
}

/// The program's installation (its prefix, through symlinks and a `#!`
/// line; for a script, its package), and the scripts named in its
/// arguments (each script alone, or its package).
pub(crate) fn runtime_paths(target: &Target<'_>) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(program) = resolve(target.program, target.cwd, target.path.as_deref()) {
        match shebang(&program) {
            Some(interpreter) => {
                paths.extend(grants::script(&program));
                if let Some(found) = resolve(&interpreter, target.cwd, target.path.as_deref()) {
                    paths.extend(installation(&found));
                }
            }
            None => paths.extend(installation(&program)),
        }
    }
    for arg in target.args {
        let path = match target.cwd {
            Some(cwd) => cwd.join(arg),
            None => PathBuf::from(arg),
        };
        if path.is_file() {
            paths.extend(grants::script(&path));
        }
    }
    paths
}

/// A program as the spawn finds it: a path (relative to `cwd`), or a name
/// on `PATH`.
pub(crate) fn resolve(
    program: &str,
    cwd: Option<&Path>,
    path: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    if program.contains('/') {
        let found = match cwd {
            Some(cwd) => cwd.join(program),
            None => PathBuf::from(program),
        };
        return found.is_file().then_some(found);
    }
    std::env::split_paths(path?)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// The installation `program` belongs to: the directory above its `bin`
/// (a Node prefix, a venv), or its own directory; for the path as found
/// and through its symlinks.
fn installation(program: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let real = std::fs::canonicalize(program).ok();
    for path in std::iter::once(program).chain(real.as_deref()) {
        if let Some(dir) = path.parent() {
            let root = match dir.file_name() {
                Some(name) if name == "bin" => dir.parent().unwrap_or(dir),
                _ => dir,
            };
            if root != Path::new("/") {
                roots.push(root.to_owned());
            }
        }
    }
    roots
}

/// The interpreter of a `#!` line (the program `env` runs, for
/// `#!/usr/bin/env python3`).
fn shebang(program: &Path) -> Option<String> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(program).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let interpreter = words.next()?;
    if interpreter.ends_with("/env") {
        words.find(|w| !w.starts_with('-')).map(str::to_owned)
    } else {
        Some(interpreter.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_finds_an_installation_and_a_shebang() {
        assert_eq!(
            installation(Path::new("/nonexistent/venv/bin/python")),
            [PathBuf::from("/nonexistent/venv")]
        );
        let dir = std::env::temp_dir().join(format!("mcpbind-plan-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let script = dir.join("server");
        std::fs::write(&script, "#!/usr/bin/env -S python3 -u\nprint()\n").unwrap();
        assert_eq!(shebang(&script).as_deref(), Some("python3"));
        std::fs::write(&script, "#!/opt/py/bin/python3\n").unwrap();
        assert_eq!(shebang(&script).as_deref(), Some("/opt/py/bin/python3"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
