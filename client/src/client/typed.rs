//! Typed calls of a generated client ([`Client::call`] and its variants):
//! the input serialized and checked against the locked input schema, the
//! call run as a task when the tool requires it, and the structured output
//! checked against the locked output schema and parsed.

use std::borrow::Cow;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use super::call::Arguments;
use super::{CallFuture, CallOptions, Client};
use crate::call::ToolResult;
use crate::error::{Error, Result};
use mcpbind_model::{TaskSupport, Tool};

impl Client {
    /// Calls a typed tool: serializes its input, checks the result and parses
    /// its structured output.
    pub fn call<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
    ) -> impl CallFuture<T::Output> + 'a {
        let options = CallOptions {
            retry_safe: T::META.is_retry_safe(),
            ..CallOptions::default()
        };
        self.typed_call::<T>(input, options)
    }

    /// [`Client::call`], taking the input by value: what a generated
    /// client's method returns. The method is then no `async fn` of its
    /// own, so the user's crate has no state machine per tool to check
    /// (7% of rustc's time checking a large lockfile's bindings;
    /// BENCHMARKS.md).
    pub(crate) fn call_owned<'a, T: Tool + 'a>(
        &'a self,
        input: T::Input,
    ) -> impl CallFuture<T::Output> + 'a
    where
        T::Input: 'a,
    {
        async move { self.call::<T>(&input).await }
    }

    /// [`Client::call_owned`] for a tool that needs approval
    /// (`annotations = "enforce"`): what its generated method returns.
    /// `approved` must be the approval of this very input; the arguments
    /// it approved are sent.
    pub(crate) fn call_approved<'a, T: Tool + 'a>(
        &'a self,
        input: T::Input,
        approved: crate::approval::Approved<T>,
    ) -> impl CallFuture<T::Output> + 'a
    where
        T::Input: 'a,
    {
        async move {
            let arguments = approved.arguments_for(&input)?;
            let options = CallOptions {
                approved: Some(arguments.clone()),
                ..CallOptions::default()
            };
            let call = self.call_unobserved::<T>(&input, options);
            // The event shows what is sent: the arguments approved (an
            // amend's, when the policy amended them).
            if crate::events::observed() {
                let observed = crate::events::observe(
                    self.server_config(),
                    self.server_name(),
                    &T::META,
                    &arguments,
                    call,
                );
                Box::pin(observed).await
            } else {
                call.await
            }
        }
    }

    /// [`Client::call`] for arguments the toolbox validated already.
    pub(crate) fn call_validated<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
    ) -> impl CallFuture<T::Output> + 'a {
        let options = CallOptions {
            retry_safe: T::META.is_retry_safe(),
            validated: true,
            ..CallOptions::default()
        };
        self.typed_call::<T>(input, options)
    }

    /// [`Client::call`] with options (a timeout for this call; `retry_safe`
    /// is taken from the tool's annotations when not set).
    pub fn call_with<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
        options: &CallOptions,
    ) -> impl CallFuture<T::Output> + 'a {
        self.typed_call::<T>(input, options.clone())
    }

    /// The future of a typed call. The public ways in are plain functions
    /// rather than `async fn`s, each of which would be one more layer of
    /// state machine that holds, and copies, the whole call's future.
    pub(super) fn typed_call<'a, T: Tool + 'a>(
        &'a self,
        input: &'a T::Input,
        options: CallOptions,
    ) -> impl CallFuture<T::Output> + 'a {
        // Event hook (core/src/events.rs): times the call, counts its
        // attempts and publishes one `ToolInvoked` per call, when someone
        // listens (checked when the call's future is made). Boxed: the
        // hook's future holds the call's twice (an `async fn` keeps its
        // arguments beside its locals), and inline it would double every
        // call's future, listened to or not.
        if crate::events::observed() {
            futures::future::Either::Left(Box::pin(crate::events::observe(
                self.server_config(),
                self.server_name(),
                &T::META,
                input,
                self.call_unobserved::<T>(input, options),
            )))
        } else {
            futures::future::Either::Right(self.call_unobserved::<T>(input, options))
        }
    }

    pub(super) async fn call_unobserved<T: Tool>(
        &self,
        input: &T::Input,
        options: CallOptions,
    ) -> Result<ToolResult<T::Output>> {
        let meta = &T::META;
        let mut options = options;
        let approved = match options.approved.take() {
            Some(approved) => Some(self.approved_arguments::<T>(approved)?),
            None => {
                self.refuse_unapproved::<T>(&options)?;
                None
            }
        };
        if let mcpbind_model::config::TransportConfig::StreamableHttp { .. } = self.config.transport
        {
            // Its `Mcp-Param-*` headers, before anything is listed.
            (self.shared.handler.tool_schemas).lock_once(meta.name, meta.input_schema);
        }
        let task = match meta.task_support() {
            TaskSupport::Required => true,
            TaskSupport::Optional => options.as_task,
            _ => false,
        };
        let options = CallOptions {
            retry_safe: options.retry_safe || meta.is_retry_safe(),
            ..options
        };
        // A retry serializes the input again rather than keep a copy.
        let again = || match serde_json::to_value(input) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let arguments = match approved {
            Some(map) => Arguments::Map(map),
            None => Arguments::Typed {
                first: Some(self.typed_arguments::<T>(input, options.validated)?),
                again: &again,
            },
        };
        let result = self
            .call_tool(Cow::Borrowed(meta.name), arguments, &options, task)
            .await?;
        self.typed_result::<T>(result)
    }

    /// A typed call's arguments: its input as a JSON object, checked
    /// against the locked input schema unless `validated` already, or
    /// unless its type keeps the whole schema
    /// ([`Tool::INPUT_ENFORCES_SCHEMA`]) and no `null` is in it (a NaN or
    /// infinite float serializes as one), nor deep nesting.
    pub(super) fn typed_arguments<T: Tool>(
        &self,
        input: &T::Input,
        validated: bool,
    ) -> Result<Map<String, Value>> {
        let value = serde_json::to_value(input).map_err(|e| Error::Arguments {
            server: self.name.clone(),
            tool: T::META.name.to_owned(),
            reason: e.to_string(),
            violations: Vec::new(),
        })?;
        let enforced = T::INPUT_ENFORCES_SCHEMA && !needs_check(&value, 0);
        self.checked_arguments::<T>(value, validated || enforced)
    }

    /// Refuses a call of a tool that needs approval (`annotations =
    /// "enforce"`) made without one: not through its generated method,
    /// nor by the toolbox (which runs the approval policy itself).
    pub(super) fn refuse_unapproved<T: Tool>(&self, options: &CallOptions) -> Result<()> {
        if !T::NEEDS_APPROVAL || options.validated || options.approved.is_some() {
            return Ok(());
        }
        Err(Error::Unapproved {
            server: self.name.clone(),
            tool: T::META.name.to_owned(),
            reason: "call it through its generated method, with an `Approved` from the approval policy (`annotations = \"enforce\"`)".to_owned(),
        })
    }

    /// The arguments an approval let go, checked against the locked input
    /// schema (an amend's are the policy's, not the typed input's).
    fn approved_arguments<T: Tool>(&self, approved: Value) -> Result<Map<String, Value>> {
        self.checked_arguments::<T>(approved, false)
    }

    /// Arguments as a JSON object, checked against the locked input schema
    /// unless `validated` already (or `validate_input` is off).
    fn checked_arguments<T: Tool>(
        &self,
        value: Value,
        validated: bool,
    ) -> Result<Map<String, Value>> {
        let meta = &T::META;
        let arguments = match value {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                return Err(Error::Arguments {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!("expected a JSON object, got {other}"),
                    violations: Vec::new(),
                })
            }
        };
        if !self.config.validate_input || validated {
            return Ok(arguments);
        }
        let object = Value::Object(arguments);
        let violations = crate::validate::violations_or(meta.input_schema, &object, |why| {
            tracing::warn!(server = %self.name, tool = meta.name, "the locked inputSchema can't be checked ({why}): arguments are sent unchecked, and only the server checks them");
        });
        if !violations.is_empty() {
            return Err(Error::Arguments {
                server: self.name.clone(),
                tool: meta.name.to_owned(),
                reason: format!(
                    "{} (checked against the locked inputSchema; the call was not sent)",
                    crate::validate::join(&violations)
                ),
                violations,
            });
        }
        let Value::Object(arguments) = object else {
            unreachable!("built as an object above")
        };
        Ok(arguments)
    }

    /// A typed call's result: its structured content checked against the
    /// locked output schema and parsed.
    pub(crate) fn typed_result<T: Tool>(
        &self,
        result: CallToolResult,
    ) -> Result<ToolResult<T::Output>> {
        let meta = &T::META;
        if let (true, Some(schema), Some(structured), false) = (
            self.config.validate_output,
            meta.output_schema,
            &result.structured_content,
            result.is_error == Some(true),
        ) {
            let violations = crate::validate::violations_or(schema, structured, |why| {
                tracing::warn!(server = %self.name, tool = meta.name, "the locked outputSchema can't be checked ({why}): structured content is taken unchecked");
            });
            if !violations.is_empty() {
                return Err(self.hide_secrets(Error::Output {
                    server: self.name.clone(),
                    tool: meta.name.to_owned(),
                    reason: format!(
                        "structuredContent does not match the locked outputSchema: {}",
                        crate::validate::join(&violations)
                    ),
                    violations,
                    result: Box::new(result),
                }));
            }
        }
        ToolResult::from_result(&self.name, meta, result).map_err(|e| self.hide_secrets(e))
    }
}

