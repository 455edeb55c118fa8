//! Connecting, in two parts, each side by side in one run (the machine is
//! noisy: compare within one run). Run with `cargo bench -p mcpbind-tests
//! --bench connect`; it prints medians and ratios.
//!
//! 1. Time to ready: spawn (or reach) a server and finish the MCP
//!    handshake, for a Rust stdio server, a Node stdio server and a Node
//!    Streamable HTTP server.
//! 2. A Streamable HTTP connect against raw rmcp on the same server: the
//!    handshake plus the `tools/list` of the pin check, through mcpbind
//!    (`Client::connect_locked` at the version the lockfile records, then
//!    `check_pins` with a locked tool, as a generated client's `connect`
//!    does) and through raw rmcp (`serve`, or
//!    `serve_with_lifecycle` with `server/discover` for a server without
//!    `initialize`, then `list_tools`), rounds alternating the two. The
//!    server is `tests/src/bin/modern_http.rs` (rmcp's server side, built
//!    with this bench) in its three modes: 2026-07-28 only, both
//!    handshakes (rmcp's default), `initialize` only (before 2026-07-28).
//!
//! `MCPBIND_BENCH_PART=ready|http` runs one part.

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpbind::{Config, ServerConfig};
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt as _;

#[allow(dead_code)] // each bench uses a part of it
mod support;

use support::{servers_dir, Listening};

const RUNS: usize = 15;
/// Connects per client per round in part 2, and rounds.
const CONNECTS: usize = 40;
const ROUNDS: usize = 5;

async fn median_connect(config: &Config, name: &str) -> (Duration, String) {
    let mut times = Vec::with_capacity(RUNS);
    let mut protocol = String::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let client = mcpbind::Client::connect(config, name).await.unwrap();
        times.push(started.elapsed());
        protocol = client
            .server_info()
            .await
            .unwrap()
            .protocol_version
            .to_string();
        client.close().await;
    }
    times.sort();
    (times[RUNS / 2], protocol)
}

fn time_to_ready(runtime: &tokio::runtime::Runtime) {
    let dir = servers_dir();
    let everything = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    // server-everything over Streamable HTTP, on a free loopback port.
    let mut http = Command::new("node")
        .arg("--require")
        .arg(dir.join("listen-report.cjs"))
        .arg(&everything)
        .arg("streamableHttp")
        .env("PORT", "0")
        .env("MCPBIND_LISTEN_HOST", "127.0.0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let port = {
        let stderr = std::io::BufReader::new(http.stderr.take().unwrap());
        stderr
            .lines()
            .map_while(Result::ok)
            .find_map(|l| {
                l.strip_prefix("MCPBIND_LISTENING ")
                    .and_then(|r| r.split_whitespace().nth(1).map(str::to_owned))
            })
            .unwrap()
    };
    let config = Config::new()
        .server(
            "rust-stdio",
            ServerConfig::stdio(env!("CARGO_BIN_EXE_double")).arg("demo"),
        )
        .and_then(|c| {
            c.server(
                "node-stdio",
                ServerConfig::stdio("node")
                    .args([everything.display().to_string(), "stdio".into()]),
            )
        })
        .and_then(|c| {
            c.server(
                "node-http",
                ServerConfig::http(format!("http://127.0.0.1:{port}/mcp")),
            )
        })
        .unwrap();
    println!("time to ready (spawn or reach + handshake), median of {RUNS}:");
    let mut results = Vec::new();
    for name in ["rust-stdio", "node-stdio", "node-http"] {
        let (median, protocol) = runtime.block_on(median_connect(&config, name));
        println!(
            "  {name:<11} {:>8.1} ms  (protocol {protocol})",
            median.as_secs_f64() * 1e3
        );
        results.push(median);
    }
    println!(
        "  ratios: node-stdio / rust-stdio = {:.1}x, node-http / rust-stdio = {:.1}x",
        results[1].as_secs_f64() / results[0].as_secs_f64(),
        results[2].as_secs_f64() / results[0].as_secs_f64()
    );
    let _ = http.kill();
    let _ = http.wait();
}

/// One way to connect and list the tools.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    /// `Client::connect_locked` at the version `mcpbind lock` records for
    /// the server, then the pin check: what a generated `connect` does.
    Mcpbind { locked: &'static str },
    /// rmcp: `serve` (`initialize`) or, with `discover`, the
    /// `server/discover` handshake, then `list_tools`; over one reqwest
    /// client for every connect (`shared`) or rmcp's `from_uri`, which
    /// builds a client (and loads the TLS roots) per connect.
    Raw { discover: bool, shared: bool },
}

/// modern_http.rs's `headers` tool as a generated module locks it.
const SCHEMA: &str = r#"{"properties":{"n":{"type":"integer"},"region":{"type":"string","x-mcp-header":"Region"}},"type":"object"}"#;
const DEFINITION: &str = r#"{"description":"Answers with the request's MCP headers.","inputSchema":{"properties":{"n":{"type":"integer"},"region":{"type":"string","x-mcp-header":"Region"}},"type":"object"},"name":"headers"}"#;

