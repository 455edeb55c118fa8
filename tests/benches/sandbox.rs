//! What the sandbox costs at spawn: time to ready (spawn plus the MCP
//! handshake) of the same Python stdio server (`tests/servers/probe.py`),
//! unconfined and under each sandbox setting, interleaved run by run so
//! that the machine's noise hits all alike. Run with `cargo bench -p
//! mcpbind-tests --bench sandbox`; it prints medians and ratios to the
//! unconfined start.

use std::time::{Duration, Instant};

use mcpbind::{Config, SandboxBuilder, ServerConfig};

#[allow(dead_code)] // each bench uses a part of it
mod support;

const RUNS: usize = 25;

fn main() {
    let dir = support::servers_dir();
    let data = tempfile_dir();
    let server = |sandbox: &Option<SandboxBuilder>| {
        let server = ServerConfig::stdio(dir.join(".venv/bin/python").display().to_string())
            .arg(dir.join("probe.py").display().to_string());
        match sandbox {
            Some(sandbox) => server.sandbox(sandbox.clone()),
            None => server,
        }
    };
    let read_write = || SandboxBuilder::new().read([&data]).write([&data]);
    let limits = |sandbox: SandboxBuilder| sandbox.memory("1G").cpu(60).open_files(256);
    let variants = [
        ("unconfined (filtered env)", None),
        ("read/write (Landlock)", Some(read_write())),
        (
            "network = false (namespaces)",
            Some(SandboxBuilder::new().network(false)),
        ),
        (
            "network allow-list (proxy)",
            Some(SandboxBuilder::new().network_hosts(["127.0.0.1:9"])),
        ),
        (
            "home = \"isolated\"",
            Some(SandboxBuilder::new().home("isolated")),
        ),
        ("limits (setrlimit)", Some(limits(SandboxBuilder::new()))),
        (
            "all of them",
            Some(limits(read_write().network(false).home("isolated"))),
        ),
    ];
    let config = variants
        .iter()
        .enumerate()
        .try_fold(Config::new(), |config, (i, (_, sandbox))| {
            config.server(format!("s{i}"), server(sandbox))
        })
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut times = vec![Vec::with_capacity(RUNS); variants.len()];
    runtime.block_on(async {
        for _ in 0..RUNS {
            for (i, samples) in times.iter_mut().enumerate() {
                let started = Instant::now();
                let client = mcpbind::Client::connect(&config, &format!("s{i}"))
                    .await
                    .unwrap();
                samples.push(started.elapsed());
                client.close().await;
            }
        }
    });
    let medians: Vec<Duration> = times
        .iter_mut()
        .map(|t| {
            t.sort();
            t[RUNS / 2]
        })
        .collect();
    println!("time to ready, median of {RUNS} interleaved starts (probe.py, Python 3)");
    for ((name, _), median) in variants.iter().zip(&medians) {
        println!(
            "  {name:<30} {:>8.1} ms  {:>5.2}x",
            median.as_secs_f64() * 1e3,
            median.as_secs_f64() / medians[0].as_secs_f64()
        );
    }
    let _ = std::fs::remove_dir_all(&data);
}

fn tempfile_dir() -> String {
    let dir = std::env::temp_dir().join(format!("mcpbind-bench-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.display().to_string()
}
