//! Making and keeping the connection: the constructors ([`Client::connect`],
//! [`Client::lazy`] and their variants), connecting on first use and again
//! after the connection was lost (under the circuit breaker, with the pins
//! checked again and, on a 2026-07-28 connection, its `subscriptions/listen`
//! stream opened), and forgetting a connection that closed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::lifecycle::{self, Activity, Live};
use super::{millis, pins, subscribe, Client, Shared};
use crate::breaker::Breaker;
use crate::clock::Clock;
use crate::connect::secrets::ServerSecrets;
use crate::connect::{connect, First, Handler, Session};
use crate::elicit::ClientHooks;
use crate::error::{Error, Result};
use crate::notices::Notices;
use mcpbind_model::config::{Config, ServerConfig};

impl Client {
    /// Connects to server `name` of `config`, with the default
    /// [`ClientHooks`] (elicitation answered by
    /// [`AcceptDefaults`](crate::elicit::AcceptDefaults)).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownServer`] when `name` is not in `config`, then those of
    /// [`Client::connect_server`].
    pub async fn connect(config: &Config, name: &str) -> Result<Client> {
        Client::connect_with(config, name, ClientHooks::default()).await
    }

    /// Connects to server `name` of `config`, answering what the server asks
    /// (elicitation, sampling, roots) with `hooks`.
    ///
    /// # Errors
    ///
    /// Those of [`Client::connect`].
    pub async fn connect_with(config: &Config, name: &str, hooks: ClientHooks) -> Result<Client> {
        let client = Client::lazy_with(name, configured(config, name)?, hooks);
        client.live().await?;
        Ok(client)
    }

    /// Connects to server `name` of `config` as [`Client::connect`] does,
    /// with the handshake its lockfile's protocol version `locked` calls
    /// for (a generated client passes its `PROTOCOL_VERSION`): on stdio
    /// and SSE, a server locked at 2026-07-28 is asked `server/discover`
    /// first, then `initialize` (on stdio on the same process, when the
    /// server does not answer it; on SSE after five seconds); one locked at an
    /// older version `initialize` first, on every transport. Streamable
    /// HTTP with a server locked at 2026-07-28 negotiates as that revision
    /// says (`server/discover` first).
    ///
    /// # Errors
    ///
    /// As [`Client::connect`]: the server is not in the config, or it could
    /// not be started or reached, or its handshake failed.
    pub async fn connect_locked(config: &Config, name: &str, locked: &str) -> Result<Client> {
        Client::connect_locked_with(config, name, locked, ClientHooks::default()).await
    }

    /// Refuses bindings generated under the `annotations` mode `bindings`
    /// when server `name` of `config` says another (what a generated
    /// client's `connect` checks first, starting nothing). A server not in
    /// `config` passes: connecting reports it.
    ///
    /// # Errors
    ///
    /// [`Error::AnnotationsMismatch`], naming the server, both modes and
    /// the fix.
    pub(crate) fn check_bindings(
        config: &Config,
        name: &str,
        bindings: mcpbind_model::config::Annotations,
    ) -> Result<()> {
        match config.servers.get(name) {
            Some(server) if server.annotations != bindings => Err(Error::AnnotationsMismatch {
                server: name.to_owned(),
                bindings,
                config: server.annotations,
            }),
            _ => Ok(()),
        }
    }

    /// [`Client::connect_locked`], answering what the server asks with
    /// `hooks`.
    ///
    /// # Errors
    ///
    /// As [`Client::connect_locked`].
    pub async fn connect_locked_with(
        config: &Config,
        name: &str,
        locked: &str,
        hooks: ClientHooks,
    ) -> Result<Client> {
        let server = configured(config, name)?;
        let client = Client::lazy_first(name, server, hooks, First::for_locked(locked));
        client.live().await?;
        Ok(client)
    }

    /// Connects to a server described by `config`, naming it `name` in errors.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for a `${VAR}` that is not set, [`Error::Spawn`],
    /// [`Error::Cwd`], [`Error::CommandNotAllowed`] or [`Error::Sandbox`] for a
    /// stdio server that cannot be started as configured, [`Error::Connect`],
    /// [`Error::Http`] or [`Error::Auth`] for one that cannot be reached,
    /// [`Error::ConnectTimeout`] when the handshake takes longer than
    /// `connect_timeout`, [`Error::Drift`] when a pinned tool changed under
    /// `pin_policy = "refuse"`.
    pub async fn connect_server(name: &str, config: ServerConfig) -> Result<Client> {
        let client = Client::lazy(name, config);
        client.live().await?;
        Ok(client)
    }

