//! [`Client`]: one server's connection, with typed and raw calls.
//!
//! A `Client` is a cheap handle: its clones share one connection, its
//! circuit breaker and its concurrency limit. [`Client::with_timeout`] makes
//! a view whose calls have another timeout. How a client lives (idle
//! connections, shutdown) is in `client/lifecycle.rs`.

use std::borrow::Cow;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    ArgumentInfo, CompleteRequest, CompleteRequestParams, CompletionContext, CompletionInfo,
    GetPromptRequest, GetPromptRequestParams, GetPromptResult, ListPromptsRequest,
    ListResourceTemplatesRequest, ListResourcesRequest, ReadResourceRequest,
    ReadResourceRequestParams, ReadResourceResult, Reference, Resource,
};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ListToolsRequest,
    PaginatedRequestParams, RequestMetaObject, ServerPeerInfo, ServerResult,
};
use rmcp::service::{PeerRequestOptions, RequestHandle};
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::{Map, Value};
use tracing::Instrument as _;

use crate::breaker::{backoff, Breaker};
use crate::call::ToolResult;
use crate::config::PinPolicy;
use crate::config::{Config, ServerConfig};
use crate::connect::{connect, id_key, Handler, Session};
use crate::elicit::ClientHooks;
use crate::error::{Error, Result};
use crate::lock::EntryKind;
use crate::notices::{Notices, Progress, ProgressSink, Watching};
use crate::prompt::{Prompt, ResourceTemplateMeta};
use crate::tool::{TaskSupport, Tool, ToolMeta};
use crate::uri_template::UriValue;

mod deadline;
mod lifecycle;
mod mrtr;
mod pins;
mod skills;
mod subscribe;
mod task;

pub use lifecycle::Closed;
use lifecycle::{Activity, Live};
pub use task::{TaskHandle, TaskState};

/// A typed tool call of a generated client, in flight: a future of its
/// [`ToolResult`] (`client.add(input).await?`). It is `Send` when the
/// tool's types are, as generated ones are.
pub trait CallFuture<T>: Future<Output = Result<ToolResult<T>>> {}

impl<T, F: Future<Output = Result<ToolResult<T>>>> CallFuture<T> for F {}

/// A connection to one MCP server, made from its [`ServerConfig`].
///
/// Cloning is cheap: clones share the connection (and the server's process),
/// the circuit breaker and `max_concurrent_calls`. A lost connection (the
/// process died, the HTTP session expired) is re-established on the next
/// call, and the pins given to [`Client::check_pins`] are checked again on
/// the new connection. Dropping the last clone closes the connection and
/// kills the server's process.
#[derive(Clone)]
pub struct Client {
    name: String,
    config: Arc<ServerConfig>,
    shared: Arc<Shared>,
    /// This view's call timeout ([`Client::with_timeout`]).
    timeout: Option<Duration>,
}

/// What all clones of a client share.
struct Shared {
    slot: tokio::sync::Mutex<Option<Arc<Live>>>,
    breaker: Breaker,
    /// `max_concurrent_calls`: tokio's semaphore is fair, so waiting calls
    /// go in the order they came.
    limit: Option<tokio::sync::Semaphore>,
    activity: Activity,
    pins: Mutex<Option<Pins>>,
    /// `pins`' `checked`, or `u64::MAX` without pins: a call sees without a
    /// lock that its connection was checked.
    pins_checked: AtomicU64,
    /// One pin re-check at a time after a reconnect.
    pin_gate: tokio::sync::Mutex<()>,
    /// How many connections were made (the current one's number).
    generation: AtomicU64,
    shut: AtomicBool,
    /// Answers what the server asks (elicitation, sampling, roots), and
    /// hears what it says (progress, logs, list changes).
    handler: Handler,
    /// Tools (prompts, templates) changed while connected, under
    /// `pin_policy = "refuse"`.
    refused: pins::Refused,
    /// The prompts and resource templates pinned, compared again when
    /// their lists change.
    entry_pins: pins::EntryPins,
    /// The latest live listing of the tools, for a toolbox's unlocked ones.
    live: pins::LiveListing,
    /// The resources subscribed to, made again on a new connection.
    subscriptions: subscribe::Subscriptions,
}

/// The tools whose pins are checked again after each reconnect.
struct Pins {
    tools: Vec<ToolMeta>,
    /// The connection they were last checked on.
    checked: u64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("server", &self.name)
            .field("transport", &self.config.transport.kind())
            .field("timeout", &self.timeout())
            .finish_non_exhaustive()
    }
}

/// Options of one call.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Overrides the client's timeout (the server's `timeout`, or the one
    /// given to [`Client::with_timeout`]): how long the call waits without
    /// hearing from the server. Each progress report starts it again.
    pub timeout: Option<Duration>,
    /// Overrides the server's `max_call_time`: the call's total limit,
    /// however often the server reports progress (every attempt and a
    /// task's polls included).
    pub max_call_time: Option<Duration>,
    /// Whether the call may be sent again after the connection was lost while
    /// it was in flight. Generated code sets it for read-only and idempotent
    /// tools.
    pub retry_safe: bool,
    /// Run the call as a task (MCP 2025-11-25 `execution.taskSupport`):
    /// needed for `optional` tools only, since a typed call of a `required`
    /// one always runs as a task. For [`Client::call_raw`], which knows no
    /// definition, it decides.
    pub as_task: bool,
    /// Receives the call's progress reports.
    pub progress: Option<ProgressSink>,
    /// Sent as the request's `_meta` (beside the progress token).
    pub meta: Option<Map<String, Value>>,
    /// The arguments were validated against the locked input schema already
    /// (the toolbox does, on the model's JSON): the typed call does not
    /// validate them again.
    pub(crate) validated: bool,
}

impl CallOptions {
    /// Options with a timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
            ..Self::default()
        }
    }

    /// These options, with a total limit ([`CallOptions::max_call_time`]).
    pub fn max_call_time(mut self, limit: Duration) -> Self {
        self.max_call_time = Some(limit);
        self
    }

    /// These options, running the call as a task ([`CallOptions::as_task`]).
    pub fn run_as_task(mut self) -> Self {
        self.as_task = true;
        self
    }

    /// These options, calling `f` with each progress report of the call.
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(ProgressSink::new(f));
        self
    }

    /// These options, sending `meta` as the request's `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// How one call goes: its limits and what it asks of the server, fixed
