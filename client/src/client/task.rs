//! Tasks (MCP 2025-11-25, `execution.taskSupport`): a `tools/call` that
//! creates a task on the server, polled with `tasks/get` at the interval the
//! server asks for until it ends or needs input, whose result `tasks/result`
//! gives. While a task waits for input (`input_required`), `tasks/result`
//! is where the server asks for it (an elicitation, answered by the
//! client's hooks like any other).
//!
//! rmcp 3.9 models the tasks of SEP-2663 (the 2026-07-28 extension:
//! `resultType: "task"`, `tasks/update`, no `tasks/result`), not those of
//! 2025-11-25 that servers speak today; so these requests go out as custom
//! requests, and their answers are read as JSON (rmcp's typed `tasks/get`
//! result would drop `pollInterval`, which it calls `pollIntervalMs`).

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResult, ClientRequest, CustomRequest, CustomResult, GetExtensions as _,
    RequestMetaObject, ServerResult, TaskStatus,
};
use rmcp::ServiceError;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{Client, Plan, Wait};
use crate::call::ToolResult;
use crate::client::CallOptions;
use crate::connect::{id_key, RawTap};
use crate::error::{Error, Result};
use crate::notices::Watching;
use mcpbind_model::Tool;

/// How often to poll a task whose server suggests no interval.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// Bounds on the interval a server asks for: not a busy loop, and not so
/// long that an ended task is noticed late.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(30);

/// What a server says of a task (`tasks/get`, or when it was created).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskState {
    /// The task's id, given by the server.
    pub id: String,
    /// Where it is (`working`, `input_required`, `completed`, `failed`,
    /// `cancelled`).
    pub status: TaskStatus,
    /// What the server says of it now (`statusMessage`).
    pub message: Option<String>,
    /// How often the server asks to be polled.
    pub poll_interval: Option<Duration>,
    /// How long the server keeps the task after it was created (`None`:
    /// unlimited or unsaid).
    pub ttl: Option<Duration>,
    /// When it was created (ISO 8601), as the server says.
    pub created_at: Option<String>,
    /// When it last changed (ISO 8601), as the server says.
    pub last_updated_at: Option<String>,
}

/// The task as sent: 2025-11-25 names (`pollInterval`, `ttl`), or rmcp's
/// when it read the answer as its own `tasks/get` result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    task_id: String,
    status: TaskStatus,
    #[serde(default)]
    status_message: Option<String>,
    #[serde(default, alias = "pollIntervalMs")]
    poll_interval: Option<f64>,
    #[serde(default, alias = "ttlMs")]
    ttl: Option<f64>,
    #[serde(default)]
    created_at: Option<String>,
    #[serde(default)]
    last_updated_at: Option<String>,
}

fn millis(ms: Option<f64>) -> Option<Duration> {
    ms.filter(|ms| ms.is_finite() && *ms >= 0.0)
        .map(|ms| Duration::from_secs_f64((ms / 1000.0).min(1e9)))
}

impl TaskState {
    /// Reads a task from an answer: `{"task": {…}}` when it was created, the
    /// task itself from `tasks/get` and `tasks/cancel`.
    pub(super) fn parse(server: &str, method: &str, answer: ServerResult) -> Result<TaskState> {
        let mut value = match answer {
            ServerResult::CustomResult(custom) => custom.0,
            other => serde_json::to_value(other).unwrap_or_default(),
        };
        if let Some(task) = value.get_mut("task").map(Value::take) {
            value = task;
        }
        let wire = Wire::deserialize(&value).map_err(|e| Error::Invalid {
            server: server.to_owned(),
            method: method.to_owned(),
            reason: format!("the answer is not a task: {e}"),
        })?;
        Ok(TaskState {
            id: wire.task_id,
            status: wire.status,
            message: wire.status_message,
            poll_interval: millis(wire.poll_interval),
            ttl: millis(wire.ttl),
            created_at: wire.created_at,
            last_updated_at: wire.last_updated_at,
        })
    }

