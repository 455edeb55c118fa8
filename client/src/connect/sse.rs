//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer
//! ships but many deployed servers still speak: `GET` the SSE URL, wait for
//! the `endpoint` event, then `POST` each message to that endpoint while
//! responses arrive as `message` events on the stream.
//!
//! The endpoint must be on the SSE URL's origin (the spec's own advice):
//! messages carry the configured headers, credentials included. Each event
//! is bounded by `max_response_bytes`.

use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::StreamExt as _;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;

use super::tap::{Failure, RawTap};

/// How long to wait for the `endpoint` event.
const ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

type Events = BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

/// What the transport is opened with.
pub(crate) struct SseOptions {
    pub(crate) client: reqwest::Client,
    pub(crate) headers: http::HeaderMap,
    pub(crate) tap: Arc<RawTap>,
    /// The server's secrets, hidden in a refused redirect's reason.
    pub(crate) secrets: Arc<[String]>,
    pub(crate) max_event_bytes: usize,
}

pub(crate) struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    headers: http::HeaderMap,
    events: Events,
    tap: Arc<RawTap>,
    secrets: Arc<[String]>,
}

impl SseTransport {
    /// Opens the event stream and waits for the endpoint to post to. The
    /// error may hold the URL: the caller redacts it.
    pub(crate) async fn open(url: &str, options: SseOptions) -> Result<SseTransport, String> {
        let base = reqwest::Url::parse(url).map_err(|e| format!("invalid url {url}: {e}"))?;
        let response = options
            .client
            .get(base.clone())
            .header(http::header::ACCEPT, "text/event-stream")
            .headers(options.headers.clone())
            .send()
            .await
            .map_err(|e| {
                if let Some(refused) = super::http_client::refusal(&e, &options.secrets) {
                    options.tap.fail(refused);
                }
                format!("GET {url}: {}", crate::error::chain(&e))
            })?;
        if !response.status().is_success() {
            options
                .tap
                .fail(http_failure("GET (the event stream)", &response));
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let bytes = super::wire::bounded(
            response.bytes_stream(),
            options.max_event_bytes,
            Arc::clone(&options.tap),
        );
        let mut events = sse_stream::SseStream::from_bytes_stream(bytes).boxed();
        let endpoint = tokio::time::timeout(ENDPOINT_TIMEOUT, endpoint(&base, &mut events))
            .await
            .map_err(|_| {
                format!(
                    "{url} sent no `endpoint` event within {}s (is it a Streamable HTTP server? then use transport = \"streamable-http\")",
                    ENDPOINT_TIMEOUT.as_secs()
                )
            })??;
        if endpoint.origin() != base.origin() {
            let reason = format!(
                "refused the legacy SSE endpoint on another origin, {} (the SSE URL's origin is {}; configured headers are sent only there)",
                endpoint.origin().ascii_serialization(),
                base.origin().ascii_serialization()
            );
            options.tap.fail(Failure::Refused(reason.clone()));
            return Err(reason);
        }
        Ok(SseTransport {
            client: options.client,
            endpoint,
            headers: options.headers,
            events,
            tap: options.tap,
            secrets: options.secrets,
        })
    }
}

/// Waits for the `endpoint` event and resolves it against the SSE URL.
async fn endpoint(base: &reqwest::Url, events: &mut Events) -> Result<reqwest::Url, String> {
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| format!("reading {base}: {e}"))?;
        if event.event.as_deref() == Some("endpoint") {
            let data = event.data.unwrap_or_default();
            return base
                .join(data.trim())
                .map_err(|e| format!("invalid endpoint `{data}` from {base}: {e}"));
        }
    }
    Err(format!(
        "{base} closed the event stream before sending its endpoint"
    ))
}

/// A failure for an HTTP response that is not a success.
fn http_failure(method: &str, response: &reqwest::Response) -> Failure {
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(super::tap::retry_after);
    Failure::Http {
        method: method.to_owned(),
        answer: format!("HTTP {status}"),
        status: Some(status.as_u16()),
        retry_after,
        insufficient_scope: None,
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let method = super::wire::method_of(&item);
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .json(&item);
        let tap = Arc::clone(&self.tap);
        let secrets = Arc::clone(&self.secrets);
        async move {
            let response = request.send().await.map_err(|e| {
                if let Some(refused) = super::http_client::refusal(&e, &secrets) {
                    tap.fail(refused);
                }
                std::io::Error::other(e)
            })?;
            if response.status().is_success() {
                Ok(())
            } else {
                tap.fail(http_failure(&method, &response));
                Err(std::io::Error::other(format!(
                    "POST returned HTTP {}",
                    response.status()
                )))
            }
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let event = self.events.next().await?.ok()?;
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            let Some(data) = event.data else { continue };
            self.tap.record(data.as_bytes());
            if self.tap.failure().is_some() {
                return None;
            }
            if let Ok(message) = serde_json::from_str(&data) {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
