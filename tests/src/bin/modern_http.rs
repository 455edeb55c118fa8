//! A Streamable HTTP server of protocol 2026-07-28 only (rmcp's server
//! side): it answers `server/discover`, rejects `initialize`, and prints
//! `listening on <url>` once it accepts connections. (`--mode both`
//! answers both handshakes, as rmcp's servers do by default; `--mode
//! legacy` only `initialize`, up to 2025-11-25, as servers before
//! 2026-07-28 do: the connect bench compares the three; `--mode
//! legacy-http` is that server refusing `server/discover` with a plain
//! `HTTP 400`, as some do for a request without a session.) Its tools show
//! what a 2026-07-28 client must do:
//!
//! - `headers` (`region`, a string mirrored into `Mcp-Param-Region`; `n`,
//!   not mirrored) answers with the request's MCP headers, one a line;
//! - `confirm` answers `input_required` (an elicitation and a
//!   `requestState`), then, on the retry, what the client answered and the
//!   state it echoed;
//! - `bad_header` has an invalid `x-mcp-header` mapping (on a number): a
//!   client must skip it;
//! - `log` answers with every HTTP request the server got, one a line
//!   (`POST tools/call log session=no`: the HTTP method, `Mcp-Method`,
//!   `Mcp-Name` when sent, whether an `Mcp-Session-Id` came).
//!
//! It serves skills (SEP-2640), each a way a server can get them wrong:
//! `pdf-processing` (right: `SKILL.md` and `references/FORMS.md`),
//! `tampered` (its `SKILL.md` is not what the entry's digest says, at the
//! same size), `padded` (longer than the entry says), `impostor` (the
//! entry lists the served file's digest, but its frontmatter says
//! otherwise), `bad-forms` (a right `SKILL.md`, a tampered supporting
//! file), and `live` (`"dynamic"`: no digests).
//!
//! Its resources can be subscribed to: a `subscriptions/listen` stream gets
//! one `notifications/resources/updated` for each resource it names, at
//! once, as if each had just changed; `log` says `listen asked` and the
//! filter the client asked for (JSON) for each stream, and `listen ended`
//! for each stream the client cancelled.
//!
//! With `--evolving`, its tools change while a client is connected: it
//! declares tools `listChanged`, and lists two more tools, `greet` (`name`,
//! a string: answers `hello <name>`) and `evolve`, whose call changes
//! `greet` (its description, and `name` an integer), then sends
//! `notifications/tools/list_changed` on each open `subscriptions/listen`
//! stream that asked for it (2026-07-28 has no other way to send it).
//! `--listen-fault refused` answers `subscriptions/listen` with `Method not
//! found` all the same, `--listen-fault partial` acknowledges it without
//! the tool list, and `--listen-fault silent` never answers it: a client
//! must connect and work all the same.
//!
//! With `--stdio`, it serves one client on stdin/stdout instead (and prints
//! no URL): a stdio server of the same mode and tools.

use std::borrow::Cow;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::serve::ListenerExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverRequestMethod,
    DiscoverResult, GetSkillRequestParams, GetSkillResult, Implementation, InitializeRequestParams,
    InitializeResult, InputRequiredResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig, Skill,
    SkillFrontmatter, SkillResource, SkillResources, SubscriptionFilter, Tool,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

/// The headers `headers` reports.
const REPORTED: &[&str] = &[
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-param-region",
    "mcp-param-n",
];

/// Every HTTP request, as `log` reports it.
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// 2026-07-28 only: `server/discover`, `initialize` rejected.
    Modern,
    /// Both handshakes, every version rmcp knows.
    Both,
    /// `initialize` only, up to 2025-11-25: `server/discover` is unknown.
    Legacy,
    /// `Legacy`, answering `server/discover` with a plain `HTTP 400`.
    LegacyHttp,
}

static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();

/// The open `subscriptions/listen` streams that asked for tool list
/// changes (`--evolving`), each with its number, for `evolve`.
static STREAMS: Mutex<Vec<(usize, SubscriptionSink)>> = Mutex::new(Vec::new());

/// How many streams asked for tool list changes (counted before the
/// acknowledgment is sent), and how many of them are in `STREAMS` or were:
/// `evolve` waits until the second catches up with the first, so that no
/// stream the client saw acknowledged misses its notification.
static ASKED: AtomicUsize = AtomicUsize::new(0);
static OPENED: AtomicUsize = AtomicUsize::new(0);

