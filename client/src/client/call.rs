//! Calling a tool with JSON arguments ([`Client::call_raw`]): the call's
//! options and plan, its span, the retry loop (under `max_concurrent_calls`,
//! one deadline for every attempt, `Retry-After` honoured), and one attempt
//! (a plain `tools/call`, or one that creates a task).

use std::borrow::Cow;
use std::future::Future;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, RequestMetaObject,
    ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::ServiceError;
use serde_json::{Map, Value};
use tracing::Instrument as _;

use super::request::{speaks_mrtr, with_tool};
use super::{millis, task, Client, Wait};
use crate::breaker::backoff;
use crate::clock;
use crate::error::{Error, Result};
use crate::notices::{Progress, ProgressSink, Watching};

/// Options of one call.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Overrides the client's timeout (the server's `timeout`, or the one
    /// given to [`Client::with_timeout`]): how long the call waits without
    /// hearing from the server. Each progress report starts it again.
    pub timeout: Option<Duration>,
    /// Overrides the server's `max_call_time`: the call's total limit,
    /// however often the server reports progress (every attempt and a
    /// task's polls included).
    pub max_call_time: Option<Duration>,
    /// Whether the call may be sent again after the connection was lost while
    /// it was in flight. Generated code sets it for read-only and idempotent
    /// tools.
    pub retry_safe: bool,
    /// Run the call as a task (MCP 2025-11-25 `execution.taskSupport`):
    /// needed for `optional` tools only, since a typed call of a `required`
    /// one always runs as a task. For [`Client::call_raw`], which knows no
    /// definition, it decides.
    pub as_task: bool,
    /// Receives the call's progress reports.
    pub progress: Option<ProgressSink>,
    /// Sent as the request's `_meta` (beside the progress token).
    pub meta: Option<Map<String, Value>>,
    /// The arguments were validated against the locked input schema already
    /// (the toolbox does, on the model's JSON): the typed call does not
    /// validate them again.
    pub(crate) validated: bool,
    /// The arguments an approval let go (`Client::call_approved`): sent
    /// instead of the typed input's.
    pub(crate) approved: Option<Value>,
}

impl CallOptions {
    /// Options with a timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        CallOptions {
            timeout: Some(timeout),
            ..Self::default()
        }
    }

    /// These options, with a total limit ([`CallOptions::max_call_time`]).
    pub fn max_call_time(mut self, limit: Duration) -> Self {
        self.max_call_time = Some(limit);
        self
    }

    /// These options, running the call as a task ([`CallOptions::as_task`]).
    pub fn run_as_task(mut self) -> Self {
        self.as_task = true;
        self
    }

    /// These options, calling `f` with each progress report of the call.
    pub fn on_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(ProgressSink::new(f));
        self
    }

    /// These options, sending `meta` as the request's `_meta`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }
}

/// How one call goes: its limits and what it asks of the server, fixed
/// when it starts (the same for every attempt).
pub(crate) struct Plan<'o> {
    /// How long to wait without hearing from the server.
    pub(crate) timeout: Duration,
    /// When the whole call ends, progress or not.
    pub(crate) until: Instant,
    /// The `max_call_time` that `until` came from, for its error.
    pub(crate) limit: Duration,
    pub(crate) retry_safe: bool,
    /// Create a task rather than call.
    pub(crate) task: bool,
    pub(crate) progress: Option<&'o ProgressSink>,
    pub(crate) meta: Option<&'o Map<String, Value>>,
}

impl Plan<'_> {
    /// How long an attempt waits for its answer: `timeout` without news
    /// (progress reports start it again), and at most until the call's
    /// `max_call_time` ends.
    fn wait<'w>(&self, watching: &'w Watching<'w>) -> Wait<'w> {
        Wait {
            timeout: self.timeout,
            until: Some((self.until, self.limit)),
            watch: Some(watching),
        }
    }
}

/// How one attempt of a call failed, for the retry loop: when, since an
/// error that [`Error::is_retryable`] is tried again only when that is safe.
pub(super) enum Failure {
    /// Before the request was sent (connect failed, the connection was
    /// found closed): always safe to try again.
    Unsent(Error),
    /// After the request may have reached the server (the connection was
    /// lost while it was in flight, the server was busy): safe to send
    /// again only for a retry-safe tool.
    Sent(Error),
    /// The answer, whatever its kind: a session that could not be had
    /// otherwise (a refused handshake), or a task's error once the task was
    /// created (a lost connection loses the task; the request is not sent
    /// again).
    Final(Error),
}

