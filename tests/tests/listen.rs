//! List changes on an MCP 2026-07-28 connection: there is no `initialize`,
//! and `notifications/tools/list_changed` reaches a client only on a
//! `subscriptions/listen` stream that asked for it. The client opens one
//! at connect when the server declares `listChanged`, subscribed to
//! resources or not; a change is then checked against the lock under
//! `pin_policy` while connected. The server is tests/src/bin/modern_http.rs
//! with `--evolving`: its `evolve` changes `greet` and says so on the
//! streams that asked.

use std::process::{Child, Command};
use std::time::Duration;

use mcpbind::{Client, Config, Error, Notice, PinPolicy, ServerBuilder, ServerConfig, ToolMeta};
use serde_json::json;

use crate::drift::next_drift;
use crate::long_running::{call, next_notice};
use crate::util;

/// modern_http.rs `--evolving`, as server `modern` of `config`.
struct Evolving {
    child: Child,
    config: Config,
}

impl Drop for Evolving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(policy: PinPolicy) -> Evolving {
    start_with(policy, |s| s)
}

/// [`start`], with what `extra` adds to the server.
fn start_with(policy: PinPolicy, extra: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Evolving {
    let mut command = Command::new(env!("CARGO_BIN_EXE_modern_http"));
    command.arg("--evolving");
    let (child, url) = util::start_listening(command);
    let modern = extra(ServerConfig::http(url).pin_policy(policy));
    let config = Config::new().server("modern", modern).unwrap();
    Evolving { child, config }
}

/// The drift that refuses `greet` on `client`: the other refusing test's
/// server is `modern` too, on the process's one bus, so its drift may come
/// first; a client's refusal is stored before its own drift is published.
async fn own_drift(notices: &mut mcpbind::NoticeReceiver, client: &Client) -> (Vec<String>, bool) {
    loop {
        let (tools, refused, _) = next_drift(notices, "modern").await;
        if client.is_refused("greet") {
            return (tools, refused);
        }
    }
}

/// The server's tools as `mcpbind lock` locks them (a lockfile written and
/// read back), as the pins of a generated module.
async fn locked_tools(server: &Evolving) -> Vec<ToolMeta> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcpbind.lock");
    let config = &server.config.servers["modern"];
    let lock = mcpbind::snapshot::snapshot_server("modern", config)
        .await
        .unwrap();
    let mut lockfile = mcpbind::Lockfile::new();
    lockfile.servers.insert("modern".to_owned(), lock);
    lockfile.write(&path).unwrap();
    let lockfile = mcpbind::Lockfile::read(&path).unwrap();
    let leak = |text: String| -> &'static str { Box::leak(text.into_boxed_str()) };
    lockfile.servers["modern"]
        .tools
        .iter()
        .map(|tool| {
            let definition = leak(mcpbind::hash::canonical_json(&tool.definition));
            let name = leak(tool.name.clone());
            ToolMeta::new("modern", name, definition, [(0, 0); 4], [false; 4])
        })
        .collect()
}

/// The server's request log, one line each (see `log` in modern_http.rs).
async fn log(client: &Client) -> Vec<String> {
    let text = call(client, "log", json!({})).await.unwrap();
    text.lines().map(str::to_owned).collect()
}

/// How many lines of `lines` start with `prefix`.
fn count(lines: &[String], prefix: &str) -> usize {
    lines.iter().filter(|l| l.starts_with(prefix)).count()
}

/// At connect, with nothing subscribed, the client opens a
/// `subscriptions/listen` stream asking for the tool list's changes, and
/// only for what the server declares (`listChanged` on tools alone); the
/// change then reaches the bus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_connection_listens_for_list_changes_from_the_connect() {
    let server = start(PinPolicy::Ignore);
    let client = Client::connect(&server.config, "modern").await.unwrap();
    assert!(client.subscribed_resources().is_empty());
    let lines = log(&client).await;
    assert_eq!(
        lines[..3],
        [
            "POST server/discover session=no",
            "POST subscriptions/listen session=no",
            r#"listen asked {"toolsListChanged":true}"#,
        ],
        "{lines:?}"
    );
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "evolve", json!({})).await.unwrap();
    let list = next_notice(&mut notices, "list changed", |notice| match notice {
        Notice::ListChanged { server, list } if server == "modern" => Some(*list),
        _ => None,
    })
    .await;
    assert_eq!(list, mcpbind::ListKind::Tools);
    client.close().await;
}

