//! A POST that carries a DPoP proof (a DPoP-bound token), sent and read as
//! rmcp's Streamable HTTP client does, recording the server's `DPoP-Nonce`
//! for the next proof. rmcp's client keeps only `WWW-Authenticate` of a
//! `401`, and the nonce comes on a `401` `use_dpop_nonce` or on any answer.
//! Such a request is never sent twice (a proof is used once), so every
//! answer is handled here.
//!
//! The client's transport (`mcpbind-client`, `connect/http_tap.rs`) sends
//! such a POST through [`post`], and reads bodies its way ([`Answers`]:
//! within its size limit, the raw answer of a tapped request recorded).

use std::collections::HashMap;
use std::future::Future;

use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{StreamableHttpError, StreamableHttpPostResponse};

use crate::Nonces;

type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

/// An SSE answer's events.
pub type Events = futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

/// How the transport reads an answer's body.
pub trait Answers: Sync {
    /// A JSON body, up to the transport's limit (`None`: over it, or the
    /// read failed; the transport records which).
    fn read(&self, response: reqwest::Response) -> impl Future<Output = Option<Vec<u8>>> + Send;
    /// An SSE answer's events, up to `limit` bytes each, each event's data
    /// recorded when `tapped`.
    fn events(&self, response: reqwest::Response, limit: usize, tapped: bool) -> Events;
    /// Whether the raw answer of `message` is recorded.
    fn tapped(&self, message: &ClientJsonRpcMessage) -> bool;
    /// Records the raw JSON answer of a tapped request.
    fn record(&self, body: &[u8]);
}

/// What a POST is: where to, what, and with which headers (the DPoP proof
/// among `headers`).
pub struct Post<'a> {
    /// The server's URL.
    pub uri: &'a str,
    /// The message sent.
    pub message: &'a ClientJsonRpcMessage,
    /// The session, once the server gave one.
    pub session_id: Option<&'a str>,
    /// The headers, the DPoP proof and `Authorization: DPoP` among them.
    pub headers: &'a HashMap<HeaderName, HeaderValue>,
    /// The largest SSE event read.
    pub max_sse_event_size: usize,
}

const SESSION_HEADER: &str = "Mcp-Session-Id";

/// Sends `post` with `client`, records the server's `DPoP-Nonce` in
/// `nonces`, and reads its answer as rmcp's client does.
///
/// # Errors
///
/// rmcp's error for the answer: a challenge (`401`, `403`), an expired
/// session, an HTTP status, a body that is not JSON-RPC, or the request
/// not sent.
pub async fn post(
    client: &reqwest::Client,
    nonces: Option<&Nonces>,
    answers: &impl Answers,
    post: Post<'_>,
) -> HttpResult<StreamableHttpPostResponse> {
    let response = send(client, nonces, &post).await?;
    let status = response.status();
    let header = |name: http::HeaderName| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let challenge = header(http::header::WWW_AUTHENTICATE);
    if let Some(error) = challenge_error(status, challenge) {
        return Err(error);
    }
    let is_reply = !matches!(post.message, ClientJsonRpcMessage::Request(_));
    if matches!(
        status,
        reqwest::StatusCode::ACCEPTED | reqwest::StatusCode::NO_CONTENT
    ) || (status.is_success() && is_reply && response.content_length() == Some(0))
    {
        return Ok(StreamableHttpPostResponse::Accepted);
    }
    if status == reqwest::StatusCode::NOT_FOUND && post.session_id.is_some() {
        return Err(StreamableHttpError::SessionExpired);
    }
    let new_session = header(HeaderName::from_static("mcp-session-id"));
    let content_type = header(http::header::CONTENT_TYPE);
    if !status.is_success() {
        let retry_after = header(http::header::RETRY_AFTER);
        return read_error_answer(answers, response, content_type, retry_after, new_session).await;
    }
    let answer = Answer {
        content_type,
        new_session,
    };
    read_answer(answers, response, &post, answer).await
}

