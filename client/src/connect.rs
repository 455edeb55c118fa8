//! Connections to servers over rmcp: a child process on stdio, Streamable
//! HTTP, or legacy HTTP+SSE.
//!
//! Every transport reads through a tap ([`tap::RawTap`]) that keeps the raw
//! JSON of `tools/list` responses, and the first failure the transport
//! recognised, so that errors say what happened. Errors never show a
//! `${VAR}` value ([`secrets`]), and HTTP transports share one client
//! per runtime, which never sends configured headers to another origin
//! ([`http_client`]).

use std::sync::Arc;

use rmcp::model::ProtocolVersion;
use rmcp::model::{ClientConfig, Implementation};
#[allow(deprecated)] // sampling and roots: SEP-2577 (see elicit.rs)
use rmcp::model::{
    CreateMessageRequestMethod, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ListRootsResult,
};
#[allow(deprecated)] // logging: SEP-2577 (see notices.rs)
use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam};
use rmcp::service::RunningService;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt as _};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::ErrorData;
use rmcp::RoleClient;

mod headers;
#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod http_client;
#[cfg(feature = "http")]
mod http_tap;
#[cfg(feature = "stdio")]
mod opening;
pub(crate) mod secrets;
#[cfg(feature = "http")]
mod sse;
#[cfg(feature = "stdio")]
mod stdio;
mod tap;
pub(crate) mod tools;
#[cfg(feature = "http")]
mod wire;

pub(crate) use headers::ToolSchemas;
#[cfg(feature = "stdio")]
pub(crate) use stdio::connect_in_process;
#[cfg(feature = "stdio")]
pub(crate) use stdio::Process;
pub(crate) use tap::{id_key, RawTap};

use crate::elicit::ClientHooks;
use crate::error::{Error, Result};
use crate::notices::{ListKind, Notices};
use mcpbind_model::config::{ServerConfig, TransportConfig};

/// The client side of the session: who we are, how we answer what the
/// server asks ([`ClientHooks`]; a capability is declared only when its
/// hook is there), and where what it tells us goes ([`Notices`]).
#[derive(Clone)]
pub(crate) struct Handler {
    /// The server's name, for the hooks.
    server: Arc<str>,
    hooks: ClientHooks,
    pub(crate) notices: Arc<Notices>,
    /// The tools' schemas the Streamable HTTP tap takes `Mcp-Param-*`
    /// headers from.
    pub(crate) tool_schemas: Arc<ToolSchemas>,
}

impl Handler {
    pub(crate) fn new(server: &str, hooks: ClientHooks, notices: Notices) -> Handler {
        Handler {
            server: server.into(),
            hooks,
            notices: Arc::new(notices),
            tool_schemas: Arc::default(),
        }
    }
}

impl Handler {
    /// The answer to one input request of an `input_required` result
    /// (SEP-2322), from the same hooks that answer the server's own
    /// requests.
    pub(crate) async fn answer_input(
        &self,
        request: rmcp::model::InputRequest,
    ) -> std::result::Result<serde_json::Value, ErrorData> {
        use rmcp::model::InputRequest;
        let answer = match request {
            InputRequest::Elicitation(request) => {
                let result = match &self.hooks.elicitation {
                    Some(hook) => hook.elicit(&self.server, request.params).await,
                    None => ElicitResult::new(ElicitationAction::Decline),
                };
                serde_json::to_value(result)
            }
            #[allow(deprecated)] // sampling: SEP-2577 (see elicit.rs)
            InputRequest::CreateMessage(request) => match &self.hooks.sampling {
                Some(hook) => {
                    serde_json::to_value(hook.create_message(&self.server, request.params).await?)
                }
                None => return Err(ErrorData::method_not_found::<CreateMessageRequestMethod>()),
            },
            InputRequest::ListRoots(_) => {
                serde_json::to_value(self.hooks.list_roots(&self.server).await)
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    "an input request of a kind mcpbind does not know",
                    None,
                ))
            }
        };
        answer
            .map_err(|e| ErrorData::internal_error(format!("cannot encode the answer: {e}"), None))
    }
}

