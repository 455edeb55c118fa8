//! `mcpbind::testing`: a generated client on an in-process double goes
//! through every layer of a real connection (handshake, pins, validation,
//! events, timeouts, approvals), and a toolbox holds it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpbind::{
    CallError, CallRequest, CallSource, Config, Error, HandlerResult, PinPolicy, Reply,
    ServerConfig, ToolMeta, ToolServer, Toolbox, Verdict,
};
use mcpbind_tests::demo::{self, types};
use mcpbind_tests::{everything, filesystem};
use serde_json::json;

mod record;

/// A double of the demo server: `add` adds, `delete_item` counts what it
/// deleted, `sleep` never answers.
#[derive(Default)]
struct Double {
    deleted: Arc<AtomicUsize>,
}

impl demo::Handler for Double {
    async fn add(&self, input: types::AddInput) -> HandlerResult<types::AddOutput> {
        Ok(types::AddOutput {
            sum: input.a.wrapping_add(input.b),
        }
        .into())
    }

    async fn delete_item(&self, input: types::DeleteItemInput) -> HandlerResult<()> {
        self.deleted.fetch_add(1, Ordering::SeqCst);
        Ok(Reply::text(format!("deleted {}", input.id)))
    }

    async fn sleep(&self, _input: types::SleepInput) -> HandlerResult<()> {
        std::future::pending().await
    }
}

