//! How the runtime behaves in a long-running agent: shared clients,
//! per-call timeouts, reconnects, the circuit breaker, retries, several
//! servers, idle connections, shutdown, tracing, and HTTP connection reuse.
//! Against real processes: the demo server, and `recorder` (tests/src/bin),
//! which writes down every line it receives.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpbind::{Client, Closed, Config, Error, PinPolicy, ServerBuilder, ServerConfig, Servers};
use mcpbind_tests::demo;
use serde_json::{json, Value};

use crate::util;

const RECORDER: &str = env!("CARGO_BIN_EXE_recorder");

fn demo_bin() -> String {
    util::bin("mcpbind-demo-server").display().to_string()
}

/// A config with one server, `name`.
fn config(name: &str, server: ServerBuilder) -> Config {
    Config::new().server(name, server).unwrap()
}

/// The recorder writing to `record`, as server `rec`.
fn recorder_server(record: &Path) -> ServerBuilder {
    ServerConfig::stdio(RECORDER).env("MCPBIND_RECORD", record.display().to_string())
}

/// The recorder writing to `record`, with `more` settings.
fn recorder(record: &Path, more: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Config {
    config("rec", more(recorder_server(record)))
}

/// A server that runs `script` with `sh -c`.
fn sh(script: impl Into<String>) -> ServerBuilder {
    ServerConfig::stdio("sh").args(["-c".to_owned(), script.into()])
}

/// The JSON lines the recorder received.
fn recorded(record: &Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn args(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

fn slow(tag: &str, millis: u64) -> serde_json::Map<String, Value> {
    args(json!({"tag": tag, "millis": millis}))
}

/// A client of the recorder (recording into `dir`) that retries at once.
async fn retrying_recorder(dir: &Path) -> (PathBuf, Client) {
    let record = dir.join("record.jsonl");
    let config = recorder(&record, |s| s.retry_backoff(Duration::from_millis(10)));
    (record, Client::connect(&config, "rec").await.unwrap())
}

/// The retry-safe options generated code uses for a read-only tool.
fn retry_safe() -> mcpbind::CallOptions {
    let mut options = mcpbind::CallOptions::default();
    options.retry_safe = true;
    options
}

/// Waits (at most 10 s) until the client has seen its connection go.
async fn disconnected(client: &Client) {
    for _ in 0..1000 {
        if !client.is_connected().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the client still says connected 10 s after its server died");
}

/// The lines of a file (a count of starts, or their pids); none when it
/// does not exist yet.
fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

async fn gone(pid: u32) -> bool {
    let dir = PathBuf::from(format!("/proc/{pid}"));
    for _ in 0..300 {
        if !dir.exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// Kills `pid` once the recorder has received one more `tools/call` than it
/// had now: the call is on the wire, whatever the machine's load.
fn kill_once_received(record: &Path, pid: u32) -> tokio::task::JoinHandle<()> {
    let record = record.to_path_buf();
    let calls = move || {
        recorded(&record)
            .iter()
            .filter(|m| m["method"] == "tools/call")
            .count()
    };
    let before = calls();
    tokio::spawn(async move {
        for _ in 0..1000 {
            if calls() > before {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        kill(pid);
    })
}

fn kill(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clones_share_the_connection_and_views_have_their_own_timeout() {
    let config = config("demo", ServerConfig::stdio(demo_bin()));
    let client = demo::Client::connect(&config).await.unwrap();
    let clone = client.clone();
    let pid = client.inner().process_id().await.unwrap();
    assert_eq!(clone.inner().process_id().await, Some(pid));

    let hasty = client.with_timeout(Duration::from_millis(200));
    let err = hasty
        .sleep(demo::types::SleepInput::new(20_000))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "call to `demo.sleep` timed out after 200ms"
    );
    // The others keep the server's timeout (30 s) and the same process.
    let slept = clone
        .sleep(demo::types::SleepInput::new(300))
        .await
        .unwrap();
    assert_eq!(slept.text(), "slept 300 ms");
    assert_eq!(hasty.inner().process_id().await, Some(pid));
    // A per-call option beats the view's timeout.
    let err = clone
        .inner()
        .call_raw(
            "sleep",
            args(json!({"millis": 20_000})),
            &mcpbind::CallOptions::with_timeout(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { timeout, .. } if timeout == Duration::from_millis(100)));
}

/// The tools of the recorder, as pins (what a generated `TOOLS` holds).
async fn pins_of(client: &Client) -> Vec<mcpbind::ToolMeta> {
    client
        .list_tools_raw()
        .await
        .unwrap()
        .iter()
        .map(|tool| {
            let name: &'static str = Box::leak(tool["name"].as_str().unwrap().to_owned().into());
            // The pin is the sha256 of this text.
            let definition: &'static str =
                Box::leak(mcpbind::hash::canonical_json(tool).into_boxed_str());
            mcpbind::ToolMeta::new(
                "rec",
                name,
                definition,
                [(0, 0); 4],
                [true, false, false, true],
            )
        })
        .collect()
}

/// A server upgraded while the client lives (its process replaced) is
/// checked again on the reconnect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconnect_checks_the_pins_again() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    let description = dir.path().join("description.txt");
    std::fs::write(&description, "Answer after a delay.").unwrap();
    let config = recorder(&record, |s| {
        s.env(
            "MCPBIND_RECORD_DESCRIPTION",
            description.display().to_string(),
        )
        .pin_policy(PinPolicy::Refuse)
        .retry_backoff(Duration::ZERO)
    });
    let client = Client::connect(&config, "rec").await.unwrap();
    let pins = pins_of(&client).await;
    assert!(client.check_pins(&pins).await.unwrap().is_empty());
    client
        .call_raw("slow", slow("one", 0), &retry_safe())
        .await
        .unwrap();

    // The server is upgraded: its `slow` tool has another description.
    std::fs::write(
        &description,
        "Answer after a delay. Also deletes your files.",
    )
    .unwrap();
    kill(client.process_id().await.unwrap());
    disconnected(&client).await;
    let err = client
        .call_raw("slow", slow("two", 0), &retry_safe())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("server `rec` changed since it was locked: tool `slow` changed"),
        "{text}"
    );
    // It stays refused; once the server is back to what was locked, calls go
    // through again.
    assert!(matches!(
        client
            .call_raw("slow", slow("three", 0), &retry_safe())
            .await,
        Err(Error::Drift { .. })
    ));
    std::fs::write(&description, "Answer after a delay.").unwrap();
    let result = client
        .call_raw("slow", slow("four", 0), &retry_safe())
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "four");
    let tags: Vec<String> = recorded(&record)
        .iter()
        .filter_map(|m| m.pointer("/params/arguments/tag").and_then(Value::as_str))
        .map(str::to_owned)
        .collect();
    assert_eq!(tags, ["one", "four"], "a refused server got no call");
}

/// `mcpbind call` that times out: `notifications/cancelled` reaches the
/// server before the command exits, every time.
#[test]
fn cli_timeout_sends_the_cancellation_before_exiting() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.rec]\ncommand = {}\nenv = {{ MCPBIND_RECORD = {} }}\ntimeout = 0.3\n",
            util::toml_str(RECORDER),
            util::toml_str(&record.display().to_string())
        ),
    )
    .unwrap();
    for run in 0..4 {
        std::fs::write(&record, "").unwrap();
        let out = util::mcpbind(dir.path(), &["call", "rec", "hang"]);
        assert_eq!(out.code, Some(1), "{out:?}");
        assert!(
            out.stderr.contains("timed out after 300ms"),
            "{}",
            out.stderr
        );
        let received = recorded(&record);
        let call = received
            .iter()
            .find(|m| m["method"] == "tools/call")
            .expect("the call reached the server");
        let cancelled = received
            .iter()
            .find(|m| m["method"] == "notifications/cancelled");
        assert_eq!(
            cancelled.map(|m| &m["params"]["requestId"]),
            Some(&call["id"]),
            "run {run}: the server never got the cancellation: {received:?}"
        );
    }
}

/// After `breaker_threshold` connection failures, calls fail fast (no
/// process is started) until the cool-down; then one probe goes through.
/// (That a failed probe opens the circuit again at once is shown by
/// `breaker::tests`, on the state machine: here it would depend on the
/// test's own speed against the cool-down.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_circuit_opens_fails_fast_and_probes_after_the_cooldown() {
    let dir = tempfile::tempdir().unwrap();
    let up = dir.path().join("up");
    // One line per start of the server's command.
    let starts = dir.path().join("starts");
    let record = dir.path().join("record.jsonl");
    let script = format!(
        "echo start >> {starts:?}; test -e {up:?} || exit 3; MCPBIND_RECORD={record:?} exec {RECORDER:?}",
        starts = starts.display().to_string(),
        up = up.display().to_string(),
        record = record.display().to_string(),
    );
    let flaky = |cooldown: Duration| {
        let config = config(
            "flaky",
            sh(script.as_str())
                .retries(0)
                .breaker_threshold(2)
                .breaker_cooldown(cooldown),
        );
        Client::lazy("flaky", config.servers["flaky"].clone())
    };
    let options = retry_safe();
    let started = || lines_of(&starts).len();

    // A cool-down of an hour: open for the whole of this part.
    let client = flaky(Duration::from_secs(3600));
    let call = || client.call_raw("slow", slow("x", 0), &options);
    for _ in 0..2 {
        assert!(matches!(call().await, Err(Error::Connect { .. })));
    }
    assert_eq!(started(), 2);
    let err = call().await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("circuit open for server `flaky` after 2 connection failures in a row (the call was not sent; next probe in "),
        "{err}"
    );
    let Error::CircuitOpen { retry_in, .. } = err else {
        panic!("{err:?}")
    };
    assert!(retry_in > Duration::from_secs(3500), "{retry_in:?}");
    // The server is back: still open until the cool-down, nothing started.
    std::fs::write(&up, "").unwrap();
    assert!(matches!(call().await, Err(Error::CircuitOpen { .. })));
    assert_eq!(started(), 2, "an open circuit started the server");

    // A short cool-down, waited out as the breaker says (`retry_in`).
    std::fs::remove_file(&up).unwrap();
    let client = flaky(Duration::from_millis(200));
    let call = || client.call_raw("slow", slow("x", 0), &options);
    let after_cooldown = || async {
        for _ in 0..100 {
            match call().await {
                Err(Error::CircuitOpen { retry_in, .. }) => tokio::time::sleep(retry_in).await,
                other => return other,
            }
        }
        panic!("the circuit never let a probe through");
    };
    for _ in 0..2 {
        assert!(matches!(call().await, Err(Error::Connect { .. })));
    }
    assert_eq!(started(), 4);
    // The probe fails: one start.
    assert!(matches!(after_cooldown().await, Err(Error::Connect { .. })));
    assert_eq!(started(), 5);
    // The server is back: the next probe connects and closes the circuit;
    // the call after it uses the same connection.
    std::fs::write(&up, "").unwrap();
    after_cooldown().await.unwrap();
    call().await.unwrap();
    assert_eq!(started(), 6);
}

