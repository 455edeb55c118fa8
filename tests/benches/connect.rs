//! Connecting, in two parts, each side by side in one run (the machine is
//! noisy: compare within one run). Run with `cargo bench -p mcpbind-tests
//! --bench connect`; it prints medians and ratios.
//!
//! 1. Time to ready: spawn (or reach) a server and finish the MCP
//!    handshake, for a Rust stdio server, a Node stdio server and a Node
//!    Streamable HTTP server.
//! 2. A Streamable HTTP connect against raw rmcp on the same server: the
//!    handshake plus the `tools/list` of the pin check, through mcpbind
//!    (the generated `demo::Client::connect`, which checks the pins, or
//!    `Client::connect` and `list_tools_raw` where no bindings exist) and
//!    through raw rmcp (`serve` or `serve_with_lifecycle`, then
//!    `list_tools`), rounds alternating the two. Servers: the demo server
//!    (rmcp, both handshakes; a release build) and
//!    `tests/src/bin/modern_http.rs` (2026-07-28 only).
//!
//! `MCPBIND_BENCH_PART=ready|http` runs one part.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcpbind::Config;
use mcpbind_tests::demo;
use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, ClientServiceExt as _};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt as _;

const RUNS: usize = 15;
/// Connects per client per round in part 2, and rounds.
const CONNECTS: usize = 40;
const ROUNDS: usize = 5;

fn servers_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("servers");
    let status = Command::new("bash")
        .arg(dir.join("install.sh"))
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

/// `target/release` (or wherever this bench was built).
fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_owned()
}

/// The demo server, built in this bench's profile (release): the server's
/// own time is in both sides' figures, so it should be small.
fn demo_server() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&root)
        .args(["build", "--quiet", "--release", "-p", "mcpbind-demo-server"])
        .status()
        .unwrap();
    assert!(status.success());
    bin_dir().join("mcpbind-demo-server")
}

/// A server that prints `listening on <url>` first, killed when dropped.
struct Listening {
    child: Child,
    url: String,
}

impl Listening {
    fn start(command: &mut Command) -> Listening {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().trim_start_matches("listening on ").to_owned();
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
    let config = Config::from_toml_str(&format!(
        r#"
[servers.rust-stdio]
command = {double:?}
args = ["demo"]

[servers.node-stdio]
command = "node"
args = [{everything:?}, "stdio"]

[servers.node-http]
url = "http://127.0.0.1:{port}/mcp"
"#,
        double = env!("CARGO_BIN_EXE_double"),
        everything = everything.display().to_string(),
    ))
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
    /// The generated client: connect, then the pin check.
    Generated,
    /// `Client::connect`, then `list_tools_raw`.
    Untyped,
    /// rmcp's `serve` (`initialize`), then `list_tools`.
    RawInitialize,
    /// rmcp's `server/discover` handshake, then `list_tools`.
    RawDiscover,
}

/// One connect and listing through `side`; the time excludes the close.
async fn connect_once(side: Side, config: &Config, url: &str) -> (Duration, String) {
    let started = Instant::now();
    match side {
        Side::Generated => {
            let client = demo::Client::connect(config).await.unwrap();
            let took = started.elapsed();
            let info = client.inner().server_info().await.unwrap();
            client.inner().clone().close().await;
            (took, info.protocol_version.to_string())
        }
        Side::Untyped => {
            let client = mcpbind::Client::connect(config, "demo").await.unwrap();
            assert!(!client.list_tools_raw().await.unwrap().is_empty());
            let took = started.elapsed();
            let info = client.server_info().await.unwrap();
            client.close().await;
            (took, info.protocol_version.to_string())
        }
        Side::RawInitialize | Side::RawDiscover => {
            let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
            let service = if side == Side::RawInitialize {
                ().serve(transport).await.unwrap()
            } else {
                let mode = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                ().serve_with_lifecycle(transport, mode).await.unwrap()
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
    let demo = Listening::start(Command::new(demo_server()).args(["--http", "127.0.0.1:0"]));
    let modern = Listening::start(&mut Command::new(env!("CARGO_BIN_EXE_modern_http")));
    let config = |url: &str| Config::from_toml_str(&format!("[servers.demo]\nurl = {url:?}\n"));
    let demo_config = config(&demo.url).unwrap();
    let modern_config = config(&modern.url).unwrap();
    println!(
        "Streamable HTTP connect + tools/list, mcpbind vs raw rmcp on the same server, median of {ROUNDS} rounds x {CONNECTS}:"
    );
    let cases = [
        (
            "demo server, generated client (pin check) vs rmcp serve",
            [Side::Generated, Side::RawInitialize],
            &demo_config,
            &demo.url,
        ),
        (
            "modern_http (2026-07-28 only), Client vs rmcp discover",
            [Side::Untyped, Side::RawDiscover],
            &modern_config,
            &modern.url,
        ),
    ];
    for (label, sides, config, url) in cases {
        let ([ours, raw], [our_protocol, raw_protocol]) =
            runtime.block_on(side_by_side(sides, config, url));
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!("  {label}:");
        println!(
            "    mcpbind {:>7.3} ms ({our_protocol})  raw rmcp {:>7.3} ms ({raw_protocol})  mcpbind / raw = {:.2}x",
            ms(ours),
            ms(raw),
            ours.as_secs_f64() / raw.as_secs_f64()
        );
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