impl Failure {
    /// A session that could not be had: not connected (or found closed)
    /// is a request never sent; anything else is the answer.
    fn of_session(e: Error) -> Failure {
        match e {
            Error::Connect { .. } | Error::Spawn { .. } | Error::Closed { .. } => {
                Failure::Unsent(e)
            }
            e => Failure::Final(e),
        }
    }
}

/// A call's arguments, for each of its attempts.
pub(super) enum Arguments<'a> {
    /// Given as JSON (`call_raw`): copied for each attempt that a retry
    /// could follow.
    Map(Map<String, Value>),
    /// A typed call's: the first attempt takes them, a retry serializes the
    /// input again.
    Typed {
        first: Option<Map<String, Value>>,
        again: &'a (dyn Fn() -> Map<String, Value> + Sync),
    },
}

impl Arguments<'_> {
    /// The arguments as the first attempt sends them, left in place.
    #[cfg(feature = "record-tap")]
    fn peek(&self) -> Map<String, Value> {
        match self {
            Arguments::Map(map) => map.clone(),
            Arguments::Typed { first, again } => first.clone().unwrap_or_else(again),
        }
    }

    /// The arguments for an attempt (`last`: no retry can follow it).
    pub(super) fn take(&mut self, last: bool) -> Map<String, Value> {
        match self {
            Arguments::Map(map) if last => std::mem::take(map),
            Arguments::Map(map) => map.clone(),
            Arguments::Typed { first, again } => first.take().unwrap_or_else(again),
        }
    }
}

