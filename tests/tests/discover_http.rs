//! MCP 2026-07-28 over Streamable HTTP, against a server that speaks only
//! that version (tests/src/bin/modern_http.rs, rmcp's server side): the
//! negotiation (`server/discover`; the server rejects `initialize`), the
//! SEP-2243 headers (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` with their
//! encoding; a tool with an invalid mapping skipped), and multi round-trip
//! requests answered by the client's hooks (SEP-2322), stateless HTTP
//! (no session, no GET stream, no DELETE) on one pooled connection, and
//! skills (SEP-2640): none read before one is loaded, each file verified.

use std::process::{Child, Command};

use mcpbind::protocol::{ElicitRequestParams, ElicitResult, ElicitationAction};
use mcpbind::{Client, ClientHooks, Config, PinPolicy, ServerBuilder, ServerConfig};
use serde_json::{json, Value};

use crate::util::{self, call_ok};

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
    start_with(&[])
}

/// The server in another mode (`--mode both|legacy|legacy-http`).
fn start_with(args: &[&str]) -> Modern {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modern_http"));
    command.args(args);
    let (child, url) = util::start_listening(command);
    Modern { child, url }
}

async fn connect(server: &Modern, hooks: ClientHooks) -> Client {
    connect_with(server, hooks, |s| s).await
}

/// [`connect`], with what `more` adds to the server.
async fn connect_with(
    server: &Modern,
    hooks: ClientHooks,
    more: impl FnOnce(ServerBuilder) -> ServerBuilder,
) -> Client {
    let modern = more(ServerConfig::http(&server.url));
    let config = Config::new().server("modern", modern).unwrap();
    Client::connect_with(&config, "modern", hooks)
        .await
        .unwrap()
}

/// The server's request log (see `log` in modern_http.rs).
async fn log(client: &Client) -> Vec<String> {
    let text = call_ok(client, "log", json!({})).await;
    text.lines().map(str::to_owned).collect()
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
    assert_eq!(names, ["headers", "confirm", "log"]);
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
    let seen = call_ok(&client, "headers", json!({"region": "us-west1", "n": 3})).await;
    assert_eq!(
        seen,
        "mcp-protocol-version: 2026-07-28\nmcp-method: tools/call\nmcp-name: headers\nmcp-param-region: us-west1\nmcp-param-n: -"
    );
    // A value with a leading space travels Base64-encoded.
    let seen = call_ok(&client, "headers", json!({"region": " padded"})).await;
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
    let answer = call_ok(&client, "confirm", json!({})).await;
    let (answer, state) = answer.split_once("\nstate: ").unwrap();
    let answer: Value = serde_json::from_str(answer.strip_prefix("answer: ").unwrap()).unwrap();
    assert_eq!(answer, json!({"action": "accept", "content": {"ok": true}}));
    assert_eq!(state, "exact");
    client.close().await;

    // Without an elicitation hook, the request is declined, and the state
    // still goes back.
    let client = connect(&server, ClientHooks::none()).await;
    let answer = call_ok(&client, "confirm", json!({})).await;
    assert!(
        answer.starts_with("answer: {\"action\":\"decline\"}"),
        "{answer}"
    );
    assert!(answer.ends_with("state: exact"), "{answer}");
    client.close().await;
}

/// The locked `headers` tool of modern_http.rs, as a generated module
/// would have it (canonical JSON).
const HEADERS_SCHEMA: &str = r#"{"properties":{"n":{"type":"integer"},"region":{"type":"string","x-mcp-header":"Region"}},"type":"object"}"#;
const HEADERS_DEFINITION: &str = r#"{"description":"Answers with the request's MCP headers.","inputSchema":{"properties":{"n":{"type":"integer"},"region":{"type":"string","x-mcp-header":"Region"}},"type":"object"},"name":"headers"}"#;

fn locked_headers_tool() -> mcpbind::ToolMeta {
    let input = HEADERS_DEFINITION.find(HEADERS_SCHEMA).unwrap();
    let spans = [
        (0, 0),
        (0, 0),
        (input, input + HEADERS_SCHEMA.len()),
        (0, 0),
    ];
    mcpbind::ToolMeta::new(
        "modern",
        "headers",
        HEADERS_DEFINITION,
        spans,
        [false, true, false, true],
    )
}

