//! Dispatch against real servers: valid, invalid and unknown calls, calls
//! in flight together, a strict definition's round trip, rig's tools, and
//! the agent example's script.

use std::sync::Arc;

use mcpbind::{CallError, OpenAiShape};
use serde_json::json;

use super::demo_and_filesystem;
use crate::util;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatches_valid_invalid_and_unknown_calls() {
    let dir = tempfile::tempdir().unwrap();
    let tools = demo_and_filesystem(&util::stdio_servers(dir.path())).await;

    // A whole float is an integer, as models often write them.
    let call = tools.call("demo_add", r#"{"a": 2, "b": 40.0}"#).await;
    assert_eq!(call.target, Some(("demo".to_owned(), "add")));
    assert_eq!(call.attempts, 1);
    let result = call.outcome.as_ref().unwrap();
    assert_eq!(result.output, json!({"sum": 42}));
    assert!(!call.for_model().is_error);

    let file = dir.path().join("files/notes.txt").display().to_string();
    let write = tools
        .call_value(
            "filesystem_write_file",
            json!({"path": file, "content": "hello from a model"}),
        )
        .await;
    assert!(write.outcome.is_ok(), "{:?}", write.outcome);
    let read = tools
        .call_value("filesystem_read_text_file", json!({"path": file}))
        .await;
    assert_eq!(read.for_model().text, "hello from a model");

    // A fraction where an integer belongs: which field, expected, given.
    let call = tools.call("demo_add", r#"{"a": 1.5, "b": 2}"#).await;
    assert_eq!(call.attempts, 0, "never sent");
    let reply = call.for_model();
    assert!(reply.is_error);
    assert_eq!(
        reply.text,
        "invalid arguments for `demo_add`:\n- /a: expected an integer, got 1.5\nFix these arguments and call the tool again."
    );
    // Schema violations, named by JSON pointer.
    let call = tools.call("demo_add", r#"{"a": "two"}"#).await;
    let Err(CallError::Arguments {
        violations: problems,
    }) = &call.outcome
    else {
        panic!("{:?}", call.outcome)
    };
    // As data: the pointer and the keyword broken, from the validator.
    assert!(
        problems
            .iter()
            .any(|p| (p.pointer.as_str(), p.keyword.as_str()) == ("/a", "type")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.keyword == "required"
            && p.pointer == "/"
            && p.message.contains("\"b\" is a required property")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.to_string().starts_with("/a: ")),
        "{problems:?}"
    );
    assert!(
        !call.for_model().text.contains("Error"),
        "no Rust debug dump"
    );
    // Malformed JSON and unknown names.
    let call = tools.call("demo_add", r#"{"a": 1,"#).await;
    assert!(matches!(call.outcome, Err(CallError::MalformedJson { .. })));
    assert_eq!(call.attempts, 0);
    let call = tools.call("demo_ad", "{}").await;
    assert_eq!(call.for_model().text, "unknown tool `demo_ad`");
    assert_eq!(call.target, None);
    // A tool-level error is the model's to read.
    let call = tools
        .call_value("demo_fail", json!({"message": "no such order"}))
        .await;
    let reply = call.for_model();
    assert!(reply.is_error);
    assert_eq!(reply.text, "no such order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatches_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let tools = Arc::new(demo_and_filesystem(&util::stdio_servers(dir.path())).await);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let tools = Arc::clone(&tools);
        calls.spawn(async move {
            let call = if i % 2 == 0 {
                tools
                    .call_value("demo_echo", json!({"message": format!("m{i}")}))
                    .await
            } else {
                tools.call_value("demo_sleep", json!({"millis": 100})).await
            };
            (i, call)
        });
    }
    let mut seen = Vec::new();
    while let Some(joined) = calls.join_next().await {
        let (i, call) = joined.unwrap();
        assert!(call.outcome.is_ok(), "{i}: {:?}", call.outcome);
        if i % 2 == 0 {
            assert_eq!(call.for_model().text, format!("m{i}"));
        }
        seen.push(i);
    }
    seen.sort();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_definition_round_trips_a_valid_call() {
    let dir = tempfile::tempdir().unwrap();
    let tools = demo_and_filesystem(&util::stdio_servers(dir.path())).await;
    let definitions = tools.openai_tools(OpenAiShape::Responses, true);
    let strict_schema = |name: &str| {
        let tool = definitions
            .tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        assert_eq!(tool["strict"], true);
        tool["parameters"].clone()
    };
    // What a strict-mode model sends: every property, null for "absent".
    let cases = [
        (
            "demo_search",
            json!({"query": "rust", "after": null, "limit": null}),
        ),
        (
            "demo_create_order",
            json!({"customer": {"name": "Ada", "email": null},
                   "items": [{"sku": "a", "quantity": 2.0}], "note": null}),
        ),
        ("demo_get_weather", json!({"city": "Lisbon", "units": null})),
    ];
    for (name, arguments) in cases {
        let schema = strict_schema(name);
        let errors = util::schema_errors(&schema, &arguments);
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let call = tools.call_value(name, arguments).await;
        assert!(call.outcome.is_ok(), "{name}: {:?}", call.outcome);
    }
}

// ---------------------------------------------------------------------------
// The example

#[test]
fn agent_example_runs_its_script() {
    let demo = util::bin("mcpbind-demo-server");
    let filesystem = util::npm_server("server-filesystem");
    let out = util::cargo()
        .current_dir(util::root())
        .args(["run", "--quiet", "-p", "mcpbind-example-agent"])
        .env("MCPBIND_DEMO_SERVER", demo)
        .env("MCPBIND_FILESYSTEM_SERVER", filesystem)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The model recovered from the error text with a value it read there.
    assert!(
        stdout.contains(r#"model -> demo_get_weather {"city":"Lisbon","units":"celsius"}"#),
        "{stdout}"
    );
    util::assert_golden(
        &util::tests_dir().join("golden/agent_transcript.txt"),
        &stdout,
    );
}

// ---------------------------------------------------------------------------
// rig

#[cfg(feature = "rig")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rig_tools_dispatch_through_the_toolbox() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = demo_and_filesystem(&util::stdio_servers(dir.path())).await;
    tools.hold_back_server("filesystem").unwrap();
    let rig_tools: Vec<mcpbind::rig::DynamicTool> = tools.rig_tools();
    assert_eq!(rig_tools.len(), tools.tool_count());
    let add = rig_tools
        .iter()
        .find(|t| &**t.name() == "demo_add")
        .unwrap();
    let definition = add.definition();
    assert_eq!(definition.parameters["type"], "object");
    assert!(definition.description.starts_with("Add two integers"));

    let output = add.execute(json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(output.as_text(), Some(r#"{"sum":42}"#));
    let error = add.execute(json!({"a": 1.5, "b": 1})).await.unwrap_err();
    assert!(
        error.message().contains("/a: expected an integer, got 1.5"),
        "{}",
        error.message()
    );
}