    /// When to poll again.
    fn next_poll(&self) -> Duration {
        self.poll_interval
            .unwrap_or(DEFAULT_POLL)
            .clamp(MIN_POLL, MAX_POLL)
    }
}

/// The `tools/call` that creates a task (`"task": {}`: the server's own
/// time to live). `meta` goes where rmcp puts the progress token.
pub(super) fn create_request(
    name: &str,
    arguments: Map<String, Value>,
    meta: Option<&Map<String, Value>>,
) -> ClientRequest {
    let params = json!({ "name": name, "arguments": arguments, "task": {} });
    let mut request = CustomRequest::new("tools/call", Some(params));
    if let Some(meta) = meta {
        request
            .extensions_mut()
            .insert(RequestMetaObject::from(meta.clone()));
    }
    ClientRequest::CustomRequest(request)
}

/// A task started by a call or [`Client::start_task`]: read its status,
/// wait for its result, or cancel it. It holds only the task's id, so a
/// task can be taken up again after a reconnect ([`Client::resume_task`]).
#[derive(Debug, Clone)]
pub struct TaskHandle {
    client: Client,
    tool: String,
    id: String,
}

impl TaskHandle {
    /// The task's id, given by the server.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The tool the task runs.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Asks the server where the task is (`tasks/get`).
    ///
    /// # Errors
    ///
    /// A failed request: [`Error::Closed`] when the connection is lost,
    /// [`Error::Timeout`] or [`Error::TimeLimit`] when the server does not
    /// answer in time, [`Error::Service`] for an error the server answers with
    /// (`tasks/get`).
    pub async fn status(&self) -> Result<TaskState> {
        let wait = Wait::plain(self.client.timeout());
        self.client.get_task(&self.id, wait).await
    }

    /// Waits for the task to end (polling at the server's interval; input
    /// it needs is asked through the client's hooks) and returns its result,
    /// within the server's `max_call_time` from now. Dropping this future
    /// leaves the task running: see [`TaskHandle::cancel`].
    ///
    /// # Errors
    ///
    /// A failed request: [`Error::Closed`] when the connection is lost,
    /// [`Error::Timeout`] or [`Error::TimeLimit`] when the server does not
    /// answer in time, [`Error::Service`] for an error the server answers with;
    /// [`Error::Task`] when the task failed or was cancelled, [`Error::Tool`]
    /// for a result marked `isError`.
    pub async fn wait(&self) -> Result<CallToolResult> {
        let state = self.status().await?;
        let limit = self.client.config.max_call_time;
        let until = crate::clock::later(self.client.shared.clock.now(), limit);
        let timeout = self.client.timeout();
        self.client
            .drive_task(&self.tool, state, timeout, (until, limit), None)
            .await
    }

    /// [`TaskHandle::wait`], with the result checked and parsed as tool
    /// `T`'s (the tool the task runs).
    ///
    /// # Errors
    ///
    /// Those of [`TaskHandle::wait`], and [`Error::Output`] for
    /// `structuredContent` that does not parse into the tool's output type.
    pub async fn wait_for<T: Tool>(&self) -> Result<ToolResult<T::Output>> {
        let result = self.wait().await?;
        self.client.typed_result::<T>(result)
    }

    /// Asks the server to cancel the task (`tasks/cancel`); returns what it
    /// says of the task then.
    ///
    /// # Errors
    ///
    /// A failed request: [`Error::Closed`] when the connection is lost,
    /// [`Error::Timeout`] or [`Error::TimeLimit`] when the server does not
    /// answer in time, [`Error::Service`] for an error the server answers with
    /// (`tasks/cancel`).
    pub async fn cancel(&self) -> Result<TaskState> {
        self.client.cancel_task(&self.id).await
    }
}

