//! Generator throughput: a lockfile of >= 1,000 tools (the test fixtures,
//! repeated with renamed tools) through `generate_tokens` and
//! `generate_text`, timed with `std::time` (no criterion, to keep the
//! dependency tree small). Prints tools/second, median of several runs.
//!
//! `cargo bench -p mcpbind-codegen --bench generate` (figures in
//! BENCHMARKS.md). `MCPBIND_BENCH_TOOLS` and `MCPBIND_BENCH_RUNS` override
//! the size and the number of runs.

use std::path::Path;
use std::time::{Duration, Instant};

use mcpbind_codegen::{GenerationSettings, Generator, Lockfile, ServerLock};
use serde_json::Value;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// All fixture tools, except the deliberately huge ones.
fn fixture_tools() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut tools = Vec::new();
    for path in paths {
        let fixture: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
        tools.extend(fixture["tools"].as_array().expect("tools").iter().cloned());
    }
    tools
}

/// A lockfile of `count` tools over 10 servers, the fixtures renamed
/// `<name>_<copy>`.
fn lockfile(count: usize) -> Lockfile {
    let base = fixture_tools();
    let mut lockfile = Lockfile::new();
    let servers = 10;
    for s in 0..servers {
        let mut tools = Vec::new();
        for i in (s..count).step_by(servers) {
            let mut tool = base[i % base.len()].clone();
            let name = format!("{}_{i}", tool["name"].as_str().unwrap_or("t"));
            tool["name"] = Value::String(name);
            tools.push(tool);
        }
        let name = format!("server{s}");
        let lock = ServerLock::new(&name, "2025-06-18".into(), serde_json::json!({}), tools)
            .expect("lock");
        lockfile.servers.insert(name, lock);
    }
    lockfile
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` doesn't, and
    // then one small run is enough to show it works.
    let benching = std::env::args().any(|a| a == "--bench");
    let count = env_usize("MCPBIND_BENCH_TOOLS", if benching { 1000 } else { 50 });
    let runs = env_usize("MCPBIND_BENCH_RUNS", if benching { 5 } else { 1 });
    let lockfile = lockfile(count);
    let tools: usize = lockfile.servers.values().map(|s| s.tools.len()).sum();
    println!(
        "{tools} tools in {} servers, {runs} runs",
        lockfile.servers.len()
    );

    let path = Path::new("mcpbind.lock");
    let mut token_times = Vec::new();
    let mut text_times = Vec::new();
    let mut bytes = 0;
    for _ in 0..runs {
        let mut generator = Generator::new(&GenerationSettings::new());
        let start = Instant::now();
        let tokens = generator.generate_tokens(&lockfile, path).expect("tokens");
        token_times.push(start.elapsed());
        std::hint::black_box(tokens);

        let mut generator = Generator::new(&GenerationSettings::new());
        let start = Instant::now();
        let text = generator.generate_text(&lockfile, path).expect("text");
        text_times.push(start.elapsed());
        bytes = text.len();
    }
    for (what, times) in [
        ("generate_tokens", token_times),
        ("generate_text", text_times),
    ] {
        let m = median(times);
        println!(
            "{what:>16}: median {:>8.1} ms, {:>7.0} tools/s",
            m.as_secs_f64() * 1e3,
            tools as f64 / m.as_secs_f64()
        );
    }
    println!("output: {:.1} MB of Rust", bytes as f64 / 1e6);
}
