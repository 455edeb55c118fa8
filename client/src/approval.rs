//! Approvals: the one policy that decides whether a call that may change
//! things goes, for the calls a model makes through a
//! [`Toolbox`](https://docs.rs/mcpbind/latest/mcpbind/struct.Toolbox.html)
//! and for the program's own calls of tools bound with
//! `annotations = "enforce"`.
//!
//! An [`Approval`] reviews one [`CallRequest`] and gives a [`Verdict`];
//! [`Approvals`] is the policy a program installs, its approvals in order.
//! A typed call of a tool that needs approval takes an [`Approved`], which
//! only [`Approvals::approve`] gives out: the type system sees to it that
//! the decision is written where the call is.

use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::events::CallSource;
use mcpbind_model::handler::BoxFuture;
use mcpbind_model::Tool;

/// A call waiting for approval: who it goes to, with what, and what the
/// tool's annotations say about it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CallRequest {
    /// The model-facing name (a typed call's: the tool's wire name).
    pub name: String,
    /// The server's name in the config.
    pub server: String,
    /// The tool's wire name.
    pub tool: String,
    /// The arguments as the model gave them (or as an earlier approval
    /// amended them), under the server's parameter names: a provider's
    /// aliases (Gemini's `auth_method` for `auth-method`) are mapped back
    /// before any approval runs, so an amend uses the server's names too.
    /// A typed call's: its input, serialized as it is sent.
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
    /// (`Toolbox::add_unlocked`); its annotations are the server's word at
    /// run time, which nobody reviewed.
    pub unlocked: bool,
    /// Who asks: a model through the toolbox ([`CallSource::Toolbox`]), or
    /// the program's own code ([`CallSource::Typed`],
    /// [`Approvals::approve`]).
    pub source: CallSource,
}

impl CallRequest {
    /// The request for typed tool `T` with `arguments`.
    fn typed<T: Tool>(arguments: Value) -> CallRequest {
        let meta = &T::META;
        CallRequest {
            name: meta.name.to_owned(),
            server: meta.server.to_owned(),
            tool: meta.name.to_owned(),
            arguments,
            read_only: meta.read_only,
            destructive: meta.destructive && !meta.read_only,
            idempotent: meta.idempotent,
            open_world: meta.open_world,
            unlocked: false,
            source: CallSource::Typed,
        }
    }
}

/// What an [`Approval`] decides.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Verdict {
    /// Send the call as it is.
    Approve,
    /// Don't send it; the model reads `reason` as the tool's error (a typed
    /// call gets [`Error::Unapproved`]).
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
/// which never reaches the server (a model reads it as the tool's error,
/// `CallError::Refused`; a typed call gets [`Error::Unapproved`]).
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

/// The approval policy a program installs: its [`Approval`]s, run in the
/// order they were added. The same policy serves a model's calls (a
/// `Toolbox`'s `with_approval` adds to its own, which
/// `Toolbox::approvals` hands out) and the program's own calls of tools
/// bound with `annotations = "enforce"` ([`approve`](Self::approve)).
/// Clones share the approvals.
///
/// A policy with no approval approves nothing that needs approval: an
/// `enforce`d tool is then never called.
#[derive(Clone, Default)]
pub struct Approvals {
    list: Vec<Arc<dyn Approval>>,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals")
            .field("approvals", &self.list.len())
            .finish()
    }
}

impl Approvals {
    /// A policy with no approval (which approves nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an approval, run after those already added.
    pub fn with_approval(&mut self, approval: impl Approval + 'static) -> &mut Self {
        self.list.push(Arc::new(approval));
        self
    }

    /// Adds every approval of `other`, after those already added.
    pub fn extend(&mut self, other: &Approvals) -> &mut Self {
        self.list.extend(other.list.iter().cloned());
        self
    }