/// when it starts (the same for every attempt).
pub(crate) struct Plan<'o> {
    /// How long to wait without hearing from the server.
    pub(crate) timeout: Duration,
    /// When the whole call ends, progress or not.
    pub(crate) until: Instant,
    /// The `max_call_time` that `until` came from, for its error.
    pub(crate) limit: Duration,
    pub(crate) retry_safe: bool,
    /// Create a task rather than call.
    pub(crate) task: bool,
    pub(crate) progress: Option<&'o ProgressSink>,
    pub(crate) meta: Option<&'o Map<String, Value>>,
}

/// How long to wait for one answer.
#[derive(Clone, Copy)]
pub(crate) struct Wait<'w> {
    /// Without hearing from the server.
    timeout: Duration,
    /// At most until then, and `limit` is what that was.
    until: Option<(Instant, Duration)>,
    /// The call's progress, which starts `timeout` again.
    watch: Option<&'w Watching<'w>>,
}

impl Wait<'_> {
    /// Up to `timeout`, progress or not.
    fn plain(timeout: Duration) -> Wait<'static> {
        Wait {
            timeout,
            until: None,
            watch: None,
        }
    }
}

/// How one attempt of a call failed, for the retry loop.
enum Failure {
    /// Before the request was sent (connect failed, the connection was
    /// found closed): always safe to try again.
    Unsent(Error),
    /// The connection was lost while the request was in flight: safe to
    /// send again only for a retry-safe tool.
    Lost(Error),
    /// Anything else: the error is the answer.
    Final(Error),
}

impl Client {
    /// Connects to server `name` of `config`, with the default
    /// [`ClientHooks`] (elicitation answered by
    /// [`AcceptDefaults`](crate::AcceptDefaults)).
    pub async fn connect(config: &Config, name: &str) -> Result<Client> {
        Client::connect_with(config, name, ClientHooks::default()).await
    }

    /// Connects to server `name` of `config`, answering what the server asks
    /// (elicitation, sampling, roots) with `hooks`.
    pub async fn connect_with(config: &Config, name: &str, hooks: ClientHooks) -> Result<Client> {
        let server = config
            .servers
            .get(name)
            .ok_or_else(|| Error::UnknownServer {
                server: name.to_owned(),
            })?;
        let client = Client::lazy_with(name, server.clone(), hooks);
        client.live().await?;
        Ok(client)
    }

    /// Connects to a server described by `config`, naming it `name` in errors.
    pub async fn connect_server(name: &str, config: ServerConfig) -> Result<Client> {
        let client = Client::lazy(name, config);
        client.live().await?;
        Ok(client)
    }

    /// A client that connects on its first call.
    pub fn lazy(name: &str, config: ServerConfig) -> Client {
        Client::lazy_with(name, config, ClientHooks::default())
    }

    /// A client that connects on its first call and answers what the server
    /// asks with `hooks`.
    pub fn lazy_with(name: &str, config: ServerConfig, hooks: ClientHooks) -> Client {
        let lifecycle = &config.lifecycle;
        let shared = Shared {
            slot: tokio::sync::Mutex::new(None),
            breaker: Breaker::new(name, lifecycle),
            limit: lifecycle
                .max_concurrent_calls
                .map(|n| tokio::sync::Semaphore::new(n.min(tokio::sync::Semaphore::MAX_PERMITS))),
            activity: Activity::default(),
            pins: Mutex::new(None),
            pins_checked: AtomicU64::new(u64::MAX),
            pin_gate: tokio::sync::Mutex::new(()),
            generation: AtomicU64::new(0),
            shut: AtomicBool::new(false),
            handler: Handler::new(name, hooks, Notices::new(name, config.labelled_secrets())),
            refused: pins::Refused::default(),
            entry_pins: pins::EntryPins::default(),
            live: pins::LiveListing::default(),
            subscriptions: subscribe::Subscriptions::default(),
        };
        let (config, shared) = (Arc::new(config), Arc::new(shared));
        Client::follow_list_changes(name, &config, &shared);
        Client {
            name: name.to_owned(),
            config,
            shared,
            timeout: None,
        }
    }

    /// A view of this client whose calls time out after `timeout` instead of
    /// the server's `timeout`. It shares the connection with this client.
    pub fn with_timeout(&self, timeout: Duration) -> Client {
        Client {
            timeout: Some(timeout),
            ..self.clone()
        }
    }

    /// The timeout of this client's calls.
    pub fn timeout(&self) -> Duration {
        self.timeout.unwrap_or(self.config.timeout)
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
        let slot = self.shared.slot.lock().await;
        slot.as_ref()?.session.process.as_ref()?.stderr_tail()
    }

    /// The server's process id (stdio servers, while connected).
    pub async fn process_id(&self) -> Option<u32> {
        let slot = self.shared.slot.lock().await;
        slot.as_ref()?.session.process.as_ref()?.id()
    }

    /// How many calls are in flight on this client and its clones now
    /// (sent, or retrying, and not yet answered).
    pub fn calls_in_flight(&self) -> usize {
        self.shared.activity.in_flight()
    }

    /// Whether a connection is open now (none before the first call of a
    /// lazy client, after `idle_timeout`, or after the connection was lost).
    pub async fn is_connected(&self) -> bool {
        open_in(&*self.shared.slot.lock().await).is_some()
    }

    /// What the server said of itself in the handshake.
    pub async fn server_info(&self) -> Result<ServerPeerInfo> {
        let live = self.live().await?;
        live.session
            .service
            .peer()
            .peer_info()
            .map(|info| (*info).clone())
            .ok_or_else(|| Error::Connect {
                server: self.name.clone(),
                reason: "no server information after the handshake".into(),
                stderr: None,
                source: None,
            })
    }

    /// Sends an MCP `ping` (connecting first if needed) and returns how long
    /// the answer took.
    pub async fn ping(&self) -> Result<Duration> {
        let session = self.live().await?.session.clone();
        let peer = session.service.peer().clone();
        let started = Instant::now();
        let request = ClientRequest::PingRequest(Default::default());
        let handle = self.send(&session, &peer, request, "ping").await?;
        self.await_handle(&session, handle, "ping", Wait::plain(self.timeout()))
            .await?;
        self.shared.breaker.success();
        Ok(started.elapsed())
    }

    /// Fails with [`Error::Shutdown`] once [`Client::shutdown`] has begun:
    /// new work is refused from then on.
    fn open(&self) -> Result<()> {
        if self.shared.shut.load(Ordering::SeqCst) {
            return Err(Error::Shutdown {
                server: self.name.clone(),
            });
        }
        Ok(())
    }

    /// The live connection for new work (refused after a shutdown began).
    pub(crate) async fn live(&self) -> Result<Arc<Live>> {
        self.open()?;
        self.connection().await
    }

