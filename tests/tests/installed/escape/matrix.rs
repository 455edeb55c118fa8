//! The escape matrix: each escape under each configuration that claims to
//! stop it, one server per configuration. A cell a configuration does not
//! claim is listed as such (README's sandbox table says the same); the
//! cells are written to stderr past the test harness's capture, so they
//! show in every run.

use std::io::Write as _;
use std::path::PathBuf;

use mcpbind::{Client, SandboxBuilder};
use serde_json::{json, Value};

use super::{config_for, escape_script, Watched};
use crate::util::call_text;
use crate::util::sandbox::require_landlock;

/// `processes` in the matrix: a fork loop of `LIMIT + 10` children.
const LIMIT: u64 = 8;

/// A configuration of the matrix (`None`: no sandbox, the baseline
/// every refusal is measured against).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Setting {
    None,
    Network,
    Processes,
    Limits,
    Files,
    Home,
    All,
}

/// An escape.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Escape {
    /// A file in the agent's HOME, by absolute path.
    Home,
    /// A file beside the server's script.
    Beside,
    /// Writing the agent's npm cache.
    Cache,
    /// The agent's `/proc/PID/{environ,cmdline,maps,mem,fd}`, and a
    /// scan of every `/proc/*/environ` for a canary another process of
    /// the agent holds.
    Proc,
    Ptrace,
    Signal,
    Tcp,
    Udp,
    Abstract,
    /// A pathname unix socket of the agent's.
    Pathname,
    FileSize,
    Memory,
    Processes,
    /// A `setsid` daemon outliving the server.
    Daemon,
}

const ESCAPES: [Escape; 14] = [
    Escape::Home,
    Escape::Beside,
    Escape::Cache,
    Escape::Proc,
    Escape::Ptrace,
    Escape::Signal,
    Escape::Tcp,
    Escape::Udp,
    Escape::Abstract,
    Escape::Pathname,
    Escape::FileSize,
    Escape::Memory,
    Escape::Processes,
    Escape::Daemon,
];

/// Whether `setting` claims to stop `escape`: README's table.
fn claims(setting: Setting, escape: Escape) -> bool {
    use Escape as E;
    use Setting as S;
    if setting == S::None {
        return false;
    }
    match escape {
        // Every sandbox: a PID namespace with a /proc of its own.
        E::Proc | E::Ptrace | E::Signal | E::Daemon => true,
        // The agent's npm cache is in its HOME.
        E::Home | E::Cache => matches!(setting, S::Files | S::Home | S::All),
        E::Beside => matches!(setting, S::Files | S::All),
        E::Tcp | E::Udp => matches!(setting, S::Network | S::All),
        // A network namespace, or Landlock's scope (ABI 6).
        E::Abstract => matches!(setting, S::Network | S::Files | S::Home | S::All),
        // Landlock up to ABI 7 does not govern connect() on them.
        E::Pathname => false,
        E::FileSize | E::Memory => matches!(setting, S::Limits | S::All),
        E::Processes => matches!(setting, S::Processes | S::All),
    }
}

/// What the escapes aim at, on the agent's side.
struct Targets {
    /// A secret in the agent's HOME.
    home_secret: PathBuf,
    _home: tempfile::TempDir,
    /// The server's script, with `beside.txt` next to it.
    script: PathBuf,
    beside: PathBuf,
    _script_dir: tempfile::TempDir,
    cache_poison: PathBuf,
    /// Granted for writing (`file_size`'s file goes there).
    writable: tempfile::TempDir,
    tcp: std::net::TcpListener,
    udp: std::net::UdpSocket,
    abstract_name: String,
    _abstract: std::os::unix::net::UnixListener,
    pathname: PathBuf,
    _pathname: std::os::unix::net::UnixListener,
    /// Another process of the agent's, with `canary` in its
    /// environment from its start (as the agent's own keys are).
    witness: std::process::Child,
    canary: String,
}

impl Targets {
    fn new(setting: Setting) -> Targets {
        use std::os::linux::net::SocketAddrExt as _;
        let home = tempfile::tempdir_in(super::agent_home()).unwrap();
        let home_secret = home.path().join("id_matrix");
        std::fs::write(&home_secret, "agent private key").unwrap();
        let script_dir = tempfile::tempdir().unwrap();
        let script = script_dir.path().join("server.py");
        std::fs::copy(escape_script(), &script).unwrap();
        let beside = script_dir.path().join("beside.txt");
        std::fs::write(&beside, "next to the script").unwrap();
        let tag = format!("{setting:?}-{}", std::process::id()).to_lowercase();
        let cache_poison = super::agent_npm_cache().join(format!("mcpbind-poison-{tag}"));
        let abstract_name = format!("mcpbind-matrix-{tag}");
        let address = std::os::unix::net::SocketAddr::from_abstract_name(&abstract_name).unwrap();
        let pathname = script_dir.path().join("agent.sock");
        let canary = format!("spy-canary-{tag}");
        let witness = std::process::Command::new("sleep")
            .arg("3600")
            .env("MCPBIND_SPY_CANARY", &canary)
            .spawn()
            .unwrap();
        Targets {
            home_secret,
            _home: home,
            script,
            beside,
            cache_poison,
            writable: tempfile::tempdir().unwrap(),
            tcp: std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
            udp: std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
            _abstract: std::os::unix::net::UnixListener::bind_addr(&address).unwrap(),
            abstract_name,
            _pathname: std::os::unix::net::UnixListener::bind(&pathname).unwrap(),
            pathname,
            _script_dir: script_dir,
            witness,
            canary,
        }
    }

