//! Resource subscriptions (`resources/subscribe`, `resources/unsubscribe`):
//! the server then sends `notifications/resources/updated` for the
//! resource, which reaches the bus as a
//! [`Notice::ResourceUpdated`](crate::notices::Notice::ResourceUpdated).
//!
//! A subscription belongs to a connection: the client remembers its
//! subscriptions (at most 1,024) and makes them again on a
//! new connection after one was lost.
//!
//! `resources/subscribe` is the way of every revision with an `initialize`
//! handshake. Revision 2026-07-28 replaced it with a `subscriptions/listen`
//! stream, whose filter names the resources and the lists whose changes
//! the client wants to hear (`notifications/tools/list_changed` and the
//! others reach a client in no other way). On a connection that negotiated
//! it, the client keeps one such stream open: from the connect on (and
//! again after each reconnect, before the pins are checked again) when the
//! server declares `listChanged` for its tools, prompts or resources (the
//! stream asks for those lists only), and for all its subscriptions. It is
//! opened anew (and the old one cancelled) when the subscriptions change,
//! and closed when nothing is left to ask for. Opening it at connect never
//! fails the connect: it is bounded by the call timeout, and a failure, or
//! a list the server's acknowledgment leaves out, is a tracing warning. Its
//! notifications wait in a bounded buffer ([`LISTEN_BUFFER`]) until they
//! reach the bus; a server that outruns it ends the stream, which is opened
//! again.

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
    /// [`Notice::ResourceUpdated`](crate::notices::Notice::ResourceUpdated). The
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
            let uris = accepted.resource_subscriptions.unwrap_or_default();
            if uris.iter().any(|u| u == uri) {
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
        Ok(speaks_listen(&self.server_info().await?))
    }

    /// Opens the connection's `subscriptions/listen` stream anew
    /// ([`Client::listen_on`]).
    async fn listen(&self) -> Result<SubscriptionFilter> {
        let peer = self.live().await?.session.service.peer().clone();
        self.listen_on(&peer).await
    }

    /// Opens a `subscriptions/listen` stream on `peer` for the lists whose
    /// changes the server declares and the resources subscribed to, in
    /// place of the one open (nothing to ask for: closes it); returns what
    /// the server acknowledged.
    async fn listen_on(&self, peer: &rmcp::Peer<rmcp::RoleClient>) -> Result<SubscriptionFilter> {
        let method = "subscriptions/listen";
        let filter = self.listen_filter(peer);
        if filter == SubscriptionFilter::default() {
            self.shared.subscriptions.replace(None);
            return Ok(filter);
        }
        let peer = peer.clone();
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
        let acknowledged = stream.acknowledged().clone();
        warn_left_out(&self.name, &filter, &acknowledged);
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
        Ok(acknowledged)
    }

    /// What a `subscriptions/listen` stream on `peer` asks for: the changes
    /// of each list the server declares `listChanged` for, and the
    /// resources subscribed to.
    fn listen_filter(&self, peer: &rmcp::Peer<rmcp::RoleClient>) -> SubscriptionFilter {
        let mut filter = SubscriptionFilter::new();
        if let Some(info) = peer.peer_info() {
            let declared = |flag: Option<bool>| flag.filter(|&on| on);
            let c = &info.capabilities;
            filter.tools_list_changed = declared(c.tools.as_ref().and_then(|t| t.list_changed));
            filter.prompts_list_changed = declared(c.prompts.as_ref().and_then(|p| p.list_changed));
            filter.resources_list_changed =
                declared(c.resources.as_ref().and_then(|r| r.list_changed));
        }
        let uris = self.shared.subscriptions.uris();
        if !uris.is_empty() {
            filter.resource_subscriptions = Some(uris);
        }
        filter
    }

    /// What a new connection begins with: on a 2026-07-28 one, its
    /// `subscriptions/listen` stream (for the lists the server declares
    /// `listChanged` for and the resources subscribed to), open before the
    /// connection is used; on an older one after a reconnect, the
    /// subscriptions made again. Never fails: bounded by the call timeout,
    /// a failure is a tracing warning.
    pub(super) async fn listen_at_connect(&self, peer: &rmcp::Peer<rmcp::RoleClient>, again: bool) {
        let modern = peer.peer_info().is_some_and(|info| speaks_listen(&info));
        if !modern {
            if again {
                self.resubscribe();
            }
            return;
        }
        if let Err(error) = self.listen_on(peer).await {
            tracing::warn!(server = %self.name, %error, "opening `subscriptions/listen` failed: the server's list changes and resource updates are not heard on this connection");
        }
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

    /// Makes the subscriptions again (`resources/subscribe`) on a new
    /// connection of a revision before 2026-07-28 (spawned: called while the
    /// connection slot is held).
    fn resubscribe(&self) {
        let uris = self.shared.subscriptions.uris();
        if uris.is_empty() {
            return;
        }
        let client = self.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                for uri in uris {
                    if let Err(error) = client.send_subscribe(&uri).await {
                        tracing::warn!(server = %client.name, uri, %error, "subscribing again after a reconnect failed");
                    }
                }
            });
        }
    }
}

/// Whether a connection to the server `info` describes speaks MCP
/// 2026-07-28, whose subscriptions go through `subscriptions/listen`.
fn speaks_listen(info: &rmcp::model::ServerPeerInfo) -> bool {
    info.protocol_version >= rmcp::model::ProtocolVersion::V_2026_07_28
}

/// Warns of each list whose changes `asked` asked for and the server's
/// acknowledgment left out: they are not heard on this stream.
fn warn_left_out(server: &str, asked: &SubscriptionFilter, acknowledged: &SubscriptionFilter) {
    let flags = [
        (
            "toolsListChanged",
            asked.tools_list_changed,
            acknowledged.tools_list_changed,
        ),
        (
            "promptsListChanged",
            asked.prompts_list_changed,
            acknowledged.prompts_list_changed,
        ),
        (
            "resourcesListChanged",
            asked.resources_list_changed,
            acknowledged.resources_list_changed,
        ),
    ];
    for (flag, asked, got) in flags {
        if asked == Some(true) && got != Some(true) {
            tracing::warn!(server, flag, "the server's `subscriptions/listen` acknowledgment left out `{flag}`: those changes are not heard while connected");
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