    /// The live connection, (re)connecting when there is none or it closed.
    /// A call already in flight when a shutdown begins still gets the open
    /// connection; nothing connects anew after a shutdown began, and a new
    /// connection is refused while the circuit is open.
    async fn connection(&self) -> Result<Arc<Live>> {
        // The common case, connected and the slot free, without the
        // asynchronous lock's machinery.
        if let Some(live) = self.shared.slot.try_lock().ok().and_then(|s| open_in(&s)) {
            return Ok(live);
        }
        let mut slot = self.shared.slot.lock().await;
        if let Some(live) = open_in(&slot) {
            return Ok(live);
        }
        self.open()?;
        if slot.is_some() {
            tracing::info!(server = %self.name, "the connection was lost; reconnecting");
        }
        let _admission = self.shared.breaker.admit()?;
        let generation = self.shared.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let started = Instant::now();
        // Boxed: connecting is rare and its future is large (~11 KB); inline,
        // it would be part of, and copied with, every call's future.
        match Box::pin(connect(&self.name, &self.config, &self.shared.handler)).await {
            Ok(session) => {
                self.shared.breaker.success();
                tracing::info!(
                    server = %self.name,
                    transport = self.config.transport.kind(),
                    connection = generation,
                    duration_ms = millis(started.elapsed()),
                    "{}",
                    if generation > 1 { "reconnected" } else { "connected" }
                );
                let live = Arc::new(Live {
                    session: Arc::new(session),
                    generation,
                });
                *slot = Some(Arc::clone(&live));
                if generation > 1 {
                    self.resubscribe();
                }
                if let Some(idle) = self.config.lifecycle.idle_timeout {
                    lifecycle::reap_when_idle(self, &live, idle);
                }
                Ok(live)
            }
            Err(error) => {
                self.shared.breaker.failure();
                tracing::warn!(server = %self.name, %error, "connect failed");
                Err(error)
            }
        }
    }

    /// The connection for a call: [`Client::live`], with the pins checked
    /// again when it is a new connection.
    async fn session(&self) -> Result<Arc<Session>> {
        let live = self.connection().await?;
        if self.shared.pins_checked.load(Ordering::Acquire) < live.generation
            && self.pins_due(live.generation).is_some()
        {
            // Boxed for the same reason as `connect` in `connection`.
            Box::pin(self.recheck_pins(&live)).await?;
        }
        Ok(Arc::clone(&live.session))
    }

    /// The pinned tools, if connection `generation` has not been checked.
    fn pins_due(&self, generation: u64) -> Option<Vec<ToolMeta>> {
        let pins = self.shared.pins.lock().ok()?;
        pins.as_ref()
            .filter(|p| p.checked < generation)
            .map(|p| p.tools.clone())
    }

    /// Remembers the tools [`Client::check_pins`] is checking, so that each
    /// reconnect checks them again.
    fn remember_pins(&self, tools: &[ToolMeta]) {
        if matches!(
            self.config.transport,
            crate::config::TransportConfig::StreamableHttp { .. }
        ) {
            // `Mcp-Param-*` headers for tools called before any listing.
            let locked = tools.iter().map(|t| (t.name, t.input_schema));
            self.shared.handler.tool_schemas.lock(locked);
        }
        // Before the first connection, the one `check_pins` makes is the one
        // it checks.
        let checked = self.shared.generation.load(Ordering::SeqCst).max(1);
        if let Ok(mut pins) = self.shared.pins.lock() {
            *pins = Some(Pins {
                tools: tools.to_vec(),
                checked,
            });
            self.shared.pins_checked.store(checked, Ordering::Release);
        }
    }

    async fn recheck_pins(&self, live: &Arc<Live>) -> Result<()> {
        let _gate = self.shared.pin_gate.lock().await;
        let Some(tools) = self.pins_due(live.generation) else {
            return Ok(());
        };
        match self.check_pins(&tools).await {
            Ok(drift) => {
                if !drift.is_empty() {
                    tracing::warn!(server = %self.name, tools = drift.len(), "pin drift after a reconnect");
                }
                if let Ok(mut pins) = self.shared.pins.lock() {
                    if let Some(p) = pins.as_mut() {
                        p.checked = p.checked.max(live.generation);
                        self.shared.pins_checked.store(p.checked, Ordering::Release);
                    }
                }
                Ok(())
            }
            Err(error) => {
                if let Error::Drift { drift, .. } = &error {
                    tracing::warn!(server = %self.name, tools = drift.len(), "pin drift after a reconnect: refusing the server");
                    // The next call connects (and checks) again.
                    self.forget(live).await;
                }
                Err(error)
            }
        }
    }

    /// Takes `live` out of the slot (if it is still there) and closes it.
    async fn forget(&self, live: &Arc<Live>) {
        let taken = {
            let mut slot = self.shared.slot.lock().await;
            match slot.as_ref() {
                Some(current) if Arc::ptr_eq(current, live) => slot.take(),
                _ => None,
            }
        };
        if let Some(live) = taken {
            lifecycle::close_session(&live.session, Instant::now() + lifecycle::CLOSE_GRACE).await;
        }
    }

