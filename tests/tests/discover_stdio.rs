//! MCP 2026-07-28 over stdio: `mcpbind lock` and a client locked at
//! 2026-07-28 ask `server/discover` first, and go on with `initialize` on
//! the same process when the server stays silent (it answers the `ping`
//! behind it), answers with an error or answers with something that is no
//! discover result; a client with no lock, or locked at an older version,
//! starts with `initialize`, and so do `lock` and `check` of a server
//! locked at one. Each server is started once per `lock` or `check`, and
//! what is recorded does not depend on how fast it starts. Against real
//! processes: the demo server, the 2026-07-28 test server
//! (tests/src/bin/modern_http.rs) on stdio, the Python SDK 2.3's
//! mcp-server-time, a Python SDK 1.x server (mcp-server-calculator), and
//! tests/servers/misbehave.py.

use std::path::Path;

use mcpbind::protocol::{ElicitRequestParams, ElicitResult, ElicitationAction};
use mcpbind::{Client, ClientHooks, Config};
use mcpbind_tests::demo;
use serde_json::{json, Value};

use crate::util::{self, call_ok};

const NEWEST: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

fn misbehave(name: &str, mode: &str) -> String {
    let script = util::tests_dir().join("servers/misbehave.py");
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, {}]\n",
        util::toml_str(&script.display().to_string()),
        util::toml_str(mode)
    )
}

/// The demo server, the 2026-07-28 test server speaking both handshakes,
/// and three servers before 2026-07-28: one that answers
/// `server/discover` with `Method not found`, one that never answers it,
/// one that answers it with `{}`.
fn config_toml() -> String {
    format!(
        "[servers.demo]\ncommand = {demo}\n\n[servers.both]\ncommand = {modern}\nargs = [\"--stdio\", \"--mode\", \"both\"]\n\n{}\n{}\n{}",
        misbehave("refusing", "tools"),
        misbehave("silent", "silent-unknown"),
        misbehave("empty", "empty-unknown"),
        demo = util::toml_str(&util::bin("mcpbind-demo-server").display().to_string()),
        modern = util::toml_str(env!("CARGO_BIN_EXE_modern_http")),
    )
}

fn config() -> Config {
    Config::from_toml_str(&config_toml()).unwrap()
}

async fn negotiated(client: &Client) -> String {
    let info = client.server_info().await.unwrap();
    info.protocol_version.as_str().to_owned()
}