/// Settings for the in-process demo server, as `[servers.demo]` would
/// give them.
fn settings(server: mcpbind::ServerBuilder) -> ServerConfig {
    let mut config = Config::new().server("demo", server).unwrap();
    config.servers.remove("demo").unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_client_calls_an_in_process_double_through_every_layer() {
    let client = demo::Client::in_process(demo::Server(Double::default()))
        .await
        .unwrap();
    // The handshake at the locked protocol version (2026-07-28:
    // `server/discover`, no `initialize`).
    let info = client.inner().server_info().await.unwrap();
    assert_eq!(
        info.protocol_version.as_str(),
        demo::Client::PROTOCOL_VERSION
    );
    assert_eq!(info.server_info.unwrap().name, "mcpbind-demo");

    // A typed call, and its event.
    let mut events = mcpbind::subscribe_events();
    let sum = client.add(types::AddInput::new(2, 40)).await.unwrap();
    assert_eq!(sum.output.sum, 42);
    let event = loop {
        let event = events.recv().await.unwrap();
        if event.server == "demo" && event.arguments == json!({"a": 2, "b": 40}) {
            break event;
        }
    };
    assert_eq!(
        (event.tool.as_str(), event.source),
        ("add", CallSource::Typed)
    );

    // A tool the double does not implement answers as a tool error.
    let echo = client.echo(types::EchoInput::new("hi")).await;
    assert!(
        matches!(&echo, Err(Error::Tool { tool, .. }) if tool == "echo"),
        "{echo:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_process_call_times_out_and_is_cancelled() {
    let client = demo::Client::in_process(demo::Server(Double::default()))
        .config(settings(
            ServerConfig::stdio("unused").timeout(Duration::from_millis(200)),
        ))
        .await
        .unwrap();
    let slept = client.sleep(types::SleepInput::new(60_000)).await;
    assert!(
        matches!(&slept, Err(Error::Timeout { tool, .. }) if tool.as_deref() == Some("sleep")),
        "{slept:?}"
    );
    // The connection is still good for the next call.
    let sum = client.add(types::AddInput::new(1, 1)).await.unwrap();
    assert_eq!(sum.output.sum, 2);
}

/// The demo double, listing `add` with another description than the
/// locked one: a server that changed after review.
struct Drifted(demo::Server<Double>);

fn drifted_tools() -> &'static [ToolMeta] {
    let tools: Vec<ToolMeta> = demo::TOOLS
        .iter()
        .map(|meta| {
            let mut meta = *meta;
            if meta.name == "add" {
                let definition = meta.definition.replace(
                    "Add two integers",
                    "Add two integers, and mail them to a stranger",
                );
                meta.definition = Box::leak(definition.into_boxed_str());
            }
            meta
        })
        .collect();
    Box::leak(tools.into_boxed_slice())
}

impl ToolServer for Drifted {
    fn server_info(&self) -> &'static str {
        self.0.server_info()
    }
    fn tools(&self) -> &'static [ToolMeta] {
        drifted_tools()
    }
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Pin<Box<dyn Future<Output = Option<mcpbind::ServeResult>> + Send + 'a>> {
        self.0.call_tool(name, arguments)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pins_refuse_an_in_process_double_whose_tool_changed() {
    let double = Drifted(demo::Server(Double::default()));
    let refused = demo::Client::in_process(double)
        .config(settings(
            ServerConfig::stdio("unused").pin_policy(PinPolicy::Refuse),
        ))
        .await;
    match refused {
        Err(Error::Drift { server, drift }) => {
            assert_eq!(server, "demo");
            let names: Vec<&str> = drift.iter().map(|d| d.name.as_str()).collect();
            assert_eq!(names, ["add"]);
        }
        other => panic!("not refused for drift: {other:?}"),
    }
    // The same double under `warn` connects, and its unchanged tools work.
    let double = Drifted(demo::Server(Double::default()));
    let client = demo::Client::in_process(double).await.unwrap();
    let done = client
        .delete_item(types::DeleteItemInput::new("1"))
        .await
        .unwrap();
    assert_eq!(done.text(), "deleted 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolbox_holds_an_in_process_double_and_asks_for_approval() {
    let double = Double::default();
    let deleted = Arc::clone(&double.deleted);
    let client = demo::Client::in_process(demo::Server(double))
        .await
        .unwrap();
    let mut tools = Toolbox::new();
    tools.add(client).unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    tools.with_approval(move |call: CallRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        async move {
            if call.arguments["id"] == "keep" {
                Verdict::refuse("the user keeps this one")
            } else {
                Verdict::Approve
            }
        }
    });

    let refused = tools
        .call_value("demo_delete_item", json!({"id": "keep"}))
        .await;
    assert!(
        matches!(&refused.outcome, Err(CallError::Refused { .. })),
        "{:?}",
        refused.outcome
    );
    assert_eq!(deleted.load(Ordering::SeqCst), 0, "a refused call ran");

    let approved = tools
        .call_value("demo_delete_item", json!({"id": "old"}))
        .await;
    assert_eq!(approved.for_model().text, "deleted old");
    assert_eq!(deleted.load(Ordering::SeqCst), 1);
    assert_eq!(asked.load(Ordering::SeqCst), 2);

    // The policy is asked about every call (it decides what may run); bad
    // arguments are refused against the locked schema, never reaching the
    // double.
    let sum = tools.call_value("demo_add", json!({"a": 2, "b": 40})).await;
    assert!(sum.for_model().text.contains("42"), "{:?}", sum.outcome);
    let bad = tools
        .call_value("demo_add", json!({"a": "two", "b": 40}))
        .await;
    assert!(bad.for_model().is_error);
    assert_eq!(asked.load(Ordering::SeqCst), 4);
}

/// Doubles with nothing implemented: what a recording or a replay lists
/// (the locked tools, prompts and templates), answered from elsewhere.
struct Locked;
impl everything::Handler for Locked {}
impl filesystem::Handler for Locked {}

const CANARY: &str = "cassette-canary-4b7e";

/// The calls of the session, recorded and replayed alike: text, an image,
/// an embedded resource, a prompt, a resource template, the environment
/// (the canary), and audio. Each result as its `Debug` text.
async fn session(
    everything: &everything::Client,
    filesystem: &filesystem::Client,
    wav: &str,
) -> Vec<String> {
    use everything::types as ev;
    let mut seen = vec![
        format!(
            "{:?}",
            everything.echo(ev::EchoInput::new("hello")).await.unwrap()
        ),
        format!(
            "{:?}",
            everything
                .get_tiny_image(ev::GetTinyImageInput::default())
                .await
                .unwrap()
        ),
        format!(
            "{:?}",
            everything
                .get_resource_reference(ev::GetResourceReferenceInput::new())
                .await
                .unwrap()
        ),
        format!(
            "{:?}",
            everything
                .prompts()
                .simple_prompt(everything::prompts::SimplePromptArguments::new())
                .await
                .unwrap()
        ),
        format!(
            "{:?}",
            everything
                .resources()
                .dynamic_text_resource("3")
                .await
                .unwrap()
        ),
        format!(
            "{:?}",
            everything
                .get_env(ev::GetEnvInput::default())
                .await
                .unwrap()
        ),
    ];
    let audio = filesystem
        .read_media_file(filesystem::types::ReadMediaFileInput::new(wav))
        .await
        .unwrap();
    // The typed output and the content blocks (the raw `structuredContent`
    // is stored with its keys sorted, as the cassette is written).
    seen.push(format!("{:?} {:?}", audio.output, audio.content));
    seen
}