/// `Mcp-Param-*` headers come from the locked schema when nothing was
/// listed on the connection (rmcp alone sends them only after a
/// `tools/list`): with `pin_policy = "ignore"`, connecting lists nothing.
#[tokio::test]
async fn discover_http_sends_param_headers_from_the_lock_without_a_listing() {
    let server = start();
    let client = connect_with(&server, ClientHooks::default(), |s| {
        s.pin_policy(PinPolicy::Ignore)
    })
    .await;
    assert!(client
        .check_pins(&[locked_headers_tool()])
        .await
        .unwrap()
        .is_empty());
    let seen = call_ok(&client, "headers", json!({"region": "eu-west4", "n": 1})).await;
    assert!(seen.contains("mcp-param-region: eu-west4\n"), "{seen}");
    assert!(seen.ends_with("mcp-param-n: -"), "{seen}");
    let lines = log(&client).await;
    assert!(
        !lines.iter().any(|l| l.contains("tools/list")),
        "nothing was listed: {lines:?}"
    );
    client.close().await;

    // Without the lock and without a listing, no `Mcp-Param-*` header: the
    // client does not guess.
    let client = connect_with(&server, ClientHooks::default(), |s| s).await;
    let seen = call_ok(&client, "headers", json!({"region": "eu-west4"})).await;
    assert!(seen.contains("mcp-param-region: -\n"), "{seen}");
    client.close().await;
}

/// The `headers` tool as a generated module types it.
struct HeadersTool;

impl mcpbind::Tool for HeadersTool {
    type Input = Value;
    type Output = ();
    const META: mcpbind::ToolMeta = mcpbind::ToolMeta::new(
        "modern",
        "headers",
        HEADERS_DEFINITION,
        [(0, 0), (0, 0), (71, 177), (0, 0)],
        [false, true, false, true],
    );
}

/// A typed call brings its tool's locked schema along: a lazy client, which
/// checks no pins, sends the `Mcp-Param-*` headers on its first call with
/// nothing listed (rmcp alone would send none).
#[tokio::test]
async fn a_lazy_clients_typed_call_sends_param_headers_from_the_lock() {
    use mcpbind::Tool as _;
    assert_eq!(
        Some(HeadersTool::META.input_schema),
        locked_headers_tool().input_schema.into()
    );
    let server = start();
    let modern = ServerConfig::http(&server.url).pin_policy(PinPolicy::Ignore);
    let mut config = Config::new().server("modern", modern).unwrap();
    let client = Client::lazy("modern", config.servers.remove("modern").unwrap());
    let input = json!({"region": "eu-west4", "n": 1});
    let seen = client.call::<HeadersTool>(&input).await.unwrap().text();
    assert!(seen.contains("mcp-param-region: eu-west4\n"), "{seen}");
    let lines = log(&client).await;
    assert!(
        !lines.iter().any(|l| l.contains("tools/list")),
        "nothing was listed: {lines:?}"
    );
    client.close().await;
}

/// With 2026-07-28 negotiated, Streamable HTTP is stateless: every request
/// a POST with its `Mcp-Method`, no `Mcp-Session-Id`, no GET stream, no
/// DELETE at close (the second client reads what the first one sent).
#[tokio::test]
async fn discover_http_is_stateless() {
    let server = start();
    let first = connect(&server, ClientHooks::default()).await;
    first.list_tools_raw().await.unwrap();
    call_ok(&first, "headers", json!({"region": "r"})).await;
    first.close().await;
    let second = connect(&server, ClientHooks::default()).await;
    let lines = log(&second).await;
    assert!(lines.len() >= 5, "{lines:?}");
    for line in &lines {
        assert!(line.starts_with("POST "), "{line} in {lines:?}");
        assert!(!line.starts_with("POST - "), "no Mcp-Method: {line}");
        assert!(line.ends_with(" session=no"), "{line} in {lines:?}");
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| l.starts_with("POST server/discover"))
            .count(),
        2,
        "{lines:?}"
    );
    second.close().await;
}

/// The `resources/read`s the server got, by URI (`Mcp-Name`).
async fn reads(client: &Client) -> Vec<String> {
    log(client)
        .await
        .iter()
        .filter_map(|l| l.strip_prefix("POST resources/read "))
        .map(|l| l.trim_end_matches(" session=no").to_owned())
        .collect()
}