    /// Forgets a closed session so that the next call reconnects.
    async fn drop_session(&self, closed: &Arc<Session>) {
        let mut slot = self.shared.slot.lock().await;
        if slot
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(&s.session, closed))
        {
            *slot = None;
        }
    }

    /// Turns a lost connection into an error that says how the server ended.
    async fn closed_error(&self, session: &Arc<Session>) -> Error {
        self.drop_session(session).await;
        if !self.shared.shut.load(Ordering::SeqCst) {
            self.shared.breaker.failure();
        }
        if let Some(failure) = session.failure(&self.name) {
            return failure;
        }
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
    /// drifted, one [`Drift`](crate::Drift) per tool (empty when all match or
    /// the policy is `ignore`).
    pub async fn check_pins(&self, tools: &[ToolMeta]) -> Result<Vec<crate::Drift>> {
        self.remember_pins(tools);
        if self.config.pin_policy == PinPolicy::Ignore || tools.is_empty() {
            return Ok(Vec::new());
        }
        let drift = self.pin_diff(tools).await?.drift(crate::EntryKind::Tool);
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

    /// How the live server's tools differ from the locked `tools`: the
    /// same drift detector as `mcpbind check`, on the tools of those names.
    async fn pin_diff(&self, tools: &[ToolMeta]) -> Result<crate::ServerDiff> {
        let locked: Vec<crate::LockedTool> = tools
            .iter()
            .map(|meta| crate::LockedTool {
                name: meta.name.to_owned(),
                sha256: meta.sha256(),
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
        Ok(crate::ServerDiff::tools(&locked, &live))
    }

    /// Lists the server's tools exactly as it sent them: every page, the raw
    /// JSON of each tool (unknown fields kept), and no client-side cache.
    /// Malformed tools are skipped (see [`Client::list_tools_checked`]).
    pub async fn list_tools_raw(&self) -> Result<Vec<Value>> {
        Ok(self.list_tools_checked().await?.0)
    }

    /// [`Client::list_tools_raw`], and one line per malformed tool it
    /// skipped (which tool, what is wrong).
    pub async fn list_tools_checked(&self) -> Result<(Vec<Value>, Vec<String>)> {
        self.list_checked(EntryKind::Tool).await
    }

    /// Lists the server's prompts (`prompts/list`) exactly as it sent them,
    /// every page, and one line per malformed prompt it skipped. Empty when
    /// the server declares no `prompts` capability.
    pub async fn list_prompts_checked(&self) -> Result<(Vec<Value>, Vec<String>)> {
        if !self.has_capability(|c| c.prompts.is_some()).await? {
            return Ok((Vec::new(), Vec::new()));
        }
        self.list_checked(EntryKind::Prompt).await
    }

    /// Lists the server's resource templates (`resources/templates/list`)
    /// exactly as it sent them, every page, and one line per malformed one
    /// it skipped. Empty when the server declares no `resources` capability.
    pub async fn list_resource_templates_checked(&self) -> Result<(Vec<Value>, Vec<String>)> {
        if !self.has_capability(|c| c.resources.is_some()).await? {
            return Ok((Vec::new(), Vec::new()));
        }
        self.list_checked(EntryKind::ResourceTemplate).await
    }

    /// Whether the server declared `completions` (answers
    /// `completion/complete`).
    pub async fn supports_completions(&self) -> Result<bool> {
        self.has_capability(|c| c.completions.is_some()).await
    }

    async fn has_capability(
        &self,
        has: impl Fn(&rmcp::model::ServerCapabilities) -> bool,
    ) -> Result<bool> {
        Ok(has(&self.server_info().await?.capabilities))
    }

    async fn list_checked(&self, kind: EntryKind) -> Result<(Vec<Value>, Vec<String>)> {
        let session = Arc::clone(&self.live().await?.session);
        let peer = session.service.peer().clone();
        if let Some(tap) = &session.tap {
            tap.arm(true);
        }
        let result = self.list_pages(&session, &peer, kind).await;
        if let Some(tap) = &session.tap {
            tap.arm(false);
            if let (EntryKind::Tool, Ok((tools, _))) = (kind, &result) {
                self.shared.handler.tool_schemas.listed(tools);
            }
        }
        result
    }

    async fn list_pages(
        &self,
        session: &Arc<Session>,
        peer: &Peer<RoleClient>,
        kind: EntryKind,
    ) -> Result<(Vec<Value>, Vec<String>)> {
        let (mut tools, mut skipped) = (Vec::new(), Vec::new());
        let mut cursor = None;
        let mut pages = crate::paging::PageBound::new(&self.name, kind.method());
        let method = kind.method();
        loop {
            let params = cursor
                .clone()
                .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let request = list_request(kind, params);
            let handle = self.send(session, peer, request, method).await?;
            let id = serde_json::to_value(&handle.id).unwrap_or(Value::Null);
            let response = self
                .await_handle(session, handle, method, Wait::plain(self.config.timeout))
                .await?;
            let raw = session.tap.as_ref().and_then(|tap| tap.take(&id_key(&id)));
            let first = tools.len() + skipped.len();
            let page = crate::connect::tools::read_page(&self.name, kind, response, raw, first)?;
            pages.add(&page.tools)?;
            tools.extend(page.tools);
            skipped.extend(page.skipped);
            match page.next_cursor {
                Some(next) => cursor = Some(pages.next(next)?),
                None => break,
            }
        }
        Ok((tools, skipped))
    }

    /// Sends one request (not retried) with the client's timeout and
    /// returns the server's result.
    /// An `input_required` answer (2026-07-28) is answered with the hooks
    /// and the request sent again ([`mrtr`]).
    async fn request(&self, request: ClientRequest, method: &str) -> Result<ServerResult> {
        self.open()?;
        let _busy = self.shared.activity.enter();
        let session = self.session().await?;
        let peer = session.service.peer().clone();
        let multi_round = speaks_mrtr(&peer);
        let (mut request, mut round) = (request, 0);
        loop {
            let sent = multi_round.then(|| request.clone());
            let handle = self.send(&session, &peer, request, method).await?;
            let response = self
                .await_handle(&session, handle, method, Wait::plain(self.timeout()))
                .await
                .map_err(|e| self.hide_secrets(e))?;
            match (response, sent) {
                (ServerResult::InputRequiredResult(input), Some(sent)) => {
                    request = self.next_round(sent, input, method, round).await?;
                    round += 1;
                }
                (response, _) => {
                    self.shared.breaker.success();
                    return Ok(response);
                }
            }
        }
    }

    /// Gets a prompt (`prompts/get`) with string arguments by name.
    pub async fn get_prompt_raw(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<GetPromptResult> {
        self.refuse_drifted_in(crate::notices::ListKind::Prompts, name)?;
        let method = format!("prompts/get {name}");
        let params = GetPromptRequestParams::new(name).with_arguments(arguments);
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
        match self.request(request, &method).await? {
            ServerResult::GetPromptResult(result) => Ok(result),
            _ => Err(self.service_error(&method, ServiceError::UnexpectedResponse)),
        }
    }

    /// Gets a typed prompt: its arguments struct becomes the string
    /// arguments of `prompts/get`, and the result is the prompt's messages.
    pub async fn get_prompt<P: Prompt>(&self, arguments: &P::Arguments) -> Result<GetPromptResult> {
        let name = P::META.name;
        let arguments = match serde_json::to_value(arguments) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: name.to_owned(),
                    reason: format!("prompt arguments must be a JSON object, got {other}"),
                    violations: Vec::new(),
                })
            }
            Err(e) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: name.to_owned(),
                    reason: e.to_string(),
                    violations: Vec::new(),
                })
            }
        };
        self.get_prompt_raw(name, arguments).await
    }

    /// Reads a resource (`resources/read`): its text and blob contents.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        let method = "resources/read";
        let params = ReadResourceRequestParams::new(uri);
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
        match self.request(request, method).await? {
            ServerResult::ReadResourceResult(result) => Ok(result),
            _ => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
        }
    }

    /// Expands a locked resource template with these variable values (RFC
    /// 6570) and reads the resource at the URI it gives.
    pub async fn read_template(
        &self,
        template: &ResourceTemplateMeta,
        values: &[(&str, UriValue)],
    ) -> Result<ReadResourceResult> {
        self.refuse_drifted_in(crate::notices::ListKind::Resources, template.name)?;
        let uri = template.expand(values).map_err(|e| Error::Invalid {
            server: self.name.clone(),
            method: "resources/read".to_owned(),
            reason: e.to_string(),
        })?;
        self.read_resource(&uri).await
    }

    /// Lists the server's concrete resources (`resources/list`, every
    /// page). They are data, not schema: the lockfile does not keep them.
    pub async fn list_resources(&self) -> Result<Vec<Resource>> {
        self.every_page(
            "resources/list",
            |params| {
                ClientRequest::ListResourcesRequest(ListResourcesRequest {
                    method: Default::default(),
                    params,
                    extensions: Default::default(),
                })
            },
            |answer| match answer {
                ServerResult::ListResourcesResult(page) => Some((page.resources, page.next_cursor)),
                _ => None,
            },
        )
        .await
    }

    /// Lists the server's skills (SEP-2640 `skills/list`, every page): each
    /// skill's entry (URI, frontmatter, and the digest and size of its
    /// files). No skill file is read: a caller reads one
    /// ([`Client::read_resource`]) when it loads that skill. Empty when the
    /// server does not declare the skills extension.
    pub async fn list_skills(&self) -> Result<Vec<rmcp::model::Skill>> {
        if !self
            .has_capability(rmcp::model::ServerCapabilities::supports_skills)
            .await?
        {
            return Ok(Vec::new());
        }
        self.every_page(
            "skills/list",
            |params| {
                ClientRequest::ListSkillsRequest(rmcp::model::ListSkillsRequest {
                    method: Default::default(),
                    params,
                    extensions: Default::default(),
                })
            },
            |answer| match answer {
                ServerResult::ListSkillsResult(page) => Some((page.skills, page.next_cursor)),
                _ => None,
            },
        )
        .await
    }

    /// Every page of a typed list (`request` makes the request for a page,
    /// `page` reads its entries and next cursor), bounded in pages and
    /// bytes.
    async fn every_page<T: serde::Serialize>(
        &self,
        method: &str,
        request: impl Fn(Option<PaginatedRequestParams>) -> ClientRequest,
        page: impl Fn(ServerResult) -> Option<(Vec<T>, Option<String>)>,
    ) -> Result<Vec<T>> {
        let mut entries = Vec::new();
        let mut cursor = None;
        let mut pages = crate::paging::PageBound::new(&self.name, method);
        loop {
            let params = cursor
                .take()
                .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
            let answer = self.request(request(params), method).await?;
            let Some((found, next)) = page(answer) else {
                return Err(self.service_error(method, ServiceError::UnexpectedResponse));
            };
            pages.add(&found)?;
            entries.extend(found);
            match next {
                Some(next) => cursor = Some(pages.next(next)?),
                None => return Ok(entries),
            }
        }
    }

    /// Asks the server to complete an argument (`completion/complete`) of a
    /// prompt ([`Reference::for_prompt`]) or resource template
    /// ([`Reference::for_resource`]), given what was typed so far and the
    /// arguments already chosen.
    pub async fn complete(
        &self,
        reference: Reference,
        argument: &str,
        value: &str,
        context: &[(&str, &str)],
    ) -> Result<CompletionInfo> {
        let method = "completion/complete";
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if !context.is_empty() {
            let arguments = context
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect();
            params = params.with_context(CompletionContext::with_arguments(arguments));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        match self.request(request, method).await? {
            ServerResult::CompleteResult(result) => Ok(result.completion),
            _ => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
        }
    }

    /// Calls a tool with JSON arguments and returns rmcp's result as is
    /// (`isError` results included).
    ///
    /// The call waits its turn under `max_concurrent_calls`. A failure before
    /// the request was sent, or a lost connection when `options.retry_safe`,
    /// is retried up to the server's `retries` with capped exponential
    /// backoff; [`Error::Attempts`] then says how many attempts were made.
    /// The call runs in a `tracing` span `mcp.call` (server, tool, request
    /// id, attempt, outcome, duration).
    pub fn call_raw<'a>(
        &'a self,
        tool: &str,
        arguments: Map<String, Value>,
        options: &'a CallOptions,
    ) -> impl Future<Output = Result<CallToolResult>> + Send + 'a {
        self.call_tool(
            Cow::Owned(tool.to_owned()),
            Arguments::Map(arguments),
            options,
            options.as_task,
        )
    }

    /// [`Client::call_raw`], for a tool name that may be `'static` (a
    /// typed call's), which is then sent without a copy; `task`: create a
    /// task rather than call.
    async fn call_tool(
        &self,
        tool: Cow<'static, str>,
        arguments: Arguments<'_>,
        options: &CallOptions,
        task: bool,
    ) -> Result<CallToolResult> {
        let limit = options.max_call_time.unwrap_or(self.config.max_call_time);
        let plan = Plan {
            timeout: options.timeout.unwrap_or_else(|| self.timeout()),
            until: deadline::later(Instant::now(), limit),
            limit,
            retry_safe: options.retry_safe,
            task,
            progress: options.progress.as_ref(),
            meta: options.meta.as_ref(),
        };
        let span = tracing::info_span!(
            "mcp.call",
            server = %self.name,
            tool = &*tool,
            request_id = tracing::field::Empty,
            attempt = tracing::field::Empty,
            outcome = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
        );
        if span.is_disabled() {
            // Nobody records calls: no clock reads, no outcome.
            return self.call_with_retries(tool, arguments, &plan, false).await;
        }
        let call = async {
            let started = Instant::now();
            let result = self.call_with_retries(tool, arguments, &plan, true).await;
            let outcome = match &result {
                Ok(r) if r.is_error == Some(true) => "tool error",
                Ok(_) => "ok",
                Err(e) => outcome_of(e),
            };
            let span = tracing::Span::current();
            span.record("outcome", outcome);
            span.record("duration_ms", millis(started.elapsed()));
            tracing::debug!(outcome, "call finished");
            result
        };
        call.instrument(span).await
    }

    /// The call of [`Client::call_raw`], `traced` when it runs in a span
    /// that records its attempts.
    async fn call_with_retries(
        &self,
        tool: Cow<'static, str>,
        mut arguments: Arguments<'_>,
        plan: &Plan<'_>,
        traced: bool,
    ) -> Result<CallToolResult> {
        let _permit = match &self.shared.limit {
            Some(limit) => Some(limit.acquire().await.map_err(|_| Error::Shutdown {
                server: self.name.clone(),
            })?),
            None => None,
        };
        self.open()?;
        self.refuse_drifted(&tool)?;
        let _busy = self.shared.activity.enter();
        #[cfg(feature = "metrics")]
        let started = Instant::now();
        let lifecycle = &self.config.lifecycle;
        let mut attempt: u32 = 0;
        let result = loop {
            attempt += 1;
            crate::events::record_attempt(); // event hook: counts sends
            if traced {
                tracing::Span::current().record("attempt", attempt);
            }
            let last = attempt > lifecycle.retries;
            let (error, retry) = match self
                .attempt(&tool, tool.clone(), arguments.take(last), plan, traced)
                .await
            {
                Ok(result) => break Ok(result),
                Err(Failure::Unsent(e)) => (e, true),
                Err(Failure::Lost(e)) => (e, plan.retry_safe),
                // Busy (429, 503): a retry-safe call waits as it asks.
                Err(Failure::Final(
                    e @ Error::Http {
                        status: Some(429 | 503),
                        ..
                    },
                )) => (e, plan.retry_safe),
                Err(Failure::Final(e)) => (e, false),
            };
            let delay = error
                .retry_after()
                .unwrap_or_else(|| backoff(lifecycle, attempt));
            // One deadline covers every attempt.
            let late = Instant::now() + delay >= plan.until;
            if !retry || attempt > lifecycle.retries || late {
                break Err(match attempt {
                    1 => error,
                    attempts => Error::Attempts {
                        server: self.name.clone(),
                        tool: tool.to_string(),
                        attempts,
                        last: Box::new(error),
                    },
                });
            }
            tracing::info!(%error, attempt, delay_ms = millis(delay), "retrying");
            tokio::time::sleep(delay).await;
        };
        #[cfg(feature = "metrics")]
        {
            let outcome = match &result {
                Ok(r) if r.is_error == Some(true) => "tool error",
                Ok(_) => "ok",
                Err(e) => outcome_of(e),
            };
            crate::metrics::call(&self.name, &tool, outcome, started.elapsed(), attempt);
        }
        result.map_err(|e| self.hide_secrets(e))
    }

    /// `error` with the config's secrets hidden in what the server wrote
    /// (an `isError` text, a JSON-RPC message, a stderr tail), in case it
    /// echoed one.
    fn hide_secrets(&self, error: Error) -> Error {
        error.redacted(&self.config.secrets())
    }

    /// One attempt of a call (`name` is `tool`, as sent: a `'static` name
    /// stays borrowed).
    async fn attempt(
        &self,
        tool: &str,
        name: Cow<'static, str>,
        arguments: Map<String, Value>,
        plan: &Plan<'_>,
        traced: bool,
    ) -> std::result::Result<CallToolResult, Failure> {
        let session = self.session().await.map_err(|e| match e {
            Error::Connect { .. } | Error::Spawn { .. } | Error::Closed { .. } => {
                Failure::Unsent(e)
            }
            e => Failure::Final(e),
        })?;
        // Errors name the tool in their method; a successful call builds
        // no such string.
        let method = "tools/call";
        let with_tool = |e: Error| with_tool(e, method, tool);
        let peer = session.service.peer();
        let request = call_request(name.clone(), arguments, plan);
        #[cfg(feature = "otel")]
        let request = crate::trace_context::with_traceparent(request, plan.meta);
        // Kept to be sent again if the server answers `input_required`
        // (boxed: the call's future holds a pointer, not a request).
        let again = speaks_mrtr(peer).then(|| Box::new(request.clone()));
        // `send`, spelled out: one layer less of a call's future, which
        // each layer copies (rmcp's is 3 KB; boxing it costs more than the
        // copies, a large allocation missing the allocator's caches:
        // BENCHMARKS.md).
        let sent = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await;
        let handle = match sent {
            Ok(handle) => handle,
            Err(e) => match self.send_failed(&session, method, e).await {
                e @ Error::Closed { .. } => return Err(Failure::Unsent(e)),
                e => return Err(Failure::Final(with_tool(e))),
            },
        };
        if traced {
            tracing::Span::current().record("request_id", tracing::field::display(&handle.id));
        }
        // Progress reports for this request start its timeout again, and
        // reach the caller.
        let watching = self.shared.handler.notices.watch(
            handle.progress_token.clone(),
            name,
            plan.progress.cloned(),
        );
        let wait = Wait {
            timeout: plan.timeout,
            until: Some((plan.until, plan.limit)),
            watch: Some(&watching),
        };
        let response = match self.await_handle(&session, handle, method, wait).await {
            // Boxed: rare, and the rounds' future would be part of every
            // call's.
            Ok(ServerResult::InputRequiredResult(input)) => match again {
                Some(sent) => {
                    Box::pin(self.more_rounds(&session, *sent, input, method, wait)).await
                }
                None => Ok(ServerResult::InputRequiredResult(input)),
            },
            response => response,
        };
        match response {
            Ok(ServerResult::CallToolResult(result)) => {
                self.shared.breaker.success();
                Ok(result)
            }
            // A task was created: the call is its result. A lost connection
            // now loses the task, not the request: it is not sent again.
            Ok(created) if plan.task => {
                self.shared.breaker.success();
                Box::pin(self.run_task(tool, created, plan, &watching))
                    .await
                    .map_err(|e| Failure::Final(with_tool(e)))
            }
            Ok(_) => Err(Failure::Final(with_tool(
                self.service_error(method, ServiceError::UnexpectedResponse),
            ))),
            Err(e @ Error::Closed { .. }) => Err(Failure::Lost(e)),
            Err(e) => Err(Failure::Final(with_tool(e))),
        }
    }

    /// Calls a typed tool: serializes its input, checks the result and parses
    /// its structured output.
    pub fn call<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
    ) -> impl CallFuture<T::Output> + 'a {
        let options = CallOptions {
            retry_safe: T::META.is_retry_safe(),
            ..CallOptions::default()
        };
        self.typed_call::<T>(input, options)
    }

    /// [`Client::call`], taking the input by value: what a generated
    /// client's method returns. The method is then no `async fn` of its
    /// own, so the user's crate has no state machine per tool to check
    /// (7% of rustc's time checking a large lockfile's bindings;
    /// BENCHMARKS.md).
    #[doc(hidden)]
    pub fn call_owned<'a, T: Tool + 'a>(
        &'a self,
        input: T::Input,
    ) -> impl CallFuture<T::Output> + 'a
    where
        T::Input: 'a,
    {
        async move { self.call::<T>(&input).await }
    }

    /// [`Client::call`] for arguments the toolbox validated already.
    pub(crate) fn call_validated<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
    ) -> impl CallFuture<T::Output> + 'a {
        let options = CallOptions {
            retry_safe: T::META.is_retry_safe(),
            validated: true,
            ..CallOptions::default()
        };
        self.typed_call::<T>(input, options)
    }

    /// [`Client::call`] with options (a timeout for this call; `retry_safe`
    /// is taken from the tool's annotations when not set).
    pub fn call_with<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
        options: &CallOptions,
    ) -> impl CallFuture<T::Output> + 'a {
        self.typed_call::<T>(input, options.clone())
    }

    /// The future of a typed call. The public ways in are plain functions
    /// rather than `async fn`s, each of which would be one more layer of
    /// state machine that holds, and copies, the whole call's future.
    fn typed_call<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
        options: CallOptions,
    ) -> impl CallFuture<T::Output> + 'a {
        // Event hook (core/src/events.rs): times the call, counts its
        // attempts and publishes one `ToolInvoked` per call, when someone
        // listens (checked when the call's future is made). Boxed: the
        // hook's future holds the call's twice (an `async fn` keeps its
        // arguments beside its locals), and inline it would double every
        // call's future, listened to or not.
        if crate::events::observed() {
            futures::future::Either::Left(Box::pin(crate::events::observe(
                self,
                &T::META,
                input,
                self.call_unobserved::<T>(input, options),
            )))
        } else {
            futures::future::Either::Right(self.call_unobserved::<T>(input, options))
        }
    }

    async fn call_unobserved<T: Tool>(
        &self,
        input: &T::Input,
        options: CallOptions,
    ) -> Result<ToolResult<T::Output>> {
        let meta = &T::META;
        let arguments = self.typed_arguments::<T>(input, options.validated)?;
        let task = match meta.task_support() {
            TaskSupport::Required => true,
            TaskSupport::Optional => options.as_task,
            _ => false,
        };
        let options = CallOptions {
            retry_safe: options.retry_safe || meta.is_retry_safe(),
            ..options
        };
        // A retry serializes the input again rather than keep a copy.
        let again = || match serde_json::to_value(input) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let arguments = Arguments::Typed {
            first: Some(arguments),
            again: &again,
        };
        let result = self
            .call_tool(Cow::Borrowed(meta.name), arguments, &options, task)
            .await?;
        self.typed_result::<T>(result)
    }

    /// A typed call's arguments: its input as a JSON object, checked
    /// against the locked input schema unless `validated` already.
    fn typed_arguments<T: Tool>(
        &self,
        input: &T::Input,
        validated: bool,
    ) -> Result<Map<String, Value>> {
        let meta = &T::META;
        let arguments = match serde_json::to_value(input) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!("expected a JSON object, got {other}"),
                    violations: Vec::new(),
                })
            }
            Err(e) => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: e.to_string(),
                    violations: Vec::new(),
                })
            }
        };
        if !self.config.validate_input || validated {
            return Ok(arguments);
        }
        let object = Value::Object(arguments);
        let violations = crate::validate::violations(meta.input_schema, &object);
        if !violations.is_empty() {
            return Err(Error::Arguments {
                server: self.name.clone(),
                tool: meta.name.to_owned(),
                reason: format!(
                    "{} (checked against the locked inputSchema; the call was not sent)",
                    crate::validate::join(&violations)
                ),
                violations,
            });
        }
        let Value::Object(arguments) = object else {
            unreachable!("built as an object above")
        };
        Ok(arguments)
    }

    /// A typed call's result: its structured content checked against the
    /// locked output schema and parsed.
    pub(crate) fn typed_result<T: Tool>(
        &self,
        result: CallToolResult,
    ) -> Result<ToolResult<T::Output>> {
        let meta = &T::META;
        if let (true, Some(schema), Some(structured), false) = (
            self.config.validate_output,
            meta.output_schema,
            &result.structured_content,
            result.is_error == Some(true),
        ) {
            let violations = crate::validate::violations(schema, structured);
            if !violations.is_empty() {
                return Err(self.hide_secrets(Error::Output {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!(
                        "structuredContent does not match the locked outputSchema: {}",
                        crate::validate::join(&violations)
                    ),
                    violations,
                    result: Box::new(result),
                }));
            }
        }
        ToolResult::from_result(&self.name, meta, result).map_err(|e| self.hide_secrets(e))
    }

    /// Sends a request; [`Client::await_handle`] waits for its answer
    /// (rmcp's own timeout is not used: see `client/deadline.rs`).
    async fn send(
        &self,
        session: &Arc<Session>,
        peer: &Peer<RoleClient>,
        request: ClientRequest,
        method: &str,
    ) -> Result<RequestHandle<RoleClient>> {
        #[cfg(feature = "otel")]
        let request = crate::trace_context::with_traceparent(request, None);
        match peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => Ok(handle),
            Err(e) => Err(self.send_failed(session, method, e).await),
        }
    }

    /// The error of a request that could not be sent.
    async fn send_failed(&self, session: &Arc<Session>, method: &str, e: ServiceError) -> Error {
        match e {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                self.closed_error(session).await
            }
            e => self.service_error(method, e),
        }
    }

    /// Waits for the answer to a request for up to `wait.timeout` without
    /// hearing from the server (each progress report of `wait.watch` starts
    /// it again), and never past `wait.until`. When either passes, or the
    /// caller stops waiting (drops this future), the server is sent
    /// `notifications/cancelled`.
    ///
    /// The answer is read from the handle's channel rather than through
    /// `RequestHandle::await_response`: with no rmcp timeout, progress reset
    /// or subscription (`send` asks for none), that is all it does, and its
    /// future (3.4 KB) would be part of, and copied with, every call's.
    async fn await_handle(
        &self,
        session: &Arc<Session>,
        handle: RequestHandle<RoleClient>,
        method: &str,
        wait: Wait<'_>,
    ) -> Result<ServerResult> {
        let mut pending = Pending::new(handle);
        let mut from = Instant::now();
        let response = loop {
            let idle = deadline::later(from, wait.timeout);
            let at = match wait.until {
                Some((until, _)) => idle.min(until),
                None => idle,
            };
            tokio::select! {
                biased;
                response = pending.answer() => break response,
                () = deadline::at(at) => {}
            }
            let heard = wait.watch.and_then(Watching::last_heard);
            match heard {
                // Progress since the timeout started: it starts again then.
                Some(heard) if heard > from && at == idle => from = heard,
                _ => {
                    // Sent before the error returns, so that a CLI that
                    // exits on it has told the server. Boxed: rare, and its
                    // future is large (~1.7 KB).
                    Box::pin(pending.cancel("request timeout")).await;
                    return Err(self.expired(method, wait, at == idle));
                }
            }
        };
        match response {
            Ok(response) => Ok(response),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                Err(self.closed_error(session).await)
            }
            Err(e) => Err(self.service_error(method, e)),
        }
    }

    /// The error of a request that waited too long: `idle` without hearing
    /// from the server, or else past its total limit.
    fn expired(&self, method: &str, wait: Wait<'_>, idle: bool) -> Error {
        match wait.until {
            Some((_, limit)) if !idle => Error::TimeLimit {
                server: self.name.clone(),
                method: method.to_owned(),
                tool: None,
                limit,
            },
            _ => Error::Timeout {
                server: self.name.clone(),
                method: method.to_owned(),
                tool: None,
                timeout: wait.timeout,
            },
        }
    }

    fn service_error(&self, method: &str, source: ServiceError) -> Error {
        Error::Service {
            server: self.name.clone(),
            method: method.to_owned(),
            source: Box::new(source),
        }
    }

    /// Closes the connection gracefully (for a process: closes its stdin
    /// and gives it a moment to exit, then kills it). It is closed for every
    /// clone: their calls fail with [`Error::Shutdown`].
    pub async fn close(self) {
        self.shutdown(lifecycle::CLOSE_GRACE).await;
    }
}