    fn sandbox(&self, setting: Setting) -> Option<SandboxBuilder> {
        let new = SandboxBuilder::new;
        let files = || {
            new()
                .read(Vec::<PathBuf>::new())
                .write([self.writable.path()])
        };
        Some(match setting {
            Setting::None => return None,
            Setting::Network => new().network(false),
            Setting::Processes => new().processes(LIMIT),
            Setting::Limits => new().memory("256M").file_size("1M"),
            Setting::Files => files(),
            Setting::Home => new().home("isolated"),
            Setting::All => files()
                .home("isolated")
                .network(false)
                .processes(LIMIT)
                .memory("256M")
                .file_size("1M"),
        })
    }
}

impl Drop for Targets {
    fn drop(&mut self) {
        let _ = self.witness.kill();
        let _ = self.witness.wait();
        let _ = std::fs::remove_file(&self.cache_poison);
    }
}

/// Tries `escape`: whether it was stopped, and what the server saw.
async fn attempt(client: &Client, escape: Escape, t: &Targets) -> (bool, String) {
    let agent = std::process::id();
    let port = |a: std::net::SocketAddr| a.port();
    let (stopped, text) = match escape {
        Escape::Home | Escape::Beside => {
            let path = if escape == Escape::Home {
                &t.home_secret
            } else {
                &t.beside
            };
            let (failed, text) = call_text(client, "read", json!({ "path": path })).await;
            (errno(failed, &text, &["EACCES"]), text)
        }
        Escape::Cache => {
            let args = json!({"path": t.cache_poison, "text": "x"});
            let (failed, text) = call_text(client, "write", args).await;
            let stopped = errno(failed, &text, &["EACCES"]) && !t.cache_poison.exists();
            (stopped, text)
        }
        Escape::Proc => spy_on_the_agent(client, t).await,
        Escape::Ptrace | Escape::Signal => {
            let tool = if escape == Escape::Ptrace {
                "ptrace"
            } else {
                "signal"
            };
            let (failed, text) = call_text(client, tool, json!({ "pid": agent })).await;
            (errno(failed, &text, &["ESRCH", "EPERM"]), text)
        }
        Escape::Tcp | Escape::Udp => {
            let (tool, addr) = if escape == Escape::Tcp {
                ("tcp", t.tcp.local_addr().unwrap())
            } else {
                ("udp", t.udp.local_addr().unwrap())
            };
            let args = json!({"host": "127.0.0.1", "port": port(addr)});
            let (failed, text) = call_text(client, tool, args).await;
            (errno(failed, &text, &["ENETUNREACH"]), text)
        }
        Escape::Abstract | Escape::Pathname => {
            let path = if escape == Escape::Abstract {
                format!("@{}", t.abstract_name)
            } else {
                t.pathname.display().to_string()
            };
            let (failed, text) = call_text(client, "unix", json!({ "path": path })).await;
            (errno(failed, &text, &["ECONNREFUSED", "EPERM"]), text)
        }
        Escape::FileSize => {
            let args = json!({"path": t.writable.path().join("big"), "bytes": 8 << 20});
            let (failed, text) = call_text(client, "bigfile", args).await;
            (errno(failed, &text, &["EFBIG"]), text)
        }
        Escape::Memory => {
            let (failed, text) = call_text(client, "alloc", json!({"bytes": 1u64 << 30})).await;
            (failed && text == "MemoryError", text)
        }
        Escape::Processes => fork_past_the_limit(client).await,
        Escape::Daemon => unreachable!("tried by `daemon_outlives`"),
    };
    (stopped, text.chars().take(240).collect())
}

/// Whether a call `failed` with one of the errno `names` (the test server
/// answers `errno NAME …` when a system call fails).
fn errno(failed: bool, text: &str, names: &[&str]) -> bool {
    failed
        && names
            .iter()
            .any(|n| text.starts_with(&format!("errno {n}")))
}