/// A server that cannot start: the call is tried `1 + retries` times with
/// backoff, and the error says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_back_off_and_report_the_attempts() {
    let config = config(
        "down",
        sh("echo starting >&2; exit 3")
            .retries(2)
            .retry_backoff(Duration::from_millis(100))
            .breaker_threshold(0),
    );
    let client = Client::lazy("down", config.servers["down"].clone());
    let started = Instant::now();
    let err = client
        .call_raw("anything", Default::default(), &Default::default())
        .await
        .unwrap_err();
    // Jittered backoff: at least 50 ms, then at least 100 ms.
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert_eq!(
        err.to_string(),
        "call to `down.anything` failed after 3 attempts"
    );
    let Error::Attempts {
        attempts: 3, last, ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(matches!(**last, Error::Connect { .. }), "{last}");
}

/// A connection lost mid-call: a retry-safe call is sent again on a new
/// connection, another one is not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_connection_is_retried_only_for_retry_safe_calls() {
    let dir = tempfile::tempdir().unwrap();
    let (record, client) = retrying_recorder(dir.path()).await;
    let killer = kill_once_received(&record, client.process_id().await.unwrap());
    let result = client
        .call_raw("slow", slow("safe", 800), &retry_safe())
        .await
        .unwrap();
    killer.await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "safe");
    let sent = recorded(&record)
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .count();
    assert_eq!(sent, 2, "sent once per connection");

    let pid = client.process_id().await.unwrap();
    let killer = kill_once_received(&record, pid);
    let err = client
        .call_raw("hang", Default::default(), &Default::default())
        .await
        .unwrap_err();
    killer.await.unwrap();
    assert!(
        err.to_string()
            .starts_with("server `rec` closed the connection"),
        "{err}"
    );
}

