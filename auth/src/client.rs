//! The Streamable HTTP client of an OAuth-protected server: rmcp's HTTP
//! client with a token on every request, and what the server's answer asks
//! for done before the request is given up on:
//!
//! - `401` with a token: the token is refreshed once and the request sent
//!   again; when it cannot be, the client authorizes anew (below);
//! - `401` without a usable token (none stored, or refused after a
//!   refresh): a new authorization from the challenge, which discovers the
//!   authorization server again, so a server whose `authorization_servers`
//!   changed gets a new registration (SEP-2352);
//! - `403` with `error="insufficient_scope"`: a new authorization for the
//!   union of the scopes held and the scopes challenged (step-up), at most
//!   once per request;
//! - `401` with a `DPoP` challenge `error="use_dpop_nonce"`: the request
//!   once more, its proof with the nonce the server gave (RFC 9449 §9).
//!
//! A DPoP-bound token ([`super::dpop`]) goes out as `Authorization: DPoP
//! <token>` with a fresh proof (`DPoP` header) on each request, not as
//! rmcp's `Bearer`.
//!
//! A new authorization is the grant itself for client credentials, and the
//! authorization-code flow in a browser for `auth = "oauth"`, which needs a
//! [`Browser`](super::Browser) hook; without one the server's answer
//! becomes [`Error::Auth`](crate::Error::Auth) with a `mcpbind login` hint.
//! Each request triggers at most one authorization per kind of refusal, so
//! a server that refuses whatever is granted ends in an error, not a loop.

use std::collections::HashMap;
use std::sync::Arc;

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{AuthError, AuthorizationManager};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::Session;

/// An HTTP client that authorizes its requests through a [`Session`].
#[derive(Clone)]
pub struct OAuthClient<C> {
    inner: C,
    session: Arc<Session>,
}

impl<C> OAuthClient<C> {
    /// `inner`, its requests authorized through `session`.
    pub fn new(inner: C, session: Session) -> OAuthClient<C> {
        OAuthClient {
            inner,
            session: Arc::new(session),
        }
    }
}

/// Why a request was refused, as the server's challenge says.
enum Refusal {
    /// `401`: no token, or one the server does not accept; whether the
    /// challenge is DPoP's `use_dpop_nonce` (the proof lacks the server's
    /// nonce).
    Unauthorized(String, bool),
    /// `403` `insufficient_scope`: the challenge, and the scopes it names.
    InsufficientScope(String, Vec<String>),
}

/// The refusal an error is, reading the `WWW-Authenticate` parameters as
/// data; `None` for any other failure.
fn refusal<E>(error: &StreamableHttpError<E>) -> Option<Refusal>
where
    E: std::error::Error + Send + Sync + 'static,
{
    match error {
        StreamableHttpError::AuthRequired(e) => {
            let challenges = mcpbind_model::internal::challenge::parse(&e.www_authenticate_header);
            let use_nonce = challenges.iter().any(|c| {
                c.scheme.eq_ignore_ascii_case("DPoP") && c.param("error") == Some("use_dpop_nonce")
            });
            Some(Refusal::Unauthorized(
                e.www_authenticate_header.clone(),
                use_nonce,
            ))
        }
        StreamableHttpError::InsufficientScope(e) => {
            let challenges = mcpbind_model::internal::challenge::parse(&e.www_authenticate_header);
            let challenge = challenges
                .iter()
                .find(|c| c.param("error") == Some("insufficient_scope"))?;
            let scopes = challenge
                .param("scope")
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            Some(Refusal::InsufficientScope(
                e.www_authenticate_header.clone(),
                scopes,
            ))
        }
        _ => None,
    }
}