/// [`Escape::Proc`]: whether the server found nothing of the agent's
/// process through `/proc`, and could not unmount it.
async fn spy_on_the_agent(client: &Client, t: &Targets) -> (bool, String) {
    let agent = std::process::id();
    // Unmounting /proc is tried only outside the agent's
    // mount namespace (in it, as root, it would unmount the
    // agent's).
    let agent_mnt = std::fs::read_link("/proc/self/ns/mnt").unwrap();
    let args = json!({"pid": agent, "canary": t.canary, "agent_mnt": agent_mnt});
    let (failed, text) = call_text(client, "spy", args).await;
    assert!(!failed, "spy: {text}");
    let seen: Value = serde_json::from_str(&text).unwrap();
    let nothing = seen["found"] == json!([])
        && seen["umount"] != "unmounted"
        && seen["agent"]
            .as_object()
            .unwrap()
            .values()
            .all(|v| v.as_str().is_some_and(|v| v.starts_with("errno")));
    (nothing, text)
}

/// [`Escape::Processes`]: whether a fork bomb was stopped below the limit.
async fn fork_past_the_limit(client: &Client) -> (bool, String) {
    let args = json!({ "count": LIMIT + 10 });
    let (failed, text) = call_text(client, "forkbomb", args).await;
    assert!(!failed, "forkbomb: {text}");
    let forked: u64 = text
        .strip_prefix("forked ")
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    (forked < LIMIT && text.ends_with("(errno EAGAIN)"), text)
}

/// Starts a `setsid` daemon, closes the client: whether the daemon
/// ended with the server.
async fn daemon_outlives(client: Client, dir: &std::path::Path) -> (bool, String) {
    let pidfile = dir.join("daemon.pid");
    let (failed, text) = call_text(&client, "daemon", json!({ "pidfile": pidfile })).await;
    assert!(!failed, "daemon: {text}");
    let reaper = client.process_id().await.unwrap();
    let daemon = Watched::from_namespaced_pidfile(&pidfile, reaper);
    assert!(!daemon.ended_within(0), "the daemon ended on its own");
    client.close().await;
    // A generous bound: the namespace ends it at once; without one it
    // lives on (and `Watched` kills it).
    let ended = daemon.ended_within(5_000);
    (ended, format!("pid {}: ended {ended}", daemon.pid))
}

/// Runs every cell of `setting` on one server, lists them, and fails
/// on a claim that did not hold (the baseline: on an escape that was
/// stopped without a sandbox, which would make its refusals
/// meaningless).
async fn run(setting: Setting) {
    require_landlock();
    let targets = Targets::new(setting);
    let config = config_for(&targets.script, targets.sandbox(setting));
    let client = Client::connect(&config, "escape")
        .await
        .unwrap_or_else(|e| panic!("{setting:?}: {e:#}"));
    let mut lines = Vec::new();
    let mut wrong = Vec::new();
    for escape in ESCAPES.into_iter().filter(|e| *e != Escape::Daemon) {
        let claimed = claims(setting, escape);
        // Without a sandbox, only what reaches the agent harmlessly is
        // tried (no ptrace of the test process, no 1 GiB, no fork loop).
        let tried = claimed
            || (setting == Setting::None
                && !matches!(
                    escape,
                    Escape::Ptrace
                        | Escape::FileSize
                        | Escape::Memory
                        | Escape::Processes
                        | Escape::Daemon
                ));
        if !tried {
            lines.push(format!("{setting:?} × {escape:?}: not claimed"));
            continue;
        }
        let (stopped, seen) = attempt(&client, escape, &targets).await;
        let verdict = if stopped { "stopped" } else { "reached" };
        lines.push(format!("{setting:?} × {escape:?}: {verdict} ({seen})"));
        if stopped != claimed {
            wrong.push(lines.last().cloned().unwrap_or_default());
        }
    }
    if claims(setting, Escape::Daemon) {
        let (stopped, seen) = daemon_outlives(client, targets.writable.path()).await;
        lines.push(format!(
            "{setting:?} × Daemon: {} ({seen})",
            if stopped { "stopped" } else { "reached" }
        ));
        if !stopped {
            wrong.push(lines.last().cloned().unwrap_or_default());
        }
    } else {
        lines.push(format!("{setting:?} × Daemon: not claimed"));
    }
    let mut stderr = std::io::stderr().lock();
    for line in &lines {
        let _ = writeln!(stderr, "escape matrix: {line}");
    }
    assert!(wrong.is_empty(), "cells that did not hold: {wrong:#?}");
}

#[tokio::test]
async fn none() {
    run(Setting::None).await;
}

#[tokio::test]
async fn network_only() {
    run(Setting::Network).await;
}

#[tokio::test]
async fn processes_only() {
    run(Setting::Processes).await;
}

#[tokio::test]
async fn limits_only() {
    run(Setting::Limits).await;
}

#[tokio::test]
async fn files_only() {
    run(Setting::Files).await;
}

#[tokio::test]
async fn home_only() {
    run(Setting::Home).await;
}

#[tokio::test]
async fn all_together() {
    run(Setting::All).await;
}
