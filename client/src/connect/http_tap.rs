//! A Streamable HTTP client that is rmcp's reqwest client, plus a tap:
//! it records the raw bytes of `tools/list` responses, and why a request
//! failed (an HTTP status, an HTML page, a body over the size limit), which
//! rmcp would report only as a closed transport.
//!
//! rmcp decodes every response into its model, which drops tool fields it
//! doesn't know. While the tap is armed, a `tools/list` request is sent here
//! instead, and its JSON or SSE body is recorded before rmcp decodes it. Any
//! response this code doesn't expect is re-sent through rmcp's own client
//! (listing tools is safe to repeat), so that its error handling applies.
//!
//! A POST with a DPoP proof (a DPoP-bound token) is sent by `mcpbind-auth`
//! (`internal::post`), whatever it is, so that the server's `DPoP-Nonce`
//! is recorded for the next proof; it reads the answer through this
//! client (within the size limit, tapped requests recorded).

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt as _;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::tap::{Failure, RawTap};
use super::wire::method_of;

const SESSION_HEADER: &str = "Mcp-Session-Id";

#[derive(Clone)]
pub(crate) struct TapClient {
    /// The runtime's shared client ([`super::http_client`]).
    pub(crate) inner: reqwest::Client,
    pub(crate) tap: Arc<RawTap>,
    /// The server's secrets, hidden in what the tap records.
    pub(crate) secrets: Arc<[String]>,
    /// Where `Mcp-Param-*` headers come from when rmcp has not listed the
    /// tool on this connection.
    pub(crate) schemas: Arc<super::ToolSchemas>,
    pub(crate) max_response_bytes: usize,
    /// Where the `DPoP-Nonce`s of an OAuth server's answers go.
    #[cfg(feature = "auth")]
    pub(crate) nonces: Option<Arc<mcpbind_auth::Nonces>>,
}

type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;
type Events = futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

/// What a failed request tells about the server, by the kind of rmcp's
/// error; `None` for failures that are not the server's answer.
fn failure_of(method: &str, error: &StreamableHttpError<reqwest::Error>) -> Option<Failure> {
    let http = |status: Option<u16>, answer: String| {
        Some(Failure::Http {
            method: method.to_owned(),
            answer,
            status,
            retry_after: None,
            insufficient_scope: None,
        })
    };
    match error {
        StreamableHttpError::AuthRequired(_) => http(Some(401), describe_status(401)),
        // rmcp's error for any 403 with a challenge; what it asks for is
        // read from the parsed challenge, not rmcp's search of its text.
        StreamableHttpError::InsufficientScope(e) => Some(describe_insufficient_scope(method, e)),
        StreamableHttpError::SessionExpired => http(Some(404), describe_status(404)),
        StreamableHttpError::HttpStatus(e) => Some(Failure::Http {
            method: method.to_owned(),
            answer: describe_status(e.status),
            status: Some(e.status),
            retry_after: e.retry_after.as_deref().and_then(super::tap::retry_after),
            insufficient_scope: None,
        }),
        StreamableHttpError::Client(e) => e
            .status()
            .and_then(|s| http(Some(s.as_u16()), describe_status(s.as_u16()))),
        StreamableHttpError::UnexpectedContentType(content_type) => http(
            None,
            match content_type {
                Some(t) => format!(
                    "a `{}` body, not JSON-RPC",
                    t.split(';').next().unwrap_or(t)
                ),
                None => "a body without a content type, not JSON-RPC".to_owned(),
            },
        ),
        // rmcp keeps the status only in its text ("HTTP 404: <body>"); the
        // body is the server's and is not repeated.
        StreamableHttpError::UnexpectedServerResponse(text) => {
            let code = text
                .strip_prefix("HTTP ")
                .and_then(|rest| rest.get(..3))
                .and_then(|c| c.parse::<u16>().ok());
            match code {
                Some(code) => http(Some(code), describe_status(code)),
                None => http(None, "a response that is not JSON-RPC".to_owned()),
            }
        }
        // rmcp's own limit on a JSON answer (`max_response_bytes` bounds
        // SSE events and what this client reads itself, not this).
        StreamableHttpError::ResponseBodyTooLarge { max_size } => Some(Failure::TooLarge {
            limit: *max_size,
            settable: false,
        }),
        _ => None,
    }
}

