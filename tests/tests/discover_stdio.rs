//! MCP 2026-07-28 over stdio: `mcpbind lock` and a client locked at
//! 2026-07-28 ask `server/discover` first, for about a second, and fall
//! back to `initialize` when the server stays silent, answers with an error
//! or answers with something that is no discover result; a client with no
//! lock, or locked at an older version, starts with `initialize`. Against
//! real processes: the demo server, the 2026-07-28 test server
//! (tests/src/bin/modern_http.rs) on stdio, and tests/servers/misbehave.py.

use mcpbind::model::{CallToolResult, ElicitRequestParams, ElicitResult, ElicitationAction};
use mcpbind::{CallOptions, Client, ClientHooks, Config};
use mcpbind_tests::demo;
use serde_json::{json, Value};

use crate::util;

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

async fn call(client: &Client, tool: &str, arguments: Value) -> String {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let result: CallToolResult = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
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
        let echo = call(&client, "echo", json!({"message": "still here"})).await;
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
    let answer = call(&client, "confirm", json!({})).await;
    let (answer, state) = answer.split_once("\nstate: ").unwrap();
    let answer: Value = serde_json::from_str(answer.strip_prefix("answer: ").unwrap()).unwrap();
    assert_eq!(answer, json!({"action": "accept", "content": {"ok": true}}));
    assert_eq!(state, "exact");
    client.close().await;
}