impl Client {
    /// Starts tool `tool` as a task with JSON arguments and returns at once
    /// with its handle (the server must support tasks for it).
    ///
    /// # Errors
    ///
    /// Those of connecting, a failed request: [`Error::Closed`] when the
    /// connection is lost, [`Error::Timeout`] or [`Error::TimeLimit`] when the
    /// server does not answer in time, [`Error::Service`] for an error the
    /// server answers with, and [`Error::Invalid`] when the server answers
    /// without creating a task.
    pub async fn start_task(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        options: &CallOptions,
    ) -> Result<TaskHandle> {
        self.open()?;
        self.refuse_drifted(tool)?;
        let session = self.session().await?;
        let peer = session.service.peer().clone();
        let method = "tools/call";
        let request = create_request(tool, arguments, options.meta.as_ref());
        let timeout = options.timeout.unwrap_or_else(|| self.timeout());
        let answer = async {
            let handle = self.send(&session, &peer, request, method).await?;
            self.await_handle(&session, handle, method, Wait::plain(timeout))
                .await
        };
        let answer = answer
            .await
            .map_err(|e| super::request::with_tool(e, method, tool))?;
        let state = TaskState::parse(&self.name, method, answer)?;
        self.shared.breaker.success();
        Ok(self.resume_task(tool, &state.id))
    }

    /// Starts typed tool `T` as a task ([`Client::start_task`]); its
    /// input is checked as a typed call's is.
    ///
    /// # Errors
    ///
    /// [`Error::Arguments`] for an input that breaks the tool's input schema,
    /// [`Error::Unapproved`] for a tool that needs approval (bound with
    /// `annotations = "enforce"`: its generated method runs it as a task),
    /// then those of [`Client::start_task`].
    pub async fn start_typed_task<T: Tool>(
        &self,
        input: &T::Input,
        options: &CallOptions,
    ) -> Result<TaskHandle> {
        self.refuse_unapproved::<T>(options)?;
        let arguments = self.typed_arguments::<T>(input, options.validated)?;
        self.start_task(T::META.name, arguments, options).await
    }

    /// The handle of a task started before (by its id), for example on an
    /// earlier connection.
    pub fn resume_task(&self, tool: &str, id: &str) -> TaskHandle {
        TaskHandle {
            client: self.clone(),
            tool: tool.to_owned(),
            id: id.to_owned(),
        }
    }

    /// Runs the task a call created (`created`, the server's answer) to
    /// its end. A call that gives up (a limit passed, or its future was
    /// dropped) cancels the task.
    pub(super) async fn run_task(
        &self,
        tool: &str,
        created: ServerResult,
        plan: &Plan<'_>,
        watch: &Watching<'_>,
    ) -> Result<CallToolResult> {
        let state = TaskState::parse(&self.name, "tools/call", created)?;
        tracing::debug!(server = %self.name, tool, task = %state.id, "task created");
        let mut guard = CancelOnDrop {
            client: self.clone(),
            id: Some(state.id.clone()),
        };
        let until = (plan.until, plan.limit);
        let result = self
            .drive_task(tool, state, plan.timeout, until, Some(watch))
            .await;
        let id = guard.id.take();
        if let (Err(Error::Timeout { .. } | Error::TimeLimit { .. }), Some(id)) = (&result, id) {
            // Told before the error returns, as a timed-out request is.
            let _ = self.cancel_task(&id).await;
        }
        result
    }