    /// Connects as [`Client::connect_server`] does, at the newest protocol
    /// revision the server speaks (what `mcpbind lock` records): on stdio,
    /// `server/discover` first, and `initialize` on the same process when
    /// the server does not answer it; on SSE, `server/discover` for up to
    /// five seconds, then `initialize`.
    ///
    /// # Errors
    ///
    /// As [`Client::connect_server`].
    pub async fn connect_server_newest(name: &str, config: ServerConfig) -> Result<Client> {
        Client::connect_server_as_locked(name, config, None).await
    }

    /// [`Client::connect_server_newest`] for a server the lockfile does not
    /// hold; for one it records at protocol version `locked`, the handshake
    /// that version calls for, as [`Client::connect_locked`] does. What
    /// `mcpbind lock` and `mcpbind check` do: the lockfile changes only
    /// when its server did.
    pub(crate) async fn connect_server_as_locked(
        name: &str,
        config: ServerConfig,
        locked: Option<&str>,
    ) -> Result<Client> {
        let first = locked.map_or(First::Discover, First::for_locked);
        let client = Client::lazy_first(name, config, ClientHooks::default(), first);
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
        Client::lazy_first(name, config, hooks, First::Initialize)
    }

    /// [`Client::lazy_with`], trying the handshake `first` first.
    fn lazy_first(name: &str, config: ServerConfig, hooks: ClientHooks, first: First) -> Client {
        let shared = Shared::new(name, &config, hooks, first, Clock::Wall);
        Client::of_parts(name, config, shared)
    }

    /// A client whose every connection (the first, and each after one was
    /// lost) is made in-process: `connect` gives one end of an in-memory
    /// stream (`tokio::io::duplex`), whose other end something serves (as
    /// `mcpbind-testing` serves a generated `Handler`). The client performs
    /// the handshake its lockfile's protocol version `locked` calls for
    /// (`server/discover` for 2026-07-28, else `initialize`), within
    /// `connect_timeout`, and from then on works as over stdio: pins,
    /// validation, events, timeouts, retries and approvals all apply.
    #[cfg(feature = "stdio")]
    pub fn in_process<F>(
        name: &str,
        config: ServerConfig,
        locked: &str,
        hooks: ClientHooks,
        connect: F,
    ) -> Client
    where
        F: Fn() -> tokio::io::DuplexStream + Send + Sync + 'static,
    {
        let first = First::for_locked(locked);
        let (server, timeout) = (Arc::<str>::from(name), config.connect_timeout);
        let connector: Connector = Box::new(move |handler| {
            let (server, stream) = (Arc::clone(&server), connect());
            Box::pin(async move {
                let attempt = crate::connect::connect_in_process(&server, stream, &handler, first);
                tokio::time::timeout(timeout, attempt)
                    .await
                    .unwrap_or_else(|_| {
                        Err(Error::ConnectTimeout {
                            server: server.to_string(),
                            timeout,
                        })
                    })
            })
        });
        let mut shared = Shared::new(name, &config, hooks, first, Clock::Wall);
        shared.connector = Some(connector);
        Client::of_parts(name, config, shared)
    }

    /// Test builds: a client on tokio's clock (which the test may pause)
    /// that connects with `connector` (in-process) instead of as `config`
    /// says.
    #[cfg(test)]
    pub(crate) fn with_connector(name: &str, config: ServerConfig, connector: Connector) -> Client {
        let mut shared = Shared::new(
            name,
            &config,
            ClientHooks::default(),
            First::Initialize,
            Clock::Tokio,
        );
        shared.connector = Some(connector);
        Client::of_parts(name, config, shared)
    }

    fn of_parts(name: &str, config: ServerConfig, shared: Shared) -> Client {
        let (config, shared) = (Arc::new(config), Arc::new(shared));
        Client::follow_list_changes(name, &config, &shared);
        Client {
            name: name.to_owned(),
            config,
            shared,
            timeout: None,
        }
    }

