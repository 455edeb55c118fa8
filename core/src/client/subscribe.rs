//! Resource subscriptions (`resources/subscribe`, `resources/unsubscribe`):
//! the server then sends `notifications/resources/updated` for the
//! resource, which reaches the bus as a
//! [`Notice::ResourceUpdated`](crate::Notice::ResourceUpdated).
//!
//! A subscription belongs to a connection: the client remembers its
//! subscriptions (at most 1,024) and makes them again on a
//! new connection after one was lost.
//!
//! `resources/subscribe` is the way of every revision with an `initialize`
//! handshake. Revision 2026-07-28 replaced it with a `subscriptions/listen`
//! stream, whose filter names the resources: on a connection that
//! negotiated it, the client keeps one such stream open for all its
//! subscriptions, opened anew (and the old one cancelled) when they change
//! or the connection is made again. Its notifications wait in a bounded
//! buffer ([`LISTEN_BUFFER`]) until they reach the bus; a server that
//! outruns it ends the stream, which is opened again.

// `resources/subscribe` is legacy-only in rmcp since 2026-07-28 (above).
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientRequest, ServerNotification, ServerResult, SubscribeRequest, SubscribeRequestParams,
    SubscriptionFilter, UnsubscribeRequest, UnsubscribeRequestParams,
};
use rmcp::service::{Subscription, SubscriptionEnd};
use rmcp::ServiceError;

use super::Client;
use crate::error::{Error, Result};
use crate::notices::{ListKind, Notices, MAX_URI_BYTES};

/// How many resources one client may be subscribed to at once.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// How many notifications of a `subscriptions/listen` stream wait to reach
/// the bus.
pub(crate) const LISTEN_BUFFER: usize = 64;

/// How many times in a row a `subscriptions/listen` stream that a server
/// outran is opened again.
const MAX_REOPENS: u32 = 8;

/// The URIs a client is subscribed to, and on a 2026-07-28 connection, the
/// task that drains its `subscriptions/listen` stream.
#[derive(Default)]
pub(super) struct Subscriptions {
    uris: Mutex<BTreeSet<String>>,
    /// Aborted (which drops, and so cancels, the stream) when another
    /// stream replaces it, or the client goes.
    listening: Mutex<Option<tokio::task::AbortHandle>>,
}

impl Subscriptions {
    fn uris(&self) -> Vec<String> {
        let uris = self.uris.lock().unwrap_or_else(|e| e.into_inner());
        uris.iter().cloned().collect()
    }

    /// `task` drains the stream now; the one before ends.
    fn replace(&self, task: Option<tokio::task::AbortHandle>) {
        let old = {
            let mut listening = self.listening.lock().unwrap_or_else(|e| e.into_inner());
            std::mem::replace(&mut *listening, task)
        };
        if let Some(old) = old {
            old.abort();
        }
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        self.replace(None);
    }
}

