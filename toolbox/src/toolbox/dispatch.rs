//! One dispatched call: the model's JSON arguments made ready for a typed
//! call, the typed call itself, and what the program and the model get back.

use std::time::Duration;

use serde_json::{Map, Value};

use super::content::{self, ContentOptions, Provider, ProviderResult};
use crate::validate::Violation;
use mcpbind_client::internal;
use mcpbind_client::{Client, Error, ToolResult};
use mcpbind_model::handler::BoxFuture;
use mcpbind_model::Tool;

/// The entry's typed call: deserializes prepared arguments into `T::Input`
/// and calls through `Client::call::<T>`.
pub(crate) type CallFn = for<'a> fn(
    &'a Client,
    Map<String, Value>,
) -> BoxFuture<'a, Result<ToolResult<Value>, CallError>>;

pub(crate) fn call_typed<T>(
    client: &Client,
    arguments: Map<String, Value>,
) -> BoxFuture<'_, Result<ToolResult<Value>, CallError>>
where
    T: Tool,
    T::Input: Sync,
{
    Box::pin(async move {
        let input: T::Input =
            mcpbind_model::json::from_value(Value::Object(arguments)).map_err(|e| {
                CallError::Arguments {
                    violations: vec![Violation::new("/", "type", strip_position(&e.to_string()))],
                }
            })?;
        // `Toolbox::run` validated the arguments against the locked schema.
        let result = internal::call_validated::<T>(client, &input)
            .await
            .map_err(CallError::Call)?;
        Ok(internal::tool_result(
            serde_json::to_value(&result.output).unwrap_or(Value::Null),
            result.content,
            result.structured_content,
        ))
    })
}

/// serde_json's "at line 1 column 5" means nothing to a model that wrote
/// no text.
fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |at| &message[..at])
}

/// Why a dispatched call produced no tool result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// No tool of the toolbox has this model-facing name (or it is held back).
    #[error("unknown tool `{name}`{}", held_back.then_some(" (it is held back; enable it first)").unwrap_or_default())]
    UnknownTool {
        /// The name the model used.
        name: String,
        /// Whether the tool exists but is held back.
        held_back: bool,
    },
    /// The arguments are not a JSON object.
    #[error("the arguments are not a JSON object: {reason}")]
    MalformedJson {
        /// What is wrong with them.
        reason: String,
    },
    /// The arguments do not match the tool's locked input schema.
    #[error("invalid arguments: {}", crate::validate::join(violations))]
    Arguments {
        /// The arguments' violations of the schema, one per problem, as
        /// data (pointer, keyword, message, what is expected); each
        /// displays as `<JSON pointer>: <message>`. The same field as the
        /// client's [`Error::Arguments`].
        violations: Vec<Violation>,
    },
    /// An unlocked tool whose server said its tools changed since they
    /// were listed: its definition may be stale, so it is not called
    /// until [`Toolbox::refresh_unlocked`](super::Toolbox::refresh_unlocked).
    #[error(
        "tool `{name}` is held back: the tools of server `{server}` changed since they were listed"
    )]
    Stale {
        /// The name the model used.
        name: String,
        /// Its server.
        server: String,
    },
    /// An [`Approval`](super::Approval) refused the call; it was not sent.
    #[error("the call was refused: {reason}")]
    Refused {
        /// Why, as the approval said.
        reason: String,
    },
    /// The typed call failed (an `isError` result, a timeout, a lost
    /// connection…).
    #[error(transparent)]
    Call(Error),
}

/// What the model gets back for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelResult {
    /// The text to put in the tool-result message.
    pub text: String,
    /// Whether it reports an error (`is_error` for Anthropic, an error
    /// status elsewhere).
    pub is_error: bool,
}

/// One dispatched call: the result for the program and for the model.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolCall {
    /// The model-facing name the model called.
    pub name: String,
    /// The server and wire name it maps to (`None` for an unknown name).
    pub target: Option<(String, &'static str)>,
    /// The typed call's result, its output as JSON.
    pub outcome: Result<ToolResult<Value>, CallError>,
    /// Wall time of the whole dispatch, hooks excluded.
    pub duration: Duration,
    /// How many times the request was sent (0 when rejected locally).
    pub attempts: u32,
}

impl ToolCall {
    /// Whether the call failed in any way.
    pub fn is_error(&self) -> bool {
        self.outcome.is_err()
    }

