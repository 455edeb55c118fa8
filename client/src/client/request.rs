//! One request and its answer: sending it, waiting for the answer under a
//! timeout that progress starts again and a total limit (on the process's
//! deadline thread, `clock/deadline.rs`), telling the server when the
//! client stops waiting (`notifications/cancelled`), and the errors of a
//! request (secrets hidden).

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{ClientRequest, ServerResult};
use rmcp::service::{PeerRequestOptions, RequestHandle};
use rmcp::{Peer, RoleClient, ServiceError};

use super::Client;
use crate::connect::secrets::ServerSecrets;
use crate::connect::Session;
use crate::error::{Error, Result};
use crate::notices::Watching;

/// How long to wait for one answer.
#[derive(Clone, Copy)]
pub(crate) struct Wait<'w> {
    /// Without hearing from the server.
    pub(super) timeout: Duration,
    /// At most until then, and `limit` is what that was.
    pub(super) until: Option<(Instant, Duration)>,
    /// The call's progress, which starts `timeout` again.
    pub(super) watch: Option<&'w Watching<'w>>,
}

impl Wait<'_> {
    /// Up to `timeout`, progress or not.
    pub(super) fn plain(timeout: Duration) -> Wait<'static> {
        Wait {
            timeout,
            until: None,
            watch: None,
        }
    }
}

/// A request sent and not yet answered. Dropped before its answer came (the
/// caller stopped waiting), it sends the server `notifications/cancelled`.
pub(super) struct Pending {
    handle: RequestHandle<RoleClient>,
    answered: bool,
    /// For a `tools/call` that creates a task: its client, to cancel the
    /// task the server may have created before it heard of the
    /// cancellation.
    creates_task: Option<Client>,
}

impl Pending {
    pub(super) fn new(handle: RequestHandle<RoleClient>) -> Self {
        Pending {
            handle,
            answered: false,
            creates_task: None,
        }
    }

    /// This request creates a task on `client`'s server: dropped before
    /// its answer came, it also cancels the task (`tasks/cancel`) if the
    /// answer, when it comes, created one. (A server may create the task
    /// and answer before `notifications/cancelled` reaches it; the task
    /// would then run on, as nobody polls it.)
    pub(super) fn creating_task(mut self, client: &Client) -> Self {
        self.creates_task = Some(client.clone());
        self
    }

    /// Waits for the answer (a dropped channel means the connection closed,
    /// as in rmcp).
    pub(super) async fn answer(&mut self) -> std::result::Result<ServerResult, ServiceError> {
        let answer = (&mut self.handle.rx).await;
        self.answered = true;
        answer.unwrap_or(Err(ServiceError::TransportClosed))
    }

    /// Sends `notifications/cancelled` now, with `reason`.
    pub(super) async fn cancel(mut self, reason: &str) {
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
        let task = self.creates_task.take().map(|client| {
            let (_, closed) = tokio::sync::oneshot::channel();
            (client, std::mem::replace(&mut self.handle.rx, closed))
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let param = rmcp::model::CancelledNotificationParam::new(
                    Some(id),
                    Some("the caller stopped waiting".into()),
                );
                let _ = peer.notify_cancelled(param).await;
                if let Some((client, answer)) = task {
                    client.cancel_late_task(answer).await;
                }
            });
        }
    }
}

impl Client {
    /// Sends one request (not retried) with the client's timeout and
    /// returns the server's result.
    /// An `input_required` answer (2026-07-28) is answered with the hooks
    /// and the request sent again ([`mrtr`]).
    pub(super) async fn request(
        &self,
        request: ClientRequest,
        method: &str,
    ) -> Result<ServerResult> {
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

    /// Sends a request; [`Client::await_handle`] waits for its answer
    /// (rmcp's own timeout is not used: see `clock/deadline.rs`).
    pub(super) async fn send(
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
    pub(super) async fn send_failed(
        &self,
        session: &Arc<Session>,
        method: &str,
        e: ServiceError,
    ) -> Error {
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
    pub(super) async fn await_handle(
        &self,
        session: &Arc<Session>,
        handle: RequestHandle<RoleClient>,
        method: &str,
        wait: Wait<'_>,
    ) -> Result<ServerResult> {
        self.await_pending(session, Pending::new(handle), method, wait)
            .await
    }

    /// [`await_handle`](Self::await_handle) of a [`Pending`] made already.
    pub(super) async fn await_pending(
        &self,
        session: &Arc<Session>,
        mut pending: Pending,
        method: &str,
        wait: Wait<'_>,
    ) -> Result<ServerResult> {
        let clock = self.shared.clock;
        let mut from = clock.now();
        let response = loop {
            let idle = crate::clock::later(from, wait.timeout);
            let at = match wait.until {
                Some((until, _)) => idle.min(until),
                None => idle,
            };
            tokio::select! {
                biased;
                response = pending.answer() => break response,
                () = clock.deadline(at) => {}
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
    pub(super) fn expired(&self, method: &str, wait: Wait<'_>, idle: bool) -> Error {
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

    pub(super) fn service_error(&self, method: &str, source: ServiceError) -> Error {
        Error::Service {
            server: self.name.clone(),
            method: method.to_owned(),
            source: Box::new(source),
        }
    }

    /// `error` with the config's secrets hidden in what the server wrote
    /// (an `isError` text, a JSON-RPC message, a stderr tail), in case it
    /// echoed one.
    pub(super) fn hide_secrets(&self, error: Error) -> Error {
        error.redacted(&self.config.secrets())
    }
}

/// Whether the connection negotiated a version with multi round-trip
/// requests (2026-07-28): only then may a server answer `input_required`,
/// and only then is a request kept to be sent again.
pub(super) fn speaks_mrtr(peer: &Peer<RoleClient>) -> bool {
    peer.peer_info()
        .is_some_and(|info| info.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28)
}

/// An error of a `tools/call`, naming its tool.
pub(super) fn with_tool(e: Error, method: &str, tool: &str) -> Error {
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