/// `evolve` was called: `greet` is listed changed.
static EVOLVED: AtomicBool = AtomicBool::new(false);

/// How `--listen-fault` gets `subscriptions/listen` wrong.
#[derive(Clone, Copy, PartialEq)]
enum ListenFault {
    /// `Method not found`.
    Refused,
    /// Acknowledged without the tool list.
    Partial,
    /// Never answered.
    Silent,
}

static FAULT: std::sync::OnceLock<ListenFault> = std::sync::OnceLock::new();

#[derive(Clone)]
struct Modern {
    mode: Mode,
    /// `--evolving`.
    evolving: bool,
}

/// A skill's `SKILL.md` as its entry describes it.
fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\nSkill body.\n")
}

const FORMS: &str = "Supporting content.\n";

/// The skills: each one's entry, and what `resources/read` serves for its
/// files (which the entry may not describe).
fn skills() -> Vec<(Skill, Vec<(String, String)>)> {
    let description = "Extract, fill, and assemble PDF documents";
    let mut out = Vec::new();
    for name in [
        "pdf-processing",
        "tampered",
        "padded",
        "impostor",
        "bad-forms",
        "live",
    ] {
        let root = format!("skill://{name}");
        let md = skill_md(name, description);
        let served_md = match name {
            "tampered" => md.replace("Skill body.", "Evil body!!"),
            "padded" => format!("{md}extra bytes the entry did not account for\n"),
            "impostor" => md.replace(description, "Exfiltrate credentials"),
            _ => md.clone(),
        };
        let served_forms = match name {
            "bad-forms" => FORMS.replace("Supporting", "Poisoned!!"),
            _ => FORMS.to_owned(),
        };
        let (md_uri, forms_uri) = (
            format!("{root}/SKILL.md"),
            format!("{root}/references/FORMS.md"),
        );
        // `impostor`'s entry lists the bytes it serves: only its
        // frontmatter gives it away.
        let listed_md = if name == "impostor" { &served_md } else { &md };
        let resources = match name {
            "live" => SkillResources::Dynamic,
            _ => SkillResources::Files(vec![
                SkillResource::from_bytes(&md_uri, listed_md.as_bytes()),
                SkillResource::from_bytes(&forms_uri, FORMS.as_bytes()),
            ]),
        };
        let entry = Skill::new(&md_uri, SkillFrontmatter::new(name, description), resources);
        out.push((entry, vec![(md_uri, served_md), (forms_uri, served_forms)]));
    }
    out
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let Value::Object(schema) = schema else {
        unreachable!("schemas here are objects")
    };
    Tool::new(name, description, Arc::new(schema))
}

fn text(text: String) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(text)]))
}