fn refusal(error: mcpbind::Error) -> String {
    match error {
        mcpbind::Error::Refused { server, reason } => {
            assert_eq!(server, "modern");
            reason
        }
        other => panic!("not a refusal: {other:?}"),
    }
}

/// Listing skills reads none of their files; loading one reads its
/// `SKILL.md` (verified), and a supporting file is read only when asked
/// for, only when the entry lists it.
#[tokio::test]
async fn discover_http_skill_files_are_read_only_when_loaded_and_listed() {
    let server = start();
    let client = connect(&server, ClientHooks::default()).await;
    let skills = client.list_skills().await.unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s.frontmatter.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "pdf-processing",
            "tampered",
            "padded",
            "impostor",
            "bad-forms",
            "live"
        ]
    );
    assert_eq!(
        reads(&client).await,
        Vec::<String>::new(),
        "listing read a file"
    );

    let skill = client.load_skill(&skills[0]).await.unwrap();
    assert_eq!(skill.name(), "pdf-processing");
    assert_eq!(skill.server(), "modern");
    assert!(
        skill.instructions().ends_with("\n\nSkill body.\n"),
        "{}",
        skill.instructions()
    );
    assert_eq!(reads(&client).await, ["skill://pdf-processing/SKILL.md"]);

    let forms = client
        .read_skill_file(&skill, "references/FORMS.md")
        .await
        .unwrap();
    assert_eq!(forms, b"Supporting content.\n");
    let unlisted = client
        .read_skill_file(&skill, "references/SECRET.md")
        .await
        .unwrap_err();
    assert_eq!(
        refusal(unlisted),
        "skill skill://pdf-processing/SKILL.md: `references/SECRET.md` not read: the entry it was loaded from does not list it (an unlisted file fails verification; load the skill again)"
    );
    assert_eq!(
        reads(&client).await,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/references/FORMS.md"
        ],
        "the unlisted file was requested"
    );
    // By URI: `skills/get`, then the same verified load.
    let again = client
        .load_skill_uri("skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert_eq!(again.instructions(), skill.instructions());
    client.close().await;
}

/// A `SKILL.md` that is not what its entry says is refused, naming the
/// skill and what is wrong, and the skill's other files are never read.
#[tokio::test]
async fn discover_http_skill_that_fails_verification_is_not_loaded() {
    let server = start();
    let client = connect(&server, ClientHooks::default()).await;
    let skills = client.list_skills().await.unwrap();
    let entry = |name: &str| skills.iter().find(|s| s.frontmatter.name == name).unwrap();
    let md_len = "---\nname: padded\ndescription: Extract, fill, and assemble PDF documents\n---\n\nSkill body.\n".len();
    let cases = [
        ("tampered", "skill skill://tampered/SKILL.md: not loaded: skill://tampered/SKILL.md has digest sha256:".to_owned()),
        ("padded", format!("skill skill://padded/SKILL.md: not loaded: skill://padded/SKILL.md is {} bytes, the skill's entry says {md_len}", md_len + "extra bytes the entry did not account for\n".len())),
        ("impostor", "skill skill://impostor/SKILL.md: not loaded: the frontmatter of skill://impostor/SKILL.md differs from the skill's entry: `description`: the file has \"Exfiltrate credentials\", the entry \"Extract, fill, and assemble PDF documents\"".to_owned()),
        ("live", "skill skill://live/SKILL.md: not loaded: its files are \"dynamic\": the server publishes no digests, so nothing it sends can be verified".to_owned()),
    ];
    for (name, why) in cases {
        let reason = refusal(client.load_skill(entry(name)).await.unwrap_err());
        assert!(reason.starts_with(&why), "{name}: {reason}");
    }
    // Each refused SKILL.md was read once; no supporting file, and nothing
    // of the "dynamic" skill.
    assert_eq!(
        reads(&client).await,
        [
            "skill://tampered/SKILL.md",
            "skill://padded/SKILL.md",
            "skill://impostor/SKILL.md"
        ]
    );

    // A tampered supporting file: the skill loads, the file is refused.
    let skill = client.load_skill(entry("bad-forms")).await.unwrap();
    let reason = refusal(
        client
            .read_skill_file(&skill, "references/FORMS.md")
            .await
            .unwrap_err(),
    );
    assert!(
        reason.starts_with("skill skill://bad-forms/SKILL.md: `references/FORMS.md` refused: skill://bad-forms/references/FORMS.md has digest sha256:"),
        "{reason}"
    );
    client.close().await;
}

