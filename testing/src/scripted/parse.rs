//! Reading the providers' responses (tool calls or an answer) and the
//! shape of the results the agent sends back. The shapes, from each
//! provider's API reference:
//!
//! - OpenAI Chat Completions, the chat completion object
//!   (<https://platform.openai.com/docs/api-reference/chat/object>):
//!   `{"object": "chat.completion", "choices": [{"message": {"role":
//!   "assistant", "content": …, "tool_calls": [{"id", "type": "function",
//!   "function": {"name", "arguments"}}]}, "finish_reason"}]}`, the
//!   arguments a string of JSON; answered by `{"role": "tool",
//!   "tool_call_id", "content"}` messages.
//! - OpenAI Responses, the response object
//!   (<https://platform.openai.com/docs/api-reference/responses/object>):
//!   `{"object": "response", "output": [{"type": "function_call", "id",
//!   "call_id", "name", "arguments"}, {"type": "message", "content":
//!   [{"type": "output_text", "text"}]}, {"type": "reasoning", …}]}`;
//!   answered by `{"type": "function_call_output", "call_id", "output"}`
//!   items.
//! - Anthropic Messages (<https://docs.anthropic.com/en/api/messages>):
//!   `{"type": "message", "role": "assistant", "content": [{"type":
//!   "text", "text"}, {"type": "tool_use", "id", "name", "input"}],
//!   "stop_reason": "tool_use" | "end_turn"}`; answered by `{"type":
//!   "tool_result", "tool_use_id", "content"}` blocks.
//! - Gemini `generateContent`
//!   (<https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse>):
//!   `{"candidates": [{"content": {"role": "model", "parts": [{"text"},
//!   {"functionCall": {"id"?, "name", "args"}}]}, "finishReason"}]}`, a
//!   part with `"thought": true` being the model's thinking, not its
//!   answer; answered by `{"functionResponse": {"id"?, "name",
//!   "response"}}` parts.

use mcpbind_toolbox::Provider;
use serde_json::Value;

use super::ToolUse;

/// What a response of no known provider should have been.
pub(super) const ANY_PROVIDER: &str = "a response of OpenAI Chat Completions (`choices`), OpenAI Responses (`\"object\": \"response\"` with `output`), Anthropic Messages (`\"type\": \"message\"` with `content`) or Gemini (`candidates`)";

/// `(expected, found)`: what the response lacks, and what it has.
type Problem = (String, String);

/// The provider whose response `response` is, by its shape.
pub fn detect_provider(response: &Value) -> Option<Provider> {
    let has = |key: &str| response.get(key).is_some();
    let is = |key: &str, value: &str| response.get(key).and_then(Value::as_str) == Some(value);
    if is("object", "chat.completion") || (has("choices") && !has("output")) {
        Some(Provider::OpenAiChat)
    } else if is("object", "response") || (has("output") && response["output"].is_array()) {
        Some(Provider::OpenAiResponses)
    } else if is("type", "message") && has("content") {
        Some(Provider::Anthropic)
    } else if has("candidates") {
        Some(Provider::Gemini)
    } else {
        None
    }
}

/// A value's kind, for errors: `an object with keys a, b`, `a string`.
pub(super) fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(_) => "a number".into(),
        Value::String(_) => "a string".into(),
        Value::Array(items) => format!("an array of {}", items.len()),
        Value::Object(map) if map.is_empty() => "an empty object".into(),
        Value::Object(map) => {
            let keys: Vec<&str> = map.keys().map(String::as_str).collect();
            format!("an object with keys {}", keys.join(", "))
        }
    }
}

/// The text and the calls of one response of `provider`.
pub(super) fn turn(
    provider: Provider,
    response: &Value,
) -> Result<(String, Vec<ToolUse>), Problem> {
    if detect_provider(response) != Some(provider) {
        return Err((
            format!("a response of {} (the script's first)", label(provider)),
            match detect_provider(response) {
                Some(other) => format!("one of {}", label(other)),
                None => kind_of(response),
            },
        ));
    }
    match provider {
        Provider::OpenAiChat => openai_chat(response),
        Provider::OpenAiResponses => openai_responses(response),
        Provider::Anthropic => anthropic(response),
        Provider::Gemini => gemini(response),
        _ => Err((ANY_PROVIDER.into(), kind_of(response))),
    }
}