    /// The result as the model should see it: the text content joined (or
    /// the structured content as JSON when there is no text), an `isError`
    /// result's text, or an error it can correct itself from. Content that
    /// is not text is named, not dropped: an image or audio block is a note
    /// of its kind, MIME type and size, an embedded text resource is
    /// inlined (up to [`ContentOptions::max_resource_bytes`]), a blob a note,
    /// a resource link its name and URI. For a provider's own shape (images
    /// included), see [`for_provider`](Self::for_provider).
    pub fn for_model(&self) -> ModelResult {
        let options = ContentOptions::default();
        match &self.outcome {
            Ok(result) => {
                let (pieces, notes) = content::pieces(
                    &result.content,
                    result.structured_content.as_ref(),
                    &options,
                );
                ModelResult {
                    text: content::text_only(&pieces, &notes),
                    is_error: false,
                }
            }
            Err(CallError::Call(Error::Tool { result, .. })) => {
                let (pieces, notes) = content::pieces(&result.content, None, &options);
                let text = content::text_only(&pieces, &notes);
                ModelResult {
                    text: if text.is_empty() {
                        "the tool reported an error without a message".into()
                    } else {
                        text
                    },
                    is_error: true,
                }
            }
            Err(CallError::Arguments { violations }) => ModelResult {
                text: format!(
                    "invalid arguments for `{}`:\n{}\nFix these arguments and call the tool again.",
                    self.name,
                    violations
                        .iter()
                        .map(|p| format!("- {p}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
                is_error: true,
            },
            Err(CallError::Refused { reason }) => ModelResult {
                text: format!(
                    "the call to `{}` was refused and not made: {reason}\nDo not repeat it unchanged.",
                    self.name
                ),
                is_error: true,
            },
            Err(e) => ModelResult {
                text: e.to_string(),
                is_error: true,
            },
        }
    }

    /// The result in `provider`'s documented tool-result shape (see
    /// [`Provider`] and the `content` module docs), answering the model's
    /// call `call_id` (OpenAI `tool_call_id`/`call_id`, Anthropic
    /// `tool_use_id`, Gemini's optional function call `id`: `""` leaves it
    /// out). Images and audio go where the provider accepts them; what it
    /// accepts nowhere is named in the result and listed in
    /// [`ProviderResult::notes`].
    pub fn for_provider(&self, provider: Provider, call_id: &str) -> ProviderResult {
        self.for_provider_with(provider, call_id, &ContentOptions::default())
    }

    /// [`for_provider`](Self::for_provider) with bounds of its own.
    pub fn for_provider_with(
        &self,
        provider: Provider,
        call_id: &str,
        options: &ContentOptions,
    ) -> ProviderResult {
        let (pieces, notes, is_error) = match &self.outcome {
            Ok(result) => {
                let (pieces, notes) =
                    content::pieces(&result.content, result.structured_content.as_ref(), options);
                (pieces, notes, false)
            }
            Err(CallError::Call(Error::Tool { result, .. })) if !result.content.is_empty() => {
                let (pieces, notes) = content::pieces(&result.content, None, options);
                (pieces, notes, true)
            }
            Err(_) => {
                let reply = self.for_model();
                (vec![content::Piece::Text(reply.text)], Vec::new(), true)
            }
        };
        content::render(provider, &self.name, call_id, pieces, notes, is_error)
    }
}

/// Prepares a model's arguments for the typed path, following `schema`
/// (the tool's locked input schema):
///
/// - a whole number written as a float (`3.0`) where only an integer is
///   allowed becomes an integer (models do this often); `1.5` there is an
///   error naming the field, what was expected and what was given;
/// - a `null` for an optional property whose schema does not allow `null`
///   is dropped: strict-mode definitions (OpenAI) make optional properties
///   nullable, and models send `null` for "absent".
pub(crate) fn prepare(schema: &Value, arguments: &mut Value) -> Vec<Violation> {
    let mut problems = Vec::new();
    prepare_at(schema, schema, arguments, &mut String::new(), &mut problems);
    problems
}

fn prepare_at(
    root: &Value,
    schema: &Value,
    value: &mut Value,
    pointer: &mut String,
    problems: &mut Vec<Violation>,
) {
    let schema = resolve(root, schema);
    match value {
        Value::Number(n) if n.is_f64() && only_integer(schema) => {
            match mcpbind_model::json::whole(n) {
                Some(int) => *n = int,
                None => problems.push(Violation::new(
                    pointer.as_str(),
                    "type",
                    format!("expected an integer, got {n}"),
                )),
            }
        }
        Value::Object(map) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required = required_of(schema);
            map.retain(|key, v| {
                !(v.is_null()
                    && !required.contains(&key.as_str())
                    && properties
                        .get(key)
                        .is_some_and(|p| !allows_null(resolve(root, p))))
            });
            for (key, v) in map.iter_mut() {
                if let Some(property) = properties.get(key) {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    prepare_at(root, property, v, pointer, problems);
                    pointer.truncate(len);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = schema.get("items") else {
                return;
            };
            for (i, v) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                prepare_at(root, item_schema, v, pointer, problems);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Adds what the schema expects at each problem's pointer when the
/// validator's message does not say it (a union, an enum behind a `$ref`;
/// an `enum` violation lists the values already), so that a model can
/// correct the value: `expected one of "a", "b" or null`.
pub(crate) fn explain(schema: &Value, mut problems: Vec<Violation>) -> Vec<Violation> {
    for problem in &mut problems {
        if problem.keyword != "enum" && problem.expected.is_none() {
            problem.expected = expected_at(schema, &problem.pointer);
        }
    }
    problems
}

/// The schema node at an instance pointer (through properties and items).
fn node_at<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut node = resolve(root, root);
    for segment in pointer.split('/').skip(1).filter(|s| !s.is_empty()) {
        let key = segment.replace("~1", "/").replace("~0", "~");
        node = if let Some(child) = node.get("properties").and_then(|p| p.get(&key)) {
            resolve(root, child)
        } else if let Some(items) = node.get("items") {
            resolve(root, items)
        } else {
            return None;
        };
    }
    Some(node)
}

/// What a union or enum at `pointer` accepts, in words; `None` when the
/// node is neither.
fn expected_at(root: &Value, pointer: &str) -> Option<String> {
    let node = node_at(root, pointer)?;
    let branches: Vec<&Value> = match node.get("anyOf").or_else(|| node.get("oneOf")) {
        Some(Value::Array(branches)) => branches.iter().map(|b| resolve(root, b)).collect(),
        _ if node.get("enum").is_some() => vec![node],
        _ => return None,
    };
    let mut options: Vec<String> = Vec::new();
    for branch in branches {
        match (branch.get("enum"), branch.get("const")) {
            (Some(Value::Array(values)), _) => options.extend(values.iter().map(Value::to_string)),
            (_, Some(value)) => options.push(value.to_string()),
            _ => options.extend(types_of(branch).iter().map(|t| match *t {
                "null" => "null".to_owned(),
                "integer" | "object" | "array" => format!("an {t}"),
                _ => format!("a {t}"),
            })),
        }
    }
    options.dedup();
    match options.split_last() {
        None => None,
        Some((only, [])) => Some(only.clone()),
        Some((last, rest)) => Some(format!("one of {} or {last}", rest.join(", "))),
    }
}

/// Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`), once.
pub(crate) fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(schema),
        None => schema,
    }
}

pub(crate) fn required_of(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn only_integer(schema: &Value) -> bool {
    let types = types_of(schema);
    types.contains(&"integer") && !types.contains(&"number")
}

fn allows_null(schema: &Value) -> bool {
    if types_of(schema).contains(&"null")
        || schema.get("type").is_none()
            && schema.get("anyOf").is_none()
            && schema.get("oneOf").is_none()
    {
        return true;
    }
    ["anyOf", "oneOf"].iter().any(|k| {
        schema
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.iter().any(|b| types_of(b).contains(&"null")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_floats_become_integers_and_fractions_are_named() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "integer"}, "x": {"type": "number"},
            "list": {"type": "array", "items": {"type": ["integer", "null"]}}
        }});
        let mut args = json!({"a": 3.0, "x": 2.0, "list": [1.0, 2.5]});
        let problems = prepare(&schema, &mut args);
        assert_eq!(args, json!({"a": 3, "x": 2.0, "list": [1, 2.5]}));
        assert_eq!(
            problems,
            [Violation::new(
                "/list/1",
                "type",
                "expected an integer, got 2.5"
            )]
        );
        assert_eq!(
            problems[0].to_string(),
            "/list/1: expected an integer, got 2.5"
        );
    }

    #[test]
    fn explains_unions_and_enums_behind_refs() {
        let schema = json!({"type": "object", "$defs": {"U": {"enum": ["celsius", "fahrenheit"]}},
            "properties": {"u": {"anyOf": [{"$ref": "#/$defs/U"}, {"type": "null"}]},
                "list": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}});
        let bad = |pointer: &str, keyword: &str| Violation::new(pointer, keyword, "bad");
        let problems = explain(
            &schema,
            vec![
                bad("/u", "anyOf"),
                bad("/list/0", "anyOf"),
                bad("/x", "type"),
                // An enum's message lists its values already.
                bad("/u", "enum"),
            ],
        );
        let shown: Vec<String> = problems.iter().map(Violation::to_string).collect();
        assert_eq!(
            shown,
            [
                r#"/u: bad (expected one of "celsius", "fahrenheit" or null)"#,
                "/list/0: bad (expected one of a string or an integer)",
                "/x: bad",
                "/u: bad",
            ]
        );
        assert_eq!(
            problems[0].expected.as_deref(),
            Some(r#"one of "celsius", "fahrenheit" or null"#)
        );
    }

    #[test]
    fn drops_null_for_optional_non_nullable_properties() {
        let schema = json!({"type": "object", "required": ["q"], "$defs": {"U": {"type": "string"}},
            "properties": {"q": {"type": "string"}, "n": {"type": "integer"},
                "u": {"$ref": "#/$defs/U"}, "after": {"anyOf": [{"type": "string"}, {"type": "null"}]}}});
        let mut args = json!({"q": null, "n": null, "u": null, "after": null});
        assert!(prepare(&schema, &mut args).is_empty());
        assert_eq!(args, json!({"q": null, "after": null}));
    }
}