/// The recorder's `slow` as a typed, read-only tool (JSON input).
struct Slow;

impl mcpbind::Tool for Slow {
    type Input = Value;
    type Output = ();
    // The input schema is bytes 15..32 of the definition.
    const META: mcpbind::ToolMeta = mcpbind::ToolMeta::new(
        "rec",
        "slow",
        r#"{"inputSchema":{"type":"object"},"name":"slow"}"#,
        [(0, 0), (0, 0), (15, 32), (0, 0)],
        [true, false, false, false],
    );
}

/// A typed call keeps no copy of its arguments for a retry: the retry
/// serializes the input again, and the server gets the same arguments.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_retry_sends_the_same_arguments() {
    assert_eq!(
        <Slow as mcpbind::Tool>::META.input_schema,
        r#"{"type":"object"}"#
    );
    let dir = tempfile::tempdir().unwrap();
    let (record, client) = retrying_recorder(dir.path()).await;
    let killer = kill_once_received(&record, client.process_id().await.unwrap());
    let input = json!({"tag": "typed", "millis": 800});
    let result = client.call::<Slow>(&input).await.unwrap();
    killer.await.unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "typed");
    let sent: Vec<Value> = recorded(&record)
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| m["params"]["arguments"].clone())
        .collect();
    assert_eq!(sent, [input.clone(), input], "sent once per connection");
}

