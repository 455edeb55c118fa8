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
//! handshake (what mcpbind offers). Revision 2026-07-28 replaced it with a
//! `subscriptions/listen` stream, which mcpbind does not open yet: on a
//! connection that negotiated it, subscribing is refused with an error that
//! says so.

// `resources/subscribe` is legacy-only in rmcp since 2026-07-28 (above).
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::Mutex;

use rmcp::model::{
    ClientRequest, ServerResult, SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest,
    UnsubscribeRequestParams,
};
use rmcp::ServiceError;

use super::Client;
use crate::error::{Error, Result};
use crate::notices::MAX_URI_BYTES;

/// How many resources one client may be subscribed to at once.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 1024;

/// The URIs a client is subscribed to.
#[derive(Default)]
pub(super) struct Subscriptions(Mutex<BTreeSet<String>>);

impl Subscriptions {
    fn uris(&self) -> Vec<String> {
        let uris = self.0.lock().unwrap_or_else(|e| e.into_inner());
        uris.iter().cloned().collect()
    }
}

impl Client {
    /// Subscribes to a resource (`resources/subscribe`): the server then
    /// says when it is updated, and each update reaches the bus
    /// ([`subscribe_notices`](crate::notices::subscribe)) as a
    /// [`Notice::ResourceUpdated`](crate::Notice::ResourceUpdated). The
    /// subscription is made again after a reconnect.
    ///
    /// # Errors
    ///
    /// The server declares no `resources.subscribe` capability, the URI is
    /// longer than 8 KiB, the client holds 1,024 subscriptions already,
    /// or the request failed.
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
        let modern = self.server_info().await?.protocol_version
            >= rmcp::model::ProtocolVersion::V_2026_07_28;
        if modern {
            return Err(refused(format!(
                "resource `{uri}` can't be subscribed to: the connection speaks MCP 2026-07-28, where subscriptions go through `subscriptions/listen`, which mcpbind does not open yet"
            )));
        }
        if uri.len() > MAX_URI_BYTES {
            return Err(refused(format!(
                "a resource URI of {} bytes can't be subscribed to (at most {MAX_URI_BYTES})",
                uri.len()
            )));
        }
        {
            let held = self
                .shared
                .subscriptions
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if held.len() >= MAX_SUBSCRIPTIONS && !held.contains(uri) {
                return Err(refused(format!(
                    "resource `{uri}` can't be subscribed to: the client holds {MAX_SUBSCRIPTIONS} subscriptions already"
                )));
            }
        }
        self.send_subscribe(uri).await?;
        let mut held = self
            .shared
            .subscriptions
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        held.insert(uri.to_owned());
        Ok(())
    }

    /// Ends a subscription (`resources/unsubscribe`).
    ///
    /// # Errors
    ///
    /// The request failed (the subscription is forgotten all the same).
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        {
            let mut held = self
                .shared
                .subscriptions
                .0
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            held.remove(uri);
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
                for uri in uris {
                    if let Err(error) = client.send_subscribe(&uri).await {
                        tracing::warn!(server = %client.name, uri, %error, "subscribing again after a reconnect failed");
                    }
                }
            });
        }
    }
}
