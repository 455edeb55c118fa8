//! The agent's loop, offline: the servers are in-process doubles (the
//! locked demo and filesystem servers, and the demo server again as the
//! unlocked `scratch`), the model is the script; the test asserts what the
//! loop sent back to the model and what reached the servers.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcpbind::testing::InProcess;
use mcpbind::{Config, HandlerResult, Reply, ServerConfig, ToolFailure, Toolbox};
use serde_json::json;

use crate::{agent, demo, filesystem};

/// A directory no test touches: the doubles keep files in memory.
const WORKDIR: &str = "/offline/agent";

/// The 1×1 PNG of `main.rs`, as base64.
const PNG_BASE64: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// The demo server: adds, reports the weather, echoes; counts what runs
/// that the approval should have stopped.
#[derive(Clone, Default)]
struct Demo {
    should_not_run: Arc<AtomicUsize>,
}

impl demo::Handler for Demo {
    async fn add(&self, input: demo::types::AddInput) -> HandlerResult<demo::types::AddOutput> {
        Ok(demo::types::AddOutput {
            sum: input.a + input.b,
        }
        .into())
    }

    async fn get_weather(
        &self,
        input: demo::types::GetWeatherInput,
    ) -> HandlerResult<demo::types::GetWeatherOutput> {
        let output = json!({"city": input.city, "temperature": 21.5,
            "conditions": "sunny", "units": "celsius"});
        serde_json::from_value(output)
            .map(Reply::new)
            .map_err(|e| ToolFailure::new(e.to_string()))
    }

    async fn echo(&self, input: demo::types::EchoInput) -> HandlerResult<()> {
        let times = input.repeat.unwrap_or(1) as usize;
        Ok(Reply::text(vec![input.message; times].join(" ")))
    }

    async fn delete_item(&self, _input: demo::types::DeleteItemInput) -> HandlerResult<()> {
        self.should_not_run.fetch_add(1, Ordering::SeqCst);
        Ok(Reply::text("deleted"))
    }

    async fn set_mode(&self, _input: demo::types::SetModeInput) -> HandlerResult<()> {
        self.should_not_run.fetch_add(1, Ordering::SeqCst);
        Ok(Reply::text("mode set"))
    }
}

/// The filesystem server over files in memory (`chart.png` is there).
#[derive(Clone, Default)]
struct Files {
    written: Arc<Mutex<Vec<(String, String)>>>,
}

impl filesystem::Handler for Files {
    async fn write_file(
        &self,
        input: filesystem::types::WriteFileInput,
    ) -> HandlerResult<filesystem::types::WriteFileOutput> {
        let text = format!("Successfully wrote to {}", input.path);
        self.written
            .lock()
            .unwrap()
            .push((input.path, input.content));
        Ok(Reply::new(filesystem::types::WriteFileOutput {
            content: text.clone(),
        })
        .with_text(text))
    }

    async fn read_text_file(
        &self,
        input: filesystem::types::ReadTextFileInput,
    ) -> HandlerResult<filesystem::types::ReadTextFileOutput> {
        let written = self.written.lock().unwrap();
        let Some((_, content)) = written.iter().rev().find(|(path, _)| *path == input.path) else {
            return Err(ToolFailure::new(format!("ENOENT: {}", input.path)));
        };
        Ok(Reply::new(filesystem::types::ReadTextFileOutput {
            content: content.clone(),
        })
        .with_text(content.clone()))
    }

    async fn read_media_file(
        &self,
        input: filesystem::types::ReadMediaFileInput,
    ) -> HandlerResult<filesystem::types::ReadMediaFileOutput> {
        if input.path != format!("{WORKDIR}/chart.png") {
            return Err(ToolFailure::new(format!("ENOENT: {}", input.path)));
        }
        let image = json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"});
        let output = serde_json::from_value(json!({ "content": [image] }))
            .map_err(|e| ToolFailure::new(e.to_string()))?;
        Ok(Reply {
            output,
            content: vec![image],
        })
    }
}

