//! What the HTTP transports (Streamable HTTP and the legacy HTTP+SSE) share
//! on the wire: how a request is named in errors, and the bound on one
//! event of an event stream.

use std::sync::Arc;

use futures::StreamExt as _;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};

use super::tap::{Failure, RawTap};

/// The request a message is, as errors name it: `tools/call echo`,
/// `tools/list`, `initialize`.
pub(crate) fn method_of(message: &ClientJsonRpcMessage) -> String {
    match message {
        ClientJsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::CallToolRequest(call) => format!("tools/call {}", call.params.name),
            other => other.method().to_owned(),
        },
        ClientJsonRpcMessage::Notification(_) => "a notification".to_owned(),
        _ => "a message".to_owned(),
    }
}

/// The body of an event stream, failing once one event (the bytes between
/// two blank lines) exceeds `limit`: a server that never ends an event
/// would otherwise grow the parser's buffer without bound.
pub(crate) fn bounded<S, D>(
    body: S,
    limit: usize,
    tap: Arc<RawTap>,
) -> impl futures::Stream<Item = Result<D, std::io::Error>> + Send + 'static
where
    S: futures::Stream<Item = Result<D, reqwest::Error>> + Send + 'static,
    D: AsRef<[u8]>,
{
    let mut event_len = 0usize;
    let mut line_empty = true;
    body.map(move |chunk| {
        let chunk = chunk.map_err(std::io::Error::other)?;
        for &byte in chunk.as_ref() {
            match byte {
                b'\r' => {}
                b'\n' if line_empty => event_len = 0,
                b'\n' => line_empty = true,
                _ => {
                    line_empty = false;
                    event_len += 1;
                }
            }
        }
        if event_len > limit {
            tap.fail(Failure::TooLarge {
                limit,
                settable: true,
            });
            return Err(std::io::Error::other("event over max_response_bytes"));
        }
        Ok(chunk)
    })
}
