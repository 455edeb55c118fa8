//! One process, both handshakes: how a stdio session opens when the newest
//! protocol is wanted (`mcpbind lock`, `mcpbind check` of a server not
//! locked at an older version, a client locked at 2026-07-28).
//!
//! `server/discover` and a `ping` are written at once. Which handshake is
//! kept then follows the order of the server's answers, never the clock:
//!
//! - a `server/discover` result naming a version mcpbind speaks without
//!   `initialize` opens the session, whenever it comes before the answer
//!   to `initialize`;
//! - any other answer to `server/discover` (an error, `{}`, only versions
//!   mcpbind does not speak), or an answer to the `ping` while
//!   `server/discover` has none (the server read past it in silence, as
//!   some servers before 2026-07-28 do), writes `initialize` on the same
//!   process, and its result opens the session.
//!
//! A server that answers neither gets `initialize` [`PROBE_BOUND`] after
//! its start. That sets when it is asked, not what is kept: a server reads
//! its input in order, so a dual-era one (rmcp's, the Python SDK 2.3's,
//! which lets the first request choose the era) reads `server/discover`
//! first however slow it is to start.
//!
//! rmcp then gets the transport through [`Replay`], which answers rmcp's
//! own handshake request with the server's answer, and drops the late
//! answers to the opening's other requests.
//!
//! [`PROBE_BOUND`]: super::PROBE_BOUND

use std::collections::VecDeque;
use std::future::Future;

use futures::future::Either;
use rmcp::model::{
    ClientConfig, ClientJsonRpcMessage, ClientRequest, DiscoverRequest, DiscoverRequestParams,
    ErrorData, InitializeRequest, JsonRpcMessage, PingRequest, RequestId, RequestMetaObject,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::ClientInitializeError;
use rmcp::transport::Transport;
use rmcp::RoleClient;
use tokio::time::Instant;

use super::{Lifecycle, DISCOVER_VERSIONS};

/// The opening's request ids: strings, which rmcp's own (numbers) never
/// are, so that a late answer is told from an answer to rmcp.
const DISCOVER: &str = "mcpbind-discover";
const PING: &str = "mcpbind-ping";
const INITIALIZE: &str = "mcpbind-initialize";

/// A handshake the server completed.
pub(super) struct Opened {
    /// [`Lifecycle::Discover`] or [`Lifecycle::Initialize`]: the handshake
    /// rmcp is to perform (answered by [`Replay`]).
    pub(super) lifecycle: Lifecycle,
    /// The server's answer to it.
    answer: ServerResult,
    /// What else the server sent meanwhile (log notifications, its own
    /// requests), for rmcp to read after the answer.
    early: VecDeque<ServerJsonRpcMessage>,
}

/// Why no handshake completed.
pub(super) enum Unopened {
    /// As rmcp's handshake fails: the server closed its stdout, a write
    /// failed, or `initialize` was answered with something else.
    /// (Boxed: the error is large beside the other variant.)
    Handshake(Box<ClientInitializeError>),
    /// The server refused both handshakes, in its words.
    Refused(String),
}

impl From<ClientInitializeError> for Unopened {
    fn from(e: ClientInitializeError) -> Self {
        Unopened::Handshake(Box::new(e))
    }
}

/// Why `initialize` was written.
enum Why {
    /// `server/discover` was answered, but not with a result mcpbind can
    /// use (the reason).
    Refused(String),
    /// `ping` was answered and `server/discover` not.
    PingFirst,
    /// Neither was answered within the bound.
    Deadline,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Refused(reason) => write!(f, "`server/discover` was refused: {reason}"),
            Why::PingFirst => f.write_str("the server answered `ping` and not `server/discover`"),
            Why::Deadline => write!(
                f,
                "no answer to `server/discover` or `ping` within {} s of the start",
                super::PROBE_BOUND.as_secs()
            ),
        }
    }
}

/// Where the opening is.
#[derive(Default)]
struct State {
    /// The reason `server/discover` was refused, once it was.
    discover_refused: Option<String>,
    /// Why `initialize` was written, once it was.
    initialize: Option<Why>,
    early: VecDeque<ServerJsonRpcMessage>,
}