/// Under `refuse`, a tool changed while connected is refused with typed
/// drift naming it, on the same connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_changed_on_a_2026_connection_is_refused_under_refuse() {
    let server = start(PinPolicy::Refuse);
    let pins = locked_tools(&server).await;
    let client = Client::connect(&server.config, "modern").await.unwrap();
    assert!(client.check_pins(&pins).await.unwrap().is_empty());
    assert_eq!(
        call(&client, "greet", json!({"name": "Ada"}))
            .await
            .unwrap(),
        "hello Ada"
    );
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "evolve", json!({})).await.unwrap();
    let (tools, refused) = own_drift(&mut notices, &client).await;
    assert_eq!((tools, refused), (vec!["greet".to_owned()], true));
    let err = call(&client, "greet", json!({"name": 7}))
        .await
        .unwrap_err();
    let Error::Drift {
        server: name,
        drift,
    } = &err
    else {
        panic!("not drift: {err:?}")
    };
    assert_eq!(name, "modern");
    assert_eq!(
        (drift[0].kind, drift[0].name.as_str(), drift[0].is_changed()),
        (mcpbind::EntryKind::Tool, "greet", true),
        "{drift:?}"
    );
    // One connection for the lock, one for the client: no reconnect.
    let lines = log(&client).await;
    assert_eq!(count(&lines, "POST server/discover"), 2, "{lines:?}");
    client.close().await;
}

/// Under `warn`, the drift is published and calls go on. The stream stays
/// open for the list once the last resource subscription is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_changed_on_a_2026_connection_is_reported_under_warn() {
    let server = start(PinPolicy::Warn);
    let pins = locked_tools(&server).await;
    let client = Client::connect(&server.config, "modern").await.unwrap();
    assert!(client.check_pins(&pins).await.unwrap().is_empty());
    let uri = "skill://pdf-processing/SKILL.md";
    client.subscribe_resource(uri).await.unwrap();
    client.unsubscribe_resource(uri).await.unwrap();
    let lines = log(&client).await;
    let asked: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("listen asked"))
        .collect();
    assert_eq!(
        asked[asked.len() - 3..],
        [
            r#"listen asked {"toolsListChanged":true}"#,
            r#"listen asked {"toolsListChanged":true,"resourceSubscriptions":["skill://pdf-processing/SKILL.md"]}"#,
            r#"listen asked {"toolsListChanged":true}"#,
        ],
        "{lines:?}"
    );
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "evolve", json!({})).await.unwrap();
    // The first drift under `warn`: under `cargo test` the refusing tests'
    // servers, also named `modern`, publish on the same process's bus.
    let (_, refused, drift) = loop {
        let drift = next_drift(&mut notices, "modern").await;
        if !drift.1 {
            break drift;
        }
    };
    assert!(!refused);
    assert_eq!(
        (drift[0].kind, drift[0].name.as_str(), drift[0].is_changed()),
        (mcpbind::EntryKind::Tool, "greet", true),
        "{drift:?}"
    );
    assert!(!client.is_refused("greet"));
    assert_eq!(
        call(&client, "greet", json!({"name": 7})).await.unwrap(),
        "hello 7"
    );
    client.close().await;
}

/// After a reconnect (here: the connection closed when idle), the stream
/// is opened again before the connection is used, and the next change is
/// heard on it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_listens_again() {
    let server = start_with(PinPolicy::Refuse, |s| {
        s.idle_timeout(Duration::from_secs(1))
    });
    let pins = locked_tools(&server).await;
    let client = Client::connect(&server.config, "modern").await.unwrap();
    assert!(client.check_pins(&pins).await.unwrap().is_empty());
    // Closed once idle (bounded: the reaper runs after a second).
    for _ in 0..1500 {
        if !client.is_connected().await {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!client.is_connected().await, "not closed when idle");
    let lines = log(&client).await;
    // The lock's connection, the client's first, and the one `log` made.
    assert_eq!(count(&lines, "POST server/discover"), 3, "{lines:?}");
    let tools = r#"listen asked {"toolsListChanged":true}"#;
    assert_eq!(count(&lines, tools), 3, "{lines:?}");
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "evolve", json!({})).await.unwrap();
    let (drift, _) = own_drift(&mut notices, &client).await;
    assert_eq!(drift, ["greet"]);
    let err = call(&client, "greet", json!({"name": 7}))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Drift { .. }), "{err:?}");
    client.close().await;
}

/// A server that declares `listChanged` but gets `subscriptions/listen`
/// wrong (refuses it, acknowledges it without the tool list, or never
/// answers it) is connected to all the same, and its tools are called:
/// opening the stream is bounded by the call timeout, and its failure is a
/// warning, not the connect's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_that_fails_does_not_fail_the_connect() {
    for fault in ["refused", "partial", "silent"] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_modern_http"));
        command.args(["--evolving", "--listen-fault", fault]);
        let (child, url) = util::start_listening(command);
        let modern = ServerConfig::http(url).timeout(Duration::from_secs(2));
        let config = Config::new().server("modern", modern).unwrap();
        let server = Evolving { child, config };
        let client = Client::connect(&server.config, "modern").await.unwrap();
        assert_eq!(
            call(&client, "greet", json!({"name": "Ada"}))
                .await
                .unwrap(),
            "hello Ada",
            "{fault}"
        );
        let lines = log(&client).await;
        assert_eq!(
            count(&lines, "POST subscriptions/listen"),
            1,
            "{fault}: {lines:?}"
        );
        client.close().await;
    }
}
