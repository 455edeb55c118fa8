//! A Streamable HTTP server of protocol 2026-07-28 only (rmcp's server
//! side): it answers `server/discover`, rejects `initialize`, and prints
//! `listening on <url>` once it accepts connections. Its tools show what a
//! 2026-07-28 client must do:
//!
//! - `headers` (`region`, a string mirrored into `Mcp-Param-Region`; `n`,
//!   not mirrored) answers with the request's MCP headers, one a line;
//! - `confirm` answers `input_required` (an elicitation and a
//!   `requestState`), then, on the retry, what the client answered and the
//!   state it echoed;
//! - `bad_header` has an invalid `x-mcp-header` mapping (on a number): a
//!   client must skip it.

use std::borrow::Cow;
use std::io::Write as _;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
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

#[derive(Clone)]
struct Modern;

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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("modern-http", "1.0.0"))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
    }

    async fn initialize(
        &self,
        _request: InitializeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        Err(ErrorData::invalid_request(
            "this server speaks only 2026-07-28: use server/discover",
            None,
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
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
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match &*request.name {
            "headers" => Ok(text(reported_headers(&context))),
            "confirm" => confirm(request),
            other => Err(ErrorData::invalid_params(
                format!("no tool `{other}` to call"),
                None,
            )),
        }
    }
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
    let service = StreamableHttpService::new(
        || Ok(Modern),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    println!("listening on {url}");
    std::io::stdout().flush()?;
    axum::serve(listener, router).await?;
    Ok(())
}
