//! Streamable HTTP and legacy SSE connections (the `http` feature): a
//! server's URL and headers expanded, rmcp's Streamable HTTP transport over
//! the tapped reqwest client, or the SSE transport, and a failed handshake
//! told in words (an OAuth refusal as one, with the `auth` feature).

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;

use super::secrets::Expander;
use super::{
    classify, describe, handshake, http_client, http_tap, sse, tap, ConnectFailure, Handler,
    Lifecycle, RawTap, Session,
};
use crate::error::{Error, Redacted, Result};
use crate::redact::redact;

/// The OAuth session of a server with `auth` (the `auth` feature; without
/// it, no server has one).
#[cfg(feature = "auth")]
pub(super) type OAuth = mcpbind_auth::Session;
#[cfg(not(feature = "auth"))]
pub(super) enum OAuth {}

/// How a server that predates `server/discover` may refuse it at the HTTP
/// level, with a status and a body that is no JSON-RPC error (which rmcp
/// would have read as the rejection it is): `HTTP 400 Bad Request` (no
/// session yet), `404`, `405`. Authorization (401, 403) and everything
/// else is no such refusal.
pub(super) fn discover_refused(tap: &RawTap) -> Option<String> {
    match tap.failure()? {
        tap::Failure::Http {
            method,
            answer,
            status: Some(400 | 404 | 405),
            ..
        } if method == "server/discover" => Some(format!("it answered {answer}")),
        _ => None,
    }
}

/// A URL and headers with `${VAR}`s expanded, and the secrets they held.
struct HttpTarget {
    url: String,
    headers: Vec<(http::HeaderName, http::HeaderValue)>,
    secrets: Arc<[String]>,
}

impl HttpTarget {
    fn expand(name: &str, url: &str, headers: &BTreeMap<String, String>) -> Result<HttpTarget> {
        let mut expander = Expander::new(name);
        let url = expander.expand_url(url)?;
        let mut expanded = Vec::new();
        for (key, value) in headers {
            let value = expander.expand(value)?;
            let bad = |what: &str| Error::Connect {
                server: name.to_owned(),
                reason: format!("invalid header {what} `{key}`"),
                stderr: None,
                cause: None,
            };
            let header = http::HeaderName::from_bytes(key.as_bytes()).map_err(|_| bad("name"))?;
            // The value may hold a secret: it is not repeated in the error.
            let value = http::HeaderValue::from_str(&value).map_err(|_| bad("value for"))?;
            expanded.push((header, value));
        }
        Ok(HttpTarget {
            url,
            headers: expanded,
            secrets: expander.finish(),
        })
    }

    /// rmcp's transport config: the URL, the headers (a `Bearer`
    /// `Authorization` as rmcp's own auth header, which it also uses for
    /// auth retries) and the bound on an SSE event.
    fn transport_config(&self, max_response_bytes: usize) -> StreamableHttpClientTransportConfig {
        let mut custom = std::collections::HashMap::new();
        let mut auth = None;
        for (header, value) in &self.headers {
            let bearer = value.to_str().ok().and_then(|v| v.strip_prefix("Bearer "));
            match bearer {
                Some(token) if header == http::header::AUTHORIZATION => {
                    auth = Some(token.to_owned())
                }
                _ => {
                    custom.insert(header.clone(), value.clone());
                }
            }
        }
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.clone());
        config.custom_headers = custom;
        config.auth_header = auth;
        config.max_sse_event_size = max_response_bytes;
        config
    }

    /// The URL as errors show it.
    fn shown(&self) -> String {
        redact(&self.url, &self.secrets)
    }

    /// The error of a failed handshake: what the transport saw, or rmcp's.
    fn handshake_error(
        &self,
        name: &str,
        tap: &RawTap,
        error: ClientInitializeError,
    ) -> ConnectFailure {
        if let Some(failure) = tap.failure() {
            return failure.into_error(name).into();
        }
        let text = describe(&error);
        Error::Connect {
            server: name.to_owned(),
            reason: format!("the MCP handshake with {} failed", self.shown()),
            stderr: None,
            cause: Some(Redacted::described(error, &text, Arc::clone(&self.secrets))),
        }
        .into()
    }
}

