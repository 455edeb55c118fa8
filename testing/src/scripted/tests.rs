//! The scripted model on each provider's responses as its API reference
//! shows them, and on bad scripts.

use serde_json::{json, Value};

use super::*;

/// A tool-call response and a final answer of each provider, as their API
/// references show them (ids and texts of their examples).
fn script(provider: Provider) -> Vec<Value> {
    match provider {
        Provider::OpenAiChat => vec![
            json!({
                "id": "chatcmpl-abc123", "object": "chat.completion", "created": 1699896916,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "call_abc123", "type": "function",
                        "function": {"name": "get_current_weather",
                            "arguments": "{\n\"location\": \"Boston, MA\"\n}"}}]},
                    "logprobs": null, "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
            }),
            json!({
                "id": "chatcmpl-abc124", "object": "chat.completion", "created": 1699896917,
                "model": "gpt-4o-mini",
                "choices": [{"index": 0, "message": {"role": "assistant",
                    "content": "It is 22 degrees in Boston.", "refusal": null},
                    "logprobs": null, "finish_reason": "stop"}]
            }),
        ],
        Provider::OpenAiResponses => vec![
            json!({
                "id": "resp_67ccd2bed1ec8190", "object": "response", "created_at": 1741476542,
                "status": "completed", "model": "gpt-4.1-2025-04-14",
                "output": [
                    {"type": "reasoning", "id": "rs_1", "summary": []},
                    {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz",
                        "name": "get_weather", "arguments": "{\"location\":\"Paris, France\"}",
                        "status": "completed"}
                ]
            }),
            json!({
                "id": "resp_67ccd2bed1ec8191", "object": "response", "status": "completed",
                "output": [{"type": "message", "id": "msg_1", "status": "completed",
                    "role": "assistant", "content": [{"type": "output_text",
                        "text": "It is 14 degrees in Paris.", "annotations": []}]}]
            }),
        ],
        Provider::Anthropic => vec![
            json!({
                "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "stop_reason": "tool_use", "stop_sequence": null,
                "content": [
                    {"type": "text", "text": "I'll check the weather."},
                    {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                        "name": "get_weather", "input": {"location": "San Francisco, CA"}}
                ],
                "usage": {"input_tokens": 472, "output_tokens": 91}
            }),
            json!({
                "id": "msg_01Aq9w938a90dw8r", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "It is 15 degrees in San Francisco."}]
            }),
        ],
        _ => vec![
            json!({
                "candidates": [{"content": {"role": "model", "parts": [
                    {"text": "Thinking about lights", "thought": true},
                    {"functionCall": {"name": "set_light_values",
                        "args": {"brightness": 25, "color_temp": "warm"}}}
                ]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 30, "totalTokenCount": 40},
                "modelVersion": "gemini-2.5-flash"
            }),
            json!({
                "candidates": [{"content": {"role": "model", "parts": [
                    {"text": "The lights are "}, {"text": "dim and warm."}
                ]}, "finishReason": "STOP", "index": 0}]
            }),
        ],
    }
}