/// What one message from the server leads to. (One at a time, moved
/// once: the server's answer is not worth a box.)
#[allow(clippy::large_enum_variant)]
enum Step {
    Opened(Lifecycle, ServerResult),
    SendInitialize(Why),
    Failed(Unopened),
    Wait,
}

/// Opens a session on `transport` as the module says; `bound` is when
/// `initialize` is written if the server has answered nothing.
pub(super) async fn open<T>(
    transport: &mut T,
    info: &ClientConfig,
    server: &str,
    bound: Instant,
) -> Result<Opened, Unopened>
where
    T: Transport<RoleClient> + 'static,
{
    send::<T>(
        transport,
        discover_request(info),
        DISCOVER,
        "send discover request",
    )
    .await?;
    let ping = ClientRequest::PingRequest(PingRequest {
        method: Default::default(),
        extensions: Default::default(),
    });
    send::<T>(transport, ping, PING, "send ping request").await?;
    let mut state = State::default();
    loop {
        let waiting = state.initialize.is_none();
        let message = tokio::select! {
            message = transport.receive() => message,
            () = tokio::time::sleep_until(bound), if waiting => {
                write_initialize(transport, info, server, &mut state, Why::Deadline).await?;
                continue;
            }
        };
        let Some(message) = message else {
            let awaited = match state.initialize {
                Some(_) => "initialize response",
                None => "discover response",
            };
            return Err(ClientInitializeError::ConnectionClosed(awaited.to_owned()).into());
        };
        match state.take(message) {
            Step::Opened(lifecycle, answer) => {
                let how = match &state.initialize {
                    Some(why) if lifecycle == Lifecycle::Initialize => {
                        format!("`initialize` ({why})")
                    }
                    _ => "`server/discover`".to_owned(),
                };
                tracing::debug!(server, "opened by {how}");
                return Ok(Opened {
                    lifecycle,
                    answer,
                    early: state.early,
                });
            }
            Step::SendInitialize(why) => {
                write_initialize(transport, info, server, &mut state, why).await?;
            }
            Step::Failed(unopened) => return Err(unopened),
            Step::Wait => {}
        }
    }
}

impl State {
    /// Takes one message from the server.
    fn take(&mut self, message: ServerJsonRpcMessage) -> Step {
        let (id, result) = match message {
            JsonRpcMessage::Response(response) => (Some(response.id), Ok(response.result)),
            JsonRpcMessage::Error(error) => (error.id, Err(error.error)),
            other => {
                self.early.push_back(other);
                return Step::Wait;
            }
        };
        // An error without an id answers the oldest request still open.
        let id = match &id {
            Some(RequestId::String(id)) => &**id,
            Some(_) => return Step::Wait,
            None if self.discover_refused.is_none() => DISCOVER,
            None => INITIALIZE,
        };
        match id {
            DISCOVER => self.discovered(result),
            PING if self.discover_refused.is_none() && self.initialize.is_none() => {
                Step::SendInitialize(Why::PingFirst)
            }
            INITIALIZE => self.initialized(result),
            _ => Step::Wait,
        }
    }

    fn discovered(&mut self, result: Result<ServerResult, ErrorData>) -> Step {
        let reason = match result {
            Ok(ServerResult::DiscoverResult(found)) => {
                if DISCOVER_VERSIONS
                    .iter()
                    .any(|v| found.supported_versions.contains(v))
                {
                    return Step::Opened(Lifecycle::Discover, ServerResult::DiscoverResult(found));
                }
                let versions: Vec<&str> = found
                    .supported_versions
                    .iter()
                    .map(|v| v.as_str())
                    .collect();
                format!(
                    "it supports {}, none of which mcpbind speaks without `initialize`",
                    versions.join(", ")
                )
            }
            Ok(_) => "its answer is not a `server/discover` result".to_owned(),
            Err(error) => format!("{} ({})", error.message, error.code.0),
        };
        self.discover_refused = Some(reason.clone());
        match self.initialize {
            None => Step::SendInitialize(Why::Refused(reason)),
            Some(_) => Step::Wait,
        }
    }

