//! Unlocked tools of the demo server and server-everything: the same
//! definitions as locked ones, labelled unlocked; calls checked against the
//! listed schemas; a task-only tool run as a task.

use mcpbind::{CallError, OpenAiShape, Outcome, Toolbox};
use mcpbind_tests::demo;
use serde_json::{json, Value};

use crate::util;

/// The demo server twice: locked (its generated client) and unlocked (its
/// live listing).
async fn locked_and_live(config: &mcpbind::Config) -> (Toolbox, Toolbox) {
    let mut locked = Toolbox::new();
    locked
        .add(demo::Client::connect(config).await.unwrap())
        .unwrap();
    let mut live = Toolbox::new();
    let client = mcpbind::Client::connect(config, "demo").await.unwrap();
    live.add_unlocked(client).await.unwrap();
    assert!(live.warnings().is_empty(), "{:?}", live.warnings());
    (locked, live)
}

/// The same tools, the same definitions: only the label differs.
fn assert_labelled_alike(live: &Toolbox, locked: &Toolbox) {
    assert_eq!(live.names(), locked.names());
    let (mine, theirs) = (live.anthropic_tools(), locked.anthropic_tools());
    assert_eq!(mine.tools, theirs.tools);
    assert_eq!(mine.unlocked, live.names());
    assert!(theirs.unlocked.is_empty());
    // Strict schemas list `required` in property order, which the lockfile
    // sorts and the live listing keeps as sent: compare what is strict.
    let strict = live.openai_tools(OpenAiShape::Responses, true);
    let strictness = |d: &mcpbind::Definitions| -> Vec<(Value, Value)> {
        d.tools
            .iter()
            .map(|t| (t["name"].clone(), t["strict"].clone()))
            .collect()
    };
    assert_eq!(
        strictness(&strict),
        strictness(&locked.openai_tools(OpenAiShape::Responses, true))
    );
    assert_eq!(strict.unlocked.len(), live.tool_count());
    assert_eq!(
        live.gemini_declarations().unlocked.len(),
        live.gemini_declarations().tools.len()
    );
    let inventory = live.tools_by_server();
    assert!(inventory[0].unlocked && inventory[0].tools.iter().all(|t| t.unlocked));
    assert!(!locked.tools_by_server()[0].unlocked);
    assert!(
        live.render_markdown()
            .contains("## demo (12 tools, unlocked: listed live, not reviewed)"),
        "{}",
        live.render_markdown()
    );
    assert!(live.tool_facts().iter().all(|t| t.unlocked));
    assert!(locked.tool_facts().iter().all(|t| !t.unlocked));
    let facts = live.tool_facts();
    let delete = facts.iter().find(|t| t.tool == "delete_item").unwrap();
    let locked_facts = locked.tool_facts();
    let locked_delete = locked_facts
        .iter()
        .find(|t| t.tool == "delete_item")
        .unwrap();
    assert_eq!(
        (delete.read_only, delete.destructive, delete.idempotent),
        (
            locked_delete.read_only,
            locked_delete.destructive,
            locked_delete.idempotent
        )
    );
}

/// A server the toolbox adds from its live `tools/list` gives the model the
/// same definitions as its locked bindings, but labelled unlocked
/// everywhere; calls are checked against the listed schemas before they
/// are sent, and their events say unlocked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocked_tools_join_when_asked_and_are_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let config = util::stdio_servers(dir.path());
    let (locked, mut live) = locked_and_live(&config).await;
    assert_labelled_alike(&live, &locked);

    let mut events = mcpbind::subscribe_events();
    // A valid call, its structured output checked and returned.
    let call = live.call("demo_add", r#"{"a": 9202, "b": 40.0}"#).await;
    assert_eq!(call.target, Some(("demo".to_owned(), "add")));
    assert_eq!(call.attempts, 1);
    assert_eq!(call.outcome.as_ref().unwrap().output, json!({"sum": 9242}));
    // Checked against the listed schema: never sent.
    let call = live.call("demo_add", r#"{"a": "two-9202"}"#).await;
    assert_eq!(call.attempts, 0);
    let Err(CallError::Arguments {
        violations: problems,
    }) = &call.outcome
    else {
        panic!("{:?}", call.outcome)
    };
    assert!(
        problems
            .iter()
            .any(|p| (p.pointer.as_str(), p.keyword.as_str()) == ("/a", "type")),
        "{problems:?}"
    );
    // A tool error is the model's to read, as for a locked tool.
    let call = live
        .call_value("demo_fail", json!({"message": "no such order 9202"}))
        .await;
    assert_eq!(call.for_model().text, "no such order 9202");
    assert!(call.for_model().is_error);

    // This test's events, by their arguments: under `cargo test` other
    // tests call the same tools meanwhile, on the process's one bus.
    let ours = [
        json!({"a": 9202, "b": 40.0}),
        // (the event has the arguments as sent: `40.0` made an integer)
        json!({"a": 9202, "b": 40}),
        json!({"a": "two-9202"}),
        json!({"message": "no such order 9202"}),
    ];
    let seen: Vec<_> = std::iter::from_fn(|| events.try_recv())
        .filter(|e| ours.contains(&e.arguments))
        .collect();
    let summary: Vec<(&str, bool, u32, bool)> = seen
        .iter()
        .map(|e| (e.tool.as_str(), e.unlocked, e.attempts, e.outcome.is_ok()))
        .collect();
    assert_eq!(
        summary,
        [
            ("add", true, 1, true),
            ("add", true, 0, false),
            ("fail", true, 1, false)
        ]
    );
    assert!(matches!(seen[1].outcome, Outcome::Rejected { .. }));
    assert!(matches!(seen[2].outcome, Outcome::ToolError { .. }));

    // A server already in the toolbox is kept once.
    let again = mcpbind::Client::connect(&config, "demo").await.unwrap();
    live.add_unlocked(again).await.unwrap();
    assert_eq!(
        live.warnings(),
        ["server `demo` was added twice; the first one is kept"]
    );
    // And a merged toolbox keeps them unlocked.
    let mut merged = Toolbox::new();
    merged.merge(live).unwrap();
    assert_eq!(merged.anthropic_tools().unlocked.len(), 12);
}

/// Server-everything, unlocked: a tool that requires a task runs as one,
/// structured content is checked against the listed output schema, and the
/// config's filters and prefix apply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocked_tools_of_server_everything_run_as_listed() {
    let dir = tempfile::tempdir().unwrap();
    let config = util::stdio_servers_with(dir.path(), |name, server| match name {
        "everything" => server.tool_prefix("ev").disabled_tools(["get-env"]),
        _ => server,
    });
    let client = mcpbind::Client::connect(&config, "everything")
        .await
        .unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    let names = tools.names();
    assert!(
        names.contains(&"ev_get-structured-content"),
        "{names:?} {:?} {:?}",
        tools.warnings(),
        tools.held_back()
    );
    assert!(!names.iter().any(|n| n.contains("get-env")), "{names:?}");

    let call = tools
        .call_value("ev_get-structured-content", json!({"location": "Chicago"}))
        .await;
    let result = call.outcome.as_ref().unwrap();
    assert!(result.output.get("temperature").is_some(), "{result:?}");
    assert_eq!(result.structured_content.as_ref(), Some(&result.output));

    // `execution.taskSupport: "required"`: a plain call would be refused.
    let call = tools
        .call_value(
            "ev_simulate-research-query",
            json!({"topic": "rust", "ambiguous": false}),
        )
        .await;
    assert!(call.outcome.is_ok(), "{:?}", call.outcome);
    assert!(!call.for_model().text.is_empty());
}