/// `scratch`: the demo double, offered two of its tools.
fn scratch(double: Demo) -> mcpbind::Client {
    let mut config = Config::new()
        .server(
            "scratch",
            ServerConfig::stdio("(in-process)").enabled_tools(["echo", "set_mode"]),
        )
        .unwrap();
    let config = config.servers.remove("scratch").unwrap();
    let untyped: fn(mcpbind::Client) -> mcpbind::Client = |client| client;
    InProcess::new(
        "scratch",
        demo::Client::PROTOCOL_VERSION,
        demo::TOOLS,
        demo::Server(double),
        untyped,
    )
    .config(config)
    .client()
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_loop_runs_offline() {
    let (demo_double, files) = (Demo::default(), Files::default());
    let mut tools = Toolbox::new();
    tools
        .add(
            demo::Client::in_process(demo::Server(demo_double.clone()))
                .await
                .unwrap(),
        )
        .unwrap();
    tools
        .add(
            filesystem::Client::in_process(filesystem::Server(files.clone()))
                .await
                .unwrap(),
        )
        .unwrap();
    tools
        .add_unlocked(scratch(demo_double.clone()))
        .await
        .unwrap();
    agent::prepare(&mut tools).unwrap();
    let mut model = agent::script(WORKDIR).unwrap();

    let answer = agent::run(&tools, &mut model, WORKDIR).await.unwrap();
    assert!(
        answer.starts_with("Done: the sum is in /offline/agent/notes.txt"),
        "{answer}"
    );
    assert!(model.is_done());

    // What reached the servers: the approved write, nothing refused.
    assert_eq!(
        *files.written.lock().unwrap(),
        [(format!("{WORKDIR}/notes.txt"), "2 + 40 = 42\n".to_owned())]
    );
    assert_eq!(demo_double.should_not_run.load(Ordering::SeqCst), 0);

    // What the loop sent back, in Anthropic's shape, call by call.
    let sent: Vec<(usize, &str, bool, String)> = model
        .sent()
        .iter()
        .map(|r| {
            let content = &r.result.message["content"];
            let text = match content.as_str() {
                Some(text) => text.to_owned(),
                None => content.to_string(),
            };
            (r.step, r.call.name.as_str(), r.result.is_error, text)
        })
        .collect();
    let expect = |step, name, is_error, needle: &str| {
        let found = sent
            .iter()
            .find(|(s, n, _, _)| *s == step && *n == name)
            .unwrap_or_else(|| panic!("no reply to {name} at step {step}: {sent:#?}"));
        assert_eq!(found.2, is_error, "{found:?}");
        assert!(found.3.contains(needle), "{found:?} lacks {needle}");
    };
    expect(1, "demo_add", false, "42");
    expect(
        1,
        "filesystem_write_file",
        false,
        "Successfully wrote to /offline/agent/notes.txt",
    );
    // The model's bad unit comes back as an error it can correct from.
    expect(2, "demo_get_weather", true, "expected one of");
    expect(3, "demo_get_weather", false, "sunny");
    expect(3, "filesystem_read_text_file", false, "2 + 40 = 42");
    expect(4, "filesystem_read_media_file", false, "\"type\":\"image\"");
    expect(
        4,
        "demo_delete_item",
        true,
        "is destructive and the user said no",
    );
    expect(5, "scratch_echo", false, "unlocked unlocked");
    expect(
        5,
        "scratch_set_mode",
        true,
        "is unlocked (not reviewed) and not read-only",
    );
    assert_eq!(sent.len(), 9);
    for reply in model.sent() {
        assert_eq!(reply.result.message["tool_use_id"], reply.call.id.as_str());
    }
}

#[test]
fn the_script_takes_any_directory() {
    // A Windows path's backslashes are escaped inside the JSON strings.
    let mut model = agent::script(r"C:\Users\a b\agent").unwrap();
    let turn = model.respond().unwrap();
    let write: serde_json::Value = serde_json::from_str(&turn.calls[1].arguments).unwrap();
    assert_eq!(write["path"], r"C:\Users\a b\agent/notes.txt");
}
