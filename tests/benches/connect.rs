//! Time to ready: spawn (or reach) a server and finish the MCP handshake,
//! side by side for a Rust stdio server, a Node stdio server and a Node
//! Streamable HTTP server. Run with `cargo bench -p mcpbind-tests --bench
//! connect`; it prints medians and ratios (the machine is noisy: compare
//! within one run).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpbind::Config;

const RUNS: usize = 15;

fn servers_dir() -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("servers");
    let status = Command::new("bash")
        .arg(dir.join("install.sh"))
        .status()
        .unwrap();
    assert!(status.success());
    dir
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

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
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
        use std::io::BufRead;
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
    println!("time to ready (spawn or reach + initialize), median of {RUNS}:");
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
