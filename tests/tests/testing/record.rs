//! `MCPBIND_RECORD`: a program built with `mcpbind`'s `record` feature
//! records its calls however it connects (a generated client, an untyped
//! `Client::connect`, `Servers`), each call emits one event and its
//! progress reaches it as in any build; a cassette it cannot record to
//! fails its connect; a build without the feature records nothing.

use std::path::Path;
use std::process::Output;

use serde_json::json;

use super::tests_lockfile;

/// The program's `main`: `MODE COMMAND [ARGS...]`, connecting to `COMMAND`
/// as server `demo` (`everything` in mode `progress`). It prints what it
/// got, then `events = N`, the call events published, and `spans = N`,
/// the calls traced (each client's call is one `mcp.call` span: a call
/// passed on to a second client would be two).
const MAIN: &str = r#"
/// Counts the `mcp.call` spans: one per call the program's clients make.
struct Spans(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Spans {
    fn on_new_span(
        &self,
        attributes: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        if attributes.metadata().name() == "mcp.call" {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    use tracing_subscriber::layer::SubscriberExt as _;
    let spans = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counting = tracing_subscriber::registry().with(Spans(std::sync::Arc::clone(&spans)));
    tracing::subscriber::set_global_default(counting).unwrap();
    let mut args = std::env::args().skip(1);
    let (mode, command) = (args.next().unwrap(), args.next().unwrap());
    let name = if mode == "progress" { "everything" } else { "demo" };
    let server = mcpbind::ServerConfig::stdio(command).args(args.collect::<Vec<_>>());
    let config = mcpbind::Config::new().server(name, server).unwrap();
    let mut events = mcpbind::subscribe_events();
    match mode.as_str() {
        "typed" => {
            let demo = demo::Client::connect(&config).await.unwrap();
            let sum = demo.add(demo::types::AddInput::new(2, 40)).await.unwrap();
            println!("sum = {}", sum.output.sum);
        }
        "untyped" => {
            let client = mcpbind::Client::connect(&config, "demo").await.unwrap();
            let add = serde_json::json!({"a": 2, "b": 40});
            let options = mcpbind::CallOptions::default();
            let result = client.call_raw("add", add.as_object().unwrap().clone(), &options);
            let sum = result.await.unwrap().structured_content.unwrap();
            println!("sum = {}", sum["sum"]);
            let servers = mcpbind::Servers::connect(&config).await;
            let echo = serde_json::json!({"message": "from Servers"});
            let call = servers.get("demo").unwrap().call_raw("echo", echo.as_object().unwrap().clone(), &options);
            call.await.unwrap();
        }
        "progress" => {
            let everything = everything::Client::connect(&config).await.unwrap();
            let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let counter = std::sync::Arc::clone(&seen);
            let options = mcpbind::CallOptions::default().on_progress(move |_| {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            });
            let input = everything::types::TriggerLongRunningOperationInput {
                duration: Some(1.0),
                steps: Some(3.0),
            };
            let call = everything.inner().call_with::<everything::tools::TriggerLongRunningOperation>(&input, &options);
            call.await.unwrap();
            println!("progress = {}", seen.load(std::sync::atomic::Ordering::SeqCst));
        }
        other => panic!("no mode {other}"),
    }
    // Published before each call returned: all there, no wait.
    let mut published = 0;
    let now = std::time::Duration::ZERO;
    while let Ok(Some(_)) = tokio::time::timeout(now, events.recv()).await {
        published += 1;
    }
    println!("events = {published}");
    println!("spans = {}", spans.load(std::sync::atomic::Ordering::SeqCst));
}
"#;

/// Builds the program with `mcpbind`'s `features` (its only dependency
/// with tokio and serde_json; the bindings of tests/golden/mcpbind.rs,
/// warnings denied) and runs it with `args` and `MCPBIND_RECORD=record`.
fn run_recording_program(features: &str, args: &[String], record: &Path) -> Output {
    let root = crate::util::root();
    let dir = tempfile::tempdir().unwrap();
    let manifest = format!(
        "[package]\nname = \"record-check\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nmcpbind = {{ path = {}, default-features = false, features = {features} }}\n\
         serde_json = \"1\"\ntracing = \"0.1\"\n\
         tracing-subscriber = {{ version = \"0.3\", default-features = false, features = [\"registry\", \"std\"] }}\n\
         tokio = {{ version = \"1\", features = [\"rt\", \"macros\", \"time\"] }}\n\n\
         [workspace]\n",
        crate::util::toml_str(&root.join("mcpbind").display().to_string())
    );
    std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let golden = crate::util::tests_dir().join("golden/mcpbind.rs");
    let main = format!(
        "#![deny(warnings)]\n#![allow(dead_code, unused_imports)]\ninclude!({:?});\n{MAIN}",
        golden.display().to_string()
    );
    std::fs::write(dir.path().join("src/main.rs"), main).unwrap();
    crate::util::cargo()
        .current_dir(dir.path())
        .args(["run", "--quiet", "--offline", "--"])
        .args(args)
        .envs(crate::util::nested_target())
        .env("MCPBIND_RECORD", record)
        .output()
        .unwrap()
}

/// The program's output, which must be a success saying each of `says`.
fn succeeded(out: &Output, says: &[&str]) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && says.iter().all(|s| stdout.contains(s)),
        "expected {says:?}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Mode `mode` against the demo server.
fn demo(mode: &str) -> Vec<String> {
    let server = crate::util::bin("mcpbind-demo-server");
    vec![mode.to_owned(), server.display().to_string()]
}

#[test]
fn mcpbind_record_records_a_running_program_only_when_built_with_the_record_feature() {
    let dir = tempfile::tempdir().unwrap();
    // Without `record` (with `testing`): the variable does nothing, for a
    // generated client and an untyped one alike.
    let ignored = dir.path().join("ignored.cassette.json");
    let out = run_recording_program(r#"["stdio", "testing"]"#, &demo("typed"), &ignored);
    succeeded(&out, &["sum = 42", "events = 1", "spans = 1"]);
    let out = run_recording_program(r#"["stdio", "testing"]"#, &demo("untyped"), &ignored);
    succeeded(&out, &["sum = 42"]);
    assert!(!ignored.exists(), "a build without `record` recorded");

    // With it: the call is in the cassette, beside the locked hash, at
    // the locked protocol version; the call emitted one event and was
    // one traced call, as in a build without the feature.
    let recorded = dir.path().join("recorded.cassette.json");
    let out = run_recording_program(r#"["stdio", "record"]"#, &demo("typed"), &recorded);
    succeeded(&out, &["sum = 42", "events = 1", "spans = 1"]);
    let lockfile = tests_lockfile();
    let cassette = mcpbind::testing::Cassette::load(&recorded, &lockfile).unwrap();
    let add = &cassette.servers["demo"].tools["add"];
    let locked = lockfile.servers["demo"]
        .tools
        .iter()
        .find(|t| t.name == "add");
    assert_eq!(add.sha256, locked.unwrap().sha256);
    assert_eq!(add.calls.len(), 1);
    assert_eq!(add.calls[0].arguments, Some(json!({"a": 2, "b": 40})));
    let result = add.calls[0].result.as_ref().unwrap();
    assert_eq!(result["structuredContent"], json!({"sum": 42}));
}

/// An untyped `Client::connect` and `Servers::connect` record too, each
/// tool stored with the hash of its definition as the server lists it
/// (the lockfile's) and the protocol the connection negotiated (an
/// untyped connect's `initialize`, not the locked 2026-07-28: replayed
/// against the lockfile, such a cassette is refused for it).
#[test]
fn mcpbind_record_records_a_program_connected_without_generated_bindings() {
    let dir = tempfile::tempdir().unwrap();
    let recorded = dir.path().join("untyped.cassette.json");
    let out = run_recording_program(r#"["stdio", "record"]"#, &demo("untyped"), &recorded);
    succeeded(&out, &["sum = 42"]);
    let lockfile = tests_lockfile();
    let cassette = mcpbind::testing::Cassette::read(&recorded).unwrap();
    assert_eq!(cassette.servers["demo"].protocol_version, "2025-11-25");
    let tools = &cassette.servers["demo"].tools;
    let locked = |name: &str| {
        let tools = &lockfile.servers["demo"].tools;
        tools
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .sha256
            .clone()
    };
    assert_eq!(tools["add"].sha256, locked("add"));
    assert_eq!(
        tools["add"].calls[0].arguments,
        Some(json!({"a": 2, "b": 40}))
    );
    assert_eq!(tools["echo"].sha256, locked("echo"));
    let echo = tools["echo"].calls[0].result.as_ref().unwrap();
    assert_eq!(echo["content"][0]["text"], "from Servers");
}

/// A cassette that cannot be recorded to (not a cassette; in a directory
/// that does not exist) fails the connect, naming the file, why and the
/// fix: the program never runs unrecorded.
#[test]
fn mcpbind_record_fails_the_connect_when_the_cassette_cannot_be_recorded_to() {
    let dir = tempfile::tempdir().unwrap();
    let corrupt = dir.path().join("corrupt.cassette.json");
    std::fs::write(&corrupt, "{\"servers\": [").unwrap();
    let missing = dir.path().join("no-such-dir/cassette.json");
    for (file, why) in [(&corrupt, "not a cassette"), (&missing, "does not exist")] {
        for mode in ["typed", "untyped"] {
            let out = run_recording_program(r#"["stdio", "record"]"#, &demo(mode), file);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{mode} ran with {}", file.display());
            assert!(
                stderr.contains(&file.display().to_string())
                    && stderr.contains(why)
                    && stderr.contains("set MCPBIND_RECORD to another path"),
                "{mode}, {}:\n{stderr}",
                file.display()
            );
        }
    }
    assert!(!missing.exists());
}

/// The tests that need the pinned npm and PyPI servers.
mod installed {
    use super::*;

    /// In a record build, a call's progress reaches its caller and the
    /// call emits one event.
    #[test]
    fn a_recorded_call_passes_its_progress_through() {
        let dir = tempfile::tempdir().unwrap();
        let recorded = dir.path().join("progress.cassette.json");
        let args = [
            "progress".to_owned(),
            "node".to_owned(),
            crate::util::npm_server("server-everything"),
            "stdio".to_owned(),
        ];
        let out = run_recording_program(r#"["stdio", "record"]"#, &args, &recorded);
        let stdout = succeeded(&out, &["events = 1", "spans = 1"]);
        let progress = stdout
            .lines()
            .find_map(|l| l.strip_prefix("progress = "))
            .and_then(|n| n.parse::<usize>().ok());
        assert!(progress.is_some_and(|n| n >= 1), "{stdout}");
        let cassette = mcpbind::testing::Cassette::read(&recorded).unwrap();
        let tape = &cassette.servers["everything"].tools["trigger-long-running-operation"];
        assert_eq!(tape.calls.len(), 1);
    }
}
