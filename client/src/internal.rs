//! What the workspace's own crates use of this crate's insides: the
//! toolbox (`mcpbind-toolbox`), and generated code through the facade's
//! `__private`. Not part of the public API, and exempt from semver
//! (ARCHITECTURE.md lists each crate's `internal`).

use std::time::Duration;

use mcpbind_model::config::{Annotations, Config};
use mcpbind_model::Tool;
use rmcp::model::ContentBlock;
use serde_json::Value;

use crate::approval::{Approvals, Approved, CallRequest};
use crate::client::{CallFuture, Client};
use crate::events::{Outcome, ToolInvoked};
use crate::notices::ListKind;
use crate::{Result, ToolResult};

pub use crate::approval::toolbox_request;
pub use crate::call::text_of;
pub use crate::client::pins::LiveTools;
pub use crate::error::{annotations_mismatch, annotations_mismatch_help};
pub use crate::events::{
    outcome_of, publish_rejected, publish_toolbox_call, with_scope, CallScope,
};

/// [`Client::call`] taking the input by value: what a generated client's
/// method returns. The method is then no `async fn` of its own, so the
/// user's crate has no state machine per tool to check (7% of rustc's
/// time checking a large lockfile's bindings; BENCHMARKS.md).
pub fn call_owned<'a, T: Tool + 'a>(
    client: &'a Client,
    input: T::Input,
) -> impl CallFuture<T::Output> + 'a
where
    T::Input: 'a,
{
    client.call_owned::<T>(input)
}

/// [`call_owned`] for a tool that needs approval (`annotations =
/// "enforce"`): what its generated method returns. `approved` must be the
/// approval of this very input; the arguments it approved are sent.
pub fn call_approved<'a, T: Tool + 'a>(
    client: &'a Client,
    input: T::Input,
    approved: Approved<T>,
) -> impl CallFuture<T::Output> + 'a
where
    T::Input: 'a,
{
    client.call_approved::<T>(input, approved)
}

/// [`Client::call`] for arguments the toolbox validated already.
pub fn call_validated<'a, T: Tool + 'a>(
    client: &'a Client,
    input: &'a T::Input,
) -> impl CallFuture<T::Output> + 'a {
    client.call_validated::<T>(input)
}

/// Fails when server `name` of `config` says another annotations mode
/// than the bindings were generated under (what a generated client's
/// `connect` checks first).
pub fn check_bindings(config: &Config, name: &str, bindings: Annotations) -> Result<()> {
    Client::check_bindings(config, name, bindings)
}

/// How many times the server said its `list` changed on `client`'s
/// connections so far.
pub fn list_changes(client: &Client, list: ListKind) -> u64 {
    client.list_changes(list)
}

/// Lists the tools again for the toolbox's unlocked ones, from now on
/// after each change too.
pub async fn list_live_tools(client: &Client) -> Result<LiveTools> {
    client.list_live_tools().await
}

/// Keeps a live listing of the tools (`at`: the change count read before
/// it began) as the latest, unless a later one is kept already.
pub fn note_live_tools(client: &Client, at: u64, listed: &[Value]) -> LiveTools {
    client.note_live_tools(at, listed)
}

/// The latest live listing of the tools, if any.
pub fn latest_live_tools(client: &Client) -> Option<LiveTools> {
    client.latest_live_tools()
}

/// Fails with `Error::Drift` for an entry of `list` (a tool, a prompt, a
/// resource template) whose use is refused.
pub fn refuse_drifted_in(client: &Client, list: ListKind, name: &str) -> Result<()> {
    client.refuse_drifted_in(list, name)
}

/// Runs the approvals in order on `request`: the arguments to send, or the
/// first refusal's reason with the arguments it saw.
pub async fn review(
    approvals: &Approvals,
    request: CallRequest,
) -> std::result::Result<Value, (String, Value)> {
    approvals.review(request).await
}

/// The event of a call of an unlocked tool through the toolbox.
pub fn unlocked_toolbox_call(
    server: String,
    tool: String,
    model_name: String,
    arguments: Value,
    outcome: Outcome,
    duration: Duration,
    attempts: u32,
) -> ToolInvoked {
    ToolInvoked::unlocked_toolbox_call(
        server, tool, model_name, arguments, outcome, duration, attempts,
    )
}

/// A result of its parts (the toolbox's).
pub fn tool_result<O>(
    output: O,
    content: Vec<ContentBlock>,
    structured_content: Option<Value>,
) -> ToolResult<O> {
    ToolResult::from_parts(output, content, structured_content)
}

/// What `mcpbind-testing` installs under its `record` feature
/// (`MCPBIND_RECORD`): told of each connection, tool call, prompt and
/// resource read of every [`Client`], however it was made. An error at
/// [`Heard::Connect`] fails the connect; one at a call is not the call's.
#[cfg(feature = "record-tap")]
pub static TAP: std::sync::OnceLock<Tap> = std::sync::OnceLock::new();

/// The [`TAP`]'s signature.
#[cfg(feature = "record-tap")]
pub type Tap = for<'a> fn(&'a Client, Heard<'a>) -> futures::future::BoxFuture<'a, Result<()>>;

/// What a client did, for the [`TAP`]: a connection about to be made, or
/// an exchange (its name, arguments and answer).
#[cfg(feature = "record-tap")]
#[allow(missing_docs)]
pub enum Heard<'a> {
    Connect,
    Tool(
        &'a str,
        serde_json::Map<String, Value>,
        &'a Result<rmcp::model::CallToolResult>,
    ),
    Prompt(
        &'a str,
        serde_json::Map<String, Value>,
        &'a Result<rmcp::model::GetPromptResult>,
    ),
    Resource(&'a str, &'a Result<rmcp::model::ReadResourceResult>),
}

/// Tells the [`TAP`], if one is installed.
#[cfg(feature = "record-tap")]
pub(crate) async fn tap(client: &Client, heard: Heard<'_>) -> Result<()> {
    match TAP.get() {
        Some(tap) => tap(client, heard).await,
        None => Ok(()),
    }
}
