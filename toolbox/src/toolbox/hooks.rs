//! [`ToolHook`]: code a host runs around each dispatched call.

use serde_json::Value;

use super::dispatch::ToolCall;
use crate::handler::BoxFuture;

/// The call a hook is told about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HookCall<'a> {
    /// The model-facing name.
    pub name: &'a str,
    /// The server's name in the config.
    pub server: &'a str,
    /// The tool's wire name.
    pub tool: &'a str,
    /// The arguments as the model gave them (or as an approval amended
    /// them), under the server's parameter names: a provider's aliases
    /// (Gemini's `auth_method` for `auth-method`) are mapped back first.
    pub arguments: &'a Value,
}

/// Runs around each call a [`Toolbox`](crate::Toolbox) dispatches to a
/// known tool: every hook's `before` in the order they were added, then the
/// call, then every `after` in reverse order (the last hook added is the
/// innermost). A host can snapshot its own state in `before` and restore it
/// in `after` when [`ToolCall::is_error`] says the call failed.
///
/// Hooks are synchronous and should be quick: they run on the task making
/// the call.
pub trait ToolHook: Send + Sync {
    /// Called before the arguments are checked and the call is made.
    fn before(&self, call: &HookCall<'_>) {
        let _ = call;
    }

    /// Called with the finished call (its outcome, duration and attempts).
    fn after(&self, call: &HookCall<'_>, result: &ToolCall) {
        let _ = (call, result);
    }
}

/// A call waiting for approval: who it goes to, with what, and what the
/// tool's annotations say about it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallRequest {
    /// The model-facing name.
    pub name: String,
    /// The server's name in the config.
    pub server: String,
    /// The tool's wire name.
    pub tool: String,
    /// The arguments as the model gave them (or as an earlier approval
    /// amended them), under the server's parameter names: a provider's
    /// aliases (Gemini's `auth_method` for `auth-method`) are mapped back
    /// before any approval runs, so an amend uses the server's names too.
    pub arguments: Value,
    /// `annotations.readOnlyHint`.
    pub read_only: bool,
    /// `annotations.destructiveHint` (MCP default `true`) of a tool that is
    /// not read-only (the hint means nothing otherwise).
    pub destructive: bool,
    /// `annotations.idempotentHint`.
    pub idempotent: bool,
    /// `annotations.openWorldHint` (MCP default `true`).
    pub open_world: bool,
    /// The tool is unlocked: listed live, not in `mcpbind.lock`
    /// ([`Toolbox::add_unlocked`](crate::Toolbox::add_unlocked)); its
    /// annotations are the server's word at run time, which nobody
    /// reviewed.
    pub unlocked: bool,
}

/// What an [`Approval`] decides.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// Send the call as it is.
    Approve,
    /// Don't send it; the model reads `reason` as the tool's error.
    Refuse {
        /// Why, for the model (and the events).
        reason: String,
    },
    /// Send it with these arguments instead (checked against the locked
    /// schema like the model's own).
    Amend {
        /// The arguments to send.
        arguments: Value,
    },
}

impl Verdict {
    /// [`Verdict::Refuse`] with `reason`.
    pub fn refuse(reason: impl Into<String>) -> Verdict {
        Verdict::Refuse {
            reason: reason.into(),
        }
    }
}

/// Decides, before a call is checked and sent, whether it goes: a human in
/// the loop for destructive tools, a rule such as "`git_commit` only after
/// `git_diff`". Approvals run in the order they were added, each seeing the
/// arguments the previous one amended; the first refusal ends the call,
/// which reaches the model as an error ([`CallError::Refused`](super::CallError::Refused))
/// and never reaches the server. [`ToolHook`]s run only around calls that
/// were approved.
///
/// Any `Fn(CallRequest) -> impl Future<Output = Verdict>` is an approval:
///
/// ```
/// # use mcpbind::{CallRequest, Toolbox, Verdict};
/// # let mut tools = Toolbox::new();
/// tools.with_approval(|call: CallRequest| async move {
///     if call.destructive { Verdict::refuse("destructive calls need a human") } else { Verdict::Approve }
/// });
/// ```
pub trait Approval: Send + Sync {
    /// Reviews one call.
    fn review(&self, call: CallRequest) -> BoxFuture<'static, Verdict>;
}

impl<F, Fut> Approval for F
where
    F: Fn(CallRequest) -> Fut + Send + Sync,
    Fut: std::future::Future<Output = Verdict> + Send + 'static,
{
    fn review(&self, call: CallRequest) -> BoxFuture<'static, Verdict> {
        Box::pin(self(call))
    }
}