    /// Fails with [`Error::Shutdown`] once [`Client::shutdown`] has begun:
    /// new work is refused from then on.
    pub(super) fn open(&self) -> Result<()> {
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
    pub(super) async fn connection(&self) -> Result<Arc<Live>> {
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
        #[cfg(feature = "record-tap")]
        crate::internal::tap(self, crate::internal::Heard::Connect).await?;
        if slot.is_some() {
            tracing::info!(server = %self.name, "the connection was lost; reconnecting");
        }
        let _admission = self.shared.breaker.admit()?;
        let generation = self.shared.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let clock = self.shared.clock;
        let started = clock.now();
        // Boxed: connecting is rare and its future is large (~11 KB); inline,
        // it would be part of, and copied with, every call's future. (No
        // layer more around it: a generated client's `Send` is proven
        // through its type, which is deep already.)
        let connecting = self.connecting();
        match connecting.await {
            Ok(session) => {
                self.shared.breaker.success();
                tracing::info!(
                    server = %self.name,
                    transport = self.config.transport.kind(),
                    connection = generation,
                    duration_ms = millis(clock.since(started)),
                    "{}",
                    if generation > 1 { "reconnected" } else { "connected" }
                );
                let live = Arc::new(Live {
                    session: Arc::new(session),
                    generation,
                });
                *slot = Some(Arc::clone(&live));
                // Before the connection is used (and its pins checked
                // again): what changes from now on is heard. Boxed, as
                // `connect` is.
                let peer = live.session.service.peer().clone();
                Box::pin(self.listen_at_connect(&peer, generation > 1)).await;
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

    /// The connect future: the configured transport's, or the in-process
    /// connector's ([`Client::in_process`]).
    fn connecting(&self) -> futures::future::BoxFuture<'_, Result<Session>> {
        let handler = &self.shared.handler;
        match &self.shared.connector {
            Some(connector) => connector(handler.clone()),
            None => Box::pin(connect(
                &self.name,
                &self.config,
                handler,
                self.shared.first,
            )),
        }
    }

    /// The connection for a call: [`Client::live`], with the pins checked
    /// again when it is a new connection.
    pub(super) async fn session(&self) -> Result<Arc<Session>> {
        let live = self.connection().await?;
        if self.shared.pins_checked.load(Ordering::Acquire) < live.generation
            && self.pins_due(live.generation).is_some()
        {
            // Boxed for the same reason as `connect` in `connection`.
            Box::pin(self.recheck_pins(&live)).await?;
        }
        Ok(Arc::clone(&live.session))
    }

    /// Takes `live` out of the slot (if it is still there) and closes it.
    pub(super) async fn forget(&self, live: &Arc<Live>) {
        let taken = {
            let mut slot = self.shared.slot.lock().await;
            match slot.as_ref() {
                Some(current) if Arc::ptr_eq(current, live) => slot.take(),
                _ => None,
            }
        };
        if let Some(live) = taken {
            let clock = self.shared.clock;
            let grace = clock.now() + lifecycle::CLOSE_GRACE;
            lifecycle::close_session(&live.session, clock, grace).await;
        }
    }

    /// Forgets a closed session so that the next call reconnects.
    pub(super) async fn drop_session(&self, closed: &Arc<Session>) {
        let mut slot = self.shared.slot.lock().await;
        if slot
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(&s.session, closed))
        {
            *slot = None;
        }
    }

    /// Turns a lost connection into an error that says how the server ended.
    pub(super) async fn closed_error(&self, session: &Arc<Session>) -> Error {
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
}

impl Shared {
    fn new(
        name: &str,
        config: &ServerConfig,
        hooks: ClientHooks,
        first: First,
        clock: Clock,
    ) -> Shared {
        let lifecycle = &config.lifecycle;
        let notices = Notices::new(name, config.labelled_secrets(), clock);
        Shared {
            slot: tokio::sync::Mutex::new(None),
            breaker: Breaker::new(name, lifecycle, clock),
            limit: lifecycle
                .max_concurrent_calls
                .map(|n| tokio::sync::Semaphore::new(n.min(tokio::sync::Semaphore::MAX_PERMITS))),
            activity: Activity::new(clock),
            pins: Mutex::new(None),
            pins_checked: AtomicU64::new(u64::MAX),
            pin_gate: tokio::sync::Mutex::new(()),
            generation: AtomicU64::new(0),
            shut: AtomicBool::new(false),
            handler: Handler::new(name, hooks, notices),
            refused: pins::Refused::default(),
            entry_pins: pins::EntryPins::default(),
            live: pins::LiveListing::default(),
            subscriptions: subscribe::Subscriptions::default(),
            first,
            clock,
            connector: None,
        }
    }
}

/// Connects in-process (a session over an in-memory transport), or, in
/// the unit tests, fails as a test asks, in place of the configured
/// transport.
pub(crate) type Connector =
    Box<dyn Fn(Handler) -> futures::future::BoxFuture<'static, Result<Session>> + Send + Sync>;

/// Server `name` of `config`.
fn configured(config: &Config, name: &str) -> Result<ServerConfig> {
    config
        .servers
        .get(name)
        .cloned()
        .ok_or_else(|| Error::UnknownServer {
            server: name.to_owned(),
        })
}

/// The connection in `slot`, if it is open.
pub(super) fn open_in(slot: &Option<Arc<Live>>) -> Option<Arc<Live>> {
    slot.as_ref()
        .filter(|live| !live.session.service.peer().is_transport_closed())
        .cloned()
}
