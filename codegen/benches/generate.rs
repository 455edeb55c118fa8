//! Generator throughput and memory on the committed real-world corpus
//! (`tests/corpus/servers.lock`: the tools/list of many public MCP servers),
//! through `generate_tokens` and `generate_text`, timed with `std::time` (no
//! criterion, to keep the dependency tree small). Prints the median time,
//! tools/second, peak RSS (`VmHWM`) and generated lines per tool.
//!
//! `cargo bench -p mcpbind-codegen --bench generate` (figures in
//! BENCHMARKS.md). `MCPBIND_BENCH_RUNS` overrides the number of runs.
//! `MCPBIND_BENCH_SYNTHETIC=1` uses the former synthetic lockfile instead:
//! the test fixtures repeated with renamed tools, `MCPBIND_BENCH_TOOLS` of
//! them. `MCPBIND_BENCH_LOCKFILE=<path>` uses another lockfile (a subset of
//! the corpus, say, to run under `valgrind --tool=callgrind`);
//! `MCPBIND_BENCH_OUT=<path>` writes the generated text there (to compare
//! the output of two versions of the generator byte for byte).

use std::path::Path;
use std::time::{Duration, Instant};

use mcpbind_codegen::{GenerationSettings, Generator};
use mcpbind_model::lock::{Lockfile, ServerLock};
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

/// A synthetic lockfile of `count` tools over 10 servers, the fixtures
/// renamed `<name>_<copy>`.
fn synthetic(count: usize) -> Lockfile {
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

/// The committed corpus; without `--bench` (a smoke run under `cargo test
/// --benches`), only its first `servers` servers.
fn corpus(servers: usize) -> Lockfile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/servers.lock");
    let mut lockfile = Lockfile::read(&path).expect("the corpus lockfile reads");
    let keep: Vec<String> = lockfile.servers.keys().take(servers).cloned().collect();
    lockfile.servers.retain(|name, _| keep.contains(name));
    lockfile
}

/// Peak resident set size of this process so far, in MB (Linux only).
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` doesn't, and
    // then one small run is enough to show it works.
    let benching = std::env::args().any(|a| a == "--bench");
    let runs = env_usize("MCPBIND_BENCH_RUNS", if benching { 5 } else { 1 });
    let lockfile = if std::env::var_os("MCPBIND_BENCH_SYNTHETIC").is_some_and(|v| v == "1") {
        synthetic(env_usize(
            "MCPBIND_BENCH_TOOLS",
            if benching { 1000 } else { 50 },
        ))
    } else if let Some(path) = std::env::var_os("MCPBIND_BENCH_LOCKFILE") {
        Lockfile::read(Path::new(&path)).expect("MCPBIND_BENCH_LOCKFILE reads")
    } else {
        corpus(if benching { usize::MAX } else { 3 })
    };
    let tools: usize = lockfile.servers.values().map(|s| s.tools.len()).sum();
    let rss_before = peak_rss_mb();
    println!(
        "{tools} tools in {} servers, {runs} runs; peak RSS before generating: {:.0} MB",
        lockfile.servers.len(),
        rss_before.unwrap_or(f64::NAN)
    );

    let path = Path::new("mcpbind.lock");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // `generate_text` first, one job then every core, alternating (so that
    // machine noise hits both), and the peak RSS it reached; then
    // `generate_tokens`, which holds the whole file's tokens at once.
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    let mut text = String::new();
    for _ in 0..runs {
        for (slot, jobs) in [(0, 1), (1, cores)] {
            let mut settings = GenerationSettings::new();
            settings.with_jobs(jobs);
            let mut generator = Generator::new(&settings);
            let start = Instant::now();
            let out = generator.generate_text(&lockfile, path).expect("text");
            times[slot].push(start.elapsed());
            assert!(
                text.is_empty() || text == out,
                "the output depends on the jobs"
            );
            text = out;
        }
    }
    let rss_text = peak_rss_mb();
    for _ in 0..runs {
        let mut generator = Generator::new(&GenerationSettings::new());
        let start = Instant::now();
        let tokens = generator.generate_tokens(&lockfile, path).expect("tokens");
        times[2].push(start.elapsed());
        std::hint::black_box(tokens);
    }
    let [text_1, text_n, tokens_1] = times;
    for (what, times) in [
        ("generate_text, 1 job".to_owned(), text_1),
        (format!("generate_text, {cores} jobs"), text_n),
        ("generate_tokens".to_owned(), tokens_1),
    ] {
        let m = median(times);
        println!(
            "{what:>24}: median {:>8.1} ms, {:>7.0} tools/s",
            m.as_secs_f64() * 1e3,
            tools as f64 / m.as_secs_f64()
        );
    }
    println!(
        "peak RSS (VmHWM) after generate_text: {:.0} MB",
        rss_text.unwrap_or(f64::NAN)
    );
    if let Some(path) = std::env::var_os("MCPBIND_BENCH_OUT") {
        std::fs::write(&path, &text).expect("MCPBIND_BENCH_OUT is writable");
    }
    let lines = text.lines().count();
    println!(
        "output: {:.1} MB of Rust, {lines} lines, {:.0} lines per tool",
        text.len() as f64 / 1e6,
        lines as f64 / tools.max(1) as f64
    );
    println!(
        "peak RSS (VmHWM) after generate_tokens too: {:.0} MB",
        peak_rss_mb().unwrap_or(f64::NAN)
    );
}