/// A config whose servers cannot start: a replay never needs them.
fn unstartable(name: &str) -> ServerConfig {
    let mut config = Config::new()
        .server(name, ServerConfig::stdio("/nonexistent/mcp-server"))
        .unwrap();
    config.servers.remove(name).unwrap()
}

pub(super) fn tests_lockfile() -> mcpbind::Lockfile {
    mcpbind::Lockfile::read(crate::util::tests_dir().join("mcpbind.lock")).unwrap()
}

/// An error and its causes, as text.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text += &format!(": {e}");
        cause = e.source();
    }
    text
}

/// A cassette of one `echo` call, by hand.
fn one_echo(sha256: &str) -> String {
    format!(
        r#"{{
  "cassette_version": 1,
  "servers": {{
    "everything": {{
      "protocol_version": "2025-11-25",
      "tools": {{
        "echo": {{
          "calls": [{{"arguments": {{"message": "hi"}}, "result": {{"content": [{{"type": "text", "text": "Echo: hi"}}]}}}}],
          "sha256": "{sha256}"
        }}
      }}
    }}
  }}
}}
"#
    )
}

#[test]
fn a_cassette_the_lockfile_disagrees_with_is_refused_naming_file_line_and_tool() {
    use mcpbind::testing::{Cassette, CassetteError};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.json");
    let lockfile = tests_lockfile();
    let sha = |tool: &str| {
        lockfile.servers["everything"]
            .tools
            .iter()
            .find(|t| t.name == tool)
            .unwrap()
            .sha256
            .clone()
    };
    std::fs::write(&file, one_echo(&sha("echo"))).unwrap();
    Cassette::load(&file, &lockfile).unwrap();

    // Drift: the lockfile's `echo` changed.
    let mut drifted = lockfile.clone();
    let echo = drifted.servers.get_mut("everything").unwrap();
    let echo = echo.tools.iter_mut().find(|t| t.name == "echo").unwrap();
    echo.definition["description"] = "Echoes back, and more".into();
    echo.sha256 = mcpbind::hash::sha256_hex(&echo.definition);
    match Cassette::load(&file, &drifted) {
        Err(CassetteError::Drift {
            file: f,
            line,
            server,
            tools,
            ..
        }) => {
            assert_eq!((&*f, line, server.as_str()), (&*file, 7, "everything"));
            assert_eq!(tools, ["echo"]);
        }
        other => panic!("drift not refused: {other:?}"),
    }

    // Another protocol version.
    let mut older = lockfile.clone();
    older
        .servers
        .get_mut("everything")
        .unwrap()
        .protocol_version = "2025-06-18".into();
    let error = Cassette::load(&file, &older).unwrap_err();
    assert!(
        matches!(&error, CassetteError::Protocol { line: 4, recorded, .. } if recorded == "2025-11-25"),
        "{error:?}"
    );

    // Another set of servers.
    let mut other = lockfile.clone();
    other.servers.remove("everything");
    let error = Cassette::load(&file, &other).unwrap_err();
    assert!(
        matches!(&error, CassetteError::UnknownServer { line: 4, server, .. } if server == "everything"),
        "{error:?}"
    );

    // Truncated.
    let text = one_echo(&sha("echo"));
    std::fs::write(&file, &text[..text.len() / 2]).unwrap();
    let error = Cassette::load(&file, &lockfile).unwrap_err();
    assert!(
        matches!(&error, CassetteError::Parse { line: 8.., .. }),
        "{error:?}"
    );
    assert!(error
        .to_string()
        .starts_with(&format!("{}:", file.display())));

    // A recorded result the locked outputSchema no longer accepts.
    let bad = format!(
        r#"{{"cassette_version": 1, "servers": {{"everything": {{"protocol_version": "2025-11-25",
"tools": {{"get-structured-content": {{"sha256": "{}", "calls": [
{{"arguments": {{"location": "New York"}}, "result": {{"content": [], "structuredContent": {{"temperature": "hot"}}}}}}]}}}}}}}}}}"#,
        sha("get-structured-content")
    );
    std::fs::write(&file, bad).unwrap();
    match Cassette::load(&file, &lockfile) {
        Err(CassetteError::Output {
            line,
            tool,
            violations,
            ..
        }) => {
            assert_eq!((line, tool.as_str()), (2, "get-structured-content"));
            assert!(!violations.is_empty());
        }
        other => panic!("a bad recorded output was not refused: {other:?}"),
    }
}