/// rmcp's error for a `401` or `403` with a challenge
/// (`WWW-Authenticate`); `None` for any other answer.
fn challenge_error(
    status: reqwest::StatusCode,
    challenge: Option<String>,
) -> Option<StreamableHttpError<reqwest::Error>> {
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    match (status, challenge) {
        (reqwest::StatusCode::UNAUTHORIZED, Some(challenge)) => Some(
            StreamableHttpError::AuthRequired(AuthRequiredError::new(challenge)),
        ),
        (reqwest::StatusCode::FORBIDDEN, Some(challenge)) => {
            let scope = mcpbind_model::internal::challenge::challenge_param(&challenge, "scope");
            Some(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(challenge, scope),
            ))
        }
        _ => None,
    }
}

/// Sends the message with the custom headers (the DPoP proof among them)
/// and records the server's `DPoP-Nonce`.
async fn send(
    client: &reqwest::Client,
    nonces: Option<&Nonces>,
    post: &Post<'_>,
) -> HttpResult<reqwest::Response> {
    let mut request = client
        .post(post.uri)
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .json(post.message);
    for (name, value) in post.headers {
        request = request.header(name, value);
    }
    if let Some(id) = post.session_id {
        request = request.header(SESSION_HEADER, id);
    }
    let response = request.send().await?;
    if let Some(nonces) = nonces {
        nonces.record(post.uri, response.headers());
    }
    Ok(response)
}

/// The answer to a request that failed (a status that is not a
/// success): rmcp's error for it, or the JSON-RPC error in its body.
async fn read_error_answer(
    answers: &impl Answers,
    response: reqwest::Response,
    content_type: Option<String>,
    retry_after: Option<String>,
    new_session: Option<String>,
) -> HttpResult<StreamableHttpPostResponse> {
    use rmcp::transport::streamable_http_client::HttpStatusError;
    let status = response.status();
    let json = content_type
        .as_deref()
        .is_some_and(|t| t.starts_with("application/json"));
    let status_error = (status == reqwest::StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error())
    .then(|| HttpStatusError::new(status.as_u16(), retry_after));
    if let Some(error) = status_error.filter(|_| !json || status.as_u16() == 429) {
        return Err(error.into());
    }
    // A JSON-RPC error in the body is the answer (read bounded).
    let body = answers.read(response).await.unwrap_or_default();
    if json && !matches!(status.as_u16(), 401 | 403) {
        if let Ok(error @ rmcp::model::JsonRpcMessage::Error(_)) =
            serde_json::from_slice::<ServerJsonRpcMessage>(&body)
        {
            return Ok(StreamableHttpPostResponse::Json(error, new_session));
        }
    }
    let text = String::from_utf8_lossy(&body)
        .chars()
        .take(1000)
        .collect::<String>();
    Err(StreamableHttpError::UnexpectedServerResponse(
        format!("HTTP {}: {text}", status.as_u16()).into(),
    ))
}

/// What the headers of a successful answer say.
struct Answer {
    content_type: Option<String>,
    new_session: Option<String>,
}

/// The answer to a request that succeeded, by its content type: an SSE
/// stream or a JSON message (recorded when the request is tapped).
async fn read_answer(
    answers: &impl Answers,
    response: reqwest::Response,
    post: &Post<'_>,
    answer: Answer,
) -> HttpResult<StreamableHttpPostResponse> {
    let Answer {
        content_type,
        new_session,
    } = answer;
    let is_reply = !matches!(post.message, ClientJsonRpcMessage::Request(_));
    let tapped = answers.tapped(post.message);
    match content_type.as_deref() {
        Some(t) if t.starts_with("text/event-stream") => {
            let events = answers.events(response, post.max_sse_event_size, tapped);
            Ok(StreamableHttpPostResponse::Sse(events, new_session))
        }
        Some(t) if t.starts_with("application/json") => {
            let Some(body) = answers.read(response).await else {
                return Err(StreamableHttpError::TransportChannelClosed);
            };
            if tapped {
                answers.record(&body);
            }
            match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(parsed) => Ok(StreamableHttpPostResponse::Json(parsed, new_session)),
                Err(_) if is_reply => Ok(StreamableHttpPostResponse::Accepted),
                Err(e) => Err(StreamableHttpError::UnexpectedServerResponse(
                    format!("the JSON answer is not a JSON-RPC message: {e}").into(),
                )),
            }
        }
        _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
    }
}
