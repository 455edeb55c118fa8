//! Hooks and events around calls against real servers: hooks in order,
//! with failures rolled back, and the event bus covering typed and toolbox
//! calls without ever showing a secret.

use std::sync::{Arc, Mutex};

use mcpbind::{CallSource, Config, HookCall, Outcome, ToolCall, ToolHook, ToolInvoked, Toolbox};
use mcpbind_tests::{demo, everything};
use serde_json::json;

use super::demo_and_filesystem;
use crate::util;

#[derive(Default)]
struct Host {
    log: Mutex<Vec<String>>,
    /// State the host changes with each call and rolls back on failure.
    state: Mutex<Vec<String>>,
    snapshot: Mutex<Vec<Vec<String>>>,
}

struct Recorder(&'static str, Arc<Host>);

impl ToolHook for Recorder {
    fn before(&self, call: &HookCall<'_>) {
        let mut log = self.1.log.lock().unwrap();
        log.push(format!("{} before {}", self.0, call.name));
        if self.0 == "state" {
            let state = self.1.state.lock().unwrap().clone();
            self.1.snapshot.lock().unwrap().push(state);
            self.1.state.lock().unwrap().push(call.tool.to_owned());
        }
    }

    fn after(&self, call: &HookCall<'_>, result: &ToolCall) {
        let status = if result.is_error() { "failed" } else { "ok" };
        let mut log = self.1.log.lock().unwrap();
        log.push(format!("{} after {} {status}", self.0, call.name));
        if self.0 == "state" {
            let snapshot = self.1.snapshot.lock().unwrap().pop().unwrap();
            if result.is_error() {
                *self.1.state.lock().unwrap() = snapshot;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_run_in_order_and_roll_back_failures() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = demo_and_filesystem(&util::stdio_servers(dir.path())).await;
    let host = Arc::new(Host::default());
    tools.with_hook(Recorder("outer", Arc::clone(&host)));
    tools.with_hook(Recorder("state", Arc::clone(&host)));

    tools.call("demo_add", r#"{"a": 1, "b": 2}"#).await;
    tools.call("demo_fail", r#"{"message": "boom"}"#).await;
    tools.call("demo_add", r#"{"a": 1.5, "b": 2}"#).await;
    tools.call("nope", "{}").await;

    assert_eq!(
        *host.log.lock().unwrap(),
        [
            "outer before demo_add",
            "state before demo_add",
            "state after demo_add ok",
            "outer after demo_add ok",
            "outer before demo_fail",
            "state before demo_fail",
            "state after demo_fail failed",
            "outer after demo_fail failed",
            "outer before demo_add",
            "state before demo_add",
            "state after demo_add failed",
            "outer after demo_add failed",
        ]
    );
    assert_eq!(*host.state.lock().unwrap(), ["add"], "failures rolled back");
}

/// Calls made with `secret` in server-everything's environment (as
/// `${MCPBIND_TOOLBOX_CANARY}`): a typed `add`, the toolbox's `add` (valid,
/// then rejected), `get-env` (whose result shows the secret) and an `echo`
/// of the secret as a model may pass it on. Returns the events of these
/// calls, in order.
async fn events_of_calls_with_a_secret(config: &Config, secret: &str) -> Vec<Arc<ToolInvoked>> {
    let mut events = mcpbind::subscribe_events();

    // Numbers no other test sends: the bus is the process's, and under
    // `cargo test` other tests call the same tools meanwhile; their events
    // are left out below by these arguments (and by `get-env`, which only
    // this test calls).
    let demo = demo::Client::connect(config).await.unwrap();
    demo.add(demo::types::AddInput { a: 9101, b: 2 })
        .await
        .unwrap();
    let mut tools = Toolbox::new();
    tools.add(demo).unwrap();
    tools
        .add(everything::Client::connect(config).await.unwrap())
        .unwrap();
    tools.call("demo_add", r#"{"a": 9103, "b": 4}"#).await;
    tools.call("demo_add", r#"{"a": 9103.5, "b": 4}"#).await;
    // The secret reaches the server (its env) and comes back in the result…
    let env = tools.call("everything_get-env", "{}").await;
    assert!(env.for_model().text.contains(secret));
    // …and a model may even pass it on; events never show it.
    tools
        .call_value("everything_echo", json!({"message": secret}))
        .await;

    let ours = [
        json!({"a": 9101, "b": 2}),
        json!({"a": 9103, "b": 4}),
        json!({"a": 9103.5, "b": 4}),
        json!({"message": "${MCPBIND_TOOLBOX_CANARY}"}),
    ];
    let mut seen = Vec::new();
    while let Some(event) = events.try_recv() {
        if ours.contains(&event.arguments) || event.tool == "get-env" {
            seen.push(event);
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_cover_typed_and_toolbox_calls_without_secrets() {
    let secret = crate::env::value("MCPBIND_TOOLBOX_CANARY");
    let dir = tempfile::tempdir().unwrap();
    let config = util::stdio_servers_with(dir.path(), |name, server| match name {
        "everything" => server.env("LEAKY", "${MCPBIND_TOOLBOX_CANARY}"),
        _ => server,
    });
    let seen = events_of_calls_with_a_secret(&config, secret).await;

    let summary: Vec<(String, Option<String>, CallSource, u32, bool)> = seen
        .iter()
        .map(|e| {
            (
                e.tool.clone(),
                e.model_name.clone(),
                e.source,
                e.attempts,
                e.outcome.is_ok(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("add".into(), None, CallSource::Typed, 1, true),
            (
                "add".into(),
                Some("demo_add".into()),
                CallSource::Toolbox,
                1,
                true
            ),
            (
                "add".into(),
                Some("demo_add".into()),
                CallSource::Toolbox,
                0,
                false
            ),
            (
                "get-env".into(),
                Some("everything_get-env".into()),
                CallSource::Toolbox,
                1,
                true
            ),
            (
                "echo".into(),
                Some("everything_echo".into()),
                CallSource::Toolbox,
                1,
                true
            ),
        ]
    );
    assert_eq!(seen[0].arguments, json!({"a": 9101, "b": 2}));
    assert!(matches!(seen[2].outcome, Outcome::Rejected { .. }));
    assert_eq!(
        seen[4].arguments,
        json!({"message": "${MCPBIND_TOOLBOX_CANARY}"})
    );
    for event in &seen {
        let dump = format!("{event:?} {}", serde_json::to_string(&**event).unwrap());
        assert!(!dump.contains(secret), "{dump}");
    }
}