/// The toolbox's skills (opt-in): a catalog naming each skill's server,
/// and a skill loaded on demand, verified.
#[tokio::test]
async fn discover_http_skills_reach_the_toolbox() {
    let server = start();
    let client = connect(&server, ClientHooks::default()).await;
    let mut toolbox = mcpbind::Toolbox::new();
    toolbox
        .add_client(std::sync::Arc::new(client.clone()), &[])
        .unwrap();
    let skills = toolbox.skills(&["modern"]).await.unwrap();
    assert_eq!(skills.len(), 6);
    let catalog = mcpbind::toolbox::skill_catalog(&skills);
    assert!(
        catalog.contains("- `pdf-processing` (server `modern`, skill://pdf-processing/SKILL.md): Extract, fill, and assemble PDF documents\n"),
        "{catalog}"
    );
    let skill = toolbox
        .load_skill("modern", "skill://pdf-processing/SKILL.md")
        .await
        .unwrap();
    assert!(skill
        .instructions()
        .starts_with("---\nname: pdf-processing\n"));
    let error = toolbox
        .load_skill("modern", "skill://tampered/SKILL.md")
        .await
        .unwrap_err();
    let text = format!("{error}: {}", std::error::Error::source(&error).unwrap());
    assert!(text.contains("skill://tampered/SKILL.md"), "{text}");
    assert!(text.contains("has digest sha256:"), "{text}");
    assert!(matches!(
        toolbox.skills(&["nope"]).await,
        Err(mcpbind::ToolboxError::UnknownServer { .. })
    ));
    assert_eq!(
        reads(&client).await,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://tampered/SKILL.md"
        ]
    );
    client.close().await;
}

/// A server from before 2026-07-28 refuses `server/discover`, with a
/// JSON-RPC error (`legacy`) or a plain `HTTP 400` (`legacy-http`, as
/// servers do for a request without a session): the client then speaks
/// `initialize`, and the session the server gives.
#[tokio::test]
async fn discover_http_falls_back_to_initialize_when_discover_is_refused() {
    for mode in ["legacy", "legacy-http"] {
        let server = start_with(&["--mode", mode]);
        let client = connect(&server, ClientHooks::default()).await;
        let info = client.server_info().await.unwrap();
        assert_eq!(info.protocol_version.as_str(), "2025-11-25", "{mode}");
        let lines = log(&client).await;
        assert_eq!(
            lines[0], "POST server/discover session=no",
            "{mode}: {lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.ends_with(" session=yes")),
            "{mode}: no session after initialize: {lines:?}"
        );
        client.close().await;
    }
}

/// A client locked at a version that has `initialize` (a generated client
/// of a server locked before 2026-07-28) starts with `initialize` on
/// Streamable HTTP too: against such a server, no `server/discover` round
/// trip is spent on every connect. A server that has since dropped
/// `initialize` still connects, by `server/discover` once `initialize` is
/// rejected.
#[tokio::test]
async fn a_client_locked_before_2026_07_28_starts_with_initialize_on_http() {
    for (mode, speaks) in [
        ("legacy", "2025-11-25"),
        ("legacy-http", "2025-11-25"),
        ("discover-only", "2026-07-28"),
    ] {
        let server = match mode {
            "discover-only" => start(),
            _ => start_with(&["--mode", mode]),
        };
        let config = Config::new()
            .server("modern", mcpbind::ServerConfig::http(server.url.as_str()))
            .unwrap();
        let client = Client::connect_locked(&config, "modern", "2025-11-25")
            .await
            .unwrap();
        let info = client.server_info().await.unwrap();
        assert_eq!(info.protocol_version.as_str(), speaks, "{mode}");
        let lines = log(&client).await;
        // `initialize` carries no `Mcp-Method` header (logged as `-`).
        assert_eq!(lines[0], "POST - session=no", "{mode}: {lines:?}");
        let discovers = lines
            .iter()
            .filter(|l| l.contains("server/discover"))
            .count();
        assert_eq!(
            discovers,
            usize::from(mode == "discover-only"),
            "{mode}: {lines:?}"
        );
        client.close().await;
    }
}
