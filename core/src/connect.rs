//! Connections to servers over rmcp: a child process on stdio, or
//! Streamable HTTP.
//!
//! For stdio, mcpbind spawns the process itself (rather than through rmcp's
//! `TokioChildProcess`) so that it can keep the tail of the server's stderr
//! for error messages, and tap the raw bytes of `tools/list` responses: the
//! lockfile stores tools exactly as the server sent them, unknown fields
//! included, which rmcp's typed `Tool` would drop.

use std::collections::{BTreeMap, VecDeque};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::model::ProtocolVersion;
use rmcp::model::{ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt as _};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::RoleClient;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, ReadBuf};
use tokio::process::{Child, Command};

mod http_tap;
mod sse;

use crate::config::{expand_vars, ServerConfig, TransportConfig};
use crate::error::{Error, Result};

/// How many bytes of a server's stderr are kept for error messages.
const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// The client side of the handshake: who we are.
#[derive(Clone)]
pub(crate) struct Handler;

impl rmcp::ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info = Implementation::new("mcpbind", env!("CARGO_PKG_VERSION"));
        info
    }
}

/// One live connection: the rmcp service, and the process behind it.
pub(crate) struct Session {
    pub(crate) service: RunningService<RoleClient, Handler>,
    pub(crate) process: Option<Process>,
    pub(crate) tap: Option<Arc<RawTap>>,
}

/// A server's child process. Dropping it kills the process; tokio reaps it.
pub(crate) struct Process {
    child: Mutex<Child>,
    stderr: Arc<Mutex<StderrTail>>,
}

impl Process {
    /// The last bytes the process wrote to stderr.
    pub(crate) fn stderr_tail(&self) -> Option<String> {
        let tail = self.stderr.lock().ok()?;
        let bytes: Vec<u8> = tail.buf.iter().copied().collect();
        (!bytes.is_empty()).then(|| String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The process id, while it runs.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.lock().ok()?.id()
    }

    /// How the process ended, if it has.
    pub(crate) fn exit_status(&self) -> Option<String> {
        let mut child = self.child.lock().ok()?;
        match child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }

    /// Waits briefly for the process to end, so that an error can say how it
    /// ended and what it last printed.
    pub(crate) async fn settle(&self) -> Option<String> {
        let mut status = None;
        for _ in 0..40 {
            status = status.or_else(|| self.exit_status());
            let drained = self.stderr.lock().map(|t| t.closed).unwrap_or(true);
            if status.is_some() && drained {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        status
    }
}

#[derive(Default)]
struct StderrTail {
    buf: VecDeque<u8>,
    /// The process closed its stderr (it exited, usually).
    closed: bool,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend(bytes);
        let excess = self.buf.len().saturating_sub(STDERR_TAIL_BYTES);
        self.buf.drain(..excess);
    }
}

/// Captures the raw `result` of JSON-RPC responses that carry `tools`, keyed
/// by request id, while armed.
#[derive(Default)]
pub(crate) struct RawTap {
    armed: AtomicBool,
    partial: Mutex<Vec<u8>>,
    results: Mutex<BTreeMap<String, Value>>,
}

impl RawTap {
    pub(crate) fn is_armed(&self) -> bool {
        self.armed.load(Ordering::SeqCst)
    }

    pub(crate) fn arm(&self, on: bool) {
        self.armed.store(on, Ordering::SeqCst);
        if !on {
            if let Ok(mut p) = self.partial.lock() {
                p.clear();
            }
        }
    }

    /// Takes the captured result of the response to request `id`.
    pub(crate) fn take(&self, id: &str) -> Option<Value> {
        self.results.lock().ok()?.remove(id)
    }

    fn feed(&self, bytes: &[u8]) {
        if !self.armed.load(Ordering::SeqCst) {
            return;
        }
        let Ok(mut partial) = self.partial.lock() else {
            return;
        };
        partial.extend_from_slice(bytes);
        while let Some(newline) = partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = partial.drain(..=newline).collect();
            self.record(&line);
        }
    }

    /// Records one JSON-RPC message body (a stdio line or an SSE event's data).
    pub(crate) fn record(&self, message: &[u8]) {
        let Ok(Value::Object(mut msg)) = serde_json::from_slice::<Value>(message) else {
            return;
        };
        let (Some(id), Some(result)) = (msg.remove("id"), msg.remove("result")) else {
            return;
        };
        if result.get("tools").is_some() {
            if let Ok(mut results) = self.results.lock() {
                results.insert(id_key(&id), result);
            }
        }
    }
}

/// The key under which a request id's response is captured.
pub(crate) fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A reader that hands every byte it reads to a [`RawTap`] as well.
struct TeeReader<R> {
    inner: R,
    tap: Arc<RawTap>,
}

impl<R: AsyncRead + Unpin> AsyncRead for TeeReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll {
            self.tap.feed(&buf.filled()[before..]);
        }
        poll
    }
}

