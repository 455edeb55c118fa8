//! Serving locked tools from Rust: what the generated `Handler` trait
//! returns, and [`ToolServer`], which the generated `Server<H>` adapter
//! implements so that `mcpbind::serve_stdio` can put it on the wire with rmcp.
//!
//! The adapter lists the **locked** definitions (tools, prompts, resource
//! templates), so a test double lists exactly what the real server it
//! stands in for listed.

use std::future::Future;
use std::pin::Pin;

use serde_json::{json, Map, Value};

use crate::lock::EntryKind;
use crate::prompt::{Prompt, PromptMeta, ResourceTemplateMeta};
use crate::tool::{Tool, ToolMeta};

/// The variables a `resources/read` URI gave a resource template, by name
/// (see [`crate::uri_template::UriTemplate::match_uri`]).
pub type UriVariables = std::collections::BTreeMap<String, String>;

/// What a handler method returns.
pub type HandlerResult<O> = Result<Reply<O>, ToolFailure>;

/// A successful tool result from a handler: the structured output (for tools
/// with an `outputSchema`) and content blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply<O> {
    /// The structured output (`()` for tools without `outputSchema`).
    pub output: O,
    /// MCP content blocks as JSON (`{"type": "text", "text": …}`…). When
    /// empty for a tool with structured output, the output's JSON is sent as
    /// text too, as the spec recommends.
    pub content: Vec<Value>,
}

impl<O> Reply<O> {
    /// A reply with this output and no extra content.
    pub fn new(output: O) -> Self {
        Reply {
            output,
            content: Vec::new(),
        }
    }

    /// Adds a text content block.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.content
            .push(json!({"type": "text", "text": text.into()}));
        self
    }
}

impl Reply<()> {
    /// A text-only reply, for tools without an `outputSchema`.
    pub fn text(text: impl Into<String>) -> Self {
        Reply::new(()).with_text(text)
    }
}

impl<O> From<O> for Reply<O> {
    fn from(output: O) -> Self {
        Reply::new(output)
    }
}

/// A tool-level failure: sent as a result with `isError: true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolFailure(pub String);

impl ToolFailure {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolFailure(message.into())
    }

    /// The failure of a handler method that isn't implemented.
    pub fn unimplemented(tool: &str) -> Self {
        ToolFailure(format!("tool `{tool}` is not implemented by this handler"))
    }
}

impl std::fmt::Display for ToolFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolFailure {}

/// Why a served tool call, prompt or resource read has no result
/// ([`ToolServer`]); the server answers it as a JSON-RPC error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The arguments do not fit the tool's params type (the prompt's
    /// arguments struct).
    #[error("invalid arguments for {} `{name}`: {reason}", kind.noun())]
    Arguments {
        /// A tool or a prompt.
        kind: EntryKind,
        /// Its name.
        name: String,
        /// What does not fit, as the deserializer says it.
        reason: String,
    },
    /// What the handler answered could not be serialized.
    #[error("cannot serialize the answer of {} `{name}`: {reason}", kind.noun())]
    Serialize {
        /// A tool, a prompt or a resource template.
        kind: EntryKind,
        /// Its name.
        name: String,
        /// Why, as the serializer says it.
        reason: String,
    },
    /// The handler's prompt or resource template method failed (a tool's
    /// failure is a result with `isError: true`, not an error).
    #[error(transparent)]
    Failed(#[from] ToolFailure),
}