    /// Polls task `state.id` until it ends or needs input, then fetches its
    /// result (`tasks/result` answers once the task ended, and asks for the
    /// input meanwhile).
    async fn drive_task(
        &self,
        tool: &str,
        mut state: TaskState,
        timeout: Duration,
        until: (Instant, Duration),
        watch: Option<&Watching<'_>>,
    ) -> Result<CallToolResult> {
        let mut lost = 0;
        let clock = self.shared.clock;
        while state.status == TaskStatus::Working {
            let pause = state.next_poll();
            if clock.now() + pause >= until.0 {
                return Err(self.expired("tasks/get", Wait::until(until), false));
            }
            clock.sleep(pause).await;
            let wait = Wait {
                timeout,
                until: Some(until),
                watch,
            };
            match self.get_task(&state.id, wait).await {
                Ok(next) => (state, lost) = (next, 0),
                // Polling is safe to repeat: a lost connection (an HTTP
                // session that expired) is made again.
                Err(Error::Closed { .. }) if lost < self.config.lifecycle.retries => lost += 1,
                Err(e) => return Err(e),
            }
        }
        if state.status == TaskStatus::Cancelled {
            return Err(Error::Task {
                server: self.name.clone(),
                tool: tool.to_owned(),
                task: state.id,
                status: state.status,
                message: state.message,
            });
        }
        let answer = self
            .task_request("tasks/result", &state.id, Wait::until(until))
            .await?;
        match answer {
            ServerResult::CallToolResult(result) => Ok(result),
            ServerResult::CustomResult(custom) => {
                serde_json::from_value(custom.0).map_err(|e| Error::Invalid {
                    server: self.name.clone(),
                    method: "tasks/result".to_owned(),
                    reason: format!("the answer is not a tool result: {e}"),
                })
            }
            _ => Err(Error::Invalid {
                server: self.name.clone(),
                method: "tasks/result".to_owned(),
                reason: "the answer is not a tool result".to_owned(),
            }),
        }
    }

    async fn get_task(&self, id: &str, wait: Wait<'_>) -> Result<TaskState> {
        let answer = self.task_request("tasks/get", id, wait).await?;
        TaskState::parse(&self.name, "tasks/get", answer)
    }

    pub(super) async fn cancel_task(&self, id: &str) -> Result<TaskState> {
        let wait = Wait::plain(self.timeout());
        let answer = self.task_request("tasks/cancel", id, wait).await?;
        TaskState::parse(&self.name, "tasks/cancel", answer)
    }

    /// Cancels the task a dropped call's `answer` created, if it comes
    /// within the client's timeout and created one. (Bounded: a server
    /// that heeded `notifications/cancelled` never answers, and this must
    /// not hold the connection open.)
    pub(super) async fn cancel_late_task(
        &self,
        answer: tokio::sync::oneshot::Receiver<std::result::Result<ServerResult, ServiceError>>,
    ) {
        let answer = tokio::select! {
            biased;
            answer = answer => answer,
            () = self.shared.clock.sleep(self.timeout()) => return,
        };
        let Ok(Ok(created)) = answer else { return };
        if let Ok(state) = TaskState::parse(&self.name, "tools/call", created) {
            tracing::debug!(server = %self.name, task = %state.id, "a dropped call's task is cancelled");
            let _ = self.cancel_task(&state.id).await;
        }
    }

    /// Sends `method` for task `id` and waits for its answer: as the
    /// server sent it (from the transport's tap) when it is a task.
    async fn task_request(
        &self,
        method: &'static str,
        id: &str,
        wait: Wait<'_>,
    ) -> Result<ServerResult> {
        let session = self.session().await?;
        let peer = session.service.peer().clone();
        let request = CustomRequest::new(method, Some(json!({ "taskId": id })));
        let request = ClientRequest::CustomRequest(request);
        let tap = session.tap.as_ref().filter(|_| method != "tasks/result");
        let _armed = tap.map(|tap| Armed::new(tap));
        let handle = self.send(&session, &peer, request, method).await?;
        let key = id_key(&serde_json::to_value(&handle.id).unwrap_or_default());
        let answer = self.await_handle(&session, handle, method, wait).await?;
        Ok(match tap.and_then(|tap| tap.take(&key)) {
            Some(raw) => ServerResult::CustomResult(CustomResult(raw)),
            None => answer,
        })
    }
}