impl<C> OAuthClient<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    /// Runs `call` (a `method` request to `uri`) with the session's token,
    /// and again after what the server's refusal asks for (see the
    /// module's documentation). `call` gets the bearer token for rmcp to
    /// send, and the headers: `headers`, plus a DPoP-bound token's
    /// `Authorization` and proof.
    async fn authorized<T, F, Fut>(
        &self,
        method: &str,
        uri: &str,
        headers: &HashMap<HeaderName, HeaderValue>,
        call: F,
    ) -> Result<T, StreamableHttpError<C::Error>>
    where
        F: Fn(Option<String>, HashMap<HeaderName, HeaderValue>) -> Fut,
        Fut: std::future::Future<Output = Result<T, StreamableHttpError<C::Error>>>,
    {
        let session = &self.session;
        let (mut generation, mut token) = session.token().await?;
        let mut refreshed = false;
        let mut authorized = false;
        let mut stepped_up = false;
        let mut nonced = false;
        loop {
            let (bearer, headers) = session.present(method, uri, token.clone(), headers).await?;
            let error = match call(bearer, headers).await {
                Err(error) => error,
                ok => return ok,
            };
            let Some(refusal) = refusal(&error) else {
                return Err(error);
            };
            match refusal {
                Refusal::Unauthorized(challenge, use_nonce) => {
                    if use_nonce && !nonced && token.is_some() && session.dpop().await.is_some() {
                        // Once more, with the nonce the HTTP client recorded
                        // from the answer.
                        nonced = true;
                        continue;
                    }
                    if token.is_some() && !refreshed {
                        refreshed = true;
                        if let Some(fresh) = session.refresh(generation).await? {
                            if Some(&fresh) != token.as_ref() {
                                token = Some(fresh);
                                continue;
                            }
                        }
                    }
                    if authorized || !session.authorize(generation, &challenge, &[]).await {
                        return Err(error);
                    }
                    authorized = true;
                }
                Refusal::InsufficientScope(challenge, scopes) => {
                    if stepped_up || !session.authorize(generation, &challenge, &scopes).await {
                        return Err(error);
                    }
                    stepped_up = true;
                }
            }
            (generation, token) = session.token().await?;
        }
    }
}

impl Session {
    /// What a request presents `token` with: rmcp's `Bearer` (the token
    /// for rmcp to send), or for a DPoP-bound token `Authorization: DPoP`
    /// and a fresh proof for a `method` request to `uri` among the headers.
    async fn present(
        &self,
        method: &str,
        uri: &str,
        token: Option<String>,
        headers: &HashMap<HeaderName, HeaderValue>,
    ) -> Result<(Option<String>, HashMap<HeaderName, HeaderValue>), AuthError> {
        let mut headers = headers.clone();
        let (Some(token), Some(dpop)) = (&token, self.dpop().await) else {
            return Ok((token, headers));
        };
        let nonce = dpop.nonces.get(uri);
        let proof = dpop
            .key
            .proof(method, uri, nonce.as_deref(), Some(token))
            .map_err(AuthError::InternalError)?;
        // Neither is shown: a header value marked sensitive.
        let value = |text: String| {
            HeaderValue::try_from(text)
                .map(|mut v| {
                    v.set_sensitive(true);
                    v
                })
                .map_err(|_| {
                    AuthError::InternalError("an access token that is not a header value".into())
                })
        };
        headers.insert(http::header::AUTHORIZATION, value(format!("DPoP {token}"))?);
        headers.insert(HeaderName::from_static(super::dpop::DPOP), value(proof)?);
        Ok((None, headers))
    }

    /// The generation of the current authorization and its access token
    /// (`None`: there is none yet, the request goes out without one).
    async fn token(&self) -> Result<(u64, Option<String>), AuthError> {
        let (generation, manager) = self.current().await;
        match manager.get_access_token().await {
            Ok(token) => Ok((generation, Some(token))),
            // No token, or an expired one that cannot be refreshed (a
            // grant's token has no refresh token, nor its manager an OAuth
            // client to refresh with): the server's 401 brings a new one.
            Err(AuthError::AuthorizationRequired | AuthError::InternalError(_)) => {
                Ok((generation, None))
            }
            Err(e) => Err(e),
        }
    }

    /// A refreshed access token of authorization `generation`; `None` when
    /// it cannot be refreshed (no refresh token, or one the server refused).
    async fn refresh(&self, generation: u64) -> Result<Option<String>, AuthError> {
        let (current, manager) = self.current().await;
        if current != generation {
            // Another request authorized anew meanwhile.
            return Ok(manager.get_access_token().await.ok());
        }
        match manager.refresh_token().await {
            // The refreshed token is in the store now.
            Ok(_) => Ok(manager.get_access_token().await.ok()),
            Err(
                AuthError::AuthorizationRequired
                | AuthError::TokenRefreshRejected(_)
                | AuthError::InternalError(_),
            ) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// The manager of a session, shared with requests in flight.
pub(super) type Manager = Arc<AuthorizationManager>;

impl<C> StreamableHttpClient for OAuthClient<C>
where
    C: StreamableHttpClient + Send + Sync,
{
    type Error = C::Error;

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        self.authorized("DELETE", &uri, &custom_headers, |token, headers| {
            self.inner
                .delete_session(uri.clone(), session_id.clone(), token, headers)
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        self.authorized("GET", &uri, &custom_headers, |token, headers| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                headers,
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        self.authorized("GET", &uri, &custom_headers, |token, headers| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                headers,
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorized("POST", &uri, &custom_headers, |token, headers| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers,
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.authorized("POST", &uri, &custom_headers, |token, headers| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                headers,
                max_sse_event_size,
            )
        })
        .await
    }
}