/// A served tool's, prompt's or resource read's answer: the result as JSON,
/// or why there is none.
pub type ServeResult = Result<Value, ServeError>;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A set of locked tools served by Rust code. Generated `Server<H>`
/// adapters implement it; `mcpbind::serve_stdio` (feature `server`) puts it on
/// the wire.
pub trait ToolServer: Send + Sync + 'static {
    /// The server's `serverInfo` as locked (JSON text).
    fn server_info(&self) -> &'static str;
    /// Each tool's locked metadata (its `definition` is served verbatim), in
    /// lockfile order.
    fn tools(&self) -> &'static [ToolMeta];
    /// Calls a tool: `None` if there is no such tool, `Some(Err)` for
    /// arguments that don't fit its params type, else the `CallToolResult`
    /// as JSON.
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>>;

    /// Each prompt's locked metadata (served verbatim), in lockfile order.
    fn prompts(&self) -> &'static [PromptMeta] {
        &[]
    }

    /// Each resource template's locked metadata (served verbatim).
    fn resource_templates(&self) -> &'static [ResourceTemplateMeta] {
        &[]
    }

    /// Whether the server was locked answering `completion/complete`.
    fn completions(&self) -> bool {
        false
    }

    /// Gets a prompt: `None` if there is no such prompt, `Some(Err)` for
    /// arguments that don't fit it or a failure, else the `GetPromptResult`
    /// as JSON.
    fn get_prompt<'a>(
        &'a self,
        name: &'a str,
        arguments: Map<String, Value>,
    ) -> BoxFuture<'a, Option<ServeResult>> {
        let _ = (name, arguments);
        Box::pin(async { None })
    }

    /// Reads a resource: `None` if no locked template matches the URI,
    /// `Some(Err)` for a failure, else the `ReadResourceResult` as JSON.
    fn read_resource<'a>(&'a self, uri: &'a str) -> BoxFuture<'a, Option<ServeResult>> {
        let _ = uri;
        Box::pin(async { None })
    }
}

/// The failure of a handler's prompt method that isn't implemented.
pub fn prompt_unimplemented(prompt: &str) -> ToolFailure {
    ToolFailure(format!(
        "prompt `{prompt}` is not implemented by this handler"
    ))
}

/// What a generated `Handler` tool method answers until it is implemented:
/// "tool `x` is not implemented" (the input is dropped).
#[doc(hidden)]
pub fn unimplemented<I, O>(tool: &'static str, input: I) -> std::future::Ready<HandlerResult<O>> {
    drop(input);
    std::future::ready(Err(ToolFailure::unimplemented(tool)))
}

/// The failure of a handler's resource template method that isn't
/// implemented.
pub fn template_unimplemented(template: &str) -> ToolFailure {
    ToolFailure(format!(
        "resource template `{template}` is not implemented by this handler"
    ))
}

/// Runs one prompt method of a handler for generated code: parses the
/// arguments into the prompt's arguments struct and the result into JSON.
///
/// # Errors
///
/// [`ServeError::Arguments`] when the arguments don't fit the prompt's
/// arguments struct, [`ServeError::Failed`] when the method fails, and
/// [`ServeError::Serialize`] when its result can't be serialized.
#[doc(hidden)]
pub async fn dispatch_prompt<P, R, F, Fut>(arguments: Map<String, Value>, method: F) -> ServeResult
where
    P: Prompt,
    P::Arguments: serde::de::DeserializeOwned,
    R: serde::Serialize,
    F: FnOnce(P::Arguments) -> Fut,
    Fut: Future<Output = Result<R, ToolFailure>>,
{
    let input: P::Arguments =
        crate::json::from_value(Value::Object(arguments)).map_err(|e| ServeError::Arguments {
            kind: EntryKind::Prompt,
            name: P::META.name.to_owned(),
            reason: e.to_string(),
        })?;
    let result = method(input).await?;
    serde_json::to_value(result).map_err(|e| ServeError::Serialize {
        kind: EntryKind::Prompt,
        name: P::META.name.to_owned(),
        reason: e.to_string(),
    })
}

/// Runs one resource template method of a handler for generated code, when
/// the URI matches the template: `None` when it doesn't.
#[doc(hidden)]
pub async fn dispatch_template<R, F, Fut>(
    template: &ResourceTemplateMeta,
    uri: &str,
    method: F,
) -> Option<ServeResult>
where
    R: serde::Serialize,
    F: FnOnce(String, UriVariables) -> Fut,
    Fut: Future<Output = Result<R, ToolFailure>>,
{
    let variables = crate::uri_template::UriTemplate::parse(template.uri_template)
        .ok()?
        .match_uri(uri)?;
    Some(match method(uri.to_owned(), variables).await {
        Ok(result) => serde_json::to_value(result).map_err(|e| ServeError::Serialize {
            kind: EntryKind::ResourceTemplate,
            name: template.name.to_owned(),
            reason: e.to_string(),
        }),
        Err(failure) => Err(failure.into()),
    })
}