fn label(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAiChat => "OpenAI Chat Completions",
        Provider::OpenAiResponses => "OpenAI Responses",
        Provider::Anthropic => "Anthropic Messages",
        Provider::Gemini => "Gemini",
        _ => "another provider",
    }
}

/// `value` at `pointer`, or what was expected there.
fn at<'a>(value: &'a Value, pointer: &str, expected: &str) -> Result<&'a Value, Problem> {
    value.pointer(pointer).ok_or_else(|| {
        let parent = pointer.rsplit_once('/').map_or("", |(p, _)| p);
        let found = value
            .pointer(parent)
            .map_or_else(|| format!("nothing at `{parent}`"), kind_of);
        (format!("{expected} at `{pointer}`"), found)
    })
}

fn string_at(value: &Value, pointer: &str, expected: &str) -> Result<String, Problem> {
    let found = at(value, pointer, expected)?;
    found
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| (format!("{expected} at `{pointer}`"), kind_of(found)))
}

fn array_at<'a>(value: &'a Value, pointer: &str, expected: &str) -> Result<&'a [Value], Problem> {
    let found = at(value, pointer, expected)?;
    found
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| (format!("{expected} at `{pointer}`"), kind_of(found)))
}

/// An answer must say something: a response with neither calls nor text
/// is a script mistake.
fn answer_or_calls(
    text: String,
    calls: Vec<ToolUse>,
    where_: &str,
) -> Result<(String, Vec<ToolUse>), Problem> {
    if calls.is_empty() && text.is_empty() {
        return Err((format!("tool calls or text in {where_}"), "neither".into()));
    }
    Ok((text, calls))
}

fn openai_chat(response: &Value) -> Result<(String, Vec<ToolUse>), Problem> {
    let message = at(response, "/choices/0/message", "the assistant message")?;
    let mut calls = Vec::new();
    if let Some(tool_calls) = message.get("tool_calls").filter(|v| !v.is_null()) {
        let tool_calls = tool_calls.as_array().ok_or_else(|| {
            (
                "an array at `/choices/0/message/tool_calls`".to_owned(),
                kind_of(tool_calls),
            )
        })?;
        for i in 0..tool_calls.len() {
            let p = format!("/choices/0/message/tool_calls/{i}");
            calls.push(ToolUse {
                id: string_at(response, &format!("{p}/id"), "the call's id")?,
                name: string_at(
                    response,
                    &format!("{p}/function/name"),
                    "the function's name",
                )?,
                arguments: string_at(
                    response,
                    &format!("{p}/function/arguments"),
                    "the arguments (a string of JSON)",
                )?,
            });
        }
    }
    // A refusal is the model's answer too.
    let text = ["content", "refusal"]
        .iter()
        .find_map(|k| message.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned();
    answer_or_calls(text, calls, "`/choices/0/message`")
}

fn openai_responses(response: &Value) -> Result<(String, Vec<ToolUse>), Problem> {
    let output = array_at(response, "/output", "the output items")?;
    let mut calls = Vec::new();
    let mut text = Vec::new();
    for (i, item) in output.iter().enumerate() {
        let p = format!("/output/{i}");
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => calls.push(ToolUse {
                id: string_at(response, &format!("{p}/call_id"), "the call's call_id")?,
                name: string_at(response, &format!("{p}/name"), "the function's name")?,
                arguments: string_at(
                    response,
                    &format!("{p}/arguments"),
                    "the arguments (a string of JSON)",
                )?,
            }),
            Some("message") => {
                let parts = array_at(response, &format!("{p}/content"), "the message's parts")?;
                text.extend(
                    parts
                        .iter()
                        .filter(|part| part["type"] == "output_text")
                        .filter_map(|part| part["text"].as_str()),
                );
            }
            // Reasoning, built-in tools' calls: not the agent's business.
            Some(_) => {}
            None => {
                return Err((
                    format!("an output item with a `type` at `{p}`"),
                    kind_of(item),
                ))
            }
        }
    }
    answer_or_calls(text.join("\n"), calls, "`/output`")
}