/// Whether the connection negotiated a version with multi round-trip
/// requests (2026-07-28): only then may a server answer `input_required`,
/// and only then is a request kept to be sent again.
fn speaks_mrtr(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28)
}

/// The connection in `slot`, if it is open.
fn open_in(slot: &Option<Arc<Live>>) -> Option<Arc<Live>> {
    slot.as_ref()
        .filter(|live| !live.session.service.peer().is_transport_closed())
        .cloned()
}

/// The `tools/call` request of a call: a plain one, or one that creates a
/// task.
fn call_request(
    name: Cow<'static, str>,
    arguments: Map<String, Value>,
    plan: &Plan<'_>,
) -> ClientRequest {
    if plan.task {
        return task::create_request(&name, arguments, plan.meta);
    }
    let mut params = CallToolRequestParams::new(name);
    params.arguments = Some(arguments);
    if let Some(meta) = plan.meta {
        params.meta = Some(RequestMetaObject::from(meta.clone()));
    }
    ClientRequest::CallToolRequest(CallToolRequest::new(params))
}

/// An error of a `tools/call`, naming its tool.
fn with_tool(e: Error, method: &str, tool: &str) -> Error {
    match e {
        Error::Service { server, source, .. } => Error::Service {
            server,
            method: format!("{method} {tool}"),
            source,
        },
        Error::Timeout {
            server, timeout, ..
        } => Error::Timeout {
            server,
            method: format!("{method} {tool}"),
            tool: Some(tool.to_string()),
            timeout,
        },
        Error::TimeLimit { server, limit, .. } => Error::TimeLimit {
            server,
            method: format!("{method} {tool}"),
            tool: Some(tool.to_string()),
            limit,
        },
        e => e,
    }
}

