//! [`Client`]: one server's connection, with typed and raw calls.
//!
//! A `Client` is a cheap handle: its clones share one connection, its
//! circuit breaker and its concurrency limit. [`Client::with_timeout`] makes
//! a view whose calls have another timeout. This file holds the type and
//! what it says of itself; the rest is one concern per file:
//!
//! | file | concern |
//! | --- | --- |
//! | `client/connection.rs` | construction, connecting and reconnecting |
//! | `client/lifecycle.rs` | idle connections, shutdown |
//! | `client/request.rs` | one request: send, wait (timeout, progress, total limit), cancel |
//! | `client/call.rs` | raw tool calls: options, retries, attempts |
//! | `client/typed.rs` | typed tool calls: input and output checked and parsed |
//! | `client/task.rs` | calls that run as tasks |
//! | `client/mrtr.rs` | multi round-trip requests (2026-07-28) |
//! | `client/listing.rs` | listing tools, prompts, templates, resources |
//! | `client/prompts.rs` | prompts, resource reads, completions |
//! | `client/skills.rs` | listing and loading skills (feature `skills`) |
//! | `client/pins.rs` | pins: at connect, after a reconnect, on list changes |
//! | `client/subscribe.rs` | resource subscriptions |

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ClientRequest, ServerPeerInfo};

use crate::breaker::Breaker;
use crate::call::ToolResult;
use crate::clock::Clock;
use crate::connect::Handler;
use crate::error::{Error, Result};
use mcpbind_model::config::ServerConfig;

mod call;
mod connection;
mod lifecycle;
mod listing;
mod mrtr;
pub(crate) mod pins;
mod prompts;
mod request;
#[cfg(feature = "skills")]
mod skills;
mod subscribe;
mod task;
#[cfg(all(test, feature = "stdio"))]
mod tests;
mod typed;

pub use call::CallOptions;
use call::Plan;
use connection::open_in;
pub use lifecycle::Closed;
use lifecycle::{Activity, Live};
use request::Wait;
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
/// call, and the pins given to [`Client::check_pins`] (and to
/// [`Client::check_prompt_pins`] and
/// [`Client::check_resource_template_pins`]) are checked again on the new
/// connection. Dropping the last clone closes the connection and
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
    pins: Mutex<Option<pins::Pins>>,
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
    /// The handshake tried first on stdio and SSE, on every (re)connect.
    first: crate::connect::First,
    /// What timeouts, backoff, the breaker, task polling and idle
    /// connections read the time from (`crate::clock`).
    clock: Clock,
    /// How an in-process client connects instead of as configured.
    connector: Option<connection::Connector>,
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

impl Client {
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
    ///
    /// # Errors
    ///
    /// Those of connecting ([`Client::connect`]), when the client was not
    /// connected yet.
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
                cause: None,
            })
    }

    /// Sends an MCP `ping` (connecting first if needed) and returns how long
    /// the answer took.
    ///
    /// # Errors
    ///
    /// Those of connecting, and a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with.
    pub async fn ping(&self) -> Result<Duration> {
        let session = self.live().await?.session.clone();
        let peer = session.service.peer().clone();
        let clock = self.shared.clock;
        let started = clock.now();
        let request = ClientRequest::PingRequest(Default::default());
        let handle = self.send(&session, &peer, request, "ping").await?;
        self.await_handle(&session, handle, "ping", Wait::plain(self.timeout()))
            .await?;
        self.shared.breaker.success();
        Ok(clock.since(started))
    }

    /// Closes the connection gracefully (for a process: closes its stdin
    /// and gives it a moment to exit, then kills it). It is closed for every
    /// clone: their calls fail with [`Error::Shutdown`].
    pub async fn close(self) {
        self.shutdown(lifecycle::CLOSE_GRACE).await;
    }
}

fn millis(d: Duration) -> u64 {
    d.as_millis().try_into().unwrap_or(u64::MAX)
}
