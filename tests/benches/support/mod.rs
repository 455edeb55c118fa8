//! What the benches share: the demo server as cargo builds it, the test
//! servers' installation, and an HTTP server that says where it listens.
//!
//! Each bench is its own binary and includes this module (`mod support;`),
//! using what it needs of it: hence the `dead_code` allowance at each
//! `mod support;`. (A `benches/support.rs` would be a bench of its own to
//! cargo's target discovery; a `mod.rs` in a folder is not.)

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The sequential calls per round: `MCPBIND_BENCH_CALLS`, or `default`.
pub fn calls_per_round(default: usize) -> usize {
    std::env::var("MCPBIND_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// The server executable `MCPBIND_BENCH_SERVER_EXE` chooses, if it is set.
pub fn chosen_server() -> Option<PathBuf> {
    std::env::var_os("MCPBIND_BENCH_SERVER_EXE").map(PathBuf::from)
}

/// The median of `values`.
pub fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// Builds the demo server (debug, as the tests use it, or release) and
/// returns its path: the one cargo reports, so that it holds under any
/// `CARGO_TARGET_DIR` (a path guessed as `target/debug` was missing under
/// one, and a bench panicked spawning it).
pub fn demo_server(release: bool) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&root)
        .args(["build", "--quiet", "--message-format=json"])
        .args(["-p", "mcpbind-demo-server"]);
    if release {
        command.arg("--release");
    }
    let output = command
        .stderr(Stdio::inherit())
        .output()
        .expect("running cargo to build the demo server");
    assert!(output.status.success(), "building the demo server failed");
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter(|m| m["target"]["name"] == "mcpbind-demo-server")
        .find_map(|m| m["executable"].as_str().map(Into::into))
        .expect("cargo named no demo server executable")
}

/// `tests/servers/`, with the pinned npm and PyPI servers installed
/// (`tests/servers/install.sh`, as the tests run it).
pub fn servers_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("servers");
    let status = Command::new("bash")
        .arg(dir.join("install.sh"))
        .status()
        .unwrap();
    assert!(status.success(), "tests/servers/install.sh failed");
    dir
}

/// A server that prints `listening on <url>` first, killed when dropped.
pub struct Listening {
    child: Child,
    pub url: String,
}

impl Listening {
    pub fn start(command: &mut Command) -> Listening {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().trim_start_matches("listening on ").to_owned();
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