/// The request for one page of a list.
fn list_request(kind: EntryKind, params: Option<PaginatedRequestParams>) -> ClientRequest {
    match kind {
        EntryKind::Tool => ClientRequest::ListToolsRequest(ListToolsRequest {
            method: Default::default(),
            params,
            extensions: Default::default(),
        }),
        EntryKind::Prompt => ClientRequest::ListPromptsRequest(ListPromptsRequest {
            method: Default::default(),
            params,
            extensions: Default::default(),
        }),
        EntryKind::ResourceTemplate => {
            ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest {
                method: Default::default(),
                params,
                extensions: Default::default(),
            })
        }
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().try_into().unwrap_or(u64::MAX)
}

/// The `outcome` of a failed call in its span.
fn outcome_of(error: &Error) -> &'static str {
    match error {
        Error::Timeout { .. } => "timeout",
        Error::TimeLimit { .. } => "time limit",
        Error::Closed { .. } => "connection lost",
        Error::Connect { .. } | Error::Spawn { .. } => "connect failed",
        Error::CircuitOpen { .. } => "circuit open",
        Error::Attempts { last, .. } => outcome_of(last),
        Error::Tool { .. } => "tool error",
        Error::Drift { .. } => "pin drift",
        Error::Shutdown { .. } => "shut down",
        _ => "error",
    }
}

