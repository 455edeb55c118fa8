//! [`ToolHook`]: code a host runs around each dispatched call.

use serde_json::Value;

use super::dispatch::ToolCall;

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
