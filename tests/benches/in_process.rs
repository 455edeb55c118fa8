//! A typed call to an in-process double against the same call over stdio:
//! the demo server's `add` through the generated client
//! (`demo::Client::add`: serialize, validate, call, parse the structured
//! output), once on `demo::Client::in_process` (a generated `Server`
//! over a `tokio::io::duplex`, in this process) and once on the demo
//! server's process. Run with
//! `cargo bench -p mcpbind-tests --bench in_process`.
//!
//! Rounds alternate the two so that machine noise hits both; the median of
//! the rounds' p50s and p99s is printed, and stdio's p50 over the
//! in-process one (the ratio BENCHMARKS.md gives). `MCPBIND_BENCH_CALLS` sets the
//! sequential calls per round (default 2,000).

use std::time::{Duration, Instant};

use mcpbind::{Config, HandlerResult, ServerConfig};
use mcpbind_tests::demo;

#[allow(dead_code)] // each bench uses a part of it
mod support;

const ROUNDS: usize = 5;

/// The double: `add`, as the demo server computes it.
struct Double;

impl demo::Handler for Double {
    async fn add(&self, input: demo::types::AddInput) -> HandlerResult<demo::types::AddOutput> {
        Ok(demo::types::AddOutput {
            sum: input.a.wrapping_add(input.b),
        }
        .into())
    }
}

/// The sequential calls' p50 and p99.
async fn round(client: &demo::Client, calls: usize) -> (Duration, Duration) {
    for _ in 0..calls / 10 {
        client.add(demo::types::AddInput::new(2, 40)).await.unwrap();
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        let sum = client.add(demo::types::AddInput::new(2, 40)).await.unwrap();
        times.push(started.elapsed());
        assert_eq!(sum.output.sum, 42);
    }
    times.sort();
    (times[calls / 2], times[calls * 99 / 100])
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let calls = support::calls_per_round(2_000);
    // The demo server built in the bench's own profile (release under
    // `cargo bench`), so that neither side of the comparison is a debug
    // build.
    let server =
        support::chosen_server().unwrap_or_else(|| support::demo_server(!cfg!(debug_assertions)));
    let config = Config::new()
        .server("demo", ServerConfig::stdio(server.display().to_string()))
        .unwrap();
    let stdio = demo::Client::connect(&config).await.unwrap();
    let in_process = demo::Client::in_process(demo::Server(Double))
        .await
        .unwrap();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours.push(round(&in_process, calls).await);
        theirs.push(round(&stdio, calls).await);
    }
    println!("typed `add`, {calls} sequential calls x {ROUNDS} rounds (median of the rounds)");
    let profile = if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    };
    println!("profile: {profile}");
    let mut p50s = Vec::new();
    for (name, rounds) in [("in-process", ours), ("stdio", theirs)] {
        let p50 = support::median(rounds.iter().map(|r| r.0).collect());
        let p99 = support::median(rounds.iter().map(|r| r.1).collect());
        println!("{name:>10}: p50 {p50:>9.1?}  p99 {p99:>9.1?}");
        p50s.push(p50);
    }
    let ratio = p50s[1].as_secs_f64() / p50s[0].as_secs_f64();
    println!("stdio p50 / in-process p50: {ratio:.1}x");
}