impl Client {
    /// Calls a tool with JSON arguments and returns rmcp's result as is
    /// (`isError` results included).
    ///
    /// The call waits its turn under `max_concurrent_calls`. A failure before
    /// the request was sent, or a lost connection when `options.retry_safe`,
    /// is retried up to the server's `retries` with capped exponential
    /// backoff; [`Error::Attempts`] then says how many attempts were made.
    /// The call runs in a `tracing` span `mcp.call` (server, tool, request
    /// id, attempt, outcome, duration).
    pub fn call_raw<'a>(
        &'a self,
        tool: &str,
        arguments: Map<String, Value>,
        options: &'a CallOptions,
    ) -> impl Future<Output = Result<CallToolResult>> + Send + 'a {
        self.call_tool(
            Cow::Owned(tool.to_owned()),
            Arguments::Map(arguments),
            options,
            options.as_task,
        )
    }

    /// [`Client::call_raw`], for a tool name that may be `'static` (a
    /// typed call's), which is then sent without a copy; `task`: create a
    /// task rather than call.
    pub(super) async fn call_tool(
        &self,
        tool: Cow<'static, str>,
        arguments: Arguments<'_>,
        options: &CallOptions,
        task: bool,
    ) -> Result<CallToolResult> {
        let limit = options.max_call_time.unwrap_or(self.config.max_call_time);
        let plan = Plan {
            timeout: options.timeout.unwrap_or_else(|| self.timeout()),
            until: clock::later(self.shared.clock.now(), limit),
            limit,
            retry_safe: options.retry_safe,
            task,
            progress: options.progress.as_ref(),
            meta: options.meta.as_ref(),
        };
        let span = tracing::info_span!(
            "mcp.call",
            server = %self.name,
            tool = &*tool,
            request_id = tracing::field::Empty,
            attempt = tracing::field::Empty,
            outcome = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
        );
        if span.is_disabled() {
            // Nobody records calls: no clock reads, no outcome.
            return self.call_with_retries(tool, arguments, &plan, false).await;
        }
        let call = async {
            let started = self.shared.clock.now();
            let result = self.call_with_retries(tool, arguments, &plan, true).await;
            let outcome = match &result {
                Ok(r) if r.is_error == Some(true) => "tool error",
                Ok(_) => "ok",
                Err(e) => outcome_of(e),
            };
            let span = tracing::Span::current();
            span.record("outcome", outcome);
            span.record("duration_ms", millis(self.shared.clock.since(started)));
            tracing::debug!(outcome, "call finished");
            result
        };
        call.instrument(span).await
    }

    /// The call of [`Client::call_raw`], `traced` when it runs in a span
    /// that records its attempts.
    pub(super) async fn call_with_retries(
        &self,
        tool: Cow<'static, str>,
        mut arguments: Arguments<'_>,
        plan: &Plan<'_>,
        traced: bool,
    ) -> Result<CallToolResult> {
        let _permit = self.permit().await?;
        self.open()?;
        self.refuse_drifted(&tool)?;
        #[cfg(feature = "record-tap")]
        let sent = crate::internal::TAP.get().map(|_| arguments.peek());
        let _busy = self.shared.activity.enter();
        let clock = self.shared.clock;
        #[cfg(feature = "metrics")]
        let started = clock.now();
        let lifecycle = &self.config.lifecycle;
        let mut attempt: u32 = 0;
        let result = loop {
            attempt += 1;
            crate::events::record_attempt(); // event hook: counts sends
            if traced {
                tracing::Span::current().record("attempt", attempt);
            }
            let last = attempt > lifecycle.retries;
            let (error, retry) = match self
                .attempt(&tool, tool.clone(), (&mut arguments, last), plan, traced)
                .await
            {
                Ok(result) => break Ok(result),
                Err(Failure::Unsent(e)) => {
                    let retry = e.is_retryable();
                    (e, retry)
                }
                // Lost, or busy (429, 503): a retry-safe call is sent again
                // (waiting as a busy server asks).
                Err(Failure::Sent(e)) => {
                    let retry = plan.retry_safe && e.is_retryable();
                    (e, retry)
                }
                Err(Failure::Final(e)) => (e, false),
            };
            let delay = error
                .retry_after()
                .unwrap_or_else(|| backoff(lifecycle, attempt));
            // One deadline covers every attempt.
            let late = clock.now() + delay >= plan.until;
            if !retry || attempt > lifecycle.retries || late {
                break Err(match attempt {
                    1 => error,
                    attempts => Error::Attempts {
                        server: self.name.clone(),
                        tool: tool.to_string(),
                        attempts,
                        last: Box::new(error),
                    },
                });
            }
            tracing::info!(%error, attempt, delay_ms = millis(delay), "retrying");
            clock.sleep(delay).await;
        };
        #[cfg(feature = "metrics")]
        {
            let outcome = match &result {
                Ok(r) if r.is_error == Some(true) => "tool error",
                Ok(_) => "ok",
                Err(e) => outcome_of(e),
            };
            crate::metrics::call(&self.name, &tool, outcome, clock.since(started), attempt);
        }
        let result = result.map_err(|e| self.hide_secrets(e));
        #[cfg(feature = "record-tap")]
        if let Some(sent) = sent {
            use crate::internal::{tap, Heard};
            let _ = tap(self, Heard::Tool(&tool, sent, &result)).await;
        }
        result
    }

    /// A place among the calls in flight, when `max_concurrent_calls` bounds
    /// them.
    async fn permit(&self) -> Result<Option<tokio::sync::SemaphorePermit<'_>>> {
        let Some(limit) = &self.shared.limit else {
            return Ok(None);
        };
        let permit = limit.acquire().await.map_err(|_| Error::Shutdown {
            server: self.name.clone(),
        })?;
        Ok(Some(permit))
    }

    /// One attempt of a call (`name` is `tool`, as sent: a `'static` name
    /// stays borrowed; `last`: no retry can follow it).
    pub(super) async fn attempt(
        &self,
        tool: &str,
        name: Cow<'static, str>,
        (arguments, last): (&mut Arguments<'_>, bool),
        plan: &Plan<'_>,
        traced: bool,
    ) -> std::result::Result<CallToolResult, Failure> {
        let session = self.session().await.map_err(Failure::of_session)?;
        // Errors name the tool in their method; a successful call builds
        // no such string.
        let method = "tools/call";
        let with_tool = |e: Error| with_tool(e, method, tool);
        let peer = session.service.peer();
        // A server that may answer `input_required` gets the request again,
        // built again then: the arguments stay available (a typed call's
        // are serialized again), and no call pays for a copy of its request
        // that only such an answer needs.
        let mrtr = speaks_mrtr(peer);
        let request = sent_request(name.clone(), arguments.take(last && !mrtr), plan);
        // `send`, spelled out: one layer less of a call's future, which
        // each layer copies (rmcp's is 3 KB; boxing it costs more than the
        // copies, a large allocation missing the allocator's caches:
        // BENCHMARKS.md).
        let sent = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await;
        let handle = match sent {
            Ok(handle) => handle,
            Err(e) => match self.send_failed(&session, method, e).await {
                e @ Error::Closed { .. } => return Err(Failure::Unsent(e)),
                e => return Err(Failure::Sent(with_tool(e))),
            },
        };
        if traced {
            tracing::Span::current().record("request_id", tracing::field::display(&handle.id));
        }
        // Progress reports for this request start its timeout again, and
        // reach the caller.
        let watching = self.shared.handler.notices.watch(
            handle.progress_token.clone(),
            name,
            plan.progress.cloned(),
        );
        let wait = plan.wait(&watching);
        let mut pending = super::request::Pending::new(handle);
        if plan.task {
            pending = pending.creating_task(self);
        }
        let response = match self.await_pending(&session, pending, method, wait).await {
            // Boxed: rare, and the rounds' future would be part of every
            // call's.
            Ok(ServerResult::InputRequiredResult(input)) if mrtr => {
                let sent = sent_request(Cow::Owned(tool.to_owned()), arguments.take(last), plan);
                Box::pin(self.more_rounds(&session, sent, input, method, wait)).await
            }
            response => response,
        };
        match response {
            Ok(ServerResult::CallToolResult(result)) => {
                self.shared.breaker.success();
                Ok(result)
            }
            // A task was created: the call is its result. A lost connection
            // now loses the task, not the request: it is not sent again.
            Ok(created) if plan.task => {
                self.shared.breaker.success();
                Box::pin(self.run_task(tool, created, plan, &watching))
                    .await
                    .map_err(|e| Failure::Final(with_tool(e)))
            }
            Ok(_) => Err(Failure::Sent(with_tool(
                self.service_error(method, ServiceError::UnexpectedResponse),
            ))),
            Err(e @ Error::Closed { .. }) => Err(Failure::Sent(e)),
            Err(e) => Err(Failure::Sent(with_tool(e))),
        }
    }
}

