//! The cost of a typed call: the demo server's `echo` through the generated
//! client (`demo::Client::echo`: serialize, validate against the locked
//! schema, call, check the result) against the same call through raw rmcp
//! (`Peer::call_tool`), side by side in one run, over stdio and Streamable
//! HTTP. Run with `cargo bench -p mcpbind-tests --bench calls`.
//!
//! Per client and transport: sequential latency p50/p99, client CPU time
//! and context switches per call (getrusage of this process; the server is
//! another process), and throughput with 16 calls in flight. Rounds
//! alternate raw and typed so that machine noise hits both; the medians of
//! the rounds are printed. Then, in a whole run, each client's peak RSS
//! over stdio (the bench again with one client in the process: the whole
//! process, and above what the bench held before connecting), and the
//! Streamable HTTP figures again against a release build of the server
//! (the debug server's CPU bounds throughput for both clients on 2 cores).
//! `MCPBIND_BENCH_SERVER_EXE` measures against that server alone.
//!
//! `MCPBIND_BENCH_CALLS` sets the sequential calls
//! per round (default 2,000); for a profile of one path (under callgrind,
//! say), `MCPBIND_BENCH_TRANSPORT=stdio|streamable-http` picks a transport
//! and `MCPBIND_BENCH_ONLY=raw|typed` a client;
//! `MCPBIND_BENCH_SERVER_TOML` adds keys to the typed client's server
//! (`validate_input = false`, to see what validation costs), and
//! `MCPBIND_BENCH_TOOL=add` measures `add` instead of `echo`.
//!
//! Both sides speak the same protocol revision: the demo lockfile's
//! (2026-07-28, where each request carries its own `_meta`), or the one
//! `MCPBIND_BENCH_PROTOCOL` names (`2025-11-25`: `initialize`, no
//! per-request metadata).

// The two tools' futures in one, spawned: `Send` is proven deeper than
// the default limit.
#![recursion_limit = "256"]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpbind::Config;
use mcpbind_tests::demo;
use rmcp::model::{CallToolRequestParams, ClientConfig, ElicitationCapability, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{RoleClient, ServiceExt};

#[allow(dead_code)] // each bench uses a part of it
mod support;

const ROUNDS: usize = 5;
const IN_FLIGHT: usize = 16;

/// Starts `server` on Streamable HTTP.
fn http_server(server: &std::path::Path) -> support::Listening {
    support::Listening::start(Command::new(server).args(["--http", "127.0.0.1:0"]))
}

/// One way to make the call.
#[derive(Clone)]
enum Caller {
    Typed(demo::Client),
    Raw(std::sync::Arc<RunningService<RoleClient, ClientConfig>>),
}

impl Caller {
    /// The call measured: `echo`, or `add` with `MCPBIND_BENCH_TOOL=add`
    /// (a tool whose input type keeps its whole schema, so a typed call
    /// skips the validator: `Tool::INPUT_ENFORCES_SCHEMA`).
    async fn echo(&self) {
        if *ADD {
            return self.add().await;
        }
        match self {
            Caller::Typed(client) => {
                let result = client.echo(demo::types::EchoInput::new("hello")).await;
                // The same check as raw's below, which copies nothing.
                assert_eq!(result.unwrap().content[0].as_text().unwrap().text, "hello");
            }
            Caller::Raw(service) => {
                let mut arguments = serde_json::Map::new();
                arguments.insert("message".into(), "hello".into());
                let params = CallToolRequestParams::new("echo").with_arguments(arguments);
                let result = service.peer().call_tool(params).await.unwrap();
                assert_eq!(result.content[0].as_text().unwrap().text, "hello");
            }
        }
    }

    async fn add(&self) {
        match self {
            Caller::Typed(client) => {
                let result = client.add(demo::types::AddInput { a: 2, b: 40 }).await;
                assert_eq!(result.unwrap().output.sum, 42);
            }
            Caller::Raw(service) => {
                let mut arguments = serde_json::Map::new();
                arguments.insert("a".into(), 2.into());
                arguments.insert("b".into(), 40.into());
                let params = CallToolRequestParams::new("add").with_arguments(arguments);
                let result = service.peer().call_tool(params).await.unwrap();
                assert_eq!(result.structured_content.unwrap()["sum"], 42);
            }
        }
    }
}

/// `MCPBIND_BENCH_TOOL=add`: the calls measured are `add`'s.
static ADD: std::sync::LazyLock<bool> =
    std::sync::LazyLock::new(|| std::env::var("MCPBIND_BENCH_TOOL").as_deref() == Ok("add"));

/// CPU time (user + system) and context switches of this process so far.
fn usage() -> (Duration, u64) {
    // SAFETY: getrusage writes into the zeroed struct we pass it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (
        time(usage.ru_utime) + time(usage.ru_stime),
        (usage.ru_nvcsw + usage.ru_nivcsw) as u64,
    )
}