    /// Whether the policy has no approval.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Reviews a call of tool `T` with `input` (the tool's marker type,
    /// `server::tools::DeleteFile`, names it) and, when every approval lets
    /// it go, gives the [`Approved`] its generated method takes:
    ///
    /// ```no_run
    /// # mcpbind::mcp_tools!(lockfile = "../mcpbind/mcpbind.lock", servers = [demo]);
    /// # async fn run(demo: demo::Client, policy: mcpbind::Approvals) -> mcpbind::Result<()> {
    /// let input = demo::types::DeleteItemInput::new("42");
    /// let ok = policy.approve(demo::tools::DeleteItem, &input).await?;
    /// // Bound with `annotations = "enforce"`: `demo.delete_item(input, ok).await?`
    /// # let _ = (ok, input, demo);
    /// # Ok(()) }
    /// # fn main() {}
    /// ```
    ///
    /// The approval holds the arguments reviewed: the call it is given to
    /// must have the same input, and sends what the policy approved (an
    /// amend's arguments, checked against the locked schema).
    ///
    /// # Errors
    ///
    /// [`Error::Unapproved`] when an approval refuses the call, or the
    /// policy has none; [`Error::Arguments`] when `input` does not
    /// serialize to a JSON object.
    pub async fn approve<T: Tool>(&self, tool: T, input: &T::Input) -> Result<Approved<T>> {
        let _ = tool;
        let reviewed = arguments_of::<T>(input)?;
        let request = CallRequest::typed::<T>(reviewed.clone());
        match self.review(request).await {
            Ok(arguments) => Ok(Approved {
                reviewed,
                arguments,
                tool: PhantomData,
            }),
            Err((reason, _)) => Err(unapproved::<T>(reason)),
        }
    }

    /// Runs the approvals in order on `request`: the arguments to send
    /// (amended or not), or the first refusal's reason with the arguments
    /// it saw. A policy with no approval refuses.
    ///
    /// # Errors
    ///
    /// The first refusal's reason with the arguments it saw; a policy with
    /// no approval refuses with the arguments as given.
    pub(crate) async fn review(
        &self,
        request: CallRequest,
    ) -> std::result::Result<Value, (String, Value)> {
        let mut request = request;
        if self.list.is_empty() {
            return Err((NO_APPROVAL.to_owned(), request.arguments));
        }
        for approval in &self.list {
            match approval.review(request.clone()).await {
                Verdict::Approve => {}
                Verdict::Amend { arguments } => request.arguments = arguments,
                Verdict::Refuse { reason } => return Err((reason, request.arguments)),
            }
        }
        Ok(request.arguments)
    }
}

/// Why a call that needs approval was refused by a policy with none.
pub(crate) const NO_APPROVAL: &str =
    "this tool needs an approval (`annotations = \"enforce\"`) and no approval policy is installed";

/// A typed input as the JSON a call sends.
fn arguments_of<T: Tool>(input: &T::Input) -> Result<Value> {
    match serde_json::to_value(input) {
        Ok(Value::Null) => Ok(Value::Object(Default::default())),
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(other) => Err(Error::Arguments {
            server: T::META.server.to_owned(),
            tool: T::META.name.to_owned(),
            reason: format!("expected a JSON object, got {other}"),
            violations: Vec::new(),
        }),
        Err(e) => Err(Error::Arguments {
            server: T::META.server.to_owned(),
            tool: T::META.name.to_owned(),
            reason: e.to_string(),
            violations: Vec::new(),
        }),
    }
}

fn unapproved<T: Tool>(reason: String) -> Error {
    Error::Unapproved {
        server: T::META.server.to_owned(),
        tool: T::META.name.to_owned(),
        reason,
    }
}

/// The approval of one call of tool `T` with one input: what the generated
/// method of a tool that needs approval (`annotations = "enforce"`) takes
/// beside its input. Only [`Approvals::approve`] makes one: it has no public
/// constructor, is neither `Default`, `Clone` nor `Deserialize`, and is
/// used up by the call. Its type names the tool, so an approval of one tool
/// does not compile as another's; it holds the arguments reviewed, so the
/// call refuses an input other than the one approved
/// ([`Error::Unapproved`]).
#[must_use = "an approval does nothing until it is given to the call"]
pub struct Approved<T: Tool> {
    /// The arguments the policy was shown.
    reviewed: Value,
    /// The arguments it approved: `reviewed`, or an amend's.
    arguments: Value,
    tool: PhantomData<fn() -> T>,
}

impl<T: Tool> std::fmt::Debug for Approved<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approved")
            .field("server", &T::META.server)
            .field("tool", &T::META.name)
            .field("arguments", &self.arguments)
            .finish()
    }
}

impl<T: Tool> Approved<T> {
    /// The arguments approved: those reviewed, or an amend's.
    pub fn arguments(&self) -> &Value {
        &self.arguments
    }