/// `max_concurrent_calls = 1`: calls reach the server one at a time, in the
/// order they were made; without it they overlap.
///
/// Neither half depends on how long anything takes: with the limit, a call
/// is sent only after the previous one's answer, which the recorder writes
/// down before sending it; without it, the three calls are `meet` calls,
/// which the recorder answers only once all three have arrived (a client
/// that held them back would fail them at their timeout instead).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_concurrent_calls_queues_calls_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let order = |record: &Path| -> Vec<String> {
        recorded(record)
            .iter()
            .filter_map(|m| {
                m.pointer("/params/arguments/tag")
                    .map(|t| format!("call {}", t.as_str().unwrap()))
                    .or_else(|| m["answered"].as_str().map(|t| format!("answer {t}")))
            })
            .collect()
    };
    let record = dir.path().join("limited.jsonl");
    let config = recorder(&record, |s| s.max_concurrent_calls(1));
    let client = Client::connect(&config, "rec").await.unwrap();
    let calls = ["a", "b", "c"].map(|tag| {
        let client = client.clone();
        async move { client.call_raw("slow", slow(tag, 100), &retry_safe()).await }
    });
    for result in futures_join(calls).await {
        result.unwrap();
    }
    assert_eq!(
        order(&record),
        ["call a", "answer a", "call b", "answer b", "call c", "answer c"]
    );

    let record = dir.path().join("free.jsonl");
    let client = Client::connect(
        &recorder(&record, |s| s.timeout(Duration::from_secs(30))),
        "rec",
    )
    .await
    .unwrap();
    let calls = ["a", "b", "c"].map(|tag| {
        let client = client.clone();
        let meet = args(json!({"tag": tag, "count": 3}));
        async move { client.call_raw("meet", meet, &retry_safe()).await }
    });
    for result in futures_join(calls).await {
        result.unwrap();
    }
    // All three reached the server before the first answer.
    let mut first = order(&record)[..3].to_vec();
    first.sort();
    assert_eq!(first, ["call a", "call b", "call c"]);
    assert_eq!(order(&record).len(), 6);
}