/// The request an attempt sends: [`call_request`], with the trace context
/// under `otel`.
fn sent_request(
    name: Cow<'static, str>,
    arguments: Map<String, Value>,
    plan: &Plan<'_>,
) -> ClientRequest {
    let request = call_request(name, arguments, plan);
    #[cfg(feature = "otel")]
    let request = crate::trace_context::with_traceparent(request, plan.meta);
    request
}

/// The `tools/call` request of a call: a plain one, or one that creates a
/// task.
fn call_request(
    name: Cow<'static, str>,
    arguments: Map<String, Value>,
    plan: &Plan<'_>,
) -> ClientRequest {
    if plan.task {
        return task::create_request(&name, arguments, plan.meta);
    }
    let mut params = CallToolRequestParams::new(name);
    params.arguments = Some(arguments);
    if let Some(meta) = plan.meta {
        params.meta = Some(RequestMetaObject::from(meta.clone()));
    }
    ClientRequest::CallToolRequest(CallToolRequest::new(params))
}

/// The `outcome` of a failed call in its span.
pub(super) fn outcome_of(error: &Error) -> &'static str {
    match error {
        Error::Timeout { .. } => "timeout",
        Error::TimeLimit { .. } => "time limit",
        Error::Closed { .. } => "connection lost",
        Error::Connect { .. } | Error::Spawn { .. } => "connect failed",
        Error::CircuitOpen { .. } => "circuit open",
        Error::Attempts { last, .. } => outcome_of(last),
        Error::Tool { .. } => "tool error",
        Error::Drift { .. } => "pin drift",
        Error::Shutdown { .. } => "shut down",
        _ => "error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpbind_model::config::Config;

    /// Every typed call's future holds a `call_raw` future, which generated
    /// code and callers move around: connecting (rare, and ~11 KB) is boxed
    /// out of it. Inline, it made the future 12.4 KB and a stdio call cost
    /// 1.39x raw rmcp's client instructions (1.09x boxed; BENCHMARKS.md).
    #[test]
    fn a_call_future_does_not_hold_the_connect_future() {
        let config = Config::from_toml_str("[servers.s]\ncommand = \"true\"\n").unwrap();
        let client = Client::lazy("s", config.servers["s"].clone());
        let options = CallOptions::default();
        let call = client.call_raw("t", Map::new(), &options);
        let size = std::mem::size_of_val(&call);
        assert!(size < 8 * 1024, "call_raw's future is {size} bytes");
    }
}