    /// The arguments to send for `input`: those approved, when `input` is
    /// the input that was reviewed.
    pub(crate) fn arguments_for(self, input: &T::Input) -> Result<Value> {
        if arguments_of::<T>(input)? != self.reviewed {
            return Err(unapproved::<T>(
                "the approval was given for other arguments (approve the input that is sent)"
                    .to_owned(),
            ));
        }
        Ok(self.arguments)
    }
}

/// What `mcpbind-toolbox` builds its requests with.
pub fn toolbox_request(server: &str, tool: &str, arguments: Value) -> CallRequest {
    CallRequest {
        name: tool.to_owned(),
        server: server.to_owned(),
        tool: tool.to_owned(),
        arguments,
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
        unlocked: false,
        source: CallSource::Toolbox,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpbind_model::ToolMeta;

    const DEF: &str = r#"{"inputSchema":{"type":"object"},"name":"rm"}"#;

    /// A tool whose annotations are the MCP defaults (it may modify).
    struct Rm;
    impl Tool for Rm {
        type Input = Value;
        type Output = ();
        const META: ToolMeta = ToolMeta::new(
            "fs",
            "rm",
            DEF,
            [(0, 0), (0, 0), (15, 32), (0, 0)],
            [false, true, false, true],
        );
        const NEEDS_APPROVAL: bool = true;
    }

    fn only_paths_under_tmp() -> Approvals {
        let mut policy = Approvals::new();
        policy.with_approval(|call: CallRequest| async move {
            assert_eq!(call.source, CallSource::Typed);
            assert_eq!((call.server.as_str(), call.tool.as_str()), ("fs", "rm"));
            assert!(call.destructive && !call.read_only && !call.unlocked);
            match call.arguments["path"].as_str() {
                Some(p) if p.starts_with("/tmp/") => Verdict::Approve,
                Some("tmp") => Verdict::Amend {
                    arguments: serde_json::json!({"path": "/tmp/x"}),
                },
                _ => Verdict::refuse("only under /tmp"),
            }
        });
        policy
    }

    #[tokio::test]
    async fn a_policy_without_approvals_approves_nothing() {
        let input = serde_json::json!({"path": "/tmp/a"});
        let err = Approvals::new().approve(Rm, &input).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("call to `fs.rm` was not approved: {NO_APPROVAL}")
        );
    }

    #[tokio::test]
    async fn an_approval_holds_the_input_it_was_given_for() {
        let policy = only_paths_under_tmp();
        let input = serde_json::json!({"path": "/tmp/a"});
        let ok = policy.approve(Rm, &input).await.unwrap();
        assert_eq!(ok.arguments(), &input);
        assert_eq!(ok.arguments_for(&input).unwrap(), input);

        let ok = policy.approve(Rm, &input).await.unwrap();
        let other = serde_json::json!({"path": "/"});
        let err = ok.arguments_for(&other).unwrap_err();
        assert!(matches!(err, Error::Unapproved { .. }), "{err}");
        assert!(err.to_string().contains("other arguments"), "{err}");
    }

    #[tokio::test]
    async fn refusals_and_amends_are_the_policys() {
        let policy = only_paths_under_tmp();
        let err = policy
            .approve(Rm, &serde_json::json!({"path": "/etc"}))
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "call to `fs.rm` was not approved: only under /tmp"
        );
        let input = serde_json::json!({"path": "tmp"});
        let ok = policy.approve(Rm, &input).await.unwrap();
        assert_eq!(ok.arguments(), &serde_json::json!({"path": "/tmp/x"}));
        // The amend's arguments are sent for the input that was reviewed.
        assert_eq!(
            ok.arguments_for(&input).unwrap(),
            serde_json::json!({"path": "/tmp/x"})
        );
    }

    #[tokio::test]
    async fn approvals_run_in_order_and_the_first_refusal_ends_it() {
        let mut policy = Approvals::new();
        policy.with_approval(|_: CallRequest| async { Verdict::refuse("first") });
        policy.with_approval(|_: CallRequest| async { panic!("ran after a refusal") });
        let mut shared = Approvals::new();
        shared.extend(&policy);
        assert!(!shared.is_empty());
        let request = toolbox_request("fs", "rm", serde_json::json!({}));
        assert_eq!(request.source, CallSource::Toolbox);
        let (reason, _) = shared.review(request).await.unwrap_err();
        assert_eq!(reason, "first");
    }
}