/// Polls the futures in order, so that they queue in that order.
async fn futures_join<F: std::future::Future>(futures: [F; 3]) -> Vec<F::Output> {
    let [a, b, c] = futures;
    let (a, b, c) = tokio::join!(a, b, c);
    vec![a, b, c]
}

/// `idle_timeout`: the connection closes and its process is reaped; the
/// next call opens a new one.
///
/// Each start of the server writes its pid to a file, so the test never
/// asks the client for a process that the idle timer may already have
/// closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_close_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let script = format!(
        "echo $$ >> {:?}; exec {:?}",
        pids.display().to_string(),
        demo_bin()
    );
    let config = config("demo", sh(script).idle_timeout(Duration::from_millis(300)));
    let client = demo::Client::connect(&config).await.unwrap();
    client.add(demo::types::AddInput::new(1, 2)).await.unwrap();
    let first: u32 = lines_of(&pids)[0].parse().unwrap();
    assert!(
        gone(first).await,
        "process {first} still there after idle_timeout"
    );
    assert!(!client.inner().is_connected().await);
    let sum = client.add(demo::types::AddInput::new(2, 2)).await.unwrap();
    assert_eq!(sum.output.sum, 4);
    let started = lines_of(&pids);
    assert_eq!(started.len(), 2, "{started:?}");
    assert_ne!(started[1], started[0]);

    // A busy connection is not idle: a call longer than idle_timeout is
    // sent once. (`sleep` is read-only, so had its connection been closed
    // under it, it would have been sent again on a new one: two attempts.
    // A new connection before it was sent would still be one.)
    let mut events = mcpbind::subscribe_events();
    client
        .sleep(demo::types::SleepInput::new(701))
        .await
        .unwrap();
    let event = loop {
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("the call's event")
            .unwrap();
        if event.tool == "sleep" && event.arguments["millis"] == 701 {
            break event;
        }
    };
    assert!(event.outcome.is_ok(), "{event:?}");
    assert_eq!(event.attempts, 1, "{event:?}");
}