    fn initialized(&mut self, result: Result<ServerResult, ErrorData>) -> Step {
        let refused = match result {
            Ok(answer @ ServerResult::InitializeResult(_)) => {
                return Step::Opened(Lifecycle::Initialize, answer)
            }
            Ok(other) => {
                let e = ClientInitializeError::ExpectedInitResult(Some(other));
                return Step::Failed(e.into());
            }
            Err(error) => error.message.into_owned(),
        };
        let reason = match &self.discover_refused {
            Some(discover) => format!(
                "the server rejected `server/discover` ({discover}) and `initialize` ({refused})"
            ),
            None => format!(
                "the server did not answer `server/discover` and rejected `initialize` ({refused})"
            ),
        };
        Step::Failed(Unopened::Refused(reason))
    }
}

/// `server/discover` at the newest version mcpbind speaks, with the
/// client's context in its `_meta` (as rmcp sends it).
fn discover_request(info: &ClientConfig) -> ClientRequest {
    let meta = RequestMetaObject::with_client_context(
        DISCOVER_VERSIONS[0].clone(),
        info.client_info.clone(),
        info.capabilities.clone(),
    );
    let mut discover = DiscoverRequest::new(DiscoverRequestParams {});
    discover.extensions.insert(meta);
    ClientRequest::DiscoverRequest(discover)
}

async fn write_initialize<T>(
    transport: &mut T,
    info: &ClientConfig,
    server: &str,
    state: &mut State,
    why: Why,
) -> Result<(), ClientInitializeError>
where
    T: Transport<RoleClient> + 'static,
{
    tracing::debug!(server, "writing `initialize`: {why}");
    state.initialize = Some(why);
    let request = ClientRequest::InitializeRequest(InitializeRequest::new(info.clone()));
    send::<T>(transport, request, INITIALIZE, "send initialize request").await
}

async fn send<T>(
    transport: &mut T,
    request: ClientRequest,
    id: &str,
    context: &'static str,
) -> Result<(), ClientInitializeError>
where
    T: Transport<RoleClient> + 'static,
{
    let message = ClientJsonRpcMessage::request(request, RequestId::String(id.into()));
    transport
        .send(message)
        .await
        .map_err(|e| ClientInitializeError::transport::<T>(e, context))
}

/// The transport handed to rmcp once the server answered: rmcp's own
/// handshake request (of [`Opened::lifecycle`]) is answered with the
/// server's answer, without writing it; answers to the opening's requests
/// that come late are dropped. Everything else passes through.
pub(super) struct Replay<T> {
    inner: T,
    /// The answer for rmcp's handshake request, until it is sent.
    answer: Option<ServerResult>,
    /// Read before the transport: the answer, then what the server sent
    /// during the opening.
    queue: VecDeque<ServerJsonRpcMessage>,
}

impl<T> Replay<T> {
    pub(super) fn new(inner: T, opened: Opened) -> Replay<T> {
        Replay {
            inner,
            answer: Some(opened.answer),
            queue: opened.early,
        }
    }
}

/// Whether `message` answers one of the opening's requests.
fn answers_opening(message: &ServerJsonRpcMessage) -> bool {
    let id = match message {
        JsonRpcMessage::Response(response) => Some(&response.id),
        JsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    };
    matches!(id, Some(RequestId::String(id)) if [DISCOVER, PING, INITIALIZE].contains(&&**id))
}

