//! [`Client`]: one server's connection, with typed and raw calls.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ListToolsRequest,
    PaginatedRequestParams, ServerPeerInfo, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestHandle};
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::{Map, Value};

use crate::call::ToolResult;
use crate::config::PinPolicy;
use crate::config::{Config, ServerConfig};
use crate::connect::{connect, id_key, Session};
use crate::error::{Error, Result};
use crate::tool::{Tool, ToolMeta};

/// A connection to one MCP server, made from its [`ServerConfig`].
///
/// A lost connection (the process died, the HTTP session expired) is
/// re-established on the next call. Dropping the client closes the
/// connection and kills the server's process.
pub struct Client {
    name: String,
    config: ServerConfig,
    session: tokio::sync::Mutex<Option<Arc<Session>>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.name)
            .field("transport", &self.config.transport.kind())
            .finish_non_exhaustive()
    }
}

/// Options of one call.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Overrides the server's timeout.
    pub timeout: Option<Duration>,
    /// Whether the call may be sent again after the connection was lost while
    /// it was in flight. Generated code sets it for read-only and idempotent
    /// tools.
    pub retry_safe: bool,
}

impl CallOptions {
    /// Options with a timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
            ..Self::default()
        }
    }
}

impl Client {
    /// Connects to server `name` of `config`.
    pub async fn connect(config: &Config, name: &str) -> Result<Client> {
        let server = config
            .servers
            .get(name)
            .ok_or_else(|| Error::UnknownServer {
                server: name.to_owned(),
            })?;
        Client::connect_server(name, server.clone()).await
    }

    /// Connects to a server described by `config`, naming it `name` in errors.
    pub async fn connect_server(name: &str, config: ServerConfig) -> Result<Client> {
        let client = Client::lazy(name, config);
        client.session().await?;
        Ok(client)
    }

    /// A client that connects on its first call.
    pub fn lazy(name: &str, config: ServerConfig) -> Client {
        Client {
            name: name.to_owned(),
            config,
            session: tokio::sync::Mutex::new(None),
        }
    }

    /// The server's name in the config.
    pub fn server_name(&self) -> &str {
        &self.name
    }

    /// The server's config.
    pub fn server_config(&self) -> &ServerConfig {
        &self.config
    }

    /// The last lines the server's process wrote to stderr (stdio servers
    /// only; bounded).
    pub async fn stderr_tail(&self) -> Option<String> {
        let slot = self.session.lock().await;
        slot.as_ref()?.process.as_ref()?.stderr_tail()
    }

    /// The server's process id (stdio servers, while connected).
    pub async fn process_id(&self) -> Option<u32> {
        let slot = self.session.lock().await;
        slot.as_ref()?.process.as_ref()?.id()
    }

    /// What the server said of itself in the handshake.
    pub async fn server_info(&self) -> Result<ServerPeerInfo> {
        let session = self.session().await?;
        session
            .service
            .peer()
            .peer_info()
            .map(|info| (*info).clone())
            .ok_or_else(|| Error::Connect {
                server: self.name.clone(),
                reason: "no server information after the handshake".into(),
                stderr: None,
            })
    }

    /// The live connection, (re)connecting when there is none or it closed.
    async fn session(&self) -> Result<Arc<Session>> {
        let mut slot = self.session.lock().await;
        if let Some(session) = slot.as_ref() {
            if !session.service.peer().is_transport_closed() {
                return Ok(Arc::clone(session));
            }
        }
        let session = Arc::new(connect(&self.name, &self.config).await?);
        *slot = Some(Arc::clone(&session));
        Ok(session)
    }

    /// Forgets a closed session so that the next call reconnects.
    async fn drop_session(&self, closed: &Arc<Session>) {
        let mut slot = self.session.lock().await;
        if slot.as_ref().is_some_and(|s| Arc::ptr_eq(s, closed)) {
            *slot = None;
        }
    }

    /// Turns a lost connection into an error that says how the server ended.
    async fn closed_error(&self, session: &Arc<Session>) -> Error {
        self.drop_session(session).await;
        let (exit, stderr) = match &session.process {
            Some(p) => (p.settle().await, p.stderr_tail()),
            None => (None, None),
        };
        Error::Closed {
            server: self.name.clone(),
            exit,
            stderr,
        }
    }

