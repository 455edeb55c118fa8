//! Work that takes time: progress that keeps a call alive, tasks (MCP
//! 2025-11-25), cancellation of what the caller drops, a busy server's
//! `Retry-After`, and what a server says while connected (log messages,
//! resource updates). Against the pinned server-everything, and
//! `tests/servers/evolving.py` for what it can't do on demand (hang, a task
//! that never ends). A server that changes while connected is `drift.rs`'s.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpbind::protocol::{ElicitRequestParams, ElicitResult, ElicitationAction, TaskStatus};
use mcpbind::{
    CallOptions, Client, ClientHooks, Config, Error, Notice, Progress, ServerBuilder, ServerConfig,
};
use mcpbind_tests::everything;
use serde_json::{json, Map, Value};

use crate::util;

/// server-everything over stdio, with what `extra` adds to it.
fn config(extra: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Config {
    let everything =
        ServerConfig::stdio("node").args([util::npm_server("server-everything"), "stdio".into()]);
    Config::new()
        .server("everything", extra(everything))
        .unwrap()
}

fn text_of(result: &mcpbind::protocol::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `tests/servers/evolving.py` as server `evolving`, under `policy`.
pub(crate) fn evolving(policy: &str) -> mcpbind::ServerConfig {
    let script = util::tests_dir().join("servers/evolving.py");
    let server = mcpbind::ServerConfig::stdio("python3")
        .arg(script.display().to_string())
        .set("pin_policy", policy)
        .timeout(std::time::Duration::from_secs(60));
    let config = Config::new().server("evolving", server).unwrap();
    config.servers["evolving"].clone()
}

pub(crate) async fn call(client: &Client, tool: &str, arguments: Value) -> mcpbind::Result<String> {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let result = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await?;
    Ok(text_of(&result))
}

/// Waits (boundedly) for the client's stderr tail to contain `text`.
async fn stderr_says(client: &Client, text: &str) -> bool {
    for _ in 0..200 {
        if client.stderr_tail().await.is_some_and(|t| t.contains(text)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// The first notice `pick` takes (waiting at most 30 s for each notice).
pub(crate) async fn next_notice<T>(
    notices: &mut mcpbind::NoticeReceiver,
    what: &str,
    pick: impl Fn(&Notice) -> Option<T>,
) -> T {
    loop {
        let notice = tokio::time::timeout(Duration::from_secs(30), notices.recv())
            .await
            .unwrap_or_else(|_| panic!("no {what} notice"))
            .unwrap();
        if let Some(found) = pick(&notice) {
            return found;
        }
    }
}

/// A server's log message reaches the bus, with its level and logger.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_log_message_reaches_the_bus() {
    let client = Client::connect_server("evolving", evolving("warn"))
        .await
        .unwrap();
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "shout", json!({"text": "disk almost full"}))
        .await
        .unwrap();
    let (level, logger, data) = next_notice(&mut notices, "log", |notice| match notice {
        Notice::Log {
            server,
            level,
            logger,
            data,
        } if server == "evolving" => Some((level.clone(), logger.clone(), data.clone())),
        _ => None,
    })
    .await;
    assert_eq!(level, "warning");
    assert_eq!(logger.as_deref(), Some("evolving"));
    assert_eq!(data, json!("disk almost full"));
}

/// Dropping a call's future sends `notifications/cancelled` for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_is_cancelled_on_the_wire() {
    let client = Client::connect_server("evolving", evolving("warn"))
        .await
        .unwrap();
    let caller = client.clone();
    let hung = tokio::spawn(async move { call(&caller, "hang", json!({})).await });
    assert!(
        stderr_says(&client, "hang ").await,
        "the call never arrived"
    );
    hung.abort();
    let tail = client.stderr_tail().await.unwrap_or_default();
    let id = tail
        .lines()
        .find_map(|l| l.strip_prefix("hang "))
        .unwrap()
        .to_owned();
    assert!(
        stderr_says(&client, &format!("cancelled {id}")).await,
        "the server never heard of the cancellation: {:?}",
        client.stderr_tail().await
    );
}

/// Dropping the call of a task-required tool cancels its task
/// (`tasks/cancel`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_task_call_cancels_its_task() {
    let client = Client::connect_server("evolving", evolving("warn"))
        .await
        .unwrap();
    let caller = client.clone();
    let stalled = tokio::spawn(async move {
        let options = CallOptions::default().run_as_task();
        caller.call_raw("stall", Map::new(), &options).await
    });
    assert!(
        stderr_says(&client, "created task-1").await,
        "no task created"
    );
    // The client knows the task once it polls it; dropped before, the
    // call is a request to cancel (`notifications/cancelled`), not a task.
    assert!(
        stderr_says(&client, "tasks/get task-1").await,
        "the task was never polled: {:?}",
        client.stderr_tail().await
    );
    stalled.abort();
    assert!(
        stderr_says(&client, "tasks/cancel task-1").await,
        "the task was never cancelled: {:?}",
        client.stderr_tail().await
    );
}

fn busy(times: u32) -> (util::Running, mcpbind::ServerConfig) {
    let mut command = std::process::Command::new("python3");
    command
        .arg(util::tests_dir().join("servers/evolving.py"))
        .args(["--http", &times.to_string()]);
    let running = util::Running::start(command);
    let busy = ServerConfig::http(&running.url)
        .timeout(Duration::from_secs(30))
        .retries(3);
    let config = Config::new().server("busy", busy).unwrap().servers["busy"].clone();
    (running, config)
}

/// HTTP 429 with `Retry-After`: a retry-safe call waits as the server asks
/// and is sent again; any other call fails with an error that says when to
/// retry.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_is_retried_after_the_time_it_asks_for() {
    let (_server, config) = busy(1);
    let client = Client::connect_server("busy", config).await.unwrap();
    let mut options = CallOptions::default();
    options.retry_safe = true;
    let started = std::time::Instant::now();
    let result = client.call_raw("busy", Map::new(), &options).await.unwrap();
    assert_eq!(text_of(&result), "done after 2 calls");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "it did not wait"
    );

    let (_server, config) = busy(1);
    let client = Client::connect_server("busy", config).await.unwrap();
    let err = client
        .call_raw("busy", Map::new(), &CallOptions::default())
        .await
        .unwrap_err();
    assert_eq!(err.retry_after(), Some(Duration::from_secs(1)), "{err:?}");
    assert!(
        err.to_string()
            .ends_with("HTTP 429 Too Many Requests (retry after 1s)"),
        "{err}"
    );
}