/// A call's arguments, for each of its attempts.
enum Arguments<'a> {
    /// Given as JSON (`call_raw`): copied for each attempt that a retry
    /// could follow.
    Map(Map<String, Value>),
    /// A typed call's: the first attempt takes them, a retry serializes the
    /// input again.
    Typed {
        first: Option<Map<String, Value>>,
        again: &'a (dyn Fn() -> Map<String, Value> + Sync),
    },
}

impl Arguments<'_> {
    /// The arguments for an attempt (`last`: no retry can follow it).
    fn take(&mut self, last: bool) -> Map<String, Value> {
        match self {
            Arguments::Map(map) if last => std::mem::take(map),
            Arguments::Map(map) => map.clone(),
            Arguments::Typed { first, again } => first.take().unwrap_or_else(again),
        }
    }
}

/// A request sent and not yet answered. Dropped before its answer came (the
/// caller stopped waiting), it sends the server `notifications/cancelled`.
struct Pending {
    handle: RequestHandle<RoleClient>,
    answered: bool,
}

impl Pending {
    fn new(handle: RequestHandle<RoleClient>) -> Self {
        Pending {
            handle,
            answered: false,
        }
    }

    /// Waits for the answer (a dropped channel means the connection closed,
    /// as in rmcp).
    async fn answer(&mut self) -> std::result::Result<ServerResult, ServiceError> {
        let answer = (&mut self.handle.rx).await;
        self.answered = true;
        answer.unwrap_or(Err(ServiceError::TransportClosed))
    }

    /// Sends `notifications/cancelled` now, with `reason`.
    async fn cancel(mut self, reason: &str) {
        self.answered = true;
        let param = rmcp::model::CancelledNotificationParam::new(
            Some(self.handle.id.clone()),
            Some(reason.to_owned()),
        );
        let _ = self.handle.peer.notify_cancelled(param).await;
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let peer = self.handle.peer.clone();
        let id = self.handle.id.clone();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every typed call's future holds a `call_raw` future, which generated
    /// code and callers move around: connecting (rare, and ~11 KB) is boxed
    /// out of it. Inline, it made the future 12.4 KB and a stdio call cost
    /// 1.39x raw rmcp's client instructions (1.09x boxed; BENCHMARKS.md).
    #[test]
    fn a_call_future_does_not_hold_the_connect_future() {
        let config = Config::from_toml_str("[servers.s]\ncommand = \"true\"\n").unwrap();
        let client = Client::lazy("s", config.servers["s"].clone());
        let options = CallOptions::default();
        let call = client.call_raw("t", Map::new(), &options);
        let size = std::mem::size_of_val(&call);
        assert!(size < 8 * 1024, "call_raw's future is {size} bytes");
    }
}