    /// Compares the live server's tools with the locked `tools` (a generated
    /// module's `TOOLS`) and applies the server's [`PinPolicy`]. Returns what
    /// drifted, one line per tool (empty when all match or the policy is
    /// `ignore`).
    pub async fn check_pins(&self, tools: &[ToolMeta]) -> Result<Vec<String>> {
        if self.config.pin_policy == PinPolicy::Ignore || tools.is_empty() {
            return Ok(Vec::new());
        }
        // The same drift detector as `mcpbind check`: the locked tools
        // against the live ones of the same names.
        let locked: Vec<crate::LockedTool> = tools
            .iter()
            .map(|meta| crate::LockedTool {
                name: meta.name.to_owned(),
                sha256: meta.sha256.to_owned(),
                definition: crate::lock::parse_definition(meta.definition),
            })
            .collect();
        let live: Vec<crate::LockedTool> = self
            .list_tools_raw()
            .await?
            .into_iter()
            .filter(|t| {
                let name = t.get("name").and_then(Value::as_str);
                name.is_some_and(|n| tools.iter().any(|meta| meta.name == n))
            })
            .filter_map(crate::LockedTool::new)
            .collect();
        let drift = crate::ServerDiff::tools(&locked, &live).drift_lines();
        match self.config.pin_policy {
            PinPolicy::Refuse if !drift.is_empty() => Err(Error::Drift {
                server: self.name.clone(),
                drift,
            }),
            _ => {
                for line in &drift {
                    tracing::warn!(server = %self.name, "changed since it was locked: {line}; review with `mcpbind diff {}`", self.name);
                }
                Ok(drift)
            }
        }
    }

    /// Lists the server's tools exactly as it sent them: every page, the raw
    /// JSON of each tool (unknown fields kept), and no client-side cache.
    pub async fn list_tools_raw(&self) -> Result<Vec<Value>> {
        let session = self.session().await?;
        let peer = session.service.peer().clone();
        if let Some(tap) = &session.tap {
            tap.arm(true);
        }
        let result = self.list_pages(&session, &peer).await;
        if let Some(tap) = &session.tap {
            tap.arm(false);
        }
        result
    }

    async fn list_pages(
        &self,
        session: &Arc<Session>,
        peer: &Peer<RoleClient>,
    ) -> Result<Vec<Value>> {
        let mut tools = Vec::new();
        let mut cursor = None;
        let mut seen_cursors = std::collections::BTreeSet::new();
        loop {
            let request = ClientRequest::ListToolsRequest(ListToolsRequest {
                method: Default::default(),
                params: cursor
                    .clone()
                    .map(|c| PaginatedRequestParams::default().with_cursor(Some(c))),
                extensions: Default::default(),
            });
            let handle = self
                .send(session, peer, request, self.config.timeout, "tools/list")
                .await?;
            let id = serde_json::to_value(&handle.id).unwrap_or(Value::Null);
            let response = self.await_handle(session, handle, "tools/list").await?;
            let ServerResult::ListToolsResult(page) = response else {
                return Err(self.service_error("tools/list", ServiceError::UnexpectedResponse));
            };
            let raw = session.tap.as_ref().and_then(|tap| tap.take(&id_key(&id)));
            match raw
                .as_ref()
                .and_then(|r| r.get("tools"))
                .and_then(Value::as_array)
            {
                Some(raw_tools) => tools.extend(raw_tools.iter().cloned()),
                // Transports without a tap: rmcp's model of each tool.
                None => tools.extend(
                    page.tools
                        .iter()
                        .map(|t| serde_json::to_value(t).unwrap_or(Value::Null)),
                ),
            }
            match page.next_cursor {
                // A server that repeats a cursor would page forever.
                Some(next) if seen_cursors.insert(next.clone()) => cursor = Some(next),
                _ => break,
            }
        }
        Ok(tools)
    }

