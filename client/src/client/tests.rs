//! The client's timing on paused tokio time: timeouts, total limits,
//! retries and their backoff, the circuit breaker, task polling, idle
//! connections and shutdown, each asserted to the millisecond against a
//! server in the test's own process.
//!
//! The server ([`Fake`]) speaks JSON-RPC lines over a `tokio::io::duplex`
//! as a stdio server does (the client reads it through the same tap), in
//! the wire form servers send today (2025-11-25 tasks, which rmcp's server
//! side does not model). It tells the test every message it receives, and
//! when, so that a test waits for events, never for time; tokio's clock,
//! paused, moves only when every task waits.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::connection::Connector;
use super::{CallOptions, Client, Closed};
use crate::connect::{Handler, Session};
use crate::error::{Error, Result};
use mcpbind_model::config::{Config, ServerConfig};

const SECOND: Duration = Duration::from_secs(1);

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}

/// A message the server received, and when.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    id: Value,
    params: Value,
    at: Instant,
}

/// What the server does with a message it received (`initialize` aside).
type Script = dyn Fn(&Seen, &Outbox) + Send + Sync;

/// What the server sends (lines, in order); `None` hangs up.
#[derive(Clone)]
struct Outbox(mpsc::UnboundedSender<Option<Value>>);

impl Outbox {
    fn send(&self, message: Value) {
        let _ = self.0.send(Some(message));
    }

    fn answer(&self, seen: &Seen, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": seen.id, "result": result}));
    }

    fn answer_after(&self, seen: &Seen, delay: Duration, result: Value) {
        self.after(
            delay,
            json!({"jsonrpc": "2.0", "id": seen.id, "result": result}),
        );
    }

    /// Sends `message` once `delay` has passed (on tokio's clock).
    fn after(&self, delay: Duration, message: Value) {
        let outbox = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            outbox.send(message);
        });
    }

    fn hang_up(&self) {
        let _ = self.0.send(None);
    }
}

/// An MCP server in the test's process, one per connection made; what it
/// receives goes to the test's `seen`, and a connection's end as a
/// `"(closed)"` message.
struct Fake {
    script: Arc<Script>,
    seen: mpsc::UnboundedSender<Seen>,
}

impl Fake {
    fn new(
        script: impl Fn(&Seen, &Outbox) + Send + Sync + 'static,
    ) -> (Arc<Fake>, mpsc::UnboundedReceiver<Seen>) {
        let (seen, heard) = mpsc::unbounded_channel();
        let script = Arc::new(script);
        (Arc::new(Fake { script, seen }), heard)
    }

    /// A client of this server on paused time, connecting in-process.
    fn client(self: &Arc<Self>, config: ServerConfig) -> Client {
        let fake = Arc::clone(self);
        let connector: Connector = Box::new(move |handler| Box::pin(fake.connect(handler)));
        Client::with_connector("fake", config, connector)
    }

    /// A new connection, served by a new server task.
    fn connect(&self, handler: Handler) -> impl std::future::Future<Output = Result<Session>> {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        self.serve(theirs);
        async move {
            crate::connect::connect_in_process(
                "fake",
                ours,
                &handler,
                crate::connect::First::Initialize,
            )
            .await
        }
    }

    fn serve(&self, stream: DuplexStream) {
        let (read, mut write) = tokio::io::split(stream);
        let (outbox, mut sent) = mpsc::unbounded_channel::<Option<Value>>();
        tokio::spawn(async move {
            while let Some(Some(message)) = sent.recv().await {
                let mut line = serde_json::to_vec(&message).unwrap();
                line.push(b'\n');
                if write.write_all(&line).await.is_err() {
                    return;
                }
            }
            let _ = write.shutdown().await;
        });
        let (script, seen, outbox) = (Arc::clone(&self.script), self.seen.clone(), Outbox(outbox));
        tokio::spawn(async move {
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message: Value = serde_json::from_str(&line).unwrap();
                let Some(method) = message["method"].as_str() else {
                    continue; // an answer to the server's request
                };
                let heard = Seen {
                    method: method.to_owned(),
                    id: message["id"].clone(),
                    params: message["params"].clone(),
                    at: Instant::now(),
                };
                let _ = seen.send(heard.clone());
                match method {
                    "initialize" => outbox.answer(&heard, initialized(&heard)),
                    _ => script(&heard, &outbox),
                }
            }
            let closed = Seen {
                method: "(closed)".to_owned(),
                id: Value::Null,
                params: Value::Null,
                at: Instant::now(),
            };
            let _ = seen.send(closed);
        });
    }
}

