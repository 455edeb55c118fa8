//! A server that tries to escape its sandbox (`tests/servers/escape.py`):
//! each escape is tried by the server itself, and each refusal is asserted
//! with its cause. Where this machine lacks what a refusal needs (or the
//! tests run as root), the test fails or asserts what holds instead, with
//! the reason: it never passes silently.

use std::os::fd::{FromRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};

use mcpbind::{CallOptions, Client, Config};
use serde_json::{json, Value};

use crate::util;

/// The venv's Python (the test servers' installation).
fn python() -> String {
    util::servers_dir()
        .join(".venv/bin/python")
        .display()
        .to_string()
}

fn escape_script() -> PathBuf {
    util::tests_dir().join("servers/escape.py")
}

/// A config with `script` as server `escape`, and `extra` in its table.
fn config_for(script: &Path, extra: &str) -> Config {
    Config::from_toml_str(&format!(
        "[servers.escape]\ncommand = {:?}\nargs = [{:?}]\n{extra}",
        python(),
        script.display().to_string()
    ))
    .unwrap()
}

/// The escape server, with `sandbox` as its `[servers.escape.sandbox]`.
fn escape_config(sandbox: &str) -> Config {
    config_for(
        &escape_script(),
        &format!("[servers.escape.sandbox]\n{sandbox}"),
    )
}

/// Calls `tool`: whether it failed, and its text.
async fn call(client: &Client, tool: &str, arguments: Value) -> (bool, String) {
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let result = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e:#}"));
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    (result.is_error == Some(true), text)
}

/// Asserts that `tool` was refused with `errno`.
async fn refused(client: &Client, tool: &str, arguments: Value, errno: &str) {
    let (failed, text) = call(client, tool, arguments.clone()).await;
    assert!(
        failed && text.starts_with(&format!("errno {errno}")),
        "{tool} {arguments}: expected errno {errno}, got {text:?}"
    );
}

/// A process the test watches: a pidfd, readable once the process ended.
struct Watched {
    pid: i32,
    fd: OwnedFd,
}

impl Watched {
    /// The process whose pid the server wrote to `pidfile`.
    fn from_pidfile(pidfile: &Path) -> Watched {
        let text = std::fs::read_to_string(pidfile).unwrap();
        let pid: i32 = text.trim().parse().unwrap();
        // SAFETY: pidfd_open takes plain values.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        assert!(
            fd >= 0,
            "pidfd_open({pid}): {}",
            std::io::Error::last_os_error()
        );
        Watched {
            pid,
            // SAFETY: a new descriptor nothing else owns.
            fd: unsafe { OwnedFd::from_raw_fd(fd as i32) },
        }
    }

    /// Whether the process has ended, waiting for it up to `millis`.
    fn ended_within(&self, millis: i32) -> bool {
        use std::os::fd::AsRawFd as _;
        let mut poll = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut poll, 1, millis) };
        assert!(n >= 0, "poll: {}", std::io::Error::last_os_error());
        n == 1
    }

    /// Asserts that the process ends (a generous bound: it is only there
    /// so that a failure does not hang the suite).
    fn assert_ends(&self, what: &str) {
        assert!(
            self.ended_within(60_000),
            "{what} (pid {}) is still running a minute after the server was closed",
            self.pid
        );
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // A test that failed leaves nothing running.
        if !self.ended_within(0) {
            // SAFETY: a pidfd of a process this test had started.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    self.fd_raw(),
                    libc::SIGKILL,
                    0,
                    0,
                )
            };
        }
    }
}

impl Watched {
    fn fd_raw(&self) -> i32 {
        use std::os::fd::AsRawFd as _;
        self.fd.as_raw_fd()
    }
}

/// A child the server forked, that stays in its process group and ignores
/// SIGHUP and SIGTERM, ends when the client is closed: the group is killed
/// after the grace period.
#[tokio::test]
async fn a_forked_child_ends_when_the_client_closes() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let config = config_for(&escape_script(), "");
    let client = Client::connect(&config, "escape").await.unwrap();
    let (failed, text) = call(&client, "fork", json!({"pidfile": pidfile})).await;
    assert!(!failed, "{text}");
    let child = Watched::from_pidfile(&pidfile);
    assert!(!child.ended_within(0), "the child ended on its own");
    client.close().await;
    child.assert_ends("the forked child");
}

/// The same when the client is dropped without being closed.
#[tokio::test]
async fn a_forked_child_ends_when_the_client_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let config = config_for(&escape_script(), "");
    let client = Client::connect(&config, "escape").await.unwrap();
    let (failed, text) = call(&client, "fork", json!({"pidfile": pidfile})).await;
    assert!(!failed, "{text}");
    let child = Watched::from_pidfile(&pidfile);
    assert!(!child.ended_within(0), "the child ended on its own");
    drop(client);
    child.assert_ends("the forked child");
}