#[test]
fn each_providers_calls_and_answer_are_read() {
    let expected = [
        (
            Provider::OpenAiChat,
            "call_abc123",
            "get_current_weather",
            json!({"location": "Boston, MA"}),
            "It is 22 degrees in Boston.",
        ),
        (
            Provider::OpenAiResponses,
            "call_12345xyz",
            "get_weather",
            json!({"location": "Paris, France"}),
            "It is 14 degrees in Paris.",
        ),
        (
            Provider::Anthropic,
            "toolu_01A09q90qw90lq917835lq9",
            "get_weather",
            json!({"location": "San Francisco, CA"}),
            "It is 15 degrees in San Francisco.",
        ),
        (
            Provider::Gemini,
            "",
            "set_light_values",
            json!({"brightness": 25, "color_temp": "warm"}),
            "The lights are dim and warm.",
        ),
    ];
    for (provider, id, name, arguments, answer) in expected {
        let responses = script(provider);
        let mut model = ScriptedModel::new("script", responses.clone()).unwrap();
        assert_eq!(model.provider(), provider);
        let turn = model.respond().unwrap();
        assert!(!turn.is_final(), "{provider:?}");
        assert_eq!(turn.step, 1);
        assert_eq!(turn.response, responses[0]);
        assert_eq!(turn.calls.len(), 1, "{provider:?}");
        assert_eq!(turn.calls[0].id, id);
        assert_eq!(turn.calls[0].name, name);
        let parsed: Value = serde_json::from_str(&turn.calls[0].arguments).unwrap();
        assert_eq!(parsed, arguments, "{provider:?}");
        // Before the call is answered, no next response.
        assert!(matches!(
            model.respond(),
            Err(ScriptError::Unanswered { step: 1, .. })
        ));
        model
            .send(result(provider, turn.calls[0].id.as_str(), name))
            .unwrap();
        assert_eq!(model.sent().len(), 1);
        assert_eq!(model.sent()[0].call, turn.calls[0]);
        let last = model.respond().unwrap();
        assert!(last.is_final());
        assert_eq!(last.text, answer, "{provider:?}");
        assert!(model.is_done());
        let error = model.respond().unwrap_err();
        assert!(
            matches!(
                &error,
                ScriptError::Exhausted {
                    steps: 2,
                    asked: 3,
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "script: the agent asked for response 3, the script has 2; add a final answer, or look at why the agent did not stop"
        );
    }
    // Anthropic's preamble before its call is kept.
    let mut model = ScriptedModel::new("s", script(Provider::Anthropic)).unwrap();
    assert_eq!(model.respond().unwrap().text, "I'll check the weather.");
}

/// What a toolbox gives back for a call of `name` (here, with no server:
/// an unknown tool, rendered as an error result in `provider`'s shape).
fn result(provider: Provider, id: &str, name: &str) -> ProviderResult {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = runtime.block_on(mcpbind_toolbox::Toolbox::new().call(name, "{}"));
    call.for_provider(provider, id)
}

#[test]
fn a_result_that_answers_no_pending_call_is_refused() {
    let mut model = ScriptedModel::new("chat.json", script(Provider::OpenAiChat)).unwrap();
    // Nothing asked yet.
    let early = model
        .send(result(
            Provider::OpenAiChat,
            "call_abc123",
            "get_current_weather",
        ))
        .unwrap_err();
    assert!(
        early
            .to_string()
            .contains("answering nothing (no call is pending)"),
        "{early}"
    );
    model.respond().unwrap();
    // Another provider's shape.
    let other = model
        .send(result(
            Provider::Anthropic,
            "call_abc123",
            "get_current_weather",
        ))
        .unwrap_err();
    let ScriptError::Unexpected {
        step,
        expected,
        got,
        ..
    } = &other
    else {
        panic!("{other:?}");
    };
    assert_eq!(*step, 1);
    assert!(
        expected.contains(
            "`tool` message (`tool_call_id`) answering `get_current_weather` (id `call_abc123`)"
        ),
        "{expected}"
    );
    assert!(got.contains("tool_result"), "{got}");
    // An id the model never sent.
    assert!(model
        .send(result(
            Provider::OpenAiChat,
            "call_other",
            "get_current_weather"
        ))
        .is_err());
    // The right one, then the same again.
    model
        .send(result(
            Provider::OpenAiChat,
            "call_abc123",
            "get_current_weather",
        ))
        .unwrap();
    assert!(model
        .send(result(
            Provider::OpenAiChat,
            "call_abc123",
            "get_current_weather"
        ))
        .is_err());
    assert_eq!(model.sent().len(), 1);
    assert_eq!(model.sent_for(1).count(), 1);
}

#[test]
fn gemini_calls_without_ids_are_answered_by_name() {
    let mut model = ScriptedModel::new("gemini.json", script(Provider::Gemini)).unwrap();
    model.respond().unwrap();
    assert!(model
        .send(result(Provider::Gemini, "", "other_function"))
        .is_err());
    model
        .send(result(Provider::Gemini, "", "set_light_values"))
        .unwrap();
}

#[test]
fn malformed_json_names_the_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("mcpbind-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("broken.json");
    std::fs::write(&file, "[\n  {\"candidates\": []},\n  {oops}\n]\n").unwrap();
    let error = ScriptedModel::load(&file).unwrap_err();
    let _ = std::fs::remove_dir_all(&dir);
    let ScriptError::Json {
        line, source_name, ..
    } = &error
    else {
        panic!("{error:?}");
    };
    assert_eq!(*line, 3);
    assert!(source_name.ends_with("broken.json"));
    assert!(
        error
            .to_string()
            .contains("broken.json:3:4: the script is not JSON: key must be a string"),
        "{error}"
    );
    let missing = ScriptedModel::load(dir.join("missing.json")).unwrap_err();
    assert!(matches!(missing, ScriptError::Io { .. }), "{missing:?}");
}

/// `(script, step, expected, found)` of a shape error.
fn shape(text: &str) -> (usize, String, String) {
    match ScriptedModel::from_json("s.json", text) {
        Err(ScriptError::Shape {
            step,
            expected,
            found,
            ..
        }) => (step, expected, found),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_script_of_an_unknown_or_mixed_shape_is_refused_naming_the_step() {
    let (step, expected, found) = shape(r#"{"choices": []}"#);
    assert_eq!((step, expected.as_str()), (0, "a JSON array of responses"));
    assert_eq!(found, "an object with keys choices");

    assert_eq!(shape("[]").1, "at least one response");

    let (step, expected, found) = shape(r#"[{"result": "hi"}]"#);
    assert_eq!(step, 1);
    assert!(
        expected.starts_with("a response of OpenAI Chat Completions"),
        "{expected}"
    );
    assert_eq!(found, "an object with keys result");

    // An Anthropic response in an OpenAI script.
    let mut mixed = script(Provider::OpenAiChat);
    mixed.push(script(Provider::Anthropic).remove(0));
    let (step, expected, found) = shape(&Value::Array(mixed).to_string());
    assert_eq!(step, 3);
    assert_eq!(
        expected,
        "a response of OpenAI Chat Completions (the script's first)"
    );
    assert_eq!(found, "one of Anthropic Messages");

    // A call without its arguments, named by pointer.
    let mut chat = script(Provider::OpenAiChat);
    chat[0]["choices"][0]["message"]["tool_calls"][0]["function"]
        .as_object_mut()
        .unwrap()
        .remove("arguments");
    let (step, expected, found) = shape(&Value::Array(chat).to_string());
    assert_eq!(step, 1);
    assert_eq!(
        expected,
        "the arguments (a string of JSON) at `/choices/0/message/tool_calls/0/function/arguments`"
    );
    assert_eq!(found, "an object with keys name");

    // Anthropic input that is no object.
    let mut anthropic = script(Provider::Anthropic);
    anthropic[0]["content"][1]["input"] = json!("San Francisco");
    let (_, expected, found) = shape(&Value::Array(anthropic).to_string());
    assert_eq!(expected, "the input object at `/content/1/input`");
    assert_eq!(found, "a string");

    // A response with neither calls nor text.
    let empty = json!([{"type": "message", "role": "assistant", "content": []}]);
    let (_, expected, found) = shape(&empty.to_string());
    assert_eq!(expected, "tool calls or text in `/content`");
    assert_eq!(found, "neither");

    // Gemini without candidates' parts.
    let (_, expected, found) = shape(r#"[{"candidates": [{"finishReason": "SAFETY"}]}]"#);
    assert_eq!(
        expected,
        "the candidate's parts at `/candidates/0/content/parts`"
    );
    assert_eq!(found, "nothing at `/candidates/0/content`");
}

#[test]
fn providers_are_told_apart_by_shape() {
    for provider in Provider::ALL {
        for response in script(provider) {
            assert_eq!(detect_provider(&response), Some(provider), "{response}");
        }
    }
    assert_eq!(detect_provider(&json!({"content": "hi"})), None);
}
