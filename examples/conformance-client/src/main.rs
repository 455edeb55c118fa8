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

use mcpbind::protocol::CallToolResult;
use mcpbind::{CallOptions, Client, ClientHooks, Config, ServerBuilder, ServerConfig};
use serde_json::{json, Map, Value};

/// The server's name in the config the client builds.
const SERVER: &str = "conformance";

fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>");
        return ExitCode::from(2);
    };
    // OAuth tokens of this run only, never the user's store.
    let store = std::env::temp_dir().join(format!("mcpbind-conformance-{}", std::process::id()));
    std::env::set_var("MCPBIND_CREDENTIALS_DIR", &store);
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
    let outcome = runtime.block_on(run(&scenario, &url));
    let _ = std::fs::remove_dir_all(&store);
    match outcome {
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
        // 2026-07-28 (SEP-2575): negotiate (the server first rejects the
        // version with -32022 and HTTP 400), then list with per-request
        // `_meta` and the `MCP-Protocol-Version` header.
        "request-metadata" | "json-schema-ref-no-deref" => {
            let client = connect(&config, ClientHooks::default()).await?;
            list_tools(&client).await?;
            client.close().await;
            Ok(())
        }
        "sep-2322-client-request-state" => mrtr(&config).await,
        "http-standard-headers" => standard_headers(&config).await,
        "http-custom-headers" => custom_headers(&config).await,
        // Tools with an invalid `x-mcp-header` mapping are skipped when
        // listed; every tool listed is called.
        "http-invalid-tool-headers" => {
            let client = connect(&config, ClientHooks::default()).await?;
            for tool in list_tools(&client).await? {
                call(&client, &tool, json!({})).await?;
            }
            client.close().await;
            Ok(())
        }
        "json-schema-2020-12-preservation" => schema_echo(&config).await,
        // Skills are listed; none of their files is read before one is
        // loaded (SEP-2640).
        "sep-2640-client-no-prefetch" => {
            let client = connect(&config, ClientHooks::default()).await?;
            let skills = client.list_skills().await.map_err(|e| e.to_string())?;
            if skills.is_empty() {
                return Err("the server listed no skill".into());
            }
            client.close().await;
            Ok(())
        }
        // Each skill listed is loaded: its SKILL.md read and verified
        // against the entry (size, digest, frontmatter), then its other
        // files, each verified. The suite's server tampers with SKILL.md:
        // the load is refused, and nothing else is read.
        verify if verify.starts_with("sep-2640-client-verify-") => {
            let client = connect(&config, ClientHooks::default()).await?;
            let skills = client.list_skills().await.map_err(|e| e.to_string())?;
            if skills.is_empty() {
                return Err("the server listed no skill".into());
            }
            for entry in &skills {
                let skill = client.load_skill(entry).await.map_err(|e| e.to_string())?;
                for file in skill.files().iter().filter(|f| f.uri != skill.uri()) {
                    client
                        .read_skill_file(&skill, &file.uri)
                        .await
                        .map_err(|e| e.to_string())?;
                }
            }
            client.close().await;
            Ok(())
        }
        // The OAuth-protected server: authorize (the suite's authorization
        // server approves at once), then connect, list, and call
        // `test-tool` when listed. The browser hook authorizes whenever
        // the server asks while connected (step-up, a changed
        // authorization server).
        auth if auth.starts_with("auth/") => {
            let config = auth_config(url, auth, context()?.as_ref())?;
            let hooks = ClientHooks::default().browser(|_: &str, url: &str| follow(url));
            let client = match Client::connect_with(&config, SERVER, hooks.clone()).await {
                Ok(client) => client,
                Err(mcpbind::Error::Auth { login: true, .. }) => {
                    mcpbind::auth::login(SERVER, &config.servers[SERVER], follow)
                        .await
                        .map_err(|e| e.to_string())?;
                    connect(&config, hooks).await?
                }
                Err(e) => return Err(e.to_string()),
            };
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
    config_with(url, ServerConfig::http(url))
}

/// A config with `server` as its one server.
fn config_with(url: &str, server: ServerBuilder) -> Result<Config, String> {
    Config::new()
        .server(SERVER, server)
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

/// The client-metadata URL the suite's CIMD scenario expects as client ID.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// The config of an OAuth scenario: client credentials where the scenario
/// is about them, else the authorization-code flow (with the context's
/// pre-registered client, if any).
fn auth_config(url: &str, scenario: &str, context: Option<&Value>) -> Result<Config, String> {
    let field = |key: &str| {
        context
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let mut server = ServerConfig::http(url);
    if scenario == "auth/wif-jwt-bearer" {
        // The workload's JWT, exchanged for a token (RFC 7523).
        let jwt = field("valid_jwt").ok_or("the scenario's context has no `valid_jwt`")?;
        server = server.auth("jwt_bearer").assertion(jwt);
        if let Some(id) = field("client_id") {
            server = server.client_id(id);
        }
        return config_with(url, server);
    }
    if scenario == "auth/enterprise-managed-authorization"
        || scenario == "auth/cross-app-access-complete-flow"
    {
        // The user's ID token, exchanged at the IdP for an ID-JAG, then
        // for a token (SEP-990).
        server = server.auth("enterprise");
        for (key, from) in [
            ("id_token", "idp_id_token"),
            ("idp_token_endpoint", "idp_token_endpoint"),
            ("idp_client_id", "idp_client_id"),
        ] {
            let value =
                field(from).ok_or_else(|| format!("the scenario's context has no `{from}`"))?;
            server = server.set(key, value);
        }
    } else if scenario.starts_with("auth/client-credentials") {
        server = server.auth("client_credentials");
        // private_key_jwt: the key signs the client's assertion.
        if let Some(key) = field("private_key_pem") {
            let algorithm = field("signing_algorithm").unwrap_or_else(|| "ES256".into());
            server = server.private_key(key).signing_algorithm(algorithm);
        }
    } else {
        server = server
            .auth("oauth")
            .client_metadata_url(CLIENT_METADATA_URL);
    }
    for key in ["client_id", "client_secret"] {
        if let Some(value) = field(key) {
            server = server.set(key, value);
        }
    }
    config_with(url, server)
}

/// The "browser": follows the authorization URL's redirects back to the
/// login's loopback listener, as a user who approves would.
fn follow(url: &str) {
    let url = url.to_owned();
    tokio::spawn(async move {
        if let Err(e) = reqwest::get(&url).await {
            eprintln!("conformance-client: the authorization request failed: {e}");
        }
    });
}

/// SEP-2322: tools that answer `input_required` (with and without
/// `requestState`), a plain tool called while one of them waits for its
/// input, and a result without `resultType`. The default elicitation hook
/// answers the input requests.
async fn mrtr(config: &Config) -> Result<(), String> {
    let client = connect(config, ClientHooks::default()).await?;
    let tools = list_tools(&client).await?;
    for tool in [
        "test_mrtr_echo_state",
        "test_mrtr_no_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_result_type",
    ] {
        require_tool(&tools, tool)?;
    }
    // In parallel: the unrelated call must carry none of the other's state.
    let (echo, unrelated) = tokio::join!(
        call(&client, "test_mrtr_echo_state", json!({})),
        call(&client, "test_mrtr_unrelated", json!({})),
    );
    expect_text(&echo?, "echo-state-ok")?;
    expect_text(&unrelated?, "unrelated-ok")?;
    expect_text(
        &call(&client, "test_mrtr_no_state", json!({})).await?,
        "no-state-ok",
    )?;
    expect_text(
        &call(&client, "test_mrtr_no_result_type", json!({})).await?,
        "no-result-type-test-ok",
    )?;
    client.close().await;
    Ok(())
}

fn expect_text(result: &CallToolResult, want: &str) -> Result<(), String> {
    let text = text_of(result);
    if text.contains(want) {
        Ok(())
    } else {
        Err(format!("expected {want:?}, the server answered {text:?}"))
    }
}

/// SEP-2243 `Mcp-Method` / `Mcp-Name`: every kind of request that has them.
async fn standard_headers(config: &Config) -> Result<(), String> {
    let client = connect(config, ClientHooks::default()).await?;
    for tool in list_tools(&client).await? {
        call(&client, &tool, json!({})).await?;
    }
    let resources = client.list_resources().await.map_err(|e| e.to_string())?;
    for resource in &resources {
        client
            .read_resource(&resource.uri)
            .await
            .map_err(|e| e.to_string())?;
    }
    let (prompts, _) = client
        .list_prompts_checked()
        .await
        .map_err(|e| e.to_string())?;
    for prompt in prompts {
        if let Some(name) = prompt.get("name").and_then(Value::as_str) {
            client
                .get_prompt_raw(name, Map::new())
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    client.close().await;
    Ok(())
}

/// SEP-2243 `Mcp-Param-*`: the calls the scenario's context names, whose
/// `x-mcp-header` parameters are mirrored into headers.
async fn custom_headers(config: &Config) -> Result<(), String> {
    let context = context()?.ok_or("the scenario gave no context")?;
    let calls = context
        .get("toolCalls")
        .and_then(Value::as_array)
        .ok_or("the scenario's context has no `toolCalls`")?;
    let client = connect(config, ClientHooks::default()).await?;
    let tools = list_tools(&client).await?;
    for entry in calls {
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .ok_or("a tool call in the context has no name")?;
        require_tool(&tools, name)?;
        let arguments = entry.get("arguments").cloned().unwrap_or(json!({}));
        call(&client, name, arguments).await?;
    }
    client.close().await;
    Ok(())
}

/// JSON Schema 2020-12: the focal tool's `inputSchema`, exactly as listed,
/// is sent back through the echo tool.
async fn schema_echo(config: &Config) -> Result<(), String> {
    let client = connect(config, ClientHooks::default()).await?;
    let tools = client.list_tools_raw().await.map_err(|e| e.to_string())?;
    let schema = tools
        .iter()
        .find(|tool| tool.get("name").and_then(Value::as_str) == Some("json_schema_2020_12_tool"))
        .and_then(|tool| tool.get("inputSchema"))
        .cloned()
        .ok_or("the server does not list `json_schema_2020_12_tool`")?;
    call(&client, "json_schema_echo", json!({ "schema": schema })).await?;
    client.close().await;
    Ok(())
}