impl<T> Transport<RoleClient> for Replay<T>
where
    T: Transport<RoleClient> + 'static,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item {
            let handshake = matches!(
                request.request,
                ClientRequest::InitializeRequest(_) | ClientRequest::DiscoverRequest(_)
            );
            if let Some(answer) = self.answer.take_if(|_| handshake) {
                let response = ServerJsonRpcMessage::response(answer, request.id.clone());
                self.queue.push_front(response);
                return Either::Left(std::future::ready(Ok(())));
            }
        }
        Either::Right(self.inner.send(item))
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        if let Some(message) = self.queue.pop_front() {
            return Some(message);
        }
        loop {
            let message = self.inner.receive().await?;
            if !answers_opening(&message) {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use rmcp::transport::async_rw::AsyncRwTransport;
    use serde_json::{json, Value};
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

    use super::*;
    use crate::clock::Clock;
    use crate::connect::{handshake, Handler, PROBE_BOUND};
    use crate::elicit::ClientHooks;
    use crate::notices::Notices;

    type Client = AsyncRwTransport<
        RoleClient,
        tokio::io::ReadHalf<tokio::io::DuplexStream>,
        tokio::io::WriteHalf<tokio::io::DuplexStream>,
    >;

    /// How the scripted server answers a method: its reply's `result` or
    /// `error` member, or silence.
    type Script = fn(&str) -> Option<Value>;

    /// A server on the other end of a pipe that starts reading after
    /// `start`, reads in order and answers as `script` says; the methods
    /// it read, in order, are in the second value.
    fn server(start: Duration, script: Script) -> (Client, Arc<Mutex<Vec<String>>>) {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (read, mut write) = tokio::io::split(theirs);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            if !start.is_zero() {
                tokio::time::sleep(start).await;
            }
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message: Value = serde_json::from_str(&line).unwrap();
                let method = message["method"].as_str().unwrap_or_default().to_owned();
                log.lock().unwrap().push(method.clone());
                let Some(mut reply) = message.get("id").and_then(|_| script(&method)) else {
                    continue;
                };
                reply["jsonrpc"] = json!("2.0");
                reply["id"] = message["id"].clone();
                let line = format!("{reply}\n");
                if write.write_all(line.as_bytes()).await.is_err() {
                    return;
                }
            }
        });
        let (read, write) = tokio::io::split(ours);
        (AsyncRwTransport::new(read, write), seen)
    }

    fn discover_result() -> Value {
        json!({"result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "both", "version": "1"}}
        }})
    }

    fn initialize_result() -> Value {
        json!({"result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "old", "version": "1"}
        }})
    }

    /// Answers both handshakes (as rmcp's servers do) and `ping`.
    fn dual_era(method: &str) -> Option<Value> {
        match method {
            "server/discover" => Some(discover_result()),
            "initialize" => Some(initialize_result()),
            "tools/list" => Some(json!({"result": {"tools": []}})),
            _ => Some(json!({"result": {}})),
        }
    }

    /// A server before 2026-07-28 that never answers a method it does not
    /// know.
    fn silent(method: &str) -> Option<Value> {
        match method {
            "initialize" => Some(initialize_result()),
            "ping" => Some(json!({"result": {}})),
            "tools/list" => Some(json!({"result": {"tools": []}})),
            _ => None,
        }
    }

    fn handler() -> Handler {
        let notices = Notices::new("s", Vec::new(), Clock::Tokio);
        Handler::new("s", ClientHooks::default(), notices)
    }

    /// Opens a session with the script; what it opened with, the methods
    /// the server read, and the (paused) time it took.
    async fn opened(
        start: Duration,
        script: Script,
    ) -> (Result<Opened, Unopened>, Vec<String>, Duration) {
        let (mut transport, seen) = server(start, script);
        let began = Instant::now();
        let info = rmcp::ClientHandler::get_info(&handler());
        let opened = open(&mut transport, &info, "s", began + PROBE_BOUND).await;
        let took = began.elapsed();
        // The server reads what was written before it answered.
        tokio::task::yield_now().await;
        let seen = seen.lock().unwrap().clone();
        (opened, seen, took)
    }

    fn lifecycle(opened: &Result<Opened, Unopened>) -> Lifecycle {
        match opened {
            Ok(opened) => opened.lifecycle,
            Err(Unopened::Refused(reason)) => panic!("refused: {reason}"),
            Err(Unopened::Handshake(e)) => panic!("{e}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_discover_result_opens_and_initialize_is_never_sent() {
        let (opened, seen, took) = opened(Duration::ZERO, dual_era).await;
        assert!(lifecycle(&opened) == Lifecycle::Discover);
        assert_eq!(seen, ["server/discover", "ping"]);
        assert_eq!(took, Duration::ZERO);
    }

    /// Silence on `server/discover` is known by the answer to `ping`, not
    /// by a clock: no time passes.
    #[tokio::test(start_paused = true)]
    async fn a_server_silent_on_discover_gets_initialize_once_it_answers_ping() {
        let (opened, seen, took) = opened(Duration::ZERO, silent).await;
        assert!(lifecycle(&opened) == Lifecycle::Initialize);
        assert_eq!(seen, ["server/discover", "ping", "initialize"]);
        assert_eq!(took, Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn an_error_or_empty_answer_to_discover_gets_initialize_at_once() {
        fn error(method: &str) -> Option<Value> {
            match method {
                "server/discover" => {
                    Some(json!({"error": {"code": -32601, "message": "Method not found"}}))
                }
                other => silent(other),
            }
        }
        fn empty(method: &str) -> Option<Value> {
            match method {
                "server/discover" => Some(json!({"result": {}})),
                other => silent(other),
            }
        }
        for script in [error as Script, empty] {
            let (opened, seen, took) = opened(Duration::ZERO, script).await;
            assert!(lifecycle(&opened) == Lifecycle::Initialize);
            assert_eq!(seen, ["server/discover", "ping", "initialize"]);
            assert_eq!(took, Duration::ZERO);
        }
    }

    /// A server that answers neither `server/discover` nor `ping` gets
    /// `initialize` at the bound, and no sooner.
    #[tokio::test(start_paused = true)]
    async fn a_server_that_answers_neither_gets_initialize_at_the_bound() {
        fn mute(method: &str) -> Option<Value> {
            (method == "initialize").then(initialize_result)
        }
        let (opened, seen, took) = opened(Duration::ZERO, mute).await;
        assert!(lifecycle(&opened) == Lifecycle::Initialize);
        assert_eq!(seen, ["server/discover", "ping", "initialize"]);
        assert_eq!(took, PROBE_BOUND);
    }

    /// A dual-era server slower to start than the bound gets `initialize`
    /// too, but reads `server/discover` first: what opens is the same as
    /// for a fast one.
    #[tokio::test(start_paused = true)]
    async fn a_dual_era_server_slower_than_the_bound_still_opens_by_discover() {
        let slow = PROBE_BOUND + Duration::from_secs(1);
        let (opened, seen, took) = opened(slow, dual_era).await;
        assert!(lifecycle(&opened) == Lifecycle::Discover);
        assert_eq!(seen, ["server/discover", "ping", "initialize"]);
        assert_eq!(took, slow);
    }

    #[tokio::test(start_paused = true)]
    async fn a_server_that_refuses_both_is_refused_in_its_words() {
        fn refusing(method: &str) -> Option<Value> {
            let message = format!("no {method} here");
            Some(json!({"error": {"code": -32601, "message": message}}))
        }
        let (opened, _, _) = opened(Duration::ZERO, refusing).await;
        let Err(Unopened::Refused(reason)) = opened else {
            panic!("not refused");
        };
        assert_eq!(
            reason,
            "the server rejected `server/discover` (no server/discover here (-32601)) and `initialize` (no initialize here)"
        );
    }

    /// rmcp performs its handshake on the answer the server gave, and the
    /// late answer to `ping` is not taken for an answer to rmcp.
    #[tokio::test(start_paused = true)]
    async fn rmcp_gets_the_answer_and_not_the_late_ones() {
        for (script, version) in [(dual_era as Script, "2026-07-28"), (silent, "2025-11-25")] {
            let (mut transport, seen) = server(Duration::ZERO, script);
            let handler = handler();
            let info = rmcp::ClientHandler::get_info(&handler);
            let bound = Instant::now() + PROBE_BOUND;
            let opened = open(&mut transport, &info, "s", bound).await.ok().unwrap();
            let lifecycle = opened.lifecycle;
            let service = handshake(Replay::new(transport, opened), &handler, lifecycle)
                .await
                .unwrap();
            let info = service.peer().peer_info().unwrap();
            assert_eq!(info.protocol_version.as_str(), version);
            let tools = service.peer().list_tools(None).await.unwrap();
            assert!(tools.tools.is_empty());
            let seen = seen.lock().unwrap().clone();
            // One handshake reached the server (and `initialized` after
            // `initialize`), then rmcp's request.
            let want: &[&str] = match version {
                "2026-07-28" => &["server/discover", "ping", "tools/list"],
                _ => &[
                    "server/discover",
                    "ping",
                    "initialize",
                    "notifications/initialized",
                    "tools/list",
                ],
            };
            assert_eq!(seen, want);
            service.cancel().await.unwrap();
        }
    }
}
