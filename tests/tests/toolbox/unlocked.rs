//! Unlocked tools of a server that changes them while connected
//! (`tests/servers/evolving.py`, Python's standard library only, nothing
//! installed): held back until listed again, and the resources they render
//! as context subscribed to. The unlocked tools of the demo server and
//! server-everything, side by side with locked ones, are in
//! `installed/unlocked.rs`.

use mcpbind::{CallError, Config, ServerConfig, Toolbox};
use serde_json::json;

use super::definition_names;
use crate::util;

/// `tests/servers/evolving.py` as server `evolving`, its tools added
/// unlocked.
async fn evolving_toolbox() -> Toolbox {
    let script = util::tests_dir().join("servers/evolving.py");
    let evolving = ServerConfig::stdio("python3")
        .arg(script.display().to_string())
        .timeout(std::time::Duration::from_secs(60));
    let config = Config::new().server("evolving", evolving).unwrap();
    let client = mcpbind::Client::connect(&config, "evolving").await.unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    tools
}

/// When an unlocked server says its tools changed, its tools are held back
/// (their definitions may be stale) until the toolbox lists them again; the
/// new schema is then the one calls are checked against.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocked_tools_that_change_are_held_back_until_listed_again() {
    let mut tools = evolving_toolbox().await;
    let call = tools.call_value("evolving_greet", json!({"name": 7})).await;
    assert_eq!(call.attempts, 0, "the listed schema wants a string");

    let mut notices = mcpbind::subscribe_notices();
    let change = tools.call("evolving_change", "{}").await;
    assert!(change.outcome.is_ok(), "{:?}", change.outcome);
    loop {
        let notice = tokio::time::timeout(std::time::Duration::from_secs(30), notices.recv())
            .await
            .expect("a list_changed notice")
            .unwrap();
        if matches!(&*notice, mcpbind::Notice::ListChanged { server, list: mcpbind::ListKind::Tools } if server == "evolving")
        {
            break;
        }
    }
    // A call lists the tools again if the background listing is not back.
    let call = tools.call_value("evolving_greet", json!({"name": 7})).await;
    assert!(
        matches!(&call.outcome, Err(CallError::Stale { server, .. }) if server == "evolving"),
        "{:?}",
        call.outcome
    );
    assert_eq!(
        call.for_model().text,
        "tool `evolving_greet` is held back: the tools of server `evolving` changed since they were listed"
    );

    // Only the changed tool is held back.
    assert_eq!(tools.held_back(), ["evolving_greet"]);
    assert!(tools.names().contains(&"evolving_restore"));
    assert!(
        !definition_names(&tools.anthropic_tools().tools).contains(&"evolving_greet".to_owned())
    );
    tools.refresh_unlocked("evolving").await.unwrap();
    assert!(tools.held_back().is_empty());
    let call = tools.call_value("evolving_greet", json!({"name": 7})).await;
    assert_eq!(call.for_model().text, "hello 7");
    let call = tools
        .call_value("evolving_greet", json!({"name": "Ada"}))
        .await;
    assert_eq!(call.attempts, 0, "the new schema wants an integer");
    let err = tools.refresh_unlocked("nobody").await.unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `nobody`");
}

/// A toolbox subscribes to the resources it renders as context; an update
/// arrives as a notice, and the context rendered again has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribed_context_hears_its_updates() {
    let tools = evolving_toolbox().await;
    let before = tools.resource_context(&["evolving"], 4096).await.unwrap();
    assert!(before.contains("first"), "{before}");
    let mut notices = mcpbind::subscribe_notices();
    assert_eq!(tools.subscribe_context(&["evolving"]).await.unwrap(), 2);
    let call = tools
        .call_value(
            "evolving_edit",
            json!({"uri": "note://1", "text": "rewritten"}),
        )
        .await;
    assert!(call.outcome.is_ok(), "{:?}", call.outcome);
    let uri = loop {
        let notice = tokio::time::timeout(std::time::Duration::from_secs(30), notices.recv())
            .await
            .expect("a resource update")
            .unwrap();
        if let mcpbind::Notice::ResourceUpdated { server, uri } = &*notice {
            if server == "evolving" {
                break uri.clone();
            }
        }
    };
    assert_eq!(uri, "note://1");
    let after = tools.resource_context(&["evolving"], 4096).await.unwrap();
    assert!(after.contains("rewritten"), "{after}");
    let err = tools
        .subscribe_resource("nobody", "note://1")
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `nobody`");
}
