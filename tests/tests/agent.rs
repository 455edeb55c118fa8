//! The agent loop end to end with no network: a scripted model (each
//! provider's raw responses, `tests/scripts/agent.*.json`) calls the tools
//! of servers replayed from a cassette (`tests/cassettes/agent.cassette.json`,
//! recorded from server-everything and server-filesystem), through a
//! `Toolbox` with an approval; what the agent sends back is checked in each
//! provider's shape. No server is started: the config's command does not
//! exist.

use std::sync::{Arc, Mutex};

use mcpbind::testing::{Cassette, ScriptError, ScriptedModel, Sent};
use mcpbind::{CallRequest, Config, Provider, ServerConfig, Toolbox, Verdict};
use mcpbind_tests::{everything, filesystem};
use serde_json::{json, Value};

use crate::util::tests_dir;

/// Doubles with nothing implemented: the replay answers.
struct Locked;
impl everything::Handler for Locked {}
impl filesystem::Handler for Locked {}

/// A server config whose command does not exist.
fn unstartable(name: &str) -> ServerConfig {
    let mut config = Config::new()
        .server(name, ServerConfig::stdio("/nonexistent/mcp-server"))
        .unwrap();
    config.servers.remove(name).unwrap()
}

/// The replayed servers in a toolbox whose approval refuses destructive
/// calls, and what it was asked.
async fn toolbox() -> (Toolbox, Arc<Mutex<Vec<CallRequest>>>) {
    let lockfile = mcpbind::Lockfile::read(tests_dir().join("mcpbind.lock")).unwrap();
    let file = tests_dir().join("cassettes/agent.cassette.json");
    let cassette = Cassette::load(file, &lockfile).unwrap();
    let mut tools = Toolbox::new();
    tools
        .add(
            everything::Client::in_process(everything::Server(Locked))
                .config(unstartable("everything"))
                .replay(&cassette)
                .await
                .unwrap(),
        )
        .unwrap();
    tools
        .add(
            filesystem::Client::in_process(filesystem::Server(Locked))
                .config(unstartable("filesystem"))
                .replay(&cassette)
                .await
                .unwrap(),
        )
        .unwrap();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    tools.with_approval(move |call: CallRequest| {
        let verdict = if call.destructive {
            Verdict::refuse("the user said no")
        } else {
            Verdict::Approve
        };
        log.lock().unwrap().push(call);
        async move { verdict }
    });
    (tools, asked)
}

/// The agent under test: the loop a program writes, over any provider.
async fn agent(tools: &Toolbox, model: &mut ScriptedModel) -> Result<String, ScriptError> {
    loop {
        let turn = model.respond()?;
        if turn.is_final() {
            return Ok(turn.text);
        }
        for call in &turn.calls {
            let done = tools.call(&call.name, &call.arguments).await;
            model.send(done.for_provider(model.provider(), &call.id))?;
        }
    }
}