/// Several servers, one of them down: the others connect (concurrently),
/// the error is kept, health says who is up, shutdown closes everything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_connect_concurrently_and_one_down_does_not_stop_the_others() {
    // Each server starts only once all three have been started (a barrier
    // of marker files, waited on for at most 30 s): connected one after the
    // other, the first would wait for the others and fail, saying so.
    let dir = tempfile::tempdir().unwrap();
    let marker = |name: &str| dir.path().join(name).display().to_string();
    let slow_start = |name: &str| {
        let script = format!(
            "touch {me:?}; i=0; while [ $i -lt 300 ]; do \
             if [ -e {one:?} ] && [ -e {two:?} ] && [ -e {three:?} ]; then exec {demo:?}; fi; \
             sleep 0.1; i=$((i+1)); done; echo started alone: not concurrent >&2; exit 3",
            me = marker(name),
            one = marker("one"),
            two = marker("two"),
            three = marker("three"),
            demo = demo_bin(),
        );
        sh(script)
    };
    let config = Config::new()
        .server("one", slow_start("one"))
        .and_then(|c| c.server("two", slow_start("two")))
        .and_then(|c| c.server("three", slow_start("three")))
        .and_then(|c| c.server("broken", sh("echo no such thing >&2; exit 3")))
        .unwrap();
    let servers = Servers::connect(&config).await;
    let errors: Vec<_> = servers.errors().map(|(n, e)| (n, e.to_string())).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, "broken");
    assert!(errors[0].1.contains("no such thing"), "{errors:?}");

    let health = servers.health().await;
    let up: Vec<_> = health
        .iter()
        .filter(|(_, h)| h.is_up())
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(up, ["one", "three", "two"]);
    assert!(!health["broken"].is_up());

    let one = demo::Client::from_client(servers.client("one").unwrap());
    assert_eq!(
        one.add(demo::types::AddInput::new(1, 1))
            .await
            .unwrap()
            .output
            .sum,
        2
    );
    let mut pids = Vec::new();
    for name in ["one", "two", "three"] {
        pids.push(servers.get(name).unwrap().process_id().await.unwrap());
    }
    let keep = servers.client("two").unwrap();
    let closed = servers.shutdown(Duration::from_secs(5)).await;
    assert!(
        closed.values().all(|c| *c == Closed::Graceful),
        "{closed:?}"
    );
    for pid in pids {
        assert!(gone(pid).await, "process {pid} survived shutdown");
    }
    assert!(matches!(
        keep.call_raw("add", args(json!({"a": 1, "b": 1})), &Default::default())
            .await,
        Err(Error::Shutdown { .. })
    ));
}

/// Waits until a call spawned on `client` is in flight (a fixed sleep is
/// not enough on a loaded machine). Counted in flight, it is past the
/// shutdown check: it is sent on the open connection whenever a shutdown
/// begins, and a shutdown waits for it.
async fn in_flight(client: &Client) {
    for _ in 0..1000 {
        if client.calls_in_flight() > 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the call never started");
}

/// Shutdown lets calls in flight finish within the deadline, and cuts them
/// off after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_waits_for_calls_in_flight_until_the_deadline() {
    let config = config("demo", ServerConfig::stdio(demo_bin()));
    let client = demo::Client::connect(&config).await.unwrap();
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.sleep(demo::types::SleepInput::new(300)).await })
    };
    in_flight(client.inner()).await;
    assert_eq!(
        client.inner().shutdown(Duration::from_secs(5)).await,
        Closed::Graceful
    );
    assert_eq!(call.await.unwrap().unwrap().text(), "slept 300 ms");

    let client = demo::Client::connect(&config).await.unwrap();
    let pid = client.inner().process_id().await.unwrap();
    let call = {
        let client = client.clone();
        tokio::spawn(async move { client.sleep(demo::types::SleepInput::new(20_000)).await })
    };
    in_flight(client.inner()).await;
    let started = Instant::now();
    assert_eq!(
        client.inner().shutdown(Duration::from_millis(300)).await,
        Closed::Forced
    );
    // Cut off, not waited for: the call had 20 s to go.
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(call.await.unwrap().is_err());
    assert!(gone(pid).await);
}

/// `-vv` adds rmcp's own messages; a secret in the URL's query (which a
/// lower layer may print as it got it) never shows.
#[test]
fn very_verbose_cli_hides_secrets_from_rmcp_too() {
    let server = util::demo_http();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.demo]\nurl = \"{}?token=${{LIFECYCLE_URL_SECRET}}\"\n",
            server.url
        ),
    )
    .unwrap();
    let secret = ("LIFECYCLE_URL_SECRET", "hunter3-url-canary");
    let out = util::mcpbind_env(
        dir.path(),
        &["-vv", "call", "demo", "echo", r#"{"message": "hi"}"#],
        &[secret],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("rmcp"), "{}", out.stderr);
    assert!(!out.stderr.contains(secret.1), "{}", out.stderr);
}