    /// Calls a tool with JSON arguments and returns rmcp's result as is
    /// (`isError` results included).
    pub async fn call_raw(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<CallToolResult> {
        let timeout = options.timeout.unwrap_or(self.config.timeout);
        let method = format!("tools/call {tool}");
        let mut attempt = 0;
        loop {
            attempt += 1;
            let session = self.session().await?;
            let peer = session.service.peer().clone();
            let mut params = CallToolRequestParams::new(tool.to_owned());
            params.arguments = Some(arguments.clone());
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
            // A failure before the request was sent is always safe to retry.
            let handle = match self.send(&session, &peer, request, timeout, &method).await {
                Ok(handle) => handle,
                Err(Error::Closed { .. }) if attempt == 1 => continue,
                Err(e) => return Err(e),
            };
            let guard = CancelOnDrop::new(&peer, &handle);
            let response = self.await_handle(&session, handle, &method).await;
            guard.disarm();
            match response {
                Ok(ServerResult::CallToolResult(result)) => return Ok(result),
                Ok(_) => return Err(self.service_error(&method, ServiceError::UnexpectedResponse)),
                Err(Error::Timeout { timeout, .. }) => {
                    return Err(Error::Timeout {
                        server: self.name.clone(),
                        tool: tool.to_owned(),
                        timeout,
                    })
                }
                Err(Error::Closed { .. }) if attempt == 1 && options.retry_safe => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Calls a typed tool: serializes its input, checks the result and parses
    /// its structured output.
    pub async fn call<T: Tool>(&self, input: &T::Input) -> Result<ToolResult<T::Output>> {
        let meta = &T::META;
        let arguments = match serde_json::to_value(input) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!("expected a JSON object, got {other}"),
                })
            }
            Err(e) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: e.to_string(),
                })
            }
        };
        if self.config.validate_input {
            let violations =
                crate::validate::violations(meta.input_schema, &Value::Object(arguments.clone()));
            if !violations.is_empty() {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!(
                        "{} (checked against the locked inputSchema; the call was not sent)",
                        violations.join("; ")
                    ),
                });
            }
        }
        let options = CallOptions {
            timeout: None,
            retry_safe: meta.is_retry_safe(),
        };
        let result = self.call_raw(meta.name, arguments, &options).await?;
        if let (true, Some(schema), Some(structured), false) = (
            self.config.validate_output,
            meta.output_schema,
            &result.structured_content,
            result.is_error == Some(true),
        ) {
            let violations = crate::validate::violations(schema, structured);
            if !violations.is_empty() {
                return Err(Error::Output {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!(
                        "structuredContent does not match the locked outputSchema: {}",
                        violations.join("; ")
                    ),
                    result: Box::new(result),
                });
            }
        }
        ToolResult::from_result(&self.name, meta, result)
    }

    async fn send(
        &self,
        session: &Arc<Session>,
        peer: &Peer<RoleClient>,
        request: ClientRequest,
        timeout: Duration,
        method: &str,
    ) -> Result<RequestHandle<RoleClient>> {
        match peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(timeout))
            .await
        {
            Ok(handle) => Ok(handle),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                Err(self.closed_error(session).await)
            }
            Err(e) => Err(self.service_error(method, e)),
        }
    }

    async fn await_handle(
        &self,
        session: &Arc<Session>,
        handle: RequestHandle<RoleClient>,
        method: &str,
    ) -> Result<ServerResult> {
        match handle.await_response().await {
            Ok(response) => Ok(response),
            Err(ServiceError::Timeout { timeout }) => Err(Error::Timeout {
                server: self.name.clone(),
                tool: method.to_owned(),
                timeout,
            }),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                Err(self.closed_error(session).await)
            }
            Err(e) => Err(self.service_error(method, e)),
        }
    }

    fn service_error(&self, method: &str, source: ServiceError) -> Error {
        Error::Service {
            server: self.name.clone(),
            method: method.to_owned(),
            source: Box::new(source),
        }
    }

    /// Closes the connection (and ends the server's process).
    pub async fn close(self) {
        let session = self.session.lock().await.take();
        if let Some(session) = session.and_then(|s| Arc::try_unwrap(s).ok()) {
            let mut service = session.service;
            let _ = service.close_with_timeout(Duration::from_secs(2)).await;
        }
    }
}

/// Sends `notifications/cancelled` for a request whose caller stopped
/// waiting (its future was dropped).
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
}

impl CancelOnDrop {
    fn new(peer: &Peer<RoleClient>, handle: &RequestHandle<RoleClient>) -> Self {
        CancelOnDrop {
            peer: Some(peer.clone()),
            id: handle.id.clone(),
        }
    }

    fn disarm(mut self) {
        self.peer = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let param = rmcp::model::CancelledNotificationParam::new(
                    Some(id),
                    Some("the caller stopped waiting".into()),
                );
                let _ = peer.notify_cancelled(param).await;
            });
        }
    }
}