impl Wait<'static> {
    /// Until the call's end, without an idle timeout of its own (a
    /// `tasks/result` answers when the task ends).
    fn until(until: (Instant, Duration)) -> Self {
        Wait {
            timeout: Duration::MAX,
            until: Some(until),
            watch: None,
        }
    }
}

/// The tap armed for one request while it lives.
struct Armed<'t>(&'t RawTap);

impl<'t> Armed<'t> {
    fn new(tap: &'t RawTap) -> Self {
        tap.arm(true);
        Armed(tap)
    }
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.0.arm(false);
    }
}

/// Cancels a call's task if the call is dropped before it ended.
struct CancelOnDrop {
    client: Client,
    id: Option<String>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let client = self.client.clone();
            runtime.spawn(async move {
                let _ = client.cancel_task(&id).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: Value) -> Result<TaskState> {
        TaskState::parse(
            "s",
            "tasks/get",
            ServerResult::CustomResult(CustomResult(value)),
        )
    }

    #[test]
    fn reads_a_created_task_and_a_polled_one() {
        let created = parse(json!({"task": {
            "taskId": "t1", "status": "working", "ttl": 300000, "pollInterval": 1000,
            "createdAt": "2026-11-26T00:00:00Z", "lastUpdatedAt": "2026-11-26T00:00:00Z"
        }}))
        .unwrap();
        assert_eq!(created.id, "t1");
        assert_eq!(created.status, TaskStatus::Working);
        assert_eq!(created.poll_interval, Some(Duration::from_secs(1)));
        assert_eq!(created.ttl, Some(Duration::from_secs(300)));
        let polled = parse(json!({
            "taskId": "t1", "status": "input_required", "statusMessage": "which one?",
            "ttl": null, "createdAt": "x", "lastUpdatedAt": "y"
        }))
        .unwrap();
        assert_eq!(polled.status, TaskStatus::InputRequired);
        assert_eq!(polled.message.as_deref(), Some("which one?"));
        assert_eq!(polled.ttl, None);
        // The poll interval is bounded both ways.
        assert_eq!(polled.next_poll(), DEFAULT_POLL);
        let busy = parse(json!({"taskId": "t", "status": "working", "pollInterval": 0})).unwrap();
        assert_eq!(busy.next_poll(), MIN_POLL);
    }

    #[test]
    fn rmcps_reading_of_a_polled_task_keeps_its_interval() {
        // rmcp reads a 2025-11-25 `tasks/get` answer as its own (SEP-2663)
        // `GetTaskResult`; written back, it says `pollIntervalMs`.
        let answer: ServerResult = serde_json::from_value(json!({
            "taskId": "t2", "status": "working", "ttlMs": null, "pollIntervalMs": 250,
            "createdAt": "x", "lastUpdatedAt": "y"
        }))
        .unwrap();
        let state = TaskState::parse("s", "tasks/get", answer).unwrap();
        assert_eq!(state.id, "t2");
        assert_eq!(state.poll_interval, Some(Duration::from_millis(250)));
    }

    #[test]
    fn an_answer_that_is_no_task_is_an_error_naming_the_request() {
        let err = parse(json!({"content": []})).unwrap_err();
        assert!(matches!(err, Error::Invalid { .. }), "{err:?}");
        assert!(err.to_string().contains("tasks/get"), "{err}");
    }

    #[test]
    fn the_creating_call_asks_for_a_task_and_carries_meta() {
        let meta: Map<String, Value> = [("trace".to_owned(), json!("abc"))].into_iter().collect();
        let request = create_request("research", Map::new(), Some(&meta));
        let ClientRequest::CustomRequest(custom) = &request else {
            panic!("not a custom request")
        };
        let json = serde_json::to_value(custom).unwrap();
        assert_eq!(json["method"], "tools/call");
        assert_eq!(json["params"]["name"], "research");
        assert_eq!(json["params"]["task"], json!({}));
        assert_eq!(json["params"]["_meta"]["trace"], "abc");
    }
}