/// An HTTP status code as the answer names it: `HTTP 404 Not Found`.
fn describe_status(code: u16) -> String {
    let reason = http::StatusCode::from_u16(code)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or_default();
    format!("HTTP {code} {reason}").trim_end().to_owned()
}

/// The failure of a 403 with a challenge: what the challenge asks for
/// (the scope it needs, else its `error`).
fn describe_insufficient_scope(
    method: &str,
    e: &rmcp::transport::streamable_http_client::InsufficientScopeError,
) -> Failure {
    let header = &e.www_authenticate_header;
    let scopes = mcpbind_model::internal::challenge::insufficient_scope(header);
    let needs = match (
        &scopes,
        mcpbind_model::internal::challenge::challenge_param(header, "error"),
    ) {
        (Some(scope), _) if !scope.is_empty() => {
            format!(" (insufficient_scope: it needs scope `{scope}`)")
        }
        (Some(_), _) => " (insufficient_scope)".to_owned(),
        (None, Some(error)) => {
            format!(" ({})", error.chars().take(100).collect::<String>())
        }
        (None, None) => String::new(),
    };
    Failure::Http {
        method: method.to_owned(),
        answer: describe_status(403) + &needs,
        status: Some(403),
        retry_after: None,
        insufficient_scope: scopes,
    }
}

impl TapClient {
    /// Sends a `tools/list` request and records its raw response; `None`
    /// when the response isn't one this code handles.
    async fn post_tapped(
        &self,
        uri: &str,
        message: &ClientJsonRpcMessage,
        session_id: Option<&str>,
        auth_header: Option<&str>,
        custom_headers: &HashMap<HeaderName, HeaderValue>,
    ) -> Option<StreamableHttpPostResponse> {
        let mut request = self
            .inner
            .post(uri)
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .json(message);
        if let Some(token) = auth_header {
            request = request.bearer_auth(token);
        }
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        if let Some(id) = session_id {
            request = request.header(SESSION_HEADER, id);
        }
        let response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        self.tap.recovered();
        let new_session = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        if content_type.starts_with("application/json") {
            let body = self.read_bounded(response).await?;
            self.tap.record(&body);
            let message: ServerJsonRpcMessage = serde_json::from_slice(&body).ok()?;
            Some(StreamableHttpPostResponse::Json(message, new_session))
        } else if content_type.starts_with("text/event-stream") {
            let tap = Arc::clone(&self.tap);
            let body = super::wire::bounded(
                response.bytes_stream(),
                self.max_response_bytes,
                Arc::clone(&self.tap),
            );
            let events = sse_stream::SseStream::from_bytes_stream(body)
                .inspect(move |event| {
                    if let Ok(sse) = event {
                        if let Some(data) = &sse.data {
                            tap.record(data.as_bytes());
                        }
                    }
                })
                .boxed();
            Some(StreamableHttpPostResponse::Sse(events, new_session))
        } else {
            None
        }
    }

    /// A JSON body, up to `max_response_bytes` (a larger one fails the tap).
    async fn read_bounded(&self, response: reqwest::Response) -> Option<Vec<u8>> {
        let limit = self.max_response_bytes;
        let mut body = Vec::new();
        let mut chunks = response.bytes_stream();
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.ok()?;
            if body.len() + chunk.len() > limit {
                self.tap.fail(Failure::TooLarge {
                    limit,
                    settable: true,
                });
                return None;
            }
            body.extend_from_slice(&chunk);
        }
        Some(body)
    }
}

/// How a DPoP POST (`mcpbind_auth::internal::post`) reads its answer: as
/// this client does its own, within `max_response_bytes`, the raw answer
/// of a tapped request recorded.
#[cfg(feature = "auth")]
impl mcpbind_auth::internal::Answers for TapClient {
    async fn read(&self, response: reqwest::Response) -> Option<Vec<u8>> {
        self.read_bounded(response).await
    }