fn initialized(request: &Seen) -> Value {
    json!({
        "protocolVersion": request.params["protocolVersion"],
        "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
        "serverInfo": {"name": "fake", "version": "1.0.0"},
    })
}

fn text(s: &str) -> Value {
    json!({"content": [{"type": "text", "text": s}]})
}

/// Tool `wait` never answers; every other tool answers at once.
fn waits_forever(seen: &Seen, outbox: &Outbox) {
    if seen.method == "tools/call" && seen.params["name"] != "wait" {
        outbox.answer(seen, text("ok"));
    }
}

/// The next message with `method` (skipping others).
async fn next(heard: &mut mpsc::UnboundedReceiver<Seen>, method: &str) -> Seen {
    loop {
        let seen = heard.recv().await.expect("the server is gone");
        if seen.method == method {
            return seen;
        }
    }
}

/// A server config, as `edit` changes it.
fn config(edit: impl FnOnce(&mut ServerConfig)) -> ServerConfig {
    let config = Config::from_toml_str("[servers.fake]\ncommand = \"unused\"\n").unwrap();
    let mut server = config.servers["fake"].clone();
    edit(&mut server);
    server
}

async fn call(client: &Client, tool: &str, options: &CallOptions) -> Result<String> {
    let result = client.call_raw(tool, Map::new(), options).await?;
    let content = serde_json::to_value(&result.content).unwrap();
    Ok(content[0]["text"].as_str().unwrap_or_default().to_owned())
}