/// SIGINT or SIGTERM to `mcpbind call` cancels the call on the wire before
/// it exits: `notifications/cancelled` for a plain call, `tasks/cancel` for
/// a task-required tool (run as a task because the server lists it so).
#[test]
fn a_signal_to_mcpbind_call_cancels_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.evolving]\ncommand = \"python3\"\nargs = [{}]\nenv = {{ EVOLVING_LOG = {} }}\n",
            util::toml_str(&util::tests_dir().join("servers/evolving.py").display().to_string()),
            util::toml_str(&log.display().to_string()),
        ),
    )
    .unwrap();
    let said = |text: &str| {
        (0..400).any(|_| {
            let found = std::fs::read_to_string(&log).is_ok_and(|l| l.contains(text));
            if !found {
                std::thread::sleep(Duration::from_millis(50));
            }
            found
        })
    };
    for (tool, signal, started, cancelled, code) in [
        ("hang", libc::SIGINT, "hang ", "cancelled ", 130),
        (
            "stall",
            libc::SIGTERM,
            "created task-1",
            "tasks/cancel task-1",
            143,
        ),
    ] {
        let _ = std::fs::remove_file(&log);
        let mut child = util::mcpbind_command()
            .current_dir(dir.path())
            .args(["call", "evolving", tool])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        assert!(said(started), "{tool}: the call never reached the server");
        // SAFETY: a plain kill(2) of our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{tool}");
        assert!(
            said(cancelled),
            "{tool}: the server never heard of the cancellation: {:?}",
            std::fs::read_to_string(&log)
        );
    }
}

/// A subscribed resource's update reaches the bus; after unsubscribing,
/// the server says nothing more of it (its next update notice is of the
/// resource still subscribed, sent after).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscribed_resources_updates_reach_the_bus() {
    // A name of its own: a toolbox test edits evolving.py's notes meanwhile,
    // and the bus is the process's.
    let client = Client::connect_server("subscribed", evolving("warn"))
        .await
        .unwrap();
    let mut notices = mcpbind::subscribe_notices();
    client.subscribe_resource("note://1").await.unwrap();
    assert_eq!(client.subscribed_resources(), ["note://1"]);
    let edit = |uri: &'static str, text: &'static str| {
        let client = client.clone();
        async move { call(&client, "edit", json!({"uri": uri, "text": text})).await }
    };
    edit("note://1", "one").await.unwrap();
    let updated = |notice: &Notice| match notice {
        Notice::ResourceUpdated { server, uri } if server == "subscribed" => Some(uri.clone()),
        _ => None,
    };
    assert_eq!(
        next_notice(&mut notices, "resource update", updated).await,
        "note://1"
    );
    client.unsubscribe_resource("note://1").await.unwrap();
    assert!(client.subscribed_resources().is_empty());
    client.subscribe_resource("note://2").await.unwrap();
    edit("note://1", "unheard").await.unwrap();
    edit("note://2", "two").await.unwrap();
    assert_eq!(
        next_notice(&mut notices, "resource update", updated).await,
        "note://2"
    );
    let read = client.read_resource("note://1").await.unwrap();
    assert!(format!("{read:?}").contains("unheard"));
}

