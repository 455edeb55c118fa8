//! A Streamable HTTP client that hands the raw bytes of `tools/list`
//! responses to a [`RawTap`], and otherwise is rmcp's reqwest client.
//!
//! rmcp decodes every response into its model, which drops tool fields it
//! doesn't know. While the tap is armed, a `tools/list` request is sent here
//! instead, and its JSON or SSE body is recorded before rmcp decodes it. Any
//! response this code doesn't expect is re-sent through rmcp's own client
//! (listing tools is safe to repeat), so that its error handling applies.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt as _;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::RawTap;

const SESSION_HEADER: &str = "Mcp-Session-Id";

#[derive(Clone)]
pub(crate) struct TapClient {
    pub(crate) inner: reqwest::Client,
    pub(crate) tap: Arc<RawTap>,
}

type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

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
            let body = response.bytes().await.ok()?;
            self.tap.record(&body);
            let message: ServerJsonRpcMessage = serde_json::from_slice(&body).ok()?;
            Some(StreamableHttpPostResponse::Json(message, new_session))
        } else if content_type.starts_with("text/event-stream") {
            let tap = Arc::clone(&self.tap);
            let events = sse_stream::SseStream::from_bytes_stream(response.bytes_stream())
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
}

fn is_tools_list(message: &ClientJsonRpcMessage) -> bool {
    matches!(
        message,
        ClientJsonRpcMessage::Request(request)
            if matches!(request.request, ClientRequest::ListToolsRequest(_))
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
        if self.tap.is_armed() && is_tools_list(&message) {
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
        }
        self.inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await
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
    ) -> HttpResult<futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>>
    {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }
}