fn retry_safe() -> CallOptions {
    CallOptions {
        retry_safe: true,
        ..CallOptions::default()
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_times_out_after_exactly_its_timeout_and_is_cancelled() {
    let (fake, mut heard) = Fake::new(waits_forever);
    let client = fake.client(config(|_| {}));
    client.live().await.unwrap();
    let start = Instant::now();
    let options = CallOptions::with_timeout(30 * SECOND);
    let err = call(&client, "wait", &options).await.unwrap_err();
    assert_eq!(start.elapsed(), 30 * SECOND);
    assert!(
        matches!(&err, Error::Timeout { timeout, tool: Some(tool), .. } if *timeout == 30 * SECOND && tool == "wait"),
        "{err:?}"
    );
    let sent = next(&mut heard, "tools/call").await;
    assert_eq!(sent.at, start);
    let cancelled = next(&mut heard, "notifications/cancelled").await;
    assert_eq!(cancelled.params["requestId"], sent.id);
    assert_eq!(cancelled.at - start, 30 * SECOND);
}

/// Progress restarts the timeout: heard at 20 s, the 30 s timeout ends at
/// 50 s.
#[tokio::test(start_paused = true)]
async fn progress_starts_the_timeout_again() {
    let (fake, _heard) = Fake::new(|seen, outbox| {
        if seen.method == "tools/call" {
            let token = seen.params["_meta"]["progressToken"].clone();
            let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": token, "progress": 1}});
            outbox.after(20 * SECOND, progress);
        }
    });
    let client = fake.client(config(|_| {}));
    client.live().await.unwrap();
    let start = Instant::now();
    let options = CallOptions::with_timeout(30 * SECOND);
    let err = call(&client, "slow", &options).await.unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err:?}");
    assert_eq!(start.elapsed(), 50 * SECOND);
}

/// `max_call_time` ends a call however often the server reports progress.
#[tokio::test(start_paused = true)]
async fn a_call_ends_at_exactly_its_max_call_time_despite_progress() {
    let (fake, _heard) = Fake::new(|seen, outbox| {
        if seen.method == "tools/call" {
            let token = seen.params["_meta"]["progressToken"].clone();
            for n in 1..10 {
                let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": n}});
                outbox.after(n * 10 * SECOND, progress);
            }
        }
    });
    let client = fake.client(config(|_| {}));
    client.live().await.unwrap();
    let start = Instant::now();
    let options = CallOptions::with_timeout(30 * SECOND).max_call_time(45 * SECOND);
    let err = call(&client, "slow", &options).await.unwrap_err();
    assert!(
        matches!(err, Error::TimeLimit { limit, .. } if limit == 45 * SECOND),
        "{err:?}"
    );
    assert_eq!(start.elapsed(), 45 * SECOND);
}

/// A connector that refuses its first `refusals` connects at once (noting
/// when each connect came in `attempts`), then connects to `fake`.
fn refusing(
    fake: &Arc<Fake>,
    refusals: usize,
    attempts: mpsc::UnboundedSender<Instant>,
) -> Connector {
    let fake = Arc::clone(fake);
    let count = AtomicUsize::new(0);
    Box::new(move |handler| {
        let _ = attempts.send(Instant::now());
        if count.fetch_add(1, Ordering::SeqCst) < refusals {
            return Box::pin(async { Err(refused()) });
        }
        Box::pin(fake.connect(handler))
    })
}

fn refused() -> Error {
    Error::Connect {
        server: "fake".to_owned(),
        reason: "refused by the test".to_owned(),
        stderr: None,
        cause: None,
    }
}

fn drain<T>(rx: &mut mpsc::UnboundedReceiver<T>) -> Vec<T> {
    std::iter::from_fn(|| rx.try_recv().ok()).collect()
}

/// Connects that fail are retried after the backoff, doubled each time and
/// capped (jitter fixed at the whole delay).
#[tokio::test(start_paused = true)]
async fn retries_back_off_by_exactly_the_configured_delays() {
    crate::breaker::fix_jitter(1.0);
    let (fake, _heard) = Fake::new(waits_forever);
    let (attempts, mut at) = mpsc::unbounded_channel();
    let server = config(|c| {
        c.lifecycle.retries = 3;
        c.lifecycle.retry_backoff = SECOND;
        c.lifecycle.retry_backoff_max = 3 * SECOND;
        c.lifecycle.breaker_threshold = 10;
    });
    let client = Client::with_connector("fake", server, refusing(&fake, 3, attempts));
    let start = Instant::now();
    assert_eq!(call(&client, "ping", &retry_safe()).await.unwrap(), "ok");
    let offsets: Vec<Duration> = drain(&mut at).into_iter().map(|t| t - start).collect();
    // 1 s, then 2 s, then 4 s capped at 3 s.
    assert_eq!(offsets, [Duration::ZERO, secs(1.0), secs(3.0), secs(6.0)]);
    assert_eq!(start.elapsed(), 6 * SECOND);
}

/// Half the jitter halves the delays; the retries stop once the next would
/// end past `max_call_time`, and the error counts the attempts.
#[tokio::test(start_paused = true)]
async fn retries_stop_before_the_call_would_outlive_its_limit() {
    crate::breaker::fix_jitter(0.0);
    let (fake, _heard) = Fake::new(waits_forever);
    let (attempts, mut at) = mpsc::unbounded_channel();
    let server = config(|c| {
        c.lifecycle.retries = 10;
        c.lifecycle.retry_backoff = 2 * SECOND;
        c.lifecycle.retry_backoff_max = 60 * SECOND;
        c.lifecycle.breaker_threshold = 0;
    });
    let client = Client::with_connector("fake", server, refusing(&fake, usize::MAX, attempts));
    let start = Instant::now();
    let options = retry_safe().max_call_time(10 * SECOND);
    let err = call(&client, "ping", &options).await.unwrap_err();
    let offsets: Vec<Duration> = drain(&mut at).into_iter().map(|t| t - start).collect();
    // Delays of 1 s, 2 s, 4 s (half of 2, 4, 8); the next, 8 s, would end
    // at 15 s, past the 10 s limit.
    assert_eq!(offsets, [Duration::ZERO, secs(1.0), secs(3.0), secs(7.0)]);
    assert_eq!(start.elapsed(), 7 * SECOND);
    assert!(
        matches!(err, Error::Attempts { attempts: 4, .. }),
        "{err:?}"
    );
}

/// A connection lost while a retry-safe call was in flight: connected
/// again after the backoff, and the call sent again.
#[tokio::test(start_paused = true)]
async fn a_lost_connection_is_made_again_after_the_backoff() {
    crate::breaker::fix_jitter(1.0);
    let calls = Arc::new(AtomicUsize::new(0));
    let (fake, mut heard) = Fake::new({
        let calls = Arc::clone(&calls);
        move |seen, outbox| {
            if seen.method == "tools/call" {
                match calls.fetch_add(1, Ordering::SeqCst) {
                    0 => outbox.hang_up(),
                    _ => outbox.answer(seen, text("again")),
                }
            }
        }
    });
    let client = fake.client(config(|c| {
        c.lifecycle.retry_backoff = 5 * SECOND;
    }));
    client.live().await.unwrap();
    let start = Instant::now();
    assert_eq!(call(&client, "read", &retry_safe()).await.unwrap(), "again");
    assert_eq!(start.elapsed(), 5 * SECOND);
    let seen = drain(&mut heard);
    let at = |method: &str| -> Vec<Duration> {
        let at = seen.iter().filter(|s| s.method == method);
        at.map(|s| s.at.saturating_duration_since(start)).collect()
    };
    assert_eq!(at("tools/call"), [Duration::ZERO, 5 * SECOND]);
    // Connected before the test began, and again when the retry came.
    assert_eq!(at("initialize"), [Duration::ZERO, 5 * SECOND]);
}

/// A connector that refuses every connect until `open` is set, and from
/// then connects once `go` lets it (noting each connect in `attempts`).
fn gated(
    fake: &Arc<Fake>,
    open: Arc<std::sync::atomic::AtomicBool>,
    go: Arc<tokio::sync::Semaphore>,
    attempts: mpsc::UnboundedSender<Instant>,
) -> Connector {
    let fake = Arc::clone(fake);
    Box::new(move |handler| {
        let _ = attempts.send(Instant::now());
        if !open.load(Ordering::SeqCst) {
            return Box::pin(async { Err(refused()) });
        }
        let (go, connect) = (Arc::clone(&go), fake.connect(handler));
        Box::pin(async move {
            let _permit = go.acquire().await;
            connect.await
        })
    })
}

fn circuit_open(result: Result<String>) -> (u32, Duration) {
    match result {
        Err(Error::CircuitOpen {
            failures, retry_in, ..
        }) => (failures, retry_in),
        other => panic!("not refused by the breaker: {other:?}"),
    }
}

/// Open after two failed connects, the circuit refuses for exactly the
/// cool-down, then lets one probe through; calls that come meanwhile wait
/// for its connection rather than connecting too, and a probe that
/// connects closes the circuit.
#[tokio::test(start_paused = true)]
async fn the_breaker_refuses_for_exactly_the_cooldown_then_probes_once() {
    let (fake, _heard) = Fake::new(waits_forever);
    let open = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let go = Arc::new(tokio::sync::Semaphore::new(0));
    let (attempts, mut at) = mpsc::unbounded_channel();
    let server = config(|c| {
        c.lifecycle.retries = 0;
        c.lifecycle.breaker_threshold = 2;
        c.lifecycle.breaker_cooldown = 30 * SECOND;
    });
    let connector = gated(&fake, Arc::clone(&open), Arc::clone(&go), attempts);
    let client = Client::with_connector("fake", server, connector);
    let options = CallOptions::default();
    for _ in 0..2 {
        let err = call(&client, "ping", &options).await.unwrap_err();
        assert!(matches!(err, Error::Connect { .. }), "{err:?}");
    }
    let start = Instant::now();
    assert_eq!(
        circuit_open(call(&client, "ping", &options).await),
        (2, 30 * SECOND)
    );
    tokio::time::advance(30 * SECOND - Duration::from_millis(1)).await;
    let (_, retry_in) = circuit_open(call(&client, "ping", &options).await);
    assert_eq!(retry_in, Duration::from_millis(1));
    assert_eq!(drain(&mut at).len(), 2, "refused calls do not connect");
    tokio::time::advance(Duration::from_millis(1)).await;
    open.store(true, Ordering::SeqCst);
    let spawn_call = || {
        let client = client.clone();
        tokio::spawn(async move { call(&client, "ping", &CallOptions::default()).await })
    };
    let probe = spawn_call();
    assert_eq!(at.recv().await.unwrap() - start, 30 * SECOND);
    // The probe is connecting: another call waits for its connection.
    let other = spawn_call();
    go.add_permits(1);
    assert_eq!(probe.await.unwrap().unwrap(), "ok");
    assert_eq!(other.await.unwrap().unwrap(), "ok");
    assert_eq!(call(&client, "ping", &options).await.unwrap(), "ok");
    assert!(drain(&mut at).is_empty(), "one connect, the probe's");
}

/// A probe that fails opens the circuit again for a whole cool-down.
#[tokio::test(start_paused = true)]
async fn a_failed_probe_opens_the_circuit_for_another_cooldown() {
    let (fake, _heard) = Fake::new(waits_forever);
    let (attempts, mut at) = mpsc::unbounded_channel();
    let server = config(|c| {
        c.lifecycle.retries = 0;
        c.lifecycle.breaker_threshold = 1;
        c.lifecycle.breaker_cooldown = 10 * SECOND;
    });
    let client = Client::with_connector("fake", server, refusing(&fake, usize::MAX, attempts));
    let options = CallOptions::default();
    let start = Instant::now();
    assert!(call(&client, "ping", &options).await.is_err());
    tokio::time::advance(10 * SECOND).await;
    let err = call(&client, "ping", &options).await.unwrap_err();
    assert!(matches!(err, Error::Connect { .. }), "the probe: {err:?}");
    assert_eq!(
        circuit_open(call(&client, "ping", &options).await),
        (2, 10 * SECOND)
    );
    let offsets: Vec<Duration> = drain(&mut at).into_iter().map(|t| t - start).collect();
    assert_eq!(offsets, [Duration::ZERO, 10 * SECOND]);
}

/// A server of one task: created `working` by `tools/call`, still working
/// at the first `polls - 1` `tasks/get`s, completed at the last; each
/// answer asks for `interval` (ms) between polls, when there is one.
fn task_server(polls: usize, interval: Option<u64>) -> impl Fn(&Seen, &Outbox) + Send + Sync {
    let gets = AtomicUsize::new(0);
    move |seen, outbox| {
        let task = |status: &str| {
            let mut task = json!({"taskId": "t1", "status": status, "ttl": null,
                "createdAt": "2026-11-27T00:00:00Z", "lastUpdatedAt": "2026-11-27T00:00:00Z"});
            if let Some(ms) = interval {
                task["pollInterval"] = json!(ms);
            }
            task
        };
        match seen.method.as_str() {
            "tools/call" => outbox.answer(seen, json!({"task": task("working")})),
            "tasks/get" => {
                let n = gets.fetch_add(1, Ordering::SeqCst) + 1;
                let status = if n < polls { "working" } else { "completed" };
                outbox.answer(seen, task(status));
            }
            "tasks/result" => outbox.answer(seen, text("done")),
            "tasks/cancel" => outbox.answer(seen, task("cancelled")),
            _ => {}
        }
    }
}

/// When each `tasks/get` came, after the `tools/call` that created the
/// task.
async fn polled(interval: Option<u64>) -> Vec<Duration> {
    let (fake, mut heard) = Fake::new(task_server(3, interval));
    let client = fake.client(config(|_| {}));
    let options = CallOptions::default().run_as_task();
    assert_eq!(call(&client, "research", &options).await.unwrap(), "done");
    let seen = drain(&mut heard);
    let created = seen.iter().find(|s| s.method == "tools/call").unwrap().at;
    let gets = seen.iter().filter(|s| s.method == "tasks/get");
    gets.map(|s| s.at - created).collect()
}

#[tokio::test(start_paused = true)]
async fn task_polling_waits_exactly_the_servers_poll_interval() {
    assert_eq!(polled(Some(2_500)).await, [secs(2.5), secs(5.0), secs(7.5)]);
}

#[tokio::test(start_paused = true)]
async fn task_polling_waits_a_second_when_the_server_names_no_interval() {
    assert_eq!(polled(None).await, [secs(1.0), secs(2.0), secs(3.0)]);
}

/// A task that outlives the call's `max_call_time` is given up at the
/// last poll before it, and cancelled.
#[tokio::test(start_paused = true)]
async fn a_task_is_given_up_before_its_limit_and_cancelled() {
    let (fake, mut heard) = Fake::new(task_server(usize::MAX, Some(4_000)));
    let client = fake.client(config(|_| {}));
    let options = CallOptions::default()
        .run_as_task()
        .max_call_time(10 * SECOND);
    let start = Instant::now();
    let err = call(&client, "research", &options).await.unwrap_err();
    assert!(matches!(err, Error::TimeLimit { .. }), "{err:?}");
    // Polled at 4 s and 8 s; a poll at 12 s would be past the limit.
    assert_eq!(start.elapsed(), 8 * SECOND);
    let cancel = next(&mut heard, "tasks/cancel").await;
    assert_eq!(cancel.at - start, 8 * SECOND);
    assert_eq!(cancel.params["taskId"], "t1");
}

/// The connection closes once no call used it for `idle_timeout`, counted
/// from the end of the last call.
#[tokio::test(start_paused = true)]
async fn an_idle_connection_closes_after_exactly_idle_timeout() {
    let (fake, mut heard) = Fake::new(|seen, outbox| {
        if seen.method == "tools/call" {
            outbox.answer_after(seen, 5 * SECOND, text("ok"));
        }
    });
    let client = fake.client(config(|c| c.lifecycle.idle_timeout = Some(60 * SECOND)));
    let start = Instant::now();
    call(&client, "slow", &CallOptions::default())
        .await
        .unwrap();
    assert_eq!(start.elapsed(), 5 * SECOND);
    let closed = next(&mut heard, "(closed)").await;
    assert_eq!(closed.at - start, 65 * SECOND);
    assert!(!client.is_connected().await);
}

/// Shutdown waits for a call in flight, and cuts it off at exactly the
/// deadline.
#[tokio::test(start_paused = true)]
async fn shutdown_waits_for_calls_until_exactly_the_deadline() {
    let (fake, mut heard) = Fake::new(|seen, outbox| {
        if seen.params["name"] == "two" {
            outbox.answer_after(seen, 2 * SECOND, text("two"));
        }
    });
    for (tool, deadline, outcome, took) in [
        ("two", 5 * SECOND, Closed::Graceful, 2 * SECOND),
        ("wait", 5 * SECOND, Closed::Forced, 5 * SECOND),
    ] {
        let client = fake.client(config(|_| {}));
        let call = tokio::spawn({
            let client = client.clone();
            async move { call(&client, tool, &CallOptions::default()).await }
        });
        let start = next(&mut heard, "tools/call").await.at;
        assert_eq!(client.shutdown(deadline).await, outcome, "{tool}");
        assert_eq!(start.elapsed(), took, "{tool}");
        let result = call.await.unwrap();
        assert_eq!(
            result.is_ok(),
            outcome == Closed::Graceful,
            "{tool}: {result:?}"
        );
    }
}

/// A tool whose input schema allows `n` up to 1; `ENFORCED` says (here
/// falsely, to make the skip visible) that its input type keeps the schema.
#[cfg(feature = "validate")]
struct AtMostOne<const ENFORCED: bool>;

#[cfg(feature = "validate")]
impl<const ENFORCED: bool> mcpbind_model::Tool for AtMostOne<ENFORCED> {
    type Input = Value;
    type Output = ();
    const META: mcpbind_model::ToolMeta = mcpbind_model::ToolMeta::new(
        "fake",
        "at_most_one",
        r#"{"inputSchema":{"properties":{"n":{"maximum":1,"type":"integer"}},"type":"object"},"name":"at_most_one"}"#,
        [(0, 0), (0, 0), (15, 82), (0, 0)],
        [false, true, false, true],
    );
    const INPUT_ENFORCES_SCHEMA: bool = ENFORCED;
}

#[cfg(feature = "validate")]
#[tokio::test(start_paused = true)]
async fn a_typed_call_whose_input_type_keeps_its_schema_is_not_checked_again() {
    assert_eq!(
        <AtMostOne<true> as mcpbind_model::Tool>::META.input_schema,
        r#"{"properties":{"n":{"maximum":1,"type":"integer"}},"type":"object"}"#
    );
    let (fake, mut heard) = Fake::new(waits_forever);
    let client = fake.client(config(|_| {}));
    let input = json!({"n": 5});
    let checked = client.call::<AtMostOne<false>>(&input).await.unwrap_err();
    assert!(
        matches!(&checked, Error::Arguments { reason, .. } if reason.contains("5 is greater than the maximum of 1")),
        "{checked:?}"
    );
    client.call::<AtMostOne<true>>(&input).await.unwrap();
    let sent = next(&mut heard, "tools/call").await;
    assert_eq!(sent.params["arguments"], input);
    // A `null` (what a NaN float serializes as) is checked all the same.
    let null = json!({"n": null});
    let checked = client.call::<AtMostOne<true>>(&null).await.unwrap_err();
    assert!(
        matches!(&checked, Error::Arguments { reason, .. } if reason.contains("null is not of type")),
        "{checked:?}"
    );
}