const SCRIPTS: [(&str, Provider); 4] = [
    ("agent.openai-chat.json", Provider::OpenAiChat),
    ("agent.openai-responses.json", Provider::OpenAiResponses),
    ("agent.anthropic.json", Provider::Anthropic),
    ("agent.gemini.json", Provider::Gemini),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_loop_runs_offline_for_every_provider() {
    for (file, provider) in SCRIPTS {
        let (tools, asked) = toolbox().await;
        let mut model = ScriptedModel::load(tests_dir().join("scripts").join(file)).unwrap();
        assert_eq!(model.provider(), provider);
        let answer = agent(&tools, &mut model).await.unwrap();
        assert!(answer.starts_with("I echoed hello"), "{file}: {answer}");
        assert!(model.is_done(), "{file}");
        assert_eq!(model.steps_taken(), 4, "{file}");

        // The approval was asked about every call, the destructive one with
        // what it would do.
        let asked = asked.lock().unwrap();
        let tools_asked: Vec<&str> = asked.iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(
            tools_asked,
            [
                "echo",
                "get-tiny-image",
                "get-resource-reference",
                "read_media_file",
                "write_file"
            ],
            "{file}"
        );
        let write = &asked[4];
        assert_eq!(write.server, "filesystem");
        assert_eq!(write.name, "filesystem_write_file");
        assert!(write.destructive && !write.read_only);
        assert_eq!(
            write.arguments,
            json!({"path": "/tmp/mcpbind-agent/notes.txt", "content": "hello\n"})
        );

        let replies = model.sent();
        assert_eq!(replies.len(), 5, "{file}");
        let steps: Vec<usize> = replies.iter().map(|r| r.step).collect();
        assert_eq!(steps, [1, 1, 2, 2, 3], "{file}");
        for reply in replies {
            assert_eq!(reply.result.is_error, reply.step == 3, "{file}: {reply:?}");
        }
        check_shapes(provider, replies);
    }
}

/// Every string of a value, joined: what the model reads of it.
fn strings(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(strings).collect::<Vec<_>>().join("\n"),
        Value::Object(map) => map.values().map(strings).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

/// Text, image, embedded resource, audio and a refusal, each where the
/// provider takes it.
fn check_shapes(provider: Provider, replies: &[Sent]) {
    let [echo, image, resource, audio, refused] = replies else {
        panic!("{replies:?}");
    };
    let message = |r: &Sent| r.result.message.clone();
    for reply in replies {
        assert_eq!(
            reply_id(provider, &reply.result.message),
            reply.call.id,
            "{provider:?}"
        );
    }
    assert!(strings(&message(echo)).contains("Echo: hello"), "{echo:?}");
    assert!(
        strings(&message(resource)).contains("Resource 1: This is a plaintext resource"),
        "{resource:?}"
    );
    assert!(
        strings(&message(refused)).contains("refused and not made: the user said no"),
        "{refused:?}"
    );
    let png = |url: &str| url.starts_with("data:image/png;base64,iVBOR");
    match provider {
        Provider::OpenAiChat => {
            assert_eq!(echo.result.message["role"], "tool");
            // Images and WAV audio go in a user message after the tool
            // messages.
            let parts = &image.result.follow_up[0]["content"];
            assert!(
                png(parts[0]["image_url"]["url"].as_str().unwrap()),
                "{image:?}"
            );
            let audio_part = &audio.result.follow_up[0]["content"][0];
            assert_eq!(audio_part["type"], "input_audio");
            assert_eq!(audio_part["input_audio"]["format"], "wav");
        }
        Provider::OpenAiResponses => {
            assert_eq!(echo.result.message["type"], "function_call_output");
            let output = image.result.message["output"].as_array().unwrap();
            let picture = output.iter().find(|p| p["type"] == "input_image").unwrap();
            assert!(png(picture["image_url"].as_str().unwrap()), "{image:?}");
            assert!(
                strings(&message(audio)).contains("left out, OpenAI Responses does not accept it"),
                "{audio:?}"
            );
        }
        Provider::Anthropic => {
            assert_eq!(echo.result.message["type"], "tool_result");
            let content = image.result.message["content"].as_array().unwrap();
            let picture = content.iter().find(|p| p["type"] == "image").unwrap();
            assert_eq!(picture["source"]["media_type"], "image/png");
            assert!(
                strings(&message(audio)).contains("left out, Anthropic does not accept it"),
                "{audio:?}"
            );
            assert_eq!(refused.result.message["is_error"], true);
        }
        _ => {
            assert_eq!(
                echo.result.message["functionResponse"]["name"],
                "everything_echo"
            );
            let parts = &image.result.message["functionResponse"]["parts"];
            assert_eq!(parts[0]["inlineData"]["mimeType"], "image/png", "{image:?}");
            assert_eq!(
                audio.result.follow_up[0]["inlineData"]["mimeType"],
                "audio/wav"
            );
            assert!(refused.result.message["functionResponse"]["response"]
                .get("error")
                .is_some());
        }
    }
}

/// The call id a result answers (Gemini's scripts carry none: `""`).
fn reply_id(provider: Provider, message: &Value) -> String {
    let id = match provider {
        Provider::OpenAiChat => &message["tool_call_id"],
        Provider::OpenAiResponses => &message["call_id"],
        Provider::Anthropic => &message["tool_use_id"],
        _ => &message["functionResponse"]["id"],
    };
    id.as_str().unwrap_or_default().to_owned()
}

/// An agent that forgets a call's result, or answers in another
/// provider's shape, is caught by the model, naming the script and step.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_drops_a_result_or_mixes_shapes_is_caught() {
    let (tools, _) = toolbox().await;
    let script = tests_dir().join("scripts/agent.anthropic.json");
    let mut model = ScriptedModel::load(&script).unwrap();
    let turn = model.respond().unwrap();
    let first = &turn.calls[0];
    let done = tools.call(&first.name, &first.arguments).await;
    // OpenAI's shape to an Anthropic script.
    let error = model
        .send(done.for_provider(Provider::OpenAiChat, &first.id))
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("expected an Anthropic `tool_result` block (`tool_use_id`) answering `everything_echo` (id `toolu_011`), `everything_get-tiny-image` (id `toolu_012`)"),
        "{error}"
    );
    model
        .send(done.for_provider(Provider::Anthropic, &first.id))
        .unwrap();
    // The image call is left unanswered.
    let error = model.respond().unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}, step 1: the agent asked for the next response with calls unanswered: `everything_get-tiny-image` (id `toolu_012`)",
            script.display()
        )
    );
}