/// Connects to a server and performs the MCP handshake.
pub(crate) async fn connect(name: &str, config: &ServerConfig) -> Result<Session> {
    // A server that never answers `initialize` must not hang the caller;
    // dropping the attempt kills a child process.
    let attempt = async {
        match connect_transport(name, config, Lifecycle::Initialize).await {
            // A 2026-07-28 server may answer only `server/discover`.
            Err(Error::Connect { reason, .. }) if reason.starts_with(REJECTED) => {
                connect_transport(name, config, Lifecycle::Discover)
                    .await
                    .map_err(|e| match e {
                        Error::Connect {
                            server,
                            reason: discover,
                            stderr,
                        } => Error::Connect {
                            server,
                            reason: format!("{reason}; and server/discover failed too: {discover}"),
                            stderr,
                        },
                        other => other,
                    })
            }
            other => other,
        }
    };
    match tokio::time::timeout(config.connect_timeout, attempt).await {
        Ok(result) => result,
        Err(_) => Err(Error::Connect {
            server: name.to_owned(),
            reason: format!(
                "no answer to the MCP handshake within {}s (raise `connect_timeout` if the server is just slow to start)",
                config.connect_timeout.as_secs_f64()
            ),
            stderr: None,
        }),
    }
}

/// Which handshake to use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lifecycle {
    /// `initialize` / `notifications/initialized` (2024-11-05 to 2025-11-25,
    /// and most 2026-07-28 servers).
    Initialize,
    /// `server/discover` with per-request metadata (2026-07-28).
    Discover,
}

/// How a connect error starts when the server answered `initialize` with a
/// JSON-RPC error, so that [`connect`] tries `server/discover` instead.
const REJECTED: &str = "the server rejected `initialize`";

/// The MCP handshake over a transport. rmcp's `Auto` lifecycle is not used:
/// it probes `server/discover` first and waits 10 s for servers that ignore
/// unknown methods.
///
/// An error is the reason for [`Error::Connect`], prefixed with `url` (for
/// HTTP transports) unless it is the rejection [`connect`] retries on.
async fn handshake<T, E, A>(
    transport: T,
    lifecycle: Lifecycle,
    url: Option<&str>,
) -> std::result::Result<RunningService<RoleClient, Handler>, String>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mode = match lifecycle {
        Lifecycle::Initialize => ClientLifecycleMode::Initialize,
        Lifecycle::Discover => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    };
    Handler
        .serve_with_lifecycle(transport, mode)
        .await
        .map_err(|e| match e {
            ClientInitializeError::JsonRpcError(error) if lifecycle == Lifecycle::Initialize => {
                format!("{REJECTED} ({})", error.message)
            }
            other => match url {
                Some(url) => format!("{url}: {other}"),
                None => other.to_string(),
            },
        })
}

async fn connect_transport(
    name: &str,
    config: &ServerConfig,
    lifecycle: Lifecycle,
) -> Result<Session> {
    match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            cwd,
            env,
        } => connect_stdio(name, command, args, cwd.as_deref(), env, lifecycle).await,
        TransportConfig::StreamableHttp { url, headers } => {
            connect_http(name, url, headers, lifecycle).await
        }
        TransportConfig::Sse { url, headers } => connect_sse(name, url, headers, lifecycle).await,
    }
}