#[test]
fn discover_stdio_lock_records_the_newest_version_each_server_speaks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mcpbind.toml"), config_toml()).unwrap();
    let out = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap())
            .unwrap();
    let version = |server: &str| lock["servers"][server]["protocol_version"].clone();
    // Servers that speak 2026-07-28 (and 2025-11-25) over stdio.
    assert_eq!(version("demo"), NEWEST);
    assert_eq!(version("both"), NEWEST);
    // Servers before it, by `initialize` after the probe: refused, silent,
    // answered with `{}`.
    assert_eq!(version("refusing"), LEGACY);
    assert_eq!(version("silent"), LEGACY);
    assert_eq!(version("empty"), LEGACY);
    let tools = lock["servers"]["silent"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{lock}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_stdio_typed_client_locked_at_2026_07_28_negotiates_it() {
    assert_eq!(demo::Client::PROTOCOL_VERSION, NEWEST);
    let client = demo::Client::connect(&config()).await.unwrap();
    assert_eq!(negotiated(client.inner()).await, NEWEST);
    let sum = client
        .add(demo::types::AddInput { a: 2, b: 40 })
        .await
        .unwrap();
    assert_eq!(sum.output.sum, 42);
    client.inner().clone().close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_stdio_unlocked_or_older_lock_starts_with_initialize() {
    let config = config();
    // No lock: `initialize`, as before 2026-07-28.
    let unlocked = Client::connect_server("demo", config.servers["demo"].clone())
        .await
        .unwrap();
    assert_eq!(negotiated(&unlocked).await, LEGACY);
    unlocked.close().await;
    // Locked at 2025-11-25: the same.
    let older = Client::connect_locked(&config, "demo", LEGACY)
        .await
        .unwrap();
    assert_eq!(negotiated(&older).await, LEGACY);
    older.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_stdio_falls_back_to_initialize() {
    let config = config();
    // Refused, never answered, answered with `{}`: each connects by
    // `initialize`, and its tools work.
    for server in ["refusing", "silent", "empty"] {
        let client = Client::connect_locked(&config, server, NEWEST)
            .await
            .unwrap_or_else(|e| panic!("{server}: {e}"));
        assert_eq!(negotiated(&client).await, LEGACY, "{server}");
        let echo = call_ok(&client, "echo", json!({"message": "still here"})).await;
        assert_eq!(echo, "still here", "{server}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_stdio_answers_input_required_and_echoes_the_state() {
    let hooks = ClientHooks::default().elicitation(|request: ElicitRequestParams| async move {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return ElicitResult::new(ElicitationAction::Decline);
        };
        assert_eq!(message, "Go ahead?");
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"ok": true}))
    });
    let client = Client::connect_locked_with(&config(), "both", NEWEST, hooks)
        .await
        .unwrap();
    assert_eq!(negotiated(&client).await, NEWEST);
    let answer = call_ok(&client, "confirm", json!({})).await;
    let (answer, state) = answer.split_once("\nstate: ").unwrap();
    let answer: Value = serde_json::from_str(answer.strip_prefix("answer: ").unwrap()).unwrap();
    assert_eq!(answer, json!({"action": "accept", "content": {"ok": true}}));
    assert_eq!(state, "exact");
    client.close().await;
}

/// A server entry whose process, started through `sh`, appends a line to
/// `starts` each time it starts, sleeps `sleep` seconds, then runs
/// `command` with `args` in its place.
fn counted(name: &str, starts: &Path, sleep: u32, command: &str, args: &[&str]) -> String {
    let script = format!("echo started >> \"$0\"; sleep {sleep}; exec \"$@\"");
    let mut all = vec!["-c".to_owned(), script, starts.display().to_string()];
    all.push(command.to_owned());
    all.extend(args.iter().map(|a| a.to_string()));
    let args: Vec<String> = all.iter().map(|a| util::toml_str(a)).collect();
    format!(
        "[servers.{name}]\ncommand = \"sh\"\nargs = [{}]\n\n",
        args.join(", ")
    )
}

/// How many times the server counting into `file` was started.
fn starts(file: &Path) -> usize {
    std::fs::read_to_string(file).map_or(0, |s| s.lines().count())
}

fn locked(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("mcpbind.lock")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn python_server(venv: &str, program: &str) -> String {
    let path = util::servers_dir().join(venv).join("bin").join(program);
    path.display().to_string()
}

/// Servers before 2026-07-28 that answer `server/discover` with an error,
/// with `{}`, or not at all (but answer the `ping` behind it): each is
/// started once, and `initialize` is written as soon as the answer says
/// so, never at the probe's bound.
#[test]
fn discover_stdio_each_server_before_2026_07_28_is_started_once() {
    let dir = tempfile::tempdir().unwrap();
    let script = util::tests_dir().join("servers/misbehave.py");
    let script = script.display().to_string();
    let modes = [
        (
            "refusing",
            "tools",
            "`server/discover` was refused: method not found (-32601)",
        ),
        (
            "empty",
            "empty-unknown",
            "`server/discover` was refused: its answer is not a `server/discover` result",
        ),
        (
            "silent",
            "silent-unknown",
            "the server answered `ping` and not `server/discover`",
        ),
    ];
    let config: String = modes
        .iter()
        .map(|(name, mode, _)| {
            let count = dir.path().join(format!("{name}.starts"));
            counted(name, &count, 0, "python3", &[&script, mode])
        })
        .collect();
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    let out = util::mcpbind(dir.path(), &["-v", "lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let lock = locked(dir.path());
    for (name, _, why) in modes {
        assert_eq!(lock["servers"][name]["protocol_version"], LEGACY, "{name}");
        assert_eq!(
            starts(&dir.path().join(format!("{name}.starts"))),
            1,
            "{name}"
        );
        let line = format!("writing `initialize`: {why}");
        let said = out
            .stderr
            .lines()
            .any(|l| l.contains(name) && l.contains(&line));
        assert!(said, "{name}: {}", out.stderr);
    }
    assert!(!out.stderr.contains("within 5 s"), "{}", out.stderr);
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// 2026-07-28 servers that take longer to start than the probe's bound
    /// (the demo server on rmcp, and mcp-server-time on the Python SDK 2.3,
    /// which lets the first request choose the era) are recorded at
    /// 2026-07-28, as when they start at once, and each is started once by
    /// `lock` and once by `check`, which finds nothing changed.
    #[test]
    fn discover_stdio_a_server_slower_than_the_probe_bound_is_recorded_as_a_fast_one() {
        let dir = tempfile::tempdir().unwrap();
        let (demo, time) = (
            dir.path().join("demo.starts"),
            dir.path().join("time.starts"),
        );
        let demo_bin = util::bin("mcpbind-demo-server").display().to_string();
        let time_bin = python_server(".venv", "mcp-server-time");
        let config = counted("demo", &demo, 6, &demo_bin, &[])
            + &counted("time", &time, 6, &time_bin, &["--local-timezone", "UTC"]);
        std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
        let out = util::mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let lock = locked(dir.path());
        for server in ["demo", "time"] {
            assert_eq!(
                lock["servers"][server]["protocol_version"], NEWEST,
                "{server}"
            );
        }
        assert_eq!((starts(&demo), starts(&time)), (1, 1));
        let out = util::mcpbind(dir.path(), &["check"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        assert_eq!((starts(&demo), starts(&time)), (2, 2));
    }

    /// A server on the Python SDK 1.x answers `server/discover` with an
    /// error: `initialize` follows on the same process at once (the log says
    /// why it was written, and it is not the probe's bound), and the server
    /// is recorded at 2025-11-25, started once by `lock` and once by `check`.
    #[test]
    fn discover_stdio_a_python_sdk_1_server_is_locked_on_one_process_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let count = dir.path().join("calc.starts");
        let calc = python_server(".venv-sdk1", "mcp-server-calculator");
        std::fs::write(
            dir.path().join("mcpbind.toml"),
            counted("calc", &count, 0, &calc, &[]),
        )
        .unwrap();
        let out = util::mcpbind(dir.path(), &["-v", "lock"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let lock = locked(dir.path());
        assert_eq!(lock["servers"]["calc"]["protocol_version"], LEGACY);
        assert_eq!(lock["servers"]["calc"]["tools"][0]["name"], "calculate");
        assert_eq!(starts(&count), 1);
        let why =
            "writing `initialize`: `server/discover` was refused: Invalid request parameters (-32602)";
        assert!(out.stderr.contains(why), "{}", out.stderr);
        assert!(!out.stderr.contains("within 5 s"), "{}", out.stderr);
        // Locked at 2025-11-25: `check` starts with `initialize`.
        let out = util::mcpbind(dir.path(), &["-v", "check"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        assert_eq!(starts(&count), 2);
        assert!(!out.stderr.contains("server/discover"), "{}", out.stderr);
    }

    /// A server the lockfile holds at 2025-11-25 is re-locked and checked with
    /// `initialize` first, as the lock says: mcp-server-time (the Python SDK
    /// 2.3, on which the first request chooses the era, once) then stays at
    /// 2025-11-25, and neither `check` nor `lock` sees a change that the
    /// server did not make.
    #[test]
    fn discover_stdio_relock_and_check_connect_as_the_lock_says() {
        let dir = tempfile::tempdir().unwrap();
        let time = python_server(".venv", "mcp-server-time");
        let config = format!(
            "[servers.time]\ncommand = {}\nargs = [\"--local-timezone\", \"UTC\"]\n",
            util::toml_str(&time)
        );
        std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
        let out = util::mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let mut lock = locked(dir.path());
        assert_eq!(lock["servers"]["time"]["protocol_version"], NEWEST);
        // As locked when the server spoke only 2025-11-25 (or by an older
        // mcpbind).
        lock["servers"]["time"]["protocol_version"] = LEGACY.into();
        let text = serde_json::to_string_pretty(&lock).unwrap() + "\n";
        std::fs::write(dir.path().join("mcpbind.lock"), &text).unwrap();
        let out = util::mcpbind(dir.path(), &["check"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let out = util::mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(out.stderr.contains("(unchanged)"), "{out:?}");
        assert_eq!(
            locked(dir.path())["servers"]["time"]["protocol_version"],
            LEGACY
        );
    }
}