impl Client {
    /// Subscribes to a resource (`resources/subscribe`; on a 2026-07-28
    /// connection, a `subscriptions/listen` stream naming it and the
    /// others subscribed to): the server then says when it is updated, and
    /// each update reaches the bus
    /// ([`subscribe_notices`](crate::notices::subscribe)) as a
    /// [`Notice::ResourceUpdated`](crate::Notice::ResourceUpdated). The
    /// subscription is made again after a reconnect.
    ///
    /// # Errors
    ///
    /// The server declares no `resources.subscribe` capability, the URI is
    /// longer than 8 KiB, the client holds 1,024 subscriptions already,
    /// the request failed, or (2026-07-28) the server left the resource out
    /// of its acknowledgment.
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        let refused = |reason: String| Error::Refused {
            server: self.name.clone(),
            reason,
        };
        let supported = self
            .has_capability(|c| {
                c.resources
                    .as_ref()
                    .is_some_and(|r| r.subscribe == Some(true))
            })
            .await?;
        if !supported {
            return Err(refused(format!(
                "resource `{uri}` can't be subscribed to: the server declares no `resources.subscribe` capability"
            )));
        }
        if uri.len() > MAX_URI_BYTES {
            return Err(refused(format!(
                "a resource URI of {} bytes can't be subscribed to (at most {MAX_URI_BYTES})",
                uri.len()
            )));
        }
        {
            let held = self.held();
            if held.len() >= MAX_SUBSCRIPTIONS && !held.contains(uri) {
                return Err(refused(format!(
                    "resource `{uri}` can't be subscribed to: the client holds {MAX_SUBSCRIPTIONS} subscriptions already"
                )));
            }
        }
        if !self.listens().await? {
            self.send_subscribe(uri).await?;
            self.held().insert(uri.to_owned());
            return Ok(());
        }
        let new = self.held().insert(uri.to_owned());
        let listened = self.listen().await.and_then(|accepted| {
            if accepted.iter().any(|u| u == uri) {
                Ok(())
            } else {
                Err(refused(format!(
                    "resource `{uri}` can't be subscribed to: the server's `subscriptions/listen` acknowledgment left it out"
                )))
            }
        });
        if listened.is_err() && new {
            self.held().remove(uri);
        }
        listened
    }

    fn held(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        let uris = &self.shared.subscriptions.uris;
        uris.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the connection speaks MCP 2026-07-28, whose subscriptions
    /// go through `subscriptions/listen`.
    async fn listens(&self) -> Result<bool> {
        Ok(
            self.server_info().await?.protocol_version
                >= rmcp::model::ProtocolVersion::V_2026_07_28,
        )
    }

    /// Opens a `subscriptions/listen` stream for the resources subscribed
    /// to (none: closes it), in place of the one open; returns the URIs
    /// the server acknowledged.
    async fn listen(&self) -> Result<Vec<String>> {
        let method = "subscriptions/listen";
        let uris = self.shared.subscriptions.uris();
        if uris.is_empty() {
            self.shared.subscriptions.replace(None);
            return Ok(Vec::new());
        }
        let peer = self.live().await?.session.service.peer().clone();
        let mut filter = SubscriptionFilter::new();
        filter.resource_subscriptions = Some(uris);
        let timeout = self.timeout();
        let stream = match open(&peer, filter.clone(), timeout).await {
            Ok(Some(stream)) => stream,
            Ok(None) => {
                return Err(Error::Timeout {
                    server: self.name.clone(),
                    method: method.to_owned(),
                    tool: None,
                    timeout,
                })
            }
            Err(e) => return Err(self.service_error(method, e)),
        };
        let accepted = stream
            .acknowledged()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        let notices = Arc::clone(&self.shared.handler.notices);
        let name = self.name.clone();
        let task = tokio::spawn(async move {
            let (mut stream, mut reopens) = (stream, 0);
            loop {
                let end = drain(stream, &notices).await;
                match end {
                    // Outrun by the server: opened again (boundedly, so
                    // that a server that always outruns it is let go).
                    Some(SubscriptionEnd::Lagged { capacity }) if reopens < MAX_REOPENS => {
                        reopens += 1;
                        tracing::warn!(server = %name, capacity, "the server outran the `subscriptions/listen` stream; opening it again");
                        match open(&peer, filter.clone(), timeout).await {
                            Ok(Some(again)) => stream = again,
                            _ => {
                                tracing::warn!(server = %name, "opening `subscriptions/listen` again failed");
                                return;
                            }
                        }
                    }
                    Some(SubscriptionEnd::Cancelled) => return,
                    end => {
                        tracing::warn!(server = %name, ?end, "the `subscriptions/listen` stream ended");
                        return;
                    }
                }
            }
        });
        self.shared.subscriptions.replace(Some(task.abort_handle()));
        Ok(accepted)
    }

    /// Ends a subscription (`resources/unsubscribe`; on a 2026-07-28
    /// connection, the `subscriptions/listen` stream is opened anew
    /// without it, or closed when it was the last).
    ///
    /// # Errors
    ///
    /// The request failed (the subscription is forgotten all the same).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.held().remove(uri);
        if self.listens().await? {
            return self.listen().await.map(|_| ());
        }
        let method = "resources/unsubscribe";
        let params = UnsubscribeRequestParams::new(uri);
        let request = ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(params));
        match self.request(request, method).await? {
            ServerResult::EmptyResult(_) => Ok(()),
            _ => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
        }
    }

    /// The resources this client is subscribed to, by URI.
    pub fn subscribed_resources(&self) -> Vec<String> {
        self.shared.subscriptions.uris()
    }

    async fn send_subscribe(&self, uri: &str) -> Result<()> {
        let method = "resources/subscribe";
        let params = SubscribeRequestParams::new(uri);
        let request = ClientRequest::SubscribeRequest(SubscribeRequest::new(params));
        match self.request(request, method).await? {
            ServerResult::EmptyResult(_) => Ok(()),
            _ => Err(self.service_error(method, ServiceError::UnexpectedResponse)),
        }
    }

    /// Makes the subscriptions again on a new connection (spawned: called
    /// while the connection slot is held).
    pub(super) fn resubscribe(&self) {
        let uris = self.shared.subscriptions.uris();
        if uris.is_empty() {
            return;
        }
        let client = self.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if client.listens().await.unwrap_or(false) {
                    if let Err(error) = client.listen().await {
                        tracing::warn!(server = %client.name, %error, "listening again after a reconnect failed");
                    }
                    return;
                }
                for uri in uris {
                    if let Err(error) = client.send_subscribe(&uri).await {
                        tracing::warn!(server = %client.name, uri, %error, "subscribing again after a reconnect failed");
                    }
                }
            });
        }
    }
}

/// Opens a `subscriptions/listen` stream with `filter`; `None` when it
/// was not acknowledged within `timeout`.
async fn open(
    peer: &rmcp::Peer<rmcp::RoleClient>,
    filter: SubscriptionFilter,
    timeout: std::time::Duration,
) -> std::result::Result<Option<Subscription>, ServiceError> {
    let capacity = NonZeroUsize::new(LISTEN_BUFFER).unwrap_or(NonZeroUsize::MIN);
    match tokio::time::timeout(timeout, peer.listen_with_capacity(filter, capacity)).await {
        Ok(stream) => stream.map(Some),
        Err(_) => Ok(None),
    }
}

/// Hands each notification of `stream` to the bus until it ends; returns
/// how it ended.
async fn drain(mut stream: Subscription, notices: &Notices) -> Option<SubscriptionEnd> {
    loop {
        match stream.next().await {
            Ok(Some(ServerNotification::ResourceUpdatedNotification(n))) => {
                notices.resource_updated(&n.params.uri);
            }
            Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                notices.list_changed(ListKind::Tools);
            }
            Ok(Some(ServerNotification::PromptListChangedNotification(_))) => {
                notices.list_changed(ListKind::Prompts);
            }
            Ok(Some(ServerNotification::ResourceListChangedNotification(_))) => {
                notices.list_changed(ListKind::Resources);
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return stream.end().cloned(),
        }
    }
}