fn locked() -> [mcpbind::ToolMeta; 1] {
    let input = DEFINITION.find(SCHEMA).unwrap();
    let spans = [(0, 0), (0, 0), (input, input + SCHEMA.len()), (0, 0)];
    [mcpbind::ToolMeta::new(
        "modern",
        "headers",
        DEFINITION,
        spans,
        [false, true, false, true],
    )]
}

/// The one reqwest client of the raw side's `shared` connects.
fn raw_client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            reqwest::Client::builder()
                .tcp_nodelay(true)
                .build()
                .unwrap()
        })
        .clone()
}

/// One connect and listing through `side`; the time excludes the close.
async fn connect_once(side: Side, config: &Config, url: &str) -> (Duration, String) {
    let started = Instant::now();
    match side {
        Side::Mcpbind { locked: version } => {
            let client = mcpbind::Client::connect_locked(config, "modern", version)
                .await
                .unwrap();
            let drift = client.check_pins(&locked()).await.unwrap();
            let took = started.elapsed();
            assert!(drift.is_empty(), "{drift:?}");
            let info = client.server_info().await.unwrap();
            client.close().await;
            (took, info.protocol_version.to_string())
        }
        Side::Raw { discover, shared } => {
            let transport = if shared {
                let config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
                StreamableHttpClientTransport::with_client(raw_client(), config)
            } else {
                StreamableHttpClientTransport::from_uri(url.to_owned())
            };
            let service = if discover {
                let mode = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                ().serve_with_lifecycle(transport, mode).await.unwrap()
            } else {
                ().serve(transport).await.unwrap()
            };
            let tools = service.peer().list_tools(None).await.unwrap();
            assert!(!tools.tools.is_empty());
            let took = started.elapsed();
            let protocol = service
                .peer()
                .peer_info()
                .map(|i| i.protocol_version.to_string())
                .unwrap_or_default();
            let _ = service.cancel().await;
            (took, protocol)
        }
    }
}

/// Medians of the rounds' medians, per side, and the protocol each spoke.
async fn side_by_side(
    sides: [Side; 2],
    config: &Config,
    url: &str,
) -> ([Duration; 2], [String; 2]) {
    let mut medians: [Vec<Duration>; 2] = Default::default();
    let mut protocols: [String; 2] = Default::default();
    for side in sides {
        // Warm both (the first connect pays one-off costs).
        connect_once(side, config, url).await;
    }
    for _ in 0..ROUNDS {
        for (i, side) in sides.into_iter().enumerate() {
            let mut times = Vec::with_capacity(CONNECTS);
            for _ in 0..CONNECTS {
                let (took, protocol) = connect_once(side, config, url).await;
                times.push(took);
                protocols[i] = protocol;
            }
            times.sort();
            medians[i].push(times[CONNECTS / 2]);
        }
    }
    let pick = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    ([pick(&mut medians[0]), pick(&mut medians[1])], protocols)
}

fn http_vs_raw(runtime: &tokio::runtime::Runtime) {
    println!(
        "Streamable HTTP connect + the pin check's tools/list, mcpbind vs raw rmcp on the same server, median of {ROUNDS} rounds x {CONNECTS}:"
    );
    // Each server with the version `mcpbind lock` records for it (lock
    // tries `server/discover` first), which a generated client connects at.
    let cases: [(&str, &[&str], bool, &str); 3] = [
        ("2026-07-28 only (raw: discover)", &[], true, "2026-07-28"),
        (
            "both handshakes (raw: initialize)",
            &["--mode", "both"],
            false,
            "2026-07-28",
        ),
        (
            "initialize only (raw: initialize)",
            &["--mode", "legacy"],
            false,
            "2025-11-25",
        ),
    ];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (label, args, discover, locked) in cases {
        let server = Listening::start(Command::new(env!("CARGO_BIN_EXE_modern_http")).args(args));
        let config =
            Config::new().server("modern", mcpbind::ServerConfig::http(server.url.as_str()));
        let config = config.unwrap();
        println!("  {label}:");
        for shared in [true, false] {
            let raw = Side::Raw { discover, shared };
            let ([ours, theirs], [our_protocol, raw_protocol]) = runtime.block_on(side_by_side(
                [Side::Mcpbind { locked }, raw],
                &config,
                &server.url,
            ));
            let how = if shared {
                "one reqwest client"
            } else {
                "a client per connect (from_uri)"
            };
            println!(
                "    mcpbind {:>6.3} ms ({our_protocol})  raw rmcp, {how:<31} {:>6.3} ms ({raw_protocol})  mcpbind / raw = {:.2}x",
                ms(ours),
                ms(theirs),
                ours.as_secs_f64() / theirs.as_secs_f64()
            );
        }
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let part = std::env::var("MCPBIND_BENCH_PART").ok();
    if part.as_deref() != Some("http") {
        time_to_ready(&runtime);
    }
    if part.as_deref() != Some("ready") {
        http_vs_raw(&runtime);
    }
}