async fn connect_stdio(
    name: &str,
    command: &str,
    args: &[String],
    cwd: Option<&std::path::Path>,
    env: &BTreeMap<String, String>,
    lifecycle: Lifecycle,
) -> Result<Session> {
    let command = expand_vars(name, command)?;
    let mut cmd = Command::new(&command);
    for arg in args {
        cmd.arg(expand_vars(name, arg)?);
    }
    for (key, value) in env {
        cmd.env(key, expand_vars(name, value)?);
    }
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|source| Error::Spawn {
        server: name.to_owned(),
        command: command.clone(),
        source,
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three streams were piped");
    };

    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let sink = Arc::clone(&tail);
    tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(stderr).split(b'\n');
        while let Ok(Some(mut line)) = lines.next_segment().await {
            line.push(b'\n');
            if let Ok(mut t) = sink.lock() {
                t.push(&line);
            }
        }
        if let Ok(mut t) = sink.lock() {
            t.closed = true;
        }
    });
    let process = Process {
        child: Mutex::new(child),
        stderr: tail,
    };

    let tap = Arc::new(RawTap::default());
    let reader = TeeReader {
        inner: stdout,
        tap: Arc::clone(&tap),
    };
    match handshake((reader, stdin), lifecycle, None).await {
        Ok(service) => Ok(Session {
            service,
            process: Some(process),
            tap: Some(tap),
        }),
        Err(e) => {
            let exit = process.settle().await;
            let reason = match exit {
                _ if e.starts_with(REJECTED) => e,
                Some(status) => format!("the process exited during the handshake ({status})"),
                None => e,
            };
            Err(Error::Connect {
                server: name.to_owned(),
                reason,
                stderr: process.stderr_tail(),
            })
        }
    }
}

/// The config's headers with `${VAR}`s expanded, as HTTP headers.
fn expand_headers(
    name: &str,
    headers: &BTreeMap<String, String>,
) -> Result<Vec<(http::HeaderName, http::HeaderValue)>> {
    headers
        .iter()
        .map(|(key, value)| {
            let value = expand_vars(name, value)?;
            let bad = |what: &str| Error::Connect {
                server: name.to_owned(),
                reason: format!("invalid header {what} `{key}`"),
                stderr: None,
            };
            let header = http::HeaderName::from_bytes(key.as_bytes()).map_err(|_| bad("name"))?;
            // The value may hold a secret: it is not repeated in the error.
            let value = http::HeaderValue::from_str(&value).map_err(|_| bad("value for"))?;
            Ok((header, value))
        })
        .collect()
}

async fn connect_sse(
    name: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    lifecycle: Lifecycle,
) -> Result<Session> {
    let url = expand_vars(name, url)?;
    let map = expand_headers(name, headers)?.into_iter().collect();
    let connect_error = |reason: String| Error::Connect {
        server: name.to_owned(),
        reason,
        stderr: None,
    };
    let tap = Arc::new(RawTap::default());
    let transport = sse::SseTransport::open(&url, map, Arc::clone(&tap))
        .await
        .map_err(connect_error)?;
    let service = handshake(transport, lifecycle, Some(&url))
        .await
        .map_err(connect_error)?;
    Ok(Session {
        service,
        process: None,
        tap: Some(tap),
    })
}

async fn connect_http(
    name: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    lifecycle: Lifecycle,
) -> Result<Session> {
    let url = expand_vars(name, url)?;
    let mut custom = std::collections::HashMap::new();
    let mut auth = None;
    for (header, value) in expand_headers(name, headers)? {
        // rmcp sends the bearer token itself (and uses it for auth retries).
        let bearer = value.to_str().ok().and_then(|v| v.strip_prefix("Bearer "));
        match bearer {
            Some(token) if header == http::header::AUTHORIZATION => auth = Some(token.to_owned()),
            _ => {
                custom.insert(header, value);
            }
        }
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
    config.custom_headers = custom;
    config.auth_header = auth;
    let tap = Arc::new(RawTap::default());
    let client = http_tap::TapClient {
        inner: reqwest::Client::new(),
        tap: Arc::clone(&tap),
    };
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let service = handshake(transport, lifecycle, Some(&url))
        .await
        .map_err(|reason| Error::Connect {
            server: name.to_owned(),
            reason,
            stderr: None,
        })?;
    Ok(Session {
        service,
        process: None,
        tap: Some(tap),
    })
}