impl ServerHandler for Modern {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_skills()
            .build();
        if self.evolving {
            if let Some(tools) = capabilities.tools.as_mut() {
                tools.list_changed = Some(true);
            }
        }
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("modern-http", "1.0.0"))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        match self.mode {
            Mode::Modern => Cow::Owned(vec![ProtocolVersion::V_2026_07_28]),
            Mode::Both => Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS),
            Mode::Legacy | Mode::LegacyHttp => {
                Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
            }
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        if self.mode == Mode::Modern {
            return Err(ErrorData::invalid_request(
                "this server speaks only 2026-07-28: use server/discover",
                None,
            ));
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        if matches!(self.mode, Mode::Legacy | Mode::LegacyHttp) {
            return Err(ErrorData::method_not_found::<DiscoverRequestMethod>());
        }
        let versions = self.supported_protocol_versions().into_owned();
        Ok(DiscoverResult::from_server_info(versions, self.get_info()))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Logged here, before the acknowledgment: a client that saw it
        // finds the line.
        let asked = serde_json::to_string(requested).unwrap_or_default();
        log(format!("listen asked {asked}"));
        let mut accepted = requested.clone();
        match FAULT.get() {
            Some(ListenFault::Refused) => return None,
            Some(ListenFault::Partial) => accepted.tools_list_changed = None,
            _ => {}
        }
        if self.evolving && accepted.tools_list_changed == Some(true) {
            ASKED.fetch_add(1, Ordering::SeqCst);
        }
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let tools = self.evolving && context.accepted().tools_list_changed == Some(true);
        let number = OPENED.fetch_add(usize::from(tools), Ordering::SeqCst);
        if tools {
            let mut streams = STREAMS.lock().unwrap_or_else(|p| p.into_inner());
            streams.push((number, context.sink().clone()));
        }
        let uris = context.accepted().resource_subscriptions.clone();
        for uri in uris.into_iter().flatten() {
            let _ = context.sink().notify_resource_updated(uri).await;
        }
        context.cancelled().await;
        if tools {
            let mut streams = STREAMS.lock().unwrap_or_else(|p| p.into_inner());
            streams.retain(|(n, _)| *n != number);
        }
        log("listen ended".to_owned());
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = vec![
            tool(
                "headers",
                "Answers with the request's MCP headers.",
                json!({"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "n": {"type": "integer"}
                }}),
            ),
            tool(
                "confirm",
                "Asks for a confirmation before it answers.",
                json!({"type": "object", "properties": {}}),
            ),
            tool(
                "bad_header",
                "Mirrors a number into a header, which SEP-2243 forbids.",
                json!({"type": "object", "properties": {
                    "score": {"type": "number", "x-mcp-header": "Score"}
                }}),
            ),
            tool(
                "log",
                "Answers with the HTTP requests the server got.",
                json!({"type": "object", "properties": {}}),
            ),
        ];
        if self.evolving {
            tools.extend(evolving_tools());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let entries = skills().into_iter().map(|(entry, _)| entry).collect();
        Ok(ListSkillsResult::with_all_items(entries))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        skills()
            .into_iter()
            .find(|(entry, _)| entry.uri == request.uri)
            .map(|(entry, _)| GetSkillResult::new(entry))
            .ok_or_else(|| ErrorData::invalid_params(format!("no skill {}", request.uri), None))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let served = skills().into_iter().flat_map(|(_, files)| files);
        let Some((uri, text)) = served.into_iter().find(|(uri, _)| *uri == request.uri) else {
            return Err(ErrorData::invalid_params(
                format!("no resource {}", request.uri),
                None,
            ));
        };
        let contents = ResourceContents::text(text, uri).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match &*request.name {
            "headers" => Ok(text(reported_headers(&context))),
            "confirm" => confirm(request),
            "log" => Ok(text(
                LOG.lock().unwrap_or_else(|p| p.into_inner()).join("\n"),
            )),
            "greet" if self.evolving => {
                let arguments = request.arguments.unwrap_or_default();
                let name = arguments.get("name").cloned().unwrap_or(Value::Null);
                let name = name
                    .as_str()
                    .map_or_else(|| name.to_string(), str::to_owned);
                Ok(text(format!("hello {name}")))
            }
            "evolve" if self.evolving => Ok(text(evolve().await)),
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}` to call"),
                None,
            )),
        }
    }
}

/// Adds `line` to what `log` reports.
fn log(line: String) {
    LOG.lock().unwrap_or_else(|p| p.into_inner()).push(line);
}

/// `greet` (as `evolve` left it) and `evolve`.
fn evolving_tools() -> [Tool; 2] {
    let greet = if EVOLVED.load(Ordering::SeqCst) {
        tool(
            "greet",
            "Greets someone by number.",
            json!({"type": "object", "properties": {"name": {"type": "integer"}},
                "required": ["name"]}),
        )
    } else {
        tool(
            "greet",
            "Greets someone.",
            json!({"type": "object", "properties": {"name": {"type": "string"}},
                "required": ["name"]}),
        )
    };
    let evolve = tool(
        "evolve",
        "Changes `greet`, and says so on the `subscriptions/listen` streams.",
        json!({"type": "object", "properties": {}}),
    );
    [greet, evolve]
}

/// Changes `greet`, then sends `notifications/tools/list_changed` on each
/// open stream that asked for it; says on how many.
async fn evolve() -> String {
    EVOLVED.store(true, Ordering::SeqCst);
    // A stream acknowledged is in `STREAMS` a moment later (the handler
    // gets it after the acknowledgment went out).
    for _ in 0..2000 {
        if OPENED.load(Ordering::SeqCst) >= ASKED.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let streams = STREAMS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut told = 0;
    for (_, stream) in streams {
        if stream.notify_tool_list_changed().await.is_ok() {
            told += 1;
        }
    }
    log(format!("evolved, told {told}"));
    format!("evolved: told {told} streams")
}

/// The request's MCP headers, `name: value` a line (`-` when absent).
fn reported_headers(context: &RequestContext<RoleServer>) -> String {
    let parts = context.extensions.get::<axum::http::request::Parts>();
    REPORTED
        .iter()
        .map(|name| {
            let value = parts
                .and_then(|p| p.headers.get(*name))
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            format!("{name}: {value}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The state `confirm` hands out, with characters a client might be
/// tempted to normalise.
const STATE: &str = "{\"round\": 1,  \"nonce\": \"a b\\u00e9\"}";

fn confirm(request: CallToolRequestParams) -> Result<CallToolResponse, ErrorData> {
    let Some(responses) = request.input_responses else {
        let input: InputRequiredResult = serde_json::from_value(json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "mode": "form",
                "message": "Go ahead?",
                "requestedSchema": {"type": "object", "properties": {
                    "ok": {"type": "boolean"}}}
            }}},
            "requestState": STATE
        }))
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        return Ok(CallToolResponse::InputRequired(input));
    };
    let state = request.request_state.as_deref().unwrap_or("-");
    let echoed = if state == STATE { "exact" } else { "changed" };
    let answer = responses.get("confirm").cloned().unwrap_or(Value::Null);
    Ok(text(format!("answer: {answer}\nstate: {echoed}")))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let evolving = args.iter().any(|a| a == "--evolving");
    let stdio = args.iter().any(|a| a == "--stdio");
    args.retain(|a| a != "--evolving" && a != "--stdio");
    if let Some(at) = args.iter().position(|a| a == "--listen-fault") {
        let fault = match args.get(at + 1).map(String::as_str) {
            Some("refused") => ListenFault::Refused,
            Some("partial") => ListenFault::Partial,
            Some("silent") => ListenFault::Silent,
            other => {
                return Err(format!("--listen-fault refused|partial|silent, not {other:?}").into())
            }
        };
        let _ = FAULT.set(fault);
        args.drain(at..at + 2);
    }
    let mode = match args.as_slice() {
        [] => Mode::Modern,
        [flag, mode] if flag == "--mode" && mode == "both" => Mode::Both,
        [flag, mode] if flag == "--mode" && mode == "legacy" => Mode::Legacy,
        [flag, mode] if flag == "--mode" && mode == "legacy-http" => Mode::LegacyHttp,
        other => {
            return Err(format!(
                "usage: modern_http [--mode both|legacy|legacy-http] [--evolving] [--listen-fault refused|partial|silent] [--stdio], not {other:?}"
            )
            .into())
        }
    };
    let _ = MODE.set(mode);
    if stdio {
        let stdio = (tokio::io::stdin(), tokio::io::stdout());
        rmcp::ServiceExt::serve(Modern { mode, evolving }, stdio)
            .await?
            .waiting()
            .await?;
        return Ok(());
    }
    let service = StreamableHttpService::new(
        move || Ok(Modern { mode, evolving }),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(record));
    println!("listening on {url}");
    std::io::stdout().flush()?;
    // A pooled client reuses connections: without TCP_NODELAY, Nagle's
    // algorithm would hold each answer until the client's delayed ACK.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await?;
    Ok(())
}

/// Logs a request for `log`.
async fn record(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let headers = request.headers();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let mut line = format!(
        "{} {}",
        request.method(),
        header("mcp-method").unwrap_or("-".into())
    );
    if let Some(name) = header("mcp-name") {
        line = format!("{line} {name}");
    }
    let session = if headers.contains_key("mcp-session-id") {
        "yes"
    } else {
        "no"
    };
    LOG.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(format!("{line} session={session}"));
    if FAULT.get() == Some(&ListenFault::Silent) && line == "POST subscriptions/listen" {
        // Held until the client gives up (and then dropped with it).
        std::future::pending::<()>().await;
    }
    if MODE.get() == Some(&Mode::LegacyHttp) && line == "POST server/discover" {
        let refused = (
            axum::http::StatusCode::BAD_REQUEST,
            "Bad Request: no valid session",
        );
        return axum::response::IntoResponse::into_response(refused);
    }
    next.run(request).await
}
