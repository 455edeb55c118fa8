//! The legacy HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer
//! ships but many deployed servers still speak: `GET` the SSE URL, wait for
//! the `endpoint` event, then `POST` each message to that endpoint while
//! responses arrive as `message` events on the stream.

use std::sync::Arc;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::StreamExt as _;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;

use super::RawTap;

/// How long to wait for the `endpoint` event.
const ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    headers: http::HeaderMap,
    events: BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
    tap: Arc<RawTap>,
}

impl SseTransport {
    /// Opens the event stream and waits for the endpoint to post to.
    pub(crate) async fn open(
        url: &str,
        headers: http::HeaderMap,
        tap: Arc<RawTap>,
    ) -> Result<SseTransport, String> {
        let base = reqwest::Url::parse(url).map_err(|e| format!("invalid url {url}: {e}"))?;
        let client = reqwest::Client::new();
        let response = client
            .get(base.clone())
            .header(http::header::ACCEPT, "text/event-stream")
            .headers(headers.clone())
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let mut events = sse_stream::SseStream::from_bytes_stream(response.bytes_stream()).boxed();
        let endpoint = tokio::time::timeout(ENDPOINT_TIMEOUT, async {
            while let Some(event) = events.next().await {
                let event = event.map_err(|e| format!("reading {url}: {e}"))?;
                if event.event.as_deref() == Some("endpoint") {
                    let data = event.data.unwrap_or_default();
                    return base
                        .join(data.trim())
                        .map_err(|e| format!("invalid endpoint `{data}` from {url}: {e}"));
                }
            }
            Err(format!("{url} closed the event stream before sending its endpoint"))
        })
        .await
        .map_err(|_| {
            format!(
                "{url} sent no `endpoint` event within {}s (is it a Streamable HTTP server? then use transport = \"streamable-http\")",
                ENDPOINT_TIMEOUT.as_secs()
            )
        })??;
        Ok(SseTransport {
            client,
            endpoint,
            headers,
            events,
            tap,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .json(&item);
        async move {
            let response = request.send().await.map_err(std::io::Error::other)?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "POST {} returned HTTP {}",
                    response.url(),
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
            if let Ok(message) = serde_json::from_str(&data) {
                return Some(message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}