fn anthropic(response: &Value) -> Result<(String, Vec<ToolUse>), Problem> {
    let content = array_at(response, "/content", "the content blocks")?;
    let mut calls = Vec::new();
    let mut text = Vec::new();
    for (i, block) in content.iter().enumerate() {
        let p = format!("/content/{i}");
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => calls.push(ToolUse {
                id: string_at(response, &format!("{p}/id"), "the tool_use id")?,
                name: string_at(response, &format!("{p}/name"), "the tool's name")?,
                arguments: object_text(response, &format!("{p}/input"), "the input object")?,
            }),
            Some("text") => text.push(string_at(response, &format!("{p}/text"), "the text")?),
            // Thinking blocks and server tools' blocks.
            Some(_) => {}
            None => {
                return Err((
                    format!("a content block with a `type` at `{p}`"),
                    kind_of(block),
                ))
            }
        }
    }
    answer_or_calls(text.join("\n"), calls, "`/content`")
}

fn gemini(response: &Value) -> Result<(String, Vec<ToolUse>), Problem> {
    let parts = array_at(
        response,
        "/candidates/0/content/parts",
        "the candidate's parts",
    )?;
    let mut calls = Vec::new();
    let mut text = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let p = format!("/candidates/0/content/parts/{i}");
        if part.get("functionCall").is_some() {
            let id = part["functionCall"]["id"].as_str().unwrap_or_default();
            calls.push(ToolUse {
                id: id.to_owned(),
                name: string_at(
                    response,
                    &format!("{p}/functionCall/name"),
                    "the function's name",
                )?,
                // `args` is optional for a function without parameters.
                arguments: match part["functionCall"].get("args") {
                    None => "{}".to_owned(),
                    Some(_) => object_text(
                        response,
                        &format!("{p}/functionCall/args"),
                        "the args object",
                    )?,
                },
            });
        } else if part["thought"] == true {
            // The model's thinking, not its answer.
        } else if let Some(t) = part.get("text").and_then(Value::as_str) {
            text.push(t.to_owned());
        }
    }
    answer_or_calls(text.join(""), calls, "`/candidates/0/content/parts`")
}

/// The object at `pointer` as JSON text.
fn object_text(response: &Value, pointer: &str, expected: &str) -> Result<String, Problem> {
    let found = at(response, pointer, expected)?;
    if !found.is_object() {
        return Err((format!("{expected} at `{pointer}`"), kind_of(found)));
    }
    Ok(found.to_string())
}

/// The call a result message of `provider` answers: its id (`None`: a
/// Gemini response without one) and its name (Gemini's).
pub(super) fn answered(
    provider: Provider,
    message: &Value,
) -> Option<(Option<String>, Option<String>)> {
    let text = |v: &Value| v.as_str().map(str::to_owned);
    match provider {
        Provider::OpenAiChat if message["role"] == "tool" => {
            Some((Some(text(&message["tool_call_id"])?), None))
        }
        Provider::OpenAiResponses if message["type"] == "function_call_output" => {
            Some((Some(text(&message["call_id"])?), None))
        }
        Provider::Anthropic if message["type"] == "tool_result" => {
            Some((Some(text(&message["tool_use_id"])?), None))
        }
        Provider::Gemini => {
            let response = message.get("functionResponse")?;
            let id = text(&response["id"]).filter(|id| !id.is_empty());
            Some((id, Some(text(&response["name"])?)))
        }
        _ => None,
    }
}

/// What answers a call of `provider`, for errors.
pub(super) fn result_shape(provider: Provider) -> &'static str {
    match provider {
        Provider::OpenAiChat => "an OpenAI Chat `tool` message (`tool_call_id`)",
        Provider::OpenAiResponses => "an OpenAI Responses `function_call_output` item (`call_id`)",
        Provider::Anthropic => "an Anthropic `tool_result` block (`tool_use_id`)",
        Provider::Gemini => "a Gemini `functionResponse` part (`id`, or `name`)",
        _ => "a result of the script's provider",
    }
}