pub(super) async fn connect_sse(
    name: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    max_response_bytes: usize,
    handler: &Handler,
    lifecycle: Lifecycle,
) -> std::result::Result<Session, ConnectFailure> {
    let target = HttpTarget::expand(name, url, headers)?;
    let tap = Arc::new(RawTap::default());
    let options = sse::SseOptions {
        client: http_client::shared(name)?,
        headers: target.headers.iter().cloned().collect(),
        tap: Arc::clone(&tap),
        secrets: Arc::clone(&target.secrets),
        max_event_bytes: max_response_bytes,
    };
    let transport = sse::SseTransport::open(&target.url, options)
        .await
        .map_err(|reason| match tap.failure() {
            Some(failure) => failure.into_error(name),
            None => Error::Connect {
                server: name.to_owned(),
                reason: redact(&reason, &target.secrets),
                stderr: None,
                cause: None,
            },
        })?;
    match handshake(transport, handler, lifecycle).await {
        Ok(service) => Ok(Session {
            service,
            process: None,
            tap: Some(tap),
        }),
        Err(e) => {
            let e = classify(e, lifecycle)?;
            Err(target.handshake_error(name, &tap, e))
        }
    }
}

pub(super) async fn connect_http(
    name: &str,
    url: &str,
    headers: &BTreeMap<String, String>,
    max_response_bytes: usize,
    handler: &Handler,
    lifecycle: Lifecycle,
    oauth: Option<OAuth>,
) -> std::result::Result<Session, ConnectFailure> {
    let target = HttpTarget::expand(name, url, headers)?;
    let config = target.transport_config(max_response_bytes);
    let tap = Arc::new(RawTap::default());
    // A new connection has listed nothing yet.
    handler.tool_schemas.forget_live();
    let client = http_tap::TapClient {
        inner: http_client::shared(name)?,
        tap: Arc::clone(&tap),
        secrets: Arc::clone(&target.secrets),
        schemas: Arc::clone(&handler.tool_schemas),
        max_response_bytes,
        #[cfg(feature = "auth")]
        nonces: oauth.as_ref().map(mcpbind_auth::Session::nonces),
    };
    let oauth_used = oauth.is_some();
    let result = match oauth {
        None => {
            let transport = StreamableHttpClientTransport::with_client(client, config);
            handshake(transport, handler, lifecycle).await
        }
        #[cfg(feature = "auth")]
        Some(session) => {
            let client = mcpbind_auth::OAuthClient::new(client, session);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            handshake(transport, handler, lifecycle).await
        }
        #[cfg(not(feature = "auth"))]
        Some(never) => match never {},
    };
    match result {
        Ok(service) => Ok(Session {
            service,
            process: None,
            tap: Some(tap),
        }),
        Err(e) => {
            let e = classify(e, lifecycle)?;
            if lifecycle == Lifecycle::Negotiate {
                if let Some(answer) = discover_refused(&tap) {
                    return Err(ConnectFailure::Rejected(answer));
                }
            }
            Err(http_failure(name, &target, &tap, e, oauth_used))
        }
    }
}

/// A failed Streamable HTTP handshake as an error: an OAuth server's `401`
/// (no valid token) or `403` with an `insufficient_scope` challenge is an
/// [`Error::Auth`] that asks for a login.
fn http_failure(
    name: &str,
    target: &HttpTarget,
    tap: &RawTap,
    error: ClientInitializeError,
    oauth_used: bool,
) -> ConnectFailure {
    // The 403's challenge, parsed: `insufficient_scope`, or not.
    let scope_challenged = matches!(
        tap.failure(),
        Some(tap::Failure::Http {
            insufficient_scope: Some(_),
            ..
        })
    );
    match target.handshake_error(name, tap, error) {
        // No stored token, or one refused even after a refresh.
        ConnectFailure::Error(Error::Http {
            server,
            answer,
            status: Some(401),
            ..
        }) if oauth_used => Error::Auth {
            server,
            reason: format!("it answered {answer}, and no stored token is valid"),
            login: true,
        }
        .into(),
        // Step-up: a token without the scope the server requires.
        ConnectFailure::Error(Error::Http {
            server,
            answer,
            status: Some(403),
            ..
        }) if oauth_used && scope_challenged => Error::Auth {
            server,
            reason: format!(
                "it answered {answer}; add the scope to `scopes` in mcpbind.toml and log in again"
            ),
            login: true,
        }
        .into(),
        other => other,
    }
}