/// On a 2026-07-28 connection, subscriptions go through one
/// `subscriptions/listen` stream naming every resource subscribed to (the
/// test server sends an update for each resource a stream names, at once):
/// each subscription opens it anew, and the updates reach the bus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_on_a_2026_connection_go_through_subscriptions_listen() {
    let command = std::process::Command::new(env!("CARGO_BIN_EXE_modern_http"));
    let (mut child, url) = util::start_listening(command);
    let config = Config::new()
        .server("modern", ServerConfig::http(url))
        .unwrap();
    let client = Client::connect(&config, "modern").await.unwrap();
    let mut notices = mcpbind::subscribe_notices();
    let updated = |notice: &Notice| match notice {
        Notice::ResourceUpdated { server, uri } if server == "modern" => Some(uri.clone()),
        _ => None,
    };
    let first = "skill://pdf-processing/SKILL.md";
    client.subscribe_resource(first).await.unwrap();
    assert_eq!(next_notice(&mut notices, "update", updated).await, first);

    // A second one: the new stream names both.
    let second = "skill://live/SKILL.md";
    client.subscribe_resource(second).await.unwrap();
    let mut seen = vec![
        next_notice(&mut notices, "update", updated).await,
        next_notice(&mut notices, "update", updated).await,
    ];
    seen.sort();
    assert_eq!(seen, [second, first]);
    assert_eq!(client.subscribed_resources(), [second, first]);

    // Unsubscribed: the stream names the one left.
    client.unsubscribe_resource(second).await.unwrap();
    assert_eq!(next_notice(&mut notices, "update", updated).await, first);
    assert_eq!(client.subscribed_resources(), [first]);
    // Each stream replaced was cancelled: the server saw both end.
    let mut log = String::new();
    for _ in 0..200 {
        log = call(&client, "log", json!({})).await.unwrap();
        if log.matches("listen ended").count() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(log.matches("POST subscriptions/listen").count(), 3, "{log}");
    assert_eq!(log.matches("listen ended").count(), 2, "{log}");
    drop(client);
    let _ = child.kill();
    let _ = child.wait();
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// Each progress report starts the call's `timeout` again: six reports a
    /// second apart keep a call with a 2.5 s timeout alive for 6 s, and each
    /// reaches the caller.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn progress_keeps_a_call_alive_and_reaches_the_caller() {
        let config = config(|s| s.timeout(Duration::from_millis(2500)));
        let client = everything::Client::connect(&config).await.unwrap();
        let (sink, mut seen) = tokio::sync::mpsc::unbounded_channel::<Progress>();
        let options = CallOptions::default().on_progress(move |p| {
            let _ = sink.send(p.clone());
        });
        let input = everything::types::TriggerLongRunningOperationInput {
            duration: Some(6.0),
            steps: Some(6.0),
        };
        let mut notices = mcpbind::subscribe_notices();
        let result = client
            .inner()
            .call_with::<everything::tools::TriggerLongRunningOperation>(&input, &options)
            .await
            .unwrap();
        assert!(
            result.text().contains("Long running operation completed"),
            "{}",
            result.text()
        );
        // Each of the six reaches the caller; the last may be handed on just
        // after the result (waited for, with a bound, as an event).
        let mut steps: Vec<(f64, Option<f64>)> = Vec::new();
        while steps.len() < 6 {
            match tokio::time::timeout(std::time::Duration::from_secs(10), seen.recv()).await {
                Ok(Some(p)) => steps.push((p.progress, p.total)),
                _ => break,
            }
        }
        assert_eq!(
            steps,
            (1..=6).map(|i| (i as f64, Some(6.0))).collect::<Vec<_>>()
        );
        // The bus heard them too, naming server and tool.
        let mut on_bus = 0;
        while on_bus < 6 {
            let wait = tokio::time::timeout(std::time::Duration::from_secs(10), notices.recv());
            let Ok(Some(notice)) = wait.await else { break };
            if let Notice::Progress { server, tool, .. } = &*notice {
                if server == "everything" && tool == "trigger-long-running-operation" {
                    on_bus += 1;
                }
            }
        }
        assert!(on_bus >= 6, "{on_bus} progress notices on the bus");
    }

    /// `max_call_time` bounds a call however often it reports progress.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn max_call_time_ends_a_call_that_keeps_reporting() {
        let config = config(|s| {
            s.timeout(Duration::from_millis(2500))
                .max_call_time(Duration::from_secs(3))
        });
        let client = everything::Client::connect(&config).await.unwrap();
        let err = client
            .trigger_long_running_operation(everything::types::TriggerLongRunningOperationInput {
                duration: Some(20.0),
                steps: Some(20.0),
            })
            .await
            .unwrap_err();
        assert!(matches!(err, Error::TimeLimit { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "call to `everything.trigger-long-running-operation` ran past its max_call_time of 3s"
        );
    }

    /// A tool whose locked definition requires a task is called as one by its
    /// generated method: created, polled, its result fetched and typed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_required_tool_runs_as_a_task_by_its_generated_method() {
        let config = config(|s| s);
        let client = everything::Client::connect(&config).await.unwrap();
        let report = client
            .simulate_research_query(everything::types::SimulateResearchQueryInput {
                topic: "rust".into(),
                ambiguous: None,
            })
            .await
            .unwrap();
        assert!(
            report.text().contains("# Research Report: rust"),
            "{}",
            report.text()
        );
    }

    /// A task that needs input (`input_required`) asks through the client's
    /// elicitation hook, and goes on with the answer.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_waiting_for_input_is_answered_by_the_elicitation_hook() {
        let config = config(|s| s);
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = Arc::clone(&asked);
        let hooks = ClientHooks::default().elicitation(move |request: ElicitRequestParams| {
            let log = Arc::clone(&log);
            async move {
                log.lock().unwrap().push(format!("{request:?}"));
                ElicitResult::new(ElicitationAction::Accept)
                    .with_content(json!({ "interpretation": "historical" }))
            }
        });
        let client = Client::connect_with(&config, "everything", hooks)
            .await
            .unwrap();
        let client = everything::Client::from_client(client);
        let report = client
            .simulate_research_query(everything::types::SimulateResearchQueryInput {
                topic: "rust".into(),
                ambiguous: Some(true),
            })
            .await
            .unwrap();
        assert!(
            report
                .text()
                .contains("# Research Report: rust (historical)"),
            "{}",
            report.text()
        );
        assert_eq!(asked.lock().unwrap().len(), 1, "the hook was asked once");
    }

    /// A task handle: start, read the status, resume by id, wait for the typed
    /// result; and cancel another.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_task_handle_reads_waits_resumes_and_cancels() {
        let config = config(|s| s);
        let client = everything::Client::connect(&config).await.unwrap();
        let inner = client.inner();
        let input = everything::types::SimulateResearchQueryInput {
            topic: "tasks".into(),
            ambiguous: None,
        };
        let options = CallOptions::default();
        let task = inner
            .start_typed_task::<everything::tools::SimulateResearchQuery>(&input, &options)
            .await
            .unwrap();
        let state = task.status().await.unwrap();
        assert_eq!(state.id, task.id());
        assert_eq!(state.status, TaskStatus::Working);
        assert_eq!(state.poll_interval, Some(Duration::from_secs(1)));
        // Taken up again by id, as after a reconnect.
        let again = inner.resume_task(task.tool(), task.id());
        let report = again
            .wait_for::<everything::tools::SimulateResearchQuery>()
            .await
            .unwrap();
        assert!(report.text().contains("# Research Report: tasks"));

        let doomed = inner
            .start_typed_task::<everything::tools::SimulateResearchQuery>(&input, &options)
            .await
            .unwrap();
        let cancelled = doomed.cancel().await.unwrap();
        assert_eq!(cancelled.status, TaskStatus::Cancelled);
        let err = doomed.wait().await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::Task {
                    status: TaskStatus::Cancelled,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    /// A server that offers no subscriptions: refused before anything is sent,
    /// naming the server, the resource and why.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn subscribing_where_the_server_offers_none_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let config = util::stdio_servers(dir.path());
        let client = Client::connect(&config, "time").await.unwrap();
        let err = client.subscribe_resource("time://now").await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "server `time`: resource `time://now` can't be subscribed to: the server declares no `resources.subscribe` capability"
        );
    }
}
