//! MCP 2026-07-28 over Streamable HTTP, against a server that speaks only
//! that version (tests/src/bin/modern_http.rs, rmcp's server side): the
//! negotiation (`server/discover`; the server rejects `initialize`), the
//! SEP-2243 headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` with their
//! encoding; a tool with an invalid mapping skipped), and multi round-trip
//! requests answered by the client's hooks (SEP-2322).

use std::process::{Child, Command};

use mcpbind::model::{CallToolResult, ElicitRequestParams, ElicitResult, ElicitationAction};
use mcpbind::{CallOptions, Client, ClientHooks, Config};
use serde_json::{json, Value};

use crate::util;

/// The server, killed when dropped.
struct Modern {
    child: Child,
    url: String,
}

impl Drop for Modern {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Modern {
    let (child, url) = util::start_listening(Command::new(env!("CARGO_BIN_EXE_modern_http")));
    Modern { child, url }
}

async fn connect(server: &Modern, hooks: ClientHooks) -> Client {
    let toml = format!(
        "[servers.modern]\ntransport = \"streamable-http\"\nurl = \"{}\"\n",
        server.url
    );
    let config = Config::from_toml_str(&toml).unwrap();
    Client::connect_with(&config, "modern", hooks)
        .await
        .unwrap()
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

#[tokio::test]
async fn discover_http_negotiates_2026_07_28_with_an_initialize_rejecting_server() {
    let server = start();
    let client = connect(&server, ClientHooks::default()).await;
    let info = client.server_info().await.unwrap();
    assert_eq!(info.protocol_version.as_str(), "2026-07-28");
    assert_eq!(info.server_info.unwrap().name, "modern-http");
    client.close().await;
}

#[tokio::test]
async fn discover_http_skips_a_tool_whose_header_mapping_is_invalid() {
    let server = start();
    let client = connect(&server, ClientHooks::default()).await;
    let (tools, skipped) = client.list_tools_checked().await.unwrap();
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    assert_eq!(names, ["headers", "confirm"]);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0].starts_with("tool `bad_header` (#2 in tools/list): property `score` has an `x-mcp-header` but its type is `number`"),
        "{}",
        skipped[0]
    );
    client.close().await;
}

#[tokio::test]
async fn discover_http_sends_the_standard_and_param_headers() {
    let server = start();
    let client = connect(&server, ClientHooks::default()).await;
    client.list_tools_raw().await.unwrap();
    let seen = call(&client, "headers", json!({"region": "us-west1", "n": 3})).await;
    assert_eq!(
        seen,
        "mcp-protocol-version: 2026-07-28\nmcp-method: tools/call\nmcp-name: headers\nmcp-param-region: us-west1\nmcp-param-n: -"
    );
    // A value with a leading space travels Base64-encoded.
    let seen = call(&client, "headers", json!({"region": " padded"})).await;
    assert!(
        seen.contains("mcp-param-region: =?base64?IHBhZGRlZA==?=\n"),
        "{seen}"
    );
    client.close().await;
}

#[tokio::test]
async fn discover_http_answers_input_required_with_the_hook_and_echoes_the_state() {
    let server = start();
    let hooks = ClientHooks::default().elicitation(|request: ElicitRequestParams| async move {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return ElicitResult::new(ElicitationAction::Decline);
        };
        assert_eq!(message, "Go ahead?");
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"ok": true}))
    });
    let client = connect(&server, hooks).await;
    let answer = call(&client, "confirm", json!({})).await;
    let (answer, state) = answer.split_once("\nstate: ").unwrap();
    let answer: Value = serde_json::from_str(answer.strip_prefix("answer: ").unwrap()).unwrap();
    assert_eq!(answer, json!({"action": "accept", "content": {"ok": true}}));
    assert_eq!(state, "exact");
    client.close().await;

    // Without an elicitation hook, the request is declined, and the state
    // still goes back.
    let client = connect(&server, ClientHooks::none()).await;
    let answer = call(&client, "confirm", json!({})).await;
    assert!(
        answer.starts_with("answer: {\"action\":\"decline\"}"),
        "{answer}"
    );
    assert!(answer.ends_with("state: exact"), "{answer}");
    client.close().await;
}