#[test]
fn two_recorders_of_one_file_merge_or_the_second_is_refused_by_name() {
    use mcpbind::testing::{Cassette, CassetteError, Recorder};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.json");
    std::fs::write(&file, one_echo("0")).unwrap();
    // Another recorder holds the file.
    let lock = dir.path().join("c.json.lock");
    std::fs::write(&lock, "").unwrap();
    let second = Recorder::new(&file);
    match second.save() {
        Err(CassetteError::Busy { lock: named, .. }) => assert_eq!(named, lock),
        other => panic!("not refused: {other:?}"),
    }
    std::fs::remove_file(&lock).unwrap();
    // Saved in turn, a recorder's calls join the file's.
    second.save().unwrap();
    let read = Cassette::read(&file).unwrap();
    assert_eq!(read.servers["everything"].tools["echo"].calls.len(), 1);
    let mut both = read.clone();
    both.merge(read);
    assert_eq!(both.servers["everything"].tools["echo"].calls.len(), 2);
}

/// A cassette of one `simple-prompt` and one read of a URI of the
/// `Dynamic Text Resource` template, by hand, with the hashes given.
fn a_prompt_and_a_read(prompt_sha256: &str, template_sha256: &str) -> String {
    format!(
        r#"{{
  "cassette_version": 1,
  "servers": {{
    "everything": {{
      "prompts": {{
        "simple-prompt": {{
          "calls": [{{"arguments": {{}}, "result": {{"messages": []}}}}],
          "sha256": "{prompt_sha256}"
        }}
      }},
      "protocol_version": "2025-11-25",
      "resources": {{
        "demo://resource/dynamic/text/3": {{
          "reads": [{{"result": {{"contents": []}}}}],
          "sha256": "{template_sha256}",
          "template": "Dynamic Text Resource"
        }}
      }}
    }}
  }}
}}
"#
    )
}