    fn events(&self, response: reqwest::Response, limit: usize, tapped: bool) -> Events {
        let body = super::wire::bounded(response.bytes_stream(), limit, Arc::clone(&self.tap));
        let tap = Arc::clone(&self.tap);
        sse_stream::SseStream::from_bytes_stream(body)
            .inspect(move |event| {
                if let (true, Ok(sse)) = (tapped, event) {
                    if let Some(data) = &sse.data {
                        tap.record(data.as_bytes());
                    }
                }
            })
            .boxed()
    }

    fn tapped(&self, message: &ClientJsonRpcMessage) -> bool {
        self.tap.is_armed() && is_tapped(message)
    }

    fn record(&self, body: &[u8]) {
        self.tap.record(body);
    }
}

impl TapClient {
    /// `headers` plus the `Mcp-Param-*` headers of a `tools/call`, from the
    /// tool's schema ([`super::ToolSchemas`]). rmcp sends the standard
    /// headers (`Mcp-Method` first) from 2026-07-28 on, and `Mcp-Param-*`
    /// only for a tool it saw listed on this connection; the headers added
    /// here are the same for a tool it did see.
    fn with_param_headers(
        &self,
        message: &ClientJsonRpcMessage,
        mut headers: HashMap<HeaderName, HeaderValue>,
    ) -> HashMap<HeaderName, HeaderValue> {
        let ClientJsonRpcMessage::Request(request) = message else {
            return headers;
        };
        let ClientRequest::CallToolRequest(call) = &request.request else {
            return headers;
        };
        if !headers.contains_key(&HeaderName::from_static("mcp-method")) {
            return headers;
        }
        let (Some(schema), Some(arguments)) =
            (self.schemas.get(&call.params.name), &call.params.arguments)
        else {
            return headers;
        };
        headers.extend(super::headers::param_headers(&schema, arguments));
        headers
    }

    /// A redirect to another origin that the shared client refused.
    fn refusal(&self, error: &StreamableHttpError<reqwest::Error>) -> Option<Failure> {
        match error {
            StreamableHttpError::Client(e) => super::http_client::refusal(e, &self.secrets),
            _ => None,
        }
    }

    /// Records an SSE event over the limit, which rmcp reports only as the
    /// stream's end. (rmcp's error type for it is private: its message is
    /// all there is to go by.)
    fn watch(&self, events: Events, limit: usize) -> Events {
        let tap = Arc::clone(&self.tap);
        events
            .inspect(move |event| {
                if let Err(e) = event {
                    if e.to_string().contains("exceeded the maximum size") {
                        tap.fail(Failure::TooLarge {
                            limit,
                            settable: true,
                        });
                    }
                }
            })
            .boxed()
    }

    /// Records what a POST's outcome tells about the server (the tap
    /// recovers, or fails with why), and watches an SSE answer's events.
    fn record_outcome(
        &self,
        method: &str,
        result: HttpResult<StreamableHttpPostResponse>,
        max_sse_event_size: usize,
    ) -> HttpResult<StreamableHttpPostResponse> {
        match result {
            Ok(StreamableHttpPostResponse::Sse(events, session)) => {
                self.tap.recovered();
                let events = self.watch(events, max_sse_event_size);
                Ok(StreamableHttpPostResponse::Sse(events, session))
            }
            Err(error) => {
                if let Some(failure) = self.refusal(&error).or_else(|| failure_of(method, &error)) {
                    self.tap.fail(failure);
                }
                Err(error)
            }
            ok => {
                self.tap.recovered();
                ok
            }
        }
    }
}

/// A request whose raw answer is kept: `tools/list`, and a task's poll
/// (`tasks/get`); both are safe to send again through rmcp's client.
fn is_tapped(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(request)
            if matches!(&request.request, ClientRequest::ListToolsRequest(_))
                || matches!(&request.request, ClientRequest::CustomRequest(custom) if custom.method == "tasks/get")
    )
}

