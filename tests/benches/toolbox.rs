//! Dispatch overhead: what `Toolbox::call` costs on top of the typed call it
//! makes (`demo.add(...)`), against the Rust `double` server over stdio.
//! Run with `cargo bench -p mcpbind-tests --bench toolbox`.
//!
//! The figure that matters is CPU time in this process per call (the
//! server's time and the pipe are the same for both paths): process CPU
//! (user + system, `/proc/self/stat`) over many calls, typed and toolbox
//! rounds interleaved. Wall-clock medians are printed too.

use std::time::{Duration, Instant};

use mcpbind::{Config, ServerConfig, Toolbox};
use mcpbind_tests::demo;

const CALLS: usize = 4000;
const ROUNDS: usize = 5;

/// User + system CPU time of this process, from `/proc/self/stat`.
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    // Fields after the command name (which is in parentheses).
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // USER_HZ is 100 on Linux.
    Duration::from_millis(ticks * 10)
}

struct Sample {
    cpu: Duration,
    wall: Vec<Duration>,
}

async fn typed(client: &demo::Client) -> Sample {
    let cpu = process_cpu();
    let mut wall = Vec::with_capacity(CALLS);
    for i in 0..CALLS as i64 {
        let started = Instant::now();
        let sum = client
            .add(demo::types::AddInput { a: i, b: 1 })
            .await
            .unwrap();
        wall.push(started.elapsed());
        assert_eq!(sum.output.sum, i + 1);
    }
    Sample {
        cpu: process_cpu() - cpu,
        wall,
    }
}

async fn toolbox(tools: &Toolbox) -> Sample {
    let cpu = process_cpu();
    let mut wall = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let arguments = format!(r#"{{"a": {i}, "b": 1.0}}"#);
        let started = Instant::now();
        let call = tools.call("demo_add", &arguments).await;
        wall.push(started.elapsed());
        assert!(call.outcome.is_ok());
    }
    Sample {
        cpu: process_cpu() - cpu,
        wall,
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let double = ServerConfig::stdio(env!("CARGO_BIN_EXE_double")).arg("demo");
    let config = Config::new().server("demo", double).unwrap();
    runtime.block_on(async {
        let client = demo::Client::connect(&config).await.unwrap();
        let mut tools = Toolbox::new();
        tools
            .add(demo::Client::connect(&config).await.unwrap())
            .unwrap();
        // Warm up both paths (schema compilation, allocator).
        typed(&client).await;
        toolbox(&tools).await;
        let (mut typed_cpu, mut toolbox_cpu) = (Duration::ZERO, Duration::ZERO);
        let (mut typed_wall, mut toolbox_wall) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            let t = typed(&client).await;
            typed_cpu += t.cpu;
            typed_wall.extend(t.wall);
            let b = toolbox(&tools).await;
            toolbox_cpu += b.cpu;
            toolbox_wall.extend(b.wall);
        }
        let n = (CALLS * ROUNDS) as f64;
        let typed_us = typed_cpu.as_secs_f64() * 1e6 / n;
        let toolbox_us = toolbox_cpu.as_secs_f64() * 1e6 / n;
        println!("demo add over stdio (Rust double), {CALLS} calls x {ROUNDS} rounds per path:");
        println!(
            "  CPU per call, this process: typed {typed_us:.1} µs, toolbox {toolbox_us:.1} µs"
        );
        println!(
            "  toolbox overhead: {:.1} µs CPU per call (ratio {:.2}x)",
            toolbox_us - typed_us,
            toolbox_us / typed_us
        );
        let (tw, bw) = (median(typed_wall), median(toolbox_wall));
        println!(
            "  wall median: typed {:.1} µs, toolbox {:.1} µs (ratio {:.2}x)",
            tw.as_secs_f64() * 1e6,
            bw.as_secs_f64() * 1e6,
            bw.as_secs_f64() / tw.as_secs_f64()
        );
    });
}
