//! Multi round-trip requests (SEP-2322, MCP 2026-07-28).
//!
//! A server may answer `tools/call`, `prompts/get` or `resources/read`
//! with `input_required`: requests for input (elicitation, sampling, roots)
//! and an opaque `requestState`. The client answers each input request with
//! its [`ClientHooks`](crate::elicit::ClientHooks) and sends the request again as a
//! new request (a new JSON-RPC id), with the answers and the `requestState`
//! exactly as the server gave it, or none when it gave none. The retry is
//! built from the request that was answered, so one request's state never
//! reaches another sent meanwhile.

use std::sync::Arc;

use rmcp::model::{ClientRequest, InputRequiredResult, InputResponses, ServerResult};
use rmcp::ServiceError;

use super::{Client, Wait};
use crate::connect::Session;
use crate::error::{Error, Result};

/// How many `input_required` answers one request may get (rmcp's default,
/// as the other SDKs'): a server that keeps asking is refused.
pub(super) const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// `request` with the answers to an `input_required` result, to send again;
/// `None` for a request that cannot carry them.
fn retry(
    mut request: ClientRequest,
    responses: Option<InputResponses>,
    state: Option<String>,
) -> Option<ClientRequest> {
    match &mut request {
        ClientRequest::CallToolRequest(call) => {
            call.params.input_responses = responses;
            call.params.request_state = state;
        }
        ClientRequest::GetPromptRequest(get) => {
            get.params.input_responses = responses;
            get.params.request_state = state;
        }
        ClientRequest::ReadResourceRequest(read) => {
            read.params.input_responses = responses;
            read.params.request_state = state;
        }
        _ => return None,
    }
    Some(request)
}

impl Client {
    /// The rounds of a request answered `input_required` (`input`) until
    /// the server's final answer, each retry a new request waiting as
    /// `wait` says.
    pub(super) async fn more_rounds(
        &self,
        session: &Arc<Session>,
        sent: ClientRequest,
        input: InputRequiredResult,
        method: &str,
        wait: Wait<'_>,
    ) -> Result<ServerResult> {
        let peer = session.service.peer().clone();
        let (mut sent, mut input) = (sent, input);
        for round in 0.. {
            let request = self.next_round(sent, input, method, round).await?;
            sent = request.clone();
            let handle = self.send(session, &peer, request, method).await?;
            match self.await_handle(session, handle, method, wait).await? {
                ServerResult::InputRequiredResult(again) => input = again,
                answer => return Ok(answer),
            }
        }
        unreachable!("next_round stops after MAX_ROUNDS")
    }

    /// Answers `input` (round `round` of `method`) and returns `sent` made
    /// ready to send again.
    pub(super) async fn next_round(
        &self,
        sent: ClientRequest,
        input: InputRequiredResult,
        method: &str,
        round: usize,
    ) -> Result<ClientRequest> {
        let failed = |source: ServiceError| Error::Service {
            server: self.name.clone(),
            method: method.to_owned(),
            source: Box::new(source),
        };
        if round >= MAX_ROUNDS {
            return Err(failed(ServiceError::InputRequiredRoundsExceeded {
                max_rounds: MAX_ROUNDS,
            }));
        }
        let requests = input.input_requests.unwrap_or_default();
        if requests.is_empty() && input.request_state.is_none() {
            // Nothing to answer and nothing to echo: a retry would be the
            // same request again.
            return Err(failed(ServiceError::UnexpectedResponse));
        }
        let answers = requests.into_iter().map(|(key, request)| async move {
            let answer = self.shared.handler.answer_input(request).await?;
            Ok::<_, rmcp::ErrorData>((key, answer))
        });
        let responses: InputResponses = futures::future::try_join_all(answers)
            .await
            .map_err(|e| failed(ServiceError::McpError(e)))?
            .into_iter()
            .collect();
        let responses = (!responses.is_empty()).then_some(responses);
        retry(sent, responses, input.request_state)
            .ok_or_else(|| failed(ServiceError::UnexpectedResponse))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ListToolsRequest};

    #[test]
    fn a_retry_carries_the_state_as_given_and_no_state_when_none() {
        let call =
            ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new("t")));
        let state = "{\"nonce\": \"a b\"}".to_owned();
        let Some(ClientRequest::CallToolRequest(again)) =
            retry(call.clone(), None, Some(state.clone()))
        else {
            panic!("a tools/call can be retried");
        };
        assert_eq!(again.params.request_state.as_deref(), Some(state.as_str()));
        let Some(ClientRequest::CallToolRequest(again)) = retry(call, None, None) else {
            panic!("a tools/call can be retried");
        };
        assert_eq!(again.params.request_state, None);
        assert_eq!(again.params.input_responses, None);
        let list = ClientRequest::ListToolsRequest(ListToolsRequest::default());
        assert!(retry(list, None, None).is_none());
    }
}