impl StreamableHttpClient for TapClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            self.max_response_bytes,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<StreamableHttpPostResponse> {
        let custom_headers = self.with_param_headers(&message, custom_headers);
        #[cfg(feature = "auth")]
        if custom_headers.contains_key(&HeaderName::from_static(mcpbind_auth::DPOP_HEADER)) {
            let method = method_of(&message);
            let post = mcpbind_auth::internal::Post {
                uri: &uri,
                message: &message,
                session_id: session_id.as_deref(),
                headers: &custom_headers,
                max_sse_event_size,
            };
            let nonces = self.nonces.as_deref();
            let result = mcpbind_auth::internal::post(&self.inner, nonces, self, post).await;
            return self.record_outcome(&method, result, max_sse_event_size);
        }
        if self.tap.is_armed() && is_tapped(&message) {
            if let Some(response) = self
                .post_tapped(
                    &uri,
                    &message,
                    session_id.as_deref(),
                    auth_header.as_deref(),
                    &custom_headers,
                )
                .await
            {
                return Ok(response);
            }
            if self.tap.failure().is_some() {
                return Err(StreamableHttpError::TransportChannelClosed);
            }
        }
        let method = method_of(&message);
        let result = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.record_outcome(&method, result, max_sse_event_size)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<Events> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            self.max_response_bytes,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<Events> {
        let events = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .inspect_err(|error| {
                if let Some(refused) = self.refusal(error) {
                    self.tap.fail(refused);
                }
            })?;
        Ok(self.watch(events, max_sse_event_size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 403's challenge is read as data: `insufficient_scope` only when
    /// its `error` says so, and the scopes of its `scope` parameter, not
    /// text found elsewhere in it (rmcp's error is the same for any 403
    /// with a challenge).
    #[test]
    fn a_403_is_insufficient_scope_only_when_its_challenge_says_so() {
        use rmcp::transport::streamable_http_client::InsufficientScopeError;
        let refused = |header: &str| {
            let error = StreamableHttpError::<reqwest::Error>::InsufficientScope(
                InsufficientScopeError::new(header.to_owned(), Some("rmcp's guess".to_owned())),
            );
            match failure_of("tools/call x", &error) {
                Some(Failure::Http {
                    answer,
                    insufficient_scope,
                    ..
                }) => (answer, insufficient_scope),
                _ => panic!("not an HTTP failure"),
            }
        };
        let (answer, scopes) = refused(
            r#"Bearer error="invalid_token", error_description="insufficient_scope scope=admin""#,
        );
        assert_eq!(answer, "HTTP 403 Forbidden (invalid_token)");
        assert_eq!(scopes, None);
        let (answer, scopes) = refused(
            r#"Bearer error_description="scope=x", error="insufficient_scope", scope="mcp admin""#,
        );
        assert_eq!(
            answer,
            "HTTP 403 Forbidden (insufficient_scope: it needs scope `mcp admin`)"
        );
        assert_eq!(scopes.as_deref(), Some("mcp admin"));
    }

    /// rmcp's own limit on a JSON answer is not `max_response_bytes`: the
    /// error says whose it is, and its help does not send the user to a
    /// setting that changes nothing.
    #[test]
    fn rmcps_body_limit_is_told_apart_from_max_response_bytes() {
        let error =
            StreamableHttpError::<reqwest::Error>::ResponseBodyTooLarge { max_size: 16 << 20 };
        let failure = failure_of("tools/call big", &error).expect("a failure");
        let error = failure.into_error("remote");
        assert!(
            matches!(
                error,
                crate::Error::TooLarge {
                    limit: 16_777_216,
                    settable: false,
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "server `remote` sent a message larger than 16777216 bytes (rmcp's limit on a Streamable HTTP JSON answer); the connection was closed"
        );
        let help = error.help().unwrap();
        assert!(help.starts_with("no setting raises this limit"), "{help}");
        assert!(!help.contains("raise `max_response_bytes`"), "{help}");
    }
}