#[allow(deprecated)] // sampling and roots: SEP-2577 (see elicit.rs)
impl rmcp::ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("mcpbind", env!("CARGO_PKG_VERSION"));
        // What `initialize` offers: the newest version that has an
        // `initialize` handshake (rmcp's default, 2026-07-28, has none; the
        // discover lifecycle names its versions itself).
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        let capabilities = &mut info.capabilities;
        if let Some(hook) = &self.hooks.elicitation {
            let mut elicitation = ElicitationCapability::new().with_form(Default::default());
            if hook.supports_url() {
                elicitation = elicitation.with_url(Default::default());
            }
            capabilities.elicitation = Some(elicitation);
        }
        if self.hooks.sampling.is_some() {
            capabilities.sampling = Some(Default::default());
        }
        if self.hooks.roots.is_some() {
            capabilities.roots = Some(Default::default());
        }
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<ElicitResult, ErrorData> {
        Ok(match &self.hooks.elicitation {
            Some(hook) => hook.elicit(&self.server, request).await,
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }

    async fn create_message(
        &self,
        request: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<CreateMessageResult, ErrorData> {
        match &self.hooks.sampling {
            Some(hook) => hook.create_message(&self.server, request).await,
            None => Err(ErrorData::method_not_found::<CreateMessageRequestMethod>()),
        }
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> std::result::Result<ListRootsResult, ErrorData> {
        Ok(self.hooks.list_roots(&self.server).await)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notices.progress(params);
    }

    #[allow(deprecated)] // logging: SEP-2577 (see notices.rs)
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notices.log(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notices.list_changed(ListKind::Tools);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notices.list_changed(ListKind::Prompts);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notices.list_changed(ListKind::Resources);
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notices.resource_updated(&params.uri);
    }
}

/// Without the `stdio` feature no session has a process.
#[cfg(not(feature = "stdio"))]
pub(crate) enum Process {}

#[cfg(not(feature = "stdio"))]
impl Process {
    pub(crate) fn stderr_tail(&self) -> Option<String> {
        match *self {}
    }
    pub(crate) fn id(&self) -> Option<u32> {
        match *self {}
    }
    pub(crate) fn exit_status(&self) -> Option<String> {
        match *self {}
    }
    pub(crate) async fn settle(&self) -> Option<String> {
        match *self {}
    }
}

/// One live connection: the rmcp service, and the process behind it.
pub(crate) struct Session {
    pub(crate) service: RunningService<RoleClient, Handler>,
    pub(crate) process: Option<Process>,
    pub(crate) tap: Option<Arc<RawTap>>,
}

impl Session {
    /// What the transport saw go wrong, as an error, when rmcp reports only
    /// that the transport closed.
    pub(crate) fn failure(&self, server: &str) -> Option<Error> {
        Some(self.tap.as_ref()?.failure()?.into_error(server))
    }
}

/// Why one handshake attempt failed.
pub(crate) enum ConnectFailure {
    /// The server answered `initialize` with a JSON-RPC error (its message):
    /// [`connect`] tries `server/discover` instead.
    Rejected(String),
    /// Any other failure.
    Error(Error),
}

/// A `${VAR}` that cannot be expanded fails the connection.
impl From<mcpbind_model::config::ConfigError> for ConnectFailure {
    fn from(e: mcpbind_model::config::ConfigError) -> Self {
        ConnectFailure::Error(e.into())
    }
}

impl From<Error> for ConnectFailure {
    fn from(e: Error) -> Self {
        ConnectFailure::Error(e)
    }
}

/// Connects to a server and performs the MCP handshake, trying
/// `server/discover` first on stdio and SSE when `first` says so
/// ([`probe`]).
pub(crate) async fn connect(
    name: &str,
    config: &ServerConfig,
    handler: &Handler,
    first: First,
) -> Result<Session> {
    // Names the variable, never its value.
    for warning in config.secrets_in_args(name) {
        tracing::warn!(server = name, "{warning}");
    }
    // A server that never answers `initialize` must not hang the caller;
    // dropping the attempt kills a child process.
    let attempt = async {
        if first == First::Discover && first_lifecycle(config, first) == Lifecycle::Initialize {
            match probe(name, config, handler).await {
                Ok(session) => return Ok(session),
                Err(ConnectFailure::Error(e)) => return Err(e),
                Err(ConnectFailure::Rejected(why)) => {
                    tracing::info!(
                        server = name,
                        "`server/discover` probe: {why}; connecting with `initialize`"
                    );
                }
            }
        }
        connect_either(name, config, handler, first).await
    };
    match tokio::time::timeout(config.connect_timeout, attempt).await {
        Ok(result) => result,
        Err(_) => Err(Error::ConnectTimeout {
            server: name.to_owned(),
            timeout: config.connect_timeout,
        }),
    }
}

/// Which handshake a client tries first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum First {
    /// A client with no lock: `initialize` on stdio and SSE, and
    /// `server/discover` when it is rejected; Streamable HTTP negotiates as
    /// the 2026-07-28 revision says ([`Lifecycle::Negotiate`]).
    #[default]
    Initialize,
    /// `server/discover`, and `initialize` on the same stdio process when
    /// the server does not answer it ([`probe`]); on SSE, bounded by
    /// [`PROBE_BOUND`], then as [`First::Initialize`]. `mcpbind lock` of a
    /// server not yet locked, and a client (or `lock`, `check`) of one
    /// locked at a version without `initialize` (2026-07-28).
    Discover,
    /// A client locked at a version that has `initialize`: `initialize`
    /// first on every transport, Streamable HTTP included. The lockfile
    /// says the server spoke it, so a `server/discover` first would most
    /// likely be refused, a round trip lost on every connect; a server
    /// that has since dropped `initialize` still connects, by
    /// `server/discover` once `initialize` is rejected.
    Locked,
}

impl First {
    /// The handshake for a server the lockfile records at protocol
    /// `version`: versions are dates, and every one after the last with
    /// an `initialize` handshake starts with `server/discover`.
    pub(crate) fn for_locked(version: &str) -> First {
        if version > ProtocolVersion::LATEST_WITH_INITIALIZE.as_str() {
            First::Discover
        } else {
            First::Locked
        }
    }
}

/// How long a server has to answer the `server/discover` probe before
/// mcpbind writes `initialize` to it.
///
/// On stdio the probe and `initialize` share one process, so the bound sets
/// only when `initialize` is written to a server that has answered neither
/// `server/discover` nor the `ping` behind it, never which handshake is
/// kept (see `opening`): a server that answers either costs no wait at all.
/// Counted from the spawn, so that a server slow to start is not asked
/// both at once.
///
/// On SSE, where each attempt is a new stream, silence this long is taken
/// as "no": the probe's stream is dropped and a new one starts with
/// `initialize`.
pub(crate) const PROBE_BOUND: std::time::Duration = std::time::Duration::from_secs(5);

/// `server/discover` on a new stdio process or SSE stream. On stdio, the
/// process answers one handshake or the other, and that is final. On SSE,
/// bounded by [`PROBE_BOUND`], it is rejected (so that [`connect`] goes on
/// with `initialize`) when the server stays silent, answers with an error,
/// or answers with something that is no discover result or names no
/// version mcpbind speaks without `initialize` ([`classify`]).
async fn probe(
    name: &str,
    config: &ServerConfig,
    handler: &Handler,
) -> std::result::Result<Session, ConnectFailure> {
    let attempt = connect_transport(name, config, handler, Lifecycle::Probe);
    if matches!(config.transport, TransportConfig::Stdio { .. }) {
        return attempt.await;
    }
    match tokio::time::timeout(PROBE_BOUND, attempt).await {
        Ok(result) => result,
        Err(_) => Err(ConnectFailure::Rejected(format!(
            "no answer within {} ms",
            PROBE_BOUND.as_millis()
        ))),
    }
}

/// The handshake [`first_lifecycle`] names, and the other one on a new
/// transport when the server rejects it.
async fn connect_either(
    name: &str,
    config: &ServerConfig,
    handler: &Handler,
    first: First,
) -> Result<Session> {
    let first = first_lifecycle(config, first);
    let message = match connect_transport(name, config, handler, first).await {
        Ok(session) => return Ok(session),
        Err(ConnectFailure::Error(e)) => return Err(e),
        Err(ConnectFailure::Rejected(message)) => message,
    };
    // The other handshake, on a new transport: a 2026-07-28 server may
    // answer only `server/discover`, an older one only `initialize`.
    let second = match first {
        Lifecycle::Negotiate | Lifecycle::Probe => Lifecycle::Initialize,
        Lifecycle::Initialize | Lifecycle::Discover => Lifecycle::Discover,
    };
    let (tried, then) = (first.method(), second.method());
    match connect_transport(name, config, handler, second).await {
        Ok(session) => Ok(session),
        // Only the first handshake's rejection is retried; the
        // second's is an ordinary failure.
        Err(ConnectFailure::Rejected(other)) => Err(Error::Connect {
            server: name.to_owned(),
            reason: format!("the server rejected `{tried}` ({message}) and `{then}` ({other})"),
            stderr: None,
            cause: None,
        }),
        Err(ConnectFailure::Error(Error::Connect {
            server,
            reason,
            stderr,
            cause,
        })) => Err(Error::Connect {
            server,
            reason: format!("the server rejected `{tried}` ({message}), and then {reason}"),
            stderr,
            cause,
        }),
        Err(ConnectFailure::Error(other)) => Err(other),
    }
}

/// Which handshake to use.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// `initialize` / `notifications/initialized` (2024-11-05 to 2025-11-25,
    /// and most 2026-07-28 servers).
    Initialize,
    /// `server/discover` with per-request metadata (2026-07-28).
    Discover,
    /// As the 2026-07-28 revision orders it: `server/discover` first (with
    /// the newest version, and again with one the server names when it
    /// answers -32022 / HTTP 400), then `initialize` when the server turns
    /// out to predate `server/discover`: on the same transport after a
    /// JSON-RPC error, on a new one after an HTTP 400, 404 or 405 without
    /// one ([`discover_refused`]).
    Negotiate,
    /// `server/discover` (2026-07-28) first ([`probe`]): on stdio, then
    /// `initialize` on the same process when the server turns out not to
    /// answer it (`opening`); on SSE, its rejection retried by [`connect`]
    /// with `initialize` on a new stream.
    Probe,
}

impl Lifecycle {
    /// The request that opens this handshake, as errors name it.
    fn method(self) -> &'static str {
        match self {
            Lifecycle::Initialize => "initialize",
            Lifecycle::Discover | Lifecycle::Negotiate | Lifecycle::Probe => "server/discover",
        }
    }
}