/// Whether a typed call's arguments need checking though their type keeps
/// the schema: a `null` in them (what a NaN or infinite float serializes
/// as), or nesting deeper than [`SKIP_DEPTH`] (the validator's own depth
/// limit then decides).
fn needs_check(value: &Value, depth: usize) -> bool {
    match value {
        Value::Null => true,
        Value::Array(_) | Value::Object(_) if depth >= SKIP_DEPTH => true,
        Value::Array(items) => items.iter().any(|v| needs_check(v, depth + 1)),
        Value::Object(map) => map.values().any(|v| needs_check(v, depth + 1)),
        _ => false,
    }
}

/// How deep arguments may nest and skip the check (a recursive walk of
/// at most this many frames).
const SKIP_DEPTH: usize = 64;

#[cfg(test)]
mod tests {
    use super::{needs_check, SKIP_DEPTH};
    use serde_json::{json, Value};

    fn nested(levels: usize, inner: Value) -> Value {
        (0..levels).fold(inner, |v, _| json!({ "a": [v] }))
    }

    #[test]
    fn arguments_with_a_null_or_deep_nesting_are_checked_anyway() {
        assert!(!needs_check(&json!({"a": 1, "b": ["x", true, 2.5]}), 0));
        assert!(needs_check(&json!({"a": 1, "b": [null]}), 0));
        assert!(needs_check(&nested(5, Value::Null), 0));
        // Two levels a round: an object, then an array.
        assert!(!needs_check(&nested(SKIP_DEPTH / 2 - 1, json!(1)), 0));
        assert!(needs_check(&nested(SKIP_DEPTH / 2, json!({})), 0));
    }
}