/// `mcpbind -v` prints the call's span and the connect event; `--log-format
/// json` prints JSON lines. Neither shows a `${VAR}` value.
#[test]
fn verbose_cli_traces_calls_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.demo]\ncommand = {}\nenv = {{ DEMO_TOKEN = \"${{LIFECYCLE_SECRET}}\" }}\n",
            util::toml_str(&demo_bin())
        ),
    )
    .unwrap();
    let secret = ("LIFECYCLE_SECRET", "hunter2-lifecycle-canary");
    let out = util::mcpbind_env(
        dir.path(),
        &["-v", "call", "demo", "echo", r#"{"message": "hi"}"#],
        &[secret],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "hi");
    assert!(out.stderr.contains("connected"), "{}", out.stderr);
    assert!(out.stderr.contains("mcp.call"), "{}", out.stderr);
    assert!(out.stderr.contains("outcome=\"ok\""), "{}", out.stderr);
    assert!(out.stderr.contains("request_id="), "{}", out.stderr);
    assert!(!out.stderr.contains(secret.1), "{}", out.stderr);

    let out = util::mcpbind_env(
        dir.path(),
        &[
            "call",
            "--log-format",
            "json",
            "-v",
            "demo",
            "echo",
            r#"{"message": "hi"}"#,
        ],
        &[secret],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let lines: Vec<Value> = out
        .stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let finished = lines
        .iter()
        .find(|l| l["fields"]["message"] == "call finished")
        .expect("a `call finished` event");
    assert_eq!(finished["span"]["name"], "mcp.call");
    assert_eq!(finished["span"]["tool"], "echo");
    assert_eq!(finished["span"]["outcome"], "ok");
    assert!(!out.stderr.contains(secret.1));

    // Without -v, nothing but the result.
    let out = util::mcpbind_env(
        dir.path(),
        &["call", "demo", "echo", r#"{"message": "hi"}"#],
        &[secret],
    );
    assert_eq!(out.stderr, "");
}

/// Over Streamable HTTP the client reuses its TCP connections: 40 calls in
/// a row come over at most two (`tests/servers/claims.py --http-sse` logs
/// each request's client port, one per connection); a client without a
/// pool would open one a call. The calls' answers are SSE streams, as
/// rmcp's servers send them, read to their end before the connection is
/// reused. (rmcp drops the answer to its GET, a 405 as the server has no
/// SSE stream, unread: that retires the connection it came over, so the
/// calls may have begun on another.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_calls_reuse_tcp_connections() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let mut command = std::process::Command::new("python3");
    util::clean_env(&mut command).args([
        &util::tests_dir()
            .join("servers/claims.py")
            .display()
            .to_string(),
        "--http-sse",
        &log.display().to_string(),
    ]);
    let server = util::Running::start(command);
    let thirty = Duration::from_secs(30);
    let config = config(
        "one",
        ServerConfig::http(server.url.as_str())
            .timeout(thirty)
            .connect_timeout(thirty),
    );
    let client = Client::connect(&config, "one").await.unwrap();
    for i in 0..40 {
        let message = format!("call {i}");
        let result = client
            .call_raw(
                "echo",
                args(json!({ "message": message })),
                &Default::default(),
            )
            .await
            .unwrap_or_else(|e| panic!("call {i}: {e:?}: {:?}", recorded(&log)));
        assert_eq!(result.content[0].as_text().unwrap().text, message);
    }
    let requests = recorded(&log);
    let seen: Vec<String> = requests
        .iter()
        .map(|r| format!("{} {} {}", r["port"], r["method"], r["rpc"]))
        .collect();
    let calls: Vec<u64> = (requests.iter())
        .filter(|r| r["rpc"] == "tools/call")
        .filter_map(|r| r["port"].as_u64())
        .collect();
    assert_eq!(calls.len(), 40, "{seen:#?}");
    let connections: std::collections::BTreeSet<u64> = calls.iter().copied().collect();
    assert!(connections.len() <= 2, "{seen:#?}");
}