/// The protocol versions mcpbind speaks without `initialize`, newest first:
/// what `server/discover` offers.
pub(crate) const DISCOVER_VERSIONS: &[ProtocolVersion] = &[ProtocolVersion::V_2026_07_28];

/// The handshake tried first. Streamable HTTP negotiates as the 2026-07-28
/// revision says (every answer is an HTTP response, so a server that ignores
/// `server/discover` cannot leave the probe waiting). A stdio or SSE server
/// that predates it may never answer an unknown method before
/// `initialize` (rmcp's `Auto` then waits 10 s), so those start with
/// `initialize` and fall back to `server/discover` when it is rejected;
/// [`connect`] may [`probe`] with `server/discover` before them ([`First`]).
/// A client locked at a version with `initialize` ([`First::Locked`])
/// starts with it on Streamable HTTP too.
fn first_lifecycle(config: &ServerConfig, first: First) -> Lifecycle {
    match config.transport {
        TransportConfig::StreamableHttp { .. } if first != First::Locked => Lifecycle::Negotiate,
        _ => Lifecycle::Initialize,
    }
}

/// The MCP handshake over a transport.
pub(crate) async fn handshake<T, E, A>(
    transport: T,
    handler: &Handler,
    lifecycle: Lifecycle,
) -> std::result::Result<RunningService<RoleClient, Handler>, ClientInitializeError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mode = match lifecycle {
        Lifecycle::Initialize => ClientLifecycleMode::Initialize,
        Lifecycle::Discover | Lifecycle::Probe => ClientLifecycleMode::Discover {
            preferred_versions: DISCOVER_VERSIONS.to_vec(),
        },
        Lifecycle::Negotiate => ClientLifecycleMode::Auto {
            preferred_versions: DISCOVER_VERSIONS.to_vec(),
            legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
        },
    };
    handler.clone().serve_with_lifecycle(transport, mode).await
}