/// One dispatch arm of a generated `Server<H>`: [`dispatch`] for the tool
/// whose marker is `_tool`, boxed, as `ToolServer::call_tool` answers.
#[doc(hidden)]
pub fn serve<'a, T, F, Fut>(
    _tool: T,
    arguments: Map<String, Value>,
    method: F,
) -> BoxFuture<'a, Option<ServeResult>>
where
    T: Tool,
    F: FnOnce(T::Input) -> Fut + Send + 'a,
    Fut: Future<Output = HandlerResult<T::Output>> + Send + 'a,
{
    Box::pin(async move { Some(dispatch::<T, F, Fut>(arguments, method).await) })
}

/// `ToolServer::call_tool`'s answer for a name that is no tool.
#[doc(hidden)]
pub fn no_such_tool<'a>() -> BoxFuture<'a, Option<ServeResult>> {
    Box::pin(std::future::ready(None))
}

/// Runs one handler method for generated code: parses the arguments into
/// the tool's params type and turns the reply into a `CallToolResult`.
///
/// # Errors
///
/// [`ServeError::Arguments`] when the arguments don't fit the tool's params
/// type, and [`ServeError::Serialize`] when its output can't be serialized (a
/// failure of the method itself is a result with `isError: true`).
#[doc(hidden)]
pub async fn dispatch<T, F, Fut>(arguments: Map<String, Value>, method: F) -> ServeResult
where
    T: Tool,
    F: FnOnce(T::Input) -> Fut,
    Fut: Future<Output = HandlerResult<T::Output>>,
{
    let input: T::Input =
        crate::json::from_value(Value::Object(arguments)).map_err(|e| ServeError::Arguments {
            kind: EntryKind::Tool,
            name: T::META.name.to_owned(),
            reason: e.to_string(),
        })?;
    Ok(match method(input).await {
        Ok(reply) => {
            let mut result = Map::new();
            let mut content = reply.content;
            if T::META.output_schema.is_some() {
                let structured =
                    serde_json::to_value(&reply.output).map_err(|e| ServeError::Serialize {
                        kind: EntryKind::Tool,
                        name: T::META.name.to_owned(),
                        reason: e.to_string(),
                    })?;
                if content.is_empty() {
                    content.push(json!({"type": "text", "text": structured.to_string()}));
                }
                result.insert("structuredContent".into(), structured);
            }
            result.insert("content".into(), Value::Array(content));
            Value::Object(result)
        }
        Err(failure) => json!({
            "content": [{"type": "text", "text": failure.0}],
            "isError": true,
        }),
    })
}

// Async: tokio is a dev-dependency (the crate itself has no runtime).
#[cfg(test)]
mod tests {
    use super::*;

    /// A template with path and query operators dispatches the URI it
    /// expands to, with its variables; another URI is not its.
    #[tokio::test]
    async fn templates_of_every_operator_dispatch() {
        let meta = ResourceTemplateMeta::new(
            "s",
            "Page",
            "docs://pages{/id}{?lang,rev}",
            None,
            None,
            None,
            "",
            "{}",
        );
        let uri = meta
            .expand(&[("id", "intro page".into()), ("rev", "3".into())])
            .unwrap();
        assert_eq!(uri, "docs://pages/intro%20page?rev=3");
        let read = |uri: &str| {
            let uri = uri.to_owned();
            async move {
                dispatch_template(&meta, &uri, |uri, variables| async move {
                    Ok::<_, ToolFailure>(json!({"uri": uri, "variables": variables}))
                })
                .await
            }
        };
        assert_eq!(
            read(&uri).await,
            Some(Ok(json!({
                "uri": "docs://pages/intro%20page?rev=3",
                "variables": {"id": "intro page", "rev": "3"},
            })))
        );
        assert_eq!(read("docs://pages/intro?page=2").await, None);
    }
}
