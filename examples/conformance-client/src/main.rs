//! mcpbind's client for the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, client mode), as the official SDKs
//! keep one: `scripts/conformance.sh` runs it once per scenario.
//!
//! The suite starts a test server and runs this binary with the server's URL
//! as the last argument, the scenario's name in `MCP_CONFORMANCE_SCENARIO`
//! and, for some scenarios, a JSON context (credentials) in
//! `MCP_CONFORMANCE_CONTEXT`. The client does what the scenario asks through
//! mcpbind's public API only, and exits non-zero when anything fails.

use std::process::ExitCode;

use mcpbind::model::CallToolResult;
use mcpbind::{CallOptions, Client, ClientHooks, Config};
use serde_json::{json, Map, Value};

/// The server's name in the config the client builds.
const SERVER: &str = "conformance";

fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("conformance-client: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(&scenario, &url)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client: scenario `{scenario}` against {url}: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    let config = config_for(url)?;
    match scenario {
        // Connect, list the tools, close.
        "initialize" => {
            let client = connect(&config, ClientHooks::default()).await?;
            list_tools(&client).await?;
            client.close().await;
            Ok(())
        }
        // Call `add_numbers` and check the sum.
        "tools_call" => {
            let client = connect(&config, ClientHooks::default()).await?;
            require_tool(&list_tools(&client).await?, "add_numbers")?;
            let result = call(&client, "add_numbers", json!({"a": 5, "b": 3})).await?;
            let text = text_of(&result);
            if !text.contains('8') {
                return Err(format!("`add_numbers` 5 + 3 answered {text:?}"));
            }
            client.close().await;
            Ok(())
        }
        // The tool elicits a form whose every field has a default: the
        // default elicitation hook accepts with them (SEP-1034).
        "elicitation-sep1034-client-defaults" => {
            let client = connect(&config, ClientHooks::default()).await?;
            let tool = "test_client_elicitation_defaults";
            require_tool(&list_tools(&client).await?, tool)?;
            call(&client, tool, json!({})).await?;
            client.close().await;
            Ok(())
        }
        // The server closes the call's SSE stream; the answer comes on the
        // resumed stream (SEP-1699).
        "sse-retry" => {
            let client = connect(&config, ClientHooks::default()).await?;
            let tool = "test_reconnection";
            require_tool(&list_tools(&client).await?, tool)?;
            call(&client, tool, json!({})).await?;
            client.close().await;
            Ok(())
        }
        // The OAuth-protected server: connect, list, call `test-tool` when
        // listed. Authorization is not in mcpbind yet (issue 11), so these
        // fail at the first 401.
        auth if auth.starts_with("auth/") => {
            context()?;
            let client = connect(&config, ClientHooks::default()).await?;
            let tools = list_tools(&client).await?;
            if tools.iter().any(|name| name == "test-tool") {
                call(&client, "test-tool", json!({})).await?;
            }
            client.close().await;
            Ok(())
        }
        other => Err(format!("unknown scenario `{other}`")),
    }
}

/// A config with one Streamable HTTP server at `url`.
fn config_for(url: &str) -> Result<Config, String> {
    // A JSON string is a valid TOML basic string for the URLs the suite
    // gives (printable ASCII).
    if !url.chars().all(|c| c.is_ascii_graphic()) {
        return Err(format!("unexpected characters in the server URL {url:?}"));
    }
    let quoted = Value::String(url.to_owned()).to_string();
    Config::from_toml_str(&format!(
        "[servers.{SERVER}]\ntransport = \"streamable-http\"\nurl = {quoted}\n"
    ))
    .map_err(|e| format!("the config for {url} is invalid: {e}"))
}

/// The scenario's context (`MCP_CONFORMANCE_CONTEXT`), when the suite gives
/// one.
fn context() -> Result<Option<Value>, String> {
    match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("MCP_CONFORMANCE_CONTEXT is not JSON: {e}")),
        Err(_) => Ok(None),
    }
}

async fn connect(config: &Config, hooks: ClientHooks) -> Result<Client, String> {
    Client::connect_with(config, SERVER, hooks)
        .await
        .map_err(|e| e.to_string())
}

/// The names of the server's tools.
async fn list_tools(client: &Client) -> Result<Vec<String>, String> {
    let tools = client.list_tools_raw().await.map_err(|e| e.to_string())?;
    Ok(tools
        .iter()
        .filter_map(|tool| Some(tool.get("name")?.as_str()?.to_owned()))
        .collect())
}

fn require_tool(tools: &[String], name: &str) -> Result<(), String> {
    if tools.iter().any(|tool| tool == name) {
        Ok(())
    } else {
        Err(format!(
            "the server does not list `{name}` (it lists {tools:?})"
        ))
    }
}

/// Calls `tool`; a result with `isError` is a failure.
async fn call(client: &Client, tool: &str, arguments: Value) -> Result<CallToolResult, String> {
    let arguments: Map<String, Value> = match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let result = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    if result.is_error == Some(true) {
        return Err(format!("`{tool}` answered an error: {}", text_of(&result)));
    }
    Ok(result)
}

/// The text blocks of a result, joined.
fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}