/// Picks out, by its kind, the rejection that [`connect`] retries with the
/// other handshake: `initialize` answered with a JSON-RPC error; or
/// `server/discover` answered with something that is not a discover result
/// (a server that answers any method it does not know with `{}`), or with
/// no version mcpbind speaks without `initialize`; or, for the [`probe`],
/// answered with a JSON-RPC error.
pub(crate) fn classify(
    error: ClientInitializeError,
    lifecycle: Lifecycle,
) -> std::result::Result<ClientInitializeError, ConnectFailure> {
    match (error, lifecycle) {
        (ClientInitializeError::JsonRpcError(data), Lifecycle::Initialize | Lifecycle::Probe) => {
            Err(ConnectFailure::Rejected(data.message.into_owned()))
        }
        (ClientInitializeError::ExpectedInitResult(_), Lifecycle::Negotiate | Lifecycle::Probe) => {
            Err(ConnectFailure::Rejected(
                "its answer is not a `server/discover` result".to_owned(),
            ))
        }
        (
            ClientInitializeError::NoCompatibleProtocolVersion {
                server_supported, ..
            },
            Lifecycle::Negotiate | Lifecycle::Probe,
        ) => Err(ConnectFailure::Rejected(format!(
            "it supports {}, none of which mcpbind speaks without `initialize`",
            server_supported
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
        (other, _) => Ok(other),
    }
}

/// rmcp's handshake error in words: the transport's own error and its
/// causes, without rmcp's wrapper types (`Transport [rmcp::transport::…]`).
pub(crate) fn describe(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::ExpectedInitResult(answer) => {
            return not_an_initialize_result(answer.as_ref())
        }
        ClientInitializeError::ConnectionClosed(awaited) => {
            let request = match awaited.as_str() {
                "initialize response" => "`initialize`",
                "discover response" => "`server/discover`",
                other => other,
            };
            return format!("the connection closed before the server answered {request}");
        }
        _ => {}
    }
    let ClientInitializeError::TransportError { error, context } = error else {
        return crate::error::chain(error);
    };
    let cause = transport_cause(&*error.error);
    format!("{cause} (when the client tried to {context})")
}

/// A transport's error in words: reqwest's own error and its causes for
/// Streamable HTTP (without rmcp's wrapper), else the error's chain.
fn transport_cause(inner: &(dyn std::error::Error + Send + Sync + 'static)) -> String {
    #[cfg(feature = "http")]
    {
        use rmcp::transport::streamable_http_client::StreamableHttpError;
        if let Some(StreamableHttpError::Client(e)) =
            inner.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            return crate::error::chain(e);
        }
    }
    crate::error::chain(inner)
}

/// An answer to `initialize` that rmcp could not read as its result, in
/// words: what it lacks (`serverInfo`, which MCP requires), not rmcp's
/// debug output of it.
fn not_an_initialize_result(answer: Option<&rmcp::model::ServerResult>) -> String {
    let Some(value) = answer.and_then(|a| serde_json::to_value(a).ok()) else {
        return "the server did not answer `initialize`".to_owned();
    };
    match serde_json::from_value::<rmcp::model::InitializeResult>(value) {
        Err(e) if e.to_string().contains("`serverInfo`") => "its `initialize` result has no `serverInfo` (the server's name and version, which MCP requires)".to_owned(),
        Err(e) => format!("its answer to `initialize` is not an `initialize` result ({e})"),
        Ok(_) => "its answer to `initialize` is not an `initialize` result".to_owned(),
    }
}

async fn connect_transport(
    name: &str,
    config: &ServerConfig,
    handler: &Handler,
    lifecycle: Lifecycle,
) -> std::result::Result<Session, ConnectFailure> {
    match &config.transport {
        #[cfg(feature = "stdio")]
        TransportConfig::Stdio {
            command,
            args,
            cwd,
            env,
            inherit_env,
            sandbox,
        } => {
            let spawn = stdio::Spawn {
                command,
                args,
                cwd: cwd.as_deref(),
                env,
                max_response_bytes: config.max_response_bytes,
                allow_commands: config.allow_commands.as_deref(),
                inherit_env: *inherit_env,
                sandbox: sandbox.as_ref(),
            };
            stdio::connect_stdio(name, &spawn, handler, lifecycle).await
        }
        #[cfg(feature = "http")]
        TransportConfig::StreamableHttp { url, headers } => {
            let oauth = oauth_session(name, config, handler).await?;
            http::connect_http(
                name,
                url,
                headers,
                config.max_response_bytes,
                handler,
                lifecycle,
                oauth,
            )
            .await
        }
        #[cfg(feature = "http")]
        TransportConfig::Sse { url, headers } => {
            http::connect_sse(
                name,
                url,
                headers,
                config.max_response_bytes,
                handler,
                lifecycle,
            )
            .await
        }
        #[cfg(not(feature = "stdio"))]
        TransportConfig::Stdio { .. } => Err(missing_feature(name, &config.transport).into()),
        #[cfg(not(feature = "http"))]
        TransportConfig::StreamableHttp { .. } | TransportConfig::Sse { .. } => {
            Err(missing_feature(name, &config.transport).into())
        }
        // The model's enum is `non_exhaustive`: a transport this version
        // does not know is refused, not guessed.
        _ => Err(ConnectFailure::Error(Error::Connect {
            server: name.to_owned(),
            reason: "a transport this version of mcpbind does not support".into(),
            stderr: None,
            cause: None,
        })),
    }
}

/// The OAuth session of a Streamable HTTP server with `auth` (signing in
/// from stored tokens, or in the browser hook).
#[cfg(feature = "http")]
async fn oauth_session(
    name: &str,
    config: &ServerConfig,
    handler: &Handler,
) -> std::result::Result<Option<http::OAuth>, ConnectFailure> {
    if config.auth.is_none() {
        return Ok(None);
    }
    #[cfg(feature = "auth")]
    {
        let browser = handler.hooks.browser.clone();
        fn expander(server: &str) -> Box<dyn mcpbind_auth::Expand + '_> {
            Box::new(secrets::Expander::new(server))
        }
        let session = mcpbind_auth::Session::connect(name, config, browser, expander)
            .await
            .map_err(Error::from)?;
        Ok(Some(session))
    }
    #[cfg(not(feature = "auth"))]
    {
        let _ = handler;
        Err(ConnectFailure::Error(Error::Feature {
            server: name.to_owned(),
            setting: "auth".into(),
            feature: "auth",
        }))
    }
}

/// A transport this build of mcpbind was compiled without: the error names
/// the cargo feature that adds it.
#[cfg(not(all(feature = "stdio", feature = "http")))]
fn missing_feature(name: &str, transport: &TransportConfig) -> Error {
    let (setting, feature) = match transport {
        TransportConfig::Stdio { .. } => ("command", "stdio"),
        TransportConfig::Sse { .. } => ("transport = \"sse\"", "http"),
        _ => ("url", "http"),
    };
    Error::Feature {
        server: name.to_owned(),
        setting: setting.into(),
        feature,
    }
}