/// This process's peak resident set so far, in KiB (Linux's unit for
/// `ru_maxrss`). With `MCPBIND_BENCH_ONLY`, the process holds one client,
/// so two runs compare the clients' memory.
fn peak_rss_kib() -> i64 {
    // SAFETY: getrusage writes into the zeroed struct we pass it.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_maxrss
    }
}

/// This process's resident set now, in KiB (`VmRSS` of /proc/self/status):
/// taken before a client connects, what the bench itself holds.
fn rss_kib() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[derive(Default, Clone, Copy)]
struct Round {
    p50: Duration,
    p99: Duration,
    cpu: Duration,
    switches: f64,
    per_second: f64,
}

async fn round(caller: &Caller, calls: usize) -> Round {
    for _ in 0..calls / 10 {
        caller.echo().await;
    }
    let mut times = Vec::with_capacity(calls);
    let (cpu0, cs0) = usage();
    for _ in 0..calls {
        let started = Instant::now();
        caller.echo().await;
        times.push(started.elapsed());
    }
    let (cpu1, cs1) = usage();
    times.sort();
    let started = Instant::now();
    let tasks: Vec<_> = (0..IN_FLIGHT)
        .map(|_| {
            let caller = caller.clone();
            tokio::spawn(async move {
                for _ in 0..calls / IN_FLIGHT {
                    caller.echo().await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let total = (calls / IN_FLIGHT * IN_FLIGHT) as f64;
    Round {
        p50: times[calls / 2],
        p99: times[calls * 99 / 100],
        cpu: (cpu1 - cpu0) / calls as u32,
        switches: (cs1 - cs0) as f64 / calls as f64,
        per_second: total / started.elapsed().as_secs_f64(),
    }
}

fn median(rounds: &[Round]) -> Round {
    let pick = |f: &dyn Fn(&Round) -> f64| {
        let mut v: Vec<f64> = rounds.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let secs = |s: f64| Duration::from_secs_f64(s);
    Round {
        p50: secs(pick(&|r| r.p50.as_secs_f64())),
        p99: secs(pick(&|r| r.p99.as_secs_f64())),
        cpu: secs(pick(&|r| r.cpu.as_secs_f64())),
        switches: pick(&|r| r.switches),
        per_second: pick(&|r| r.per_second),
    }
}

async fn raw_stdio(server: &std::path::Path, protocol: &str, elicits: bool) -> Caller {
    let transport =
        rmcp::transport::TokioChildProcess::new(tokio::process::Command::new(server)).unwrap();
    raw_serve(transport, protocol, elicits).await
}

async fn raw_http(url: &str, protocol: &str, elicits: bool) -> Caller {
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_owned());
    raw_serve(transport, protocol, elicits).await
}

/// Raw rmcp's handshake for `protocol`, the revision the typed side speaks:
/// `server/discover` for 2026-07-28 (after which rmcp sends each request's
/// self-contained `_meta`, as the typed client's requests carry it), and
/// `initialize` for an earlier one. Each side then pays for the same
/// protocol, and the ratio compares clients. With `elicits`, raw rmcp
/// declares form elicitation, as the typed client's default hooks do
/// (their `AcceptDefaults` answers it): at 2026-07-28 rmcp puts the
/// client's capabilities in every request's `_meta`, so what a client
/// declares is paid per call, on either side.
async fn raw_serve<T, E, A>(transport: T, protocol: &str, elicits: bool) -> Caller
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut client = ClientConfig::default();
    if elicits {
        client.capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(Default::default()));
    }
    let service = if protocol >= "2026-07-28" {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        client.serve_with_lifecycle(transport, lifecycle).await
    } else {
        client.serve(transport).await
    };
    Caller::Raw(std::sync::Arc::new(service.unwrap()))
}

fn print(transport: &str, raw: Round, typed: Round) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!("{transport}:");
    for (name, r) in [("raw rmcp", raw), ("mcpbind typed", typed)] {
        println!(
            "  {name:<14} p50 {:>7.3} ms  p99 {:>7.3} ms  cpu {:>6.1} µs/call  cs {:>5.2}/call  {:>7.0} calls/s ({IN_FLIGHT} in flight)",
            ms(r.p50),
            ms(r.p99),
            us(r.cpu),
            r.switches,
            r.per_second
        );
    }
    println!(
        "  typed / raw: p50 {:.3}x  p99 {:.3}x  cpu {:.3}x  cs {:.3}x  throughput {:.3}x",
        typed.p50.as_secs_f64() / raw.p50.as_secs_f64(),
        typed.p99.as_secs_f64() / raw.p99.as_secs_f64(),
        typed.cpu.as_secs_f64() / raw.cpu.as_secs_f64(),
        typed.switches / raw.switches,
        typed.per_second / raw.per_second
    );
}

/// The medians of one transport's rounds: raw rmcp's and the typed
/// client's, each when it ran.
struct Medians {
    raw: Option<Round>,
    typed: Option<Round>,
}

/// Connects the clients `only` asks for (both when `None`) to `server`
/// over `transport` (the HTTP one at `url`) and runs the rounds.
async fn measure(
    transport: &str,
    server: &std::path::Path,
    url: &str,
    protocol: &str,
    only: Option<&str>,
    calls: usize,
) -> Medians {
    let mut demo = match transport {
        "stdio" => mcpbind::ServerConfig::stdio(server.display().to_string()),
        _ => mcpbind::ServerConfig::http(url),
    };
    // More keys for the typed client's server, to see what a feature costs
    // (`validate_input = false`, say): TOML, read as a table of keys.
    let more = std::env::var("MCPBIND_BENCH_SERVER_TOML").unwrap_or_default();
    for (key, value) in more.parse::<toml::Table>().unwrap() {
        demo = demo.set(key, serde_json::to_value(value).unwrap());
    }
    let config = Config::new().server("demo", demo).unwrap();
    let elicits = std::env::var("MCPBIND_BENCH_HOOKS").as_deref() != Ok("none");
    let hooks = match elicits {
        true => mcpbind::ClientHooks::default(),
        false => mcpbind::ClientHooks::none(),
    };
    let (wants_raw, wants_typed) = match only {
        Some("raw") => (true, false),
        Some(_) => (false, true),
        None => (true, true),
    };
    let typed = match wants_typed {
        true => Some(Caller::Typed(demo::Client::from_client(
            mcpbind::Client::connect_locked_with(&config, "demo", protocol, hooks)
                .await
                .unwrap(),
        ))),
        false => None,
    };
    let raw = match (wants_raw, transport) {
        (false, _) => None,
        (true, "stdio") => Some(raw_stdio(server, protocol, elicits).await),
        (true, _) => Some(raw_http(url, protocol, elicits).await),
    };
    let (mut raws, mut typeds) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        if let Some(raw) = &raw {
            raws.push(round(raw, calls).await);
        }
        if let Some(typed) = &typed {
            typeds.push(round(typed, calls).await);
        }
    }
    Medians {
        raw: raw.map(|_| median(&raws)),
        typed: typed.map(|_| median(&typeds)),
    }
}

/// One client alone (`MCPBIND_BENCH_ONLY`): its CPU and the process's
/// peak RSS, whole and above what the bench held before connecting, and a
/// machine-readable line of the same (read by [`peak_rss_per_client`]).
fn print_alone(transport: &str, name: &str, r: Round, base_kib: i64) {
    let mib = |kib: i64| kib as f64 / 1024.0;
    let peak = peak_rss_kib();
    println!(
        "{transport} {name}: cpu {:.1} µs/call, cs {:.2}/call, peak RSS {:.1} MiB ({:.1} MiB above the bench's own {:.1} MiB)",
        r.cpu.as_secs_f64() * 1e6,
        r.switches,
        mib(peak),
        mib(peak - base_kib),
        mib(base_kib),
    );
    println!("peak-rss-kib: {peak} {base_kib}");
}

/// Peak RSS per client over stdio: the bench again, once per client with
/// `MCPBIND_BENCH_ONLY` (one client in the process), as both figures: the
/// whole process's, and above the bench's own before it connected.
fn peak_rss_per_client(server: &std::path::Path, calls: usize) {
    let mut figures = Vec::new();
    for only in ["raw", "typed"] {
        let output = Command::new(std::env::current_exe().unwrap())
            .env("MCPBIND_BENCH_ONLY", only)
            .env("MCPBIND_BENCH_TRANSPORT", "stdio")
            .env("MCPBIND_BENCH_SERVER_EXE", server)
            .env("MCPBIND_BENCH_CALLS", calls.to_string())
            .stderr(Stdio::inherit())
            .output()
            .expect("running the bench again for one client");
        assert!(output.status.success(), "the {only} client's run failed");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let line = stdout
            .lines()
            .find_map(|l| l.strip_prefix("peak-rss-kib: "))
            .expect("the one-client run printed no peak RSS");
        let kib: Vec<f64> = line.split(' ').map(|n| n.parse().unwrap()).collect();
        figures.push((kib[0] / 1024.0, (kib[0] - kib[1]) / 1024.0, kib[1] / 1024.0));
    }
    let [(raw, raw_above, raw_base), (typed, typed_above, typed_base)] = figures[..] else {
        unreachable!("two runs")
    };
    println!("peak RSS, stdio, one client a process:");
    println!("  raw rmcp       {raw:>5.1} MiB ({raw_above:.1} MiB above the bench's own {raw_base:.1} MiB)");
    println!("  mcpbind typed  {typed:>5.1} MiB ({typed_above:.1} MiB above the bench's own {typed_base:.1} MiB)");
    println!(
        "  typed / raw: whole process {:.3}x  above the bench's own {:.3}x",
        typed / raw,
        typed_above / raw_above
    );
}

fn main() {
    let calls = support::calls_per_round(2000);
    let chosen = support::chosen_server();
    let server = match &chosen {
        Some(exe) => exe.clone(),
        // A debug build (the one the tests use): the server's cost is the
        // same for both clients, and the CPU and context switches measured
        // are the client's alone.
        None => support::demo_server(false),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let only = std::env::var("MCPBIND_BENCH_ONLY").ok();
    let protocol = std::env::var("MCPBIND_BENCH_PROTOCOL")
        .unwrap_or_else(|_| demo::Client::PROTOCOL_VERSION.to_owned());
    let one = std::env::var("MCPBIND_BENCH_TRANSPORT").ok();
    let transports = match &one {
        Some(one) => vec![one.as_str()],
        None => vec!["stdio", "streamable-http"],
    };
    let http = http_server(&server);
    let url = http.url.clone();
    for transport in transports {
        // With `MCPBIND_BENCH_ONLY`, only that client connects: the
        // process's peak RSS is then that client's.
        let base_kib = rss_kib();
        let medians = runtime.block_on(measure(
            transport,
            &server,
            &url,
            &protocol,
            only.as_deref(),
            calls,
        ));
        match (medians.raw, medians.typed) {
            (Some(raw), Some(typed)) => print(transport, raw, typed),
            (Some(alone), None) => print_alone(transport, "raw", alone, base_kib),
            (None, Some(alone)) => print_alone(transport, "typed", alone, base_kib),
            (None, None) => unreachable!("a client always runs"),
        }
    }
    drop(http);
    // A whole run (no knob that narrows it) also reports each client's
    // memory, and HTTP throughput against a release server, where the
    // debug one's CPU bounds both clients.
    if chosen.is_some() || only.is_some() || one.is_some() {
        return;
    }
    peak_rss_per_client(&server, calls);
    let release = support::demo_server(true);
    let http = http_server(&release);
    let url = http.url.clone();
    let medians = runtime.block_on(measure(
        "streamable-http",
        &release,
        &url,
        &protocol,
        None,
        calls,
    ));
    drop(http);
    print(
        "streamable-http, release server",
        medians.raw.unwrap(),
        medians.typed.unwrap(),
    );
}