#[test]
fn a_cassette_whose_prompts_or_resource_templates_moved_is_refused_naming_them() {
    use mcpbind::testing::{Cassette, CassetteError};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.json");
    let lockfile = tests_lockfile();
    let locked = &lockfile.servers["everything"];
    let prompt = locked.prompts.iter().find(|p| p.name == "simple-prompt");
    let template = (locked.resource_templates.iter()).find(|t| t.name == "Dynamic Text Resource");
    let (prompt, template) = (prompt.unwrap(), template.unwrap());
    std::fs::write(&file, a_prompt_and_a_read(&prompt.sha256, &template.sha256)).unwrap();
    let cassette = Cassette::load(&file, &lockfile).unwrap();
    let tape = &cassette.servers["everything"];
    assert_eq!(tape.prompts["simple-prompt"].sha256, prompt.sha256);
    let read = &tape.resources["demo://resource/dynamic/text/3"];
    assert_eq!(read.template.as_deref(), Some("Dynamic Text Resource"));

    // The prompt changed in the lockfile: refused, naming it and its line.
    let mut moved = lockfile.clone();
    let entry = moved.servers.get_mut("everything").unwrap();
    let entry = (entry.prompts.iter_mut()).find(|p| p.name == "simple-prompt");
    let entry = entry.unwrap();
    entry.definition["description"] = "A prompt, and more".into();
    entry.sha256 = mcpbind::hash::sha256_hex(&entry.definition);
    let error = Cassette::load(&file, &moved).unwrap_err();
    match &error {
        CassetteError::Drift {
            line,
            tools,
            prompts,
            resource_templates,
            ..
        } => {
            assert_eq!((*line, tools.len()), (6, 0));
            assert_eq!(prompts, &["simple-prompt"]);
            assert!(resource_templates.is_empty());
        }
        other => panic!("a moved prompt was not refused: {other:?}"),
    }
    assert!(
        error.to_string().contains(
            ":6: server `everything` changed since it was recorded: prompt `simple-prompt`;"
        ),
        "{error}"
    );

    // The template changed: refused, naming it at the URI read through it.
    let mut moved = lockfile.clone();
    let entry = moved.servers.get_mut("everything").unwrap();
    let entry = (entry.resource_templates.iter_mut()).find(|t| t.name == "Dynamic Text Resource");
    let entry = entry.unwrap();
    entry.definition["uriTemplate"] = "demo://resource/dynamic/text/v2/{resourceId}".into();
    entry.sha256 = mcpbind::hash::sha256_hex(&entry.definition);
    match Cassette::load(&file, &moved) {
        Err(CassetteError::Drift {
            line,
            prompts,
            resource_templates,
            ..
        }) => {
            assert_eq!((line, prompts.len()), (13, 0));
            assert_eq!(resource_templates, ["Dynamic Text Resource"]);
        }
        other => panic!("a moved resource template was not refused: {other:?}"),
    }
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    #[test]
    fn mcpbind_call_record_appends_one_call_to_a_cassette_without_its_secret() {
        const SECRET: &str = "call-record-canary-93c1";
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcpbind.toml"),
            crate::util::stdio_config(dir.path()),
        )
        .unwrap();
        std::fs::copy(
            crate::util::tests_dir().join("mcpbind.lock"),
            dir.path().join("mcpbind.lock"),
        )
        .unwrap();
        let file = dir.path().join("made.cassette.json");
        let env = [("MCPBIND_TEST_CANARY", SECRET)];
        let record = |tool: &str, arguments: &str| {
            let args = [
                "call",
                "demo",
                tool,
                arguments,
                "--record",
                "made.cassette.json",
            ];
            let out = crate::util::mcpbind_env(dir.path(), &args, &env);
            assert_eq!(out.code, Some(0), "{}", out.stderr);
            out
        };
        record("add", r#"{"a": 2, "b": 40}"#);
        let first = std::fs::read_to_string(&file).unwrap();
        // A second call, to a cassette that holds another: appended. The
        // secret (the demo server's `DEMO_TOKEN`) goes out in the arguments
        // and comes back in the result.
        let message = format!(r#"{{"message": "token {SECRET}"}}"#);
        let out = record("echo", &message);
        assert!(out.stdout.contains(SECRET), "{}", out.stdout);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(SECRET), "the secret reached the cassette");
        assert!(text.contains("token ${MCPBIND_TEST_CANARY"), "{text}");

        // Both calls, each beside the locked hash, at the locked protocol
        // version: the cassette loads against the lockfile.
        let lockfile = tests_lockfile();
        let cassette = mcpbind::testing::Cassette::load(&file, &lockfile).unwrap();
        assert_eq!(cassette.to_text(), text);
        let demo_tape = &cassette.servers["demo"];
        assert_eq!(demo_tape.tools.len(), 2, "{first}\n{text}");
        assert!(first.contains("\"add\"") && !first.contains("\"echo\""));
        for (name, tape) in &demo_tape.tools {
            let locked = lockfile.servers["demo"]
                .tools
                .iter()
                .find(|t| &t.name == name);
            assert_eq!(tape.sha256, locked.unwrap().sha256, "{name}");
            assert_eq!(tape.calls.len(), 1, "{name}");
        }
        let add = &demo_tape.tools["add"].calls[0];
        assert_eq!(add.arguments, Some(json!({"a": 2, "b": 40})));
        assert_eq!(
            add.result.as_ref().unwrap()["structuredContent"],
            json!({"sum": 42})
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_session_recorded_live_replays_offline_with_the_same_typed_results() {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::util::stdio_servers_with(dir.path(), |name, server| match name {
            "everything" => server.env("X", "${MCPBIND_CASSETTE_CANARY}"),
            _ => server,
        });
        let samples = b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\0\0\0\0";
        let wav = dir.path().join("files").join("beep.wav");
        std::fs::write(&wav, samples).unwrap();
        let wav = wav.canonicalize().unwrap().display().to_string();

        // Recorded against the real servers.
        let file = dir.path().join("session.cassette.json");
        let recorder = mcpbind::testing::Recorder::new(&file);
        let live = |name| mcpbind::Client::connect(&config, name);
        let recording = (
            everything::Client::in_process(everything::Server(Locked))
                .record(&recorder, live("everything").await.unwrap())
                .await
                .unwrap(),
            filesystem::Client::in_process(filesystem::Server(Locked))
                .record(&recorder, live("filesystem").await.unwrap())
                .await
                .unwrap(),
        );
        let recorded = session(&recording.0, &recording.1, &wav).await;
        recorder.save().unwrap();
        // The live result had the secret; the cassette has its name only.
        assert!(recorded[5].contains(CANARY), "{}", recorded[5]);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains(CANARY), "the canary reached the cassette");
        assert!(text.contains("${MCPBIND_CASSETTE_CANARY}"));
        // Written like the lockfile.
        let cassette = mcpbind::testing::Cassette::load(&file, &tests_lockfile()).unwrap();
        assert_eq!(cassette.to_text(), text);
        assert!(text.ends_with("}\n") && text.contains("\n  \"servers\": {\n"));
        let locked = &tests_lockfile().servers["everything"];
        let echo = locked.tools.iter().find(|t| t.name == "echo").unwrap();
        assert_eq!(
            cassette.servers["everything"].tools["echo"].sha256,
            echo.sha256
        );
        // So are the prompt's and the resource template's.
        let prompt = locked.prompts.iter().find(|p| p.name == "simple-prompt");
        let tape = &cassette.servers["everything"];
        assert_eq!(tape.prompts["simple-prompt"].sha256, prompt.unwrap().sha256);
        let read = &tape.resources["demo://resource/dynamic/text/3"];
        let template =
            (locked.resource_templates.iter()).find(|t| t.name == "Dynamic Text Resource");
        assert_eq!(read.template.as_deref(), Some("Dynamic Text Resource"));
        assert_eq!(
            read.sha256.as_deref(),
            Some(template.unwrap().sha256.as_str())
        );

        // Replayed with servers that cannot start: the same typed results.
        let replay = (
            everything::Client::in_process(everything::Server(Locked))
                .config(unstartable("everything"))
                .replay(&cassette)
                .await
                .unwrap(),
            filesystem::Client::in_process(filesystem::Server(Locked))
                .config(unstartable("filesystem"))
                .replay(&cassette)
                .await
                .unwrap(),
        );
        let replayed = session(&replay.0, &replay.1, &wav).await;
        for (live, again) in recorded.iter().zip(&replayed).take(5) {
            assert_eq!(live, again);
        }
        assert_eq!(recorded[6], replayed[6]);
        // `get-env` answers as recorded: the secret's name, not its value.
        assert!(replayed[5].contains("${MCPBIND_CASSETTE_CANARY}"));

        // An unrecorded call names the tool and shows the closest recorded
        // arguments as a diff.
        let missed = replay
            .0
            .echo(everything::types::EchoInput::new("hullo"))
            .await
            .unwrap_err();
        let missed = chain(&missed);
        assert!(missed.contains("tool `echo` was not recorded"), "{missed}");
        assert!(
            missed.contains("- /message: \"hello\"") && missed.contains("+ /message: \"hullo\""),
            "{missed}"
        );
        // Identical calls get their answers in order: `echo("hello")` was
        // recorded once, and the replay above used it.
        let again = replay
            .0
            .echo(everything::types::EchoInput::new("hello"))
            .await
            .unwrap_err();
        let again = chain(&again);
        assert!(again.contains("called more often than recorded"), "{again}");
    }
}
