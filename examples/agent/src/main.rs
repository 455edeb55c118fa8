//! An agent loop over locked, typed MCP tools, with a scripted model (no
//! network, no API key): the model's turns are a fixed script. It lists the
//! tools, calls two servers (the bundled demo server and
//! `@modelcontextprotocol/server-filesystem` on a temporary directory) in
//! one turn, sends a bad argument, recovers from the error text, and
//! answers. The run prints the transcript.
//!
//! ```text
//! MCPBIND_DEMO_SERVER=target/debug/mcpbind-demo-server \
//! MCPBIND_FILESYSTEM_SERVER=tests/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js \
//!   cargo run -p mcpbind-example-agent
//! ```
//!
//! Without the variables it runs the demo server through cargo and the
//! filesystem server through `npx`.

mcpbind::include_bindings!();

use mcpbind::{Config, Toolbox};
use serde_json::{json, Value};

/// One tool call the model asks for.
struct Call {
    name: &'static str,
    arguments: Value,
}

/// What the model says in a turn.
enum Turn {
    /// Call these tools (all at once), then show me the results.
    Calls(Vec<Call>),
    /// The final answer.
    Answer(String),
}

/// A model that follows a script. Its third turn reads the error the
/// toolbox returned and corrects the argument from it, as a real model does.
struct ScriptedModel {
    workdir: String,
    turn: usize,
}

impl ScriptedModel {
    fn next(&mut self, last_results: &[(String, bool)]) -> Turn {
        self.turn += 1;
        let notes = format!("{}/notes.txt", self.workdir);
        match self.turn {
            1 => Turn::Calls(vec![
                Call {
                    name: "demo_add",
                    // Models often write integers as floats.
                    arguments: json!({"a": 2, "b": 40.0}),
                },
                Call {
                    name: "filesystem_write_file",
                    arguments: json!({"path": notes, "content": "2 + 40 = 42\n"}),
                },
            ]),
            2 => Turn::Calls(vec![Call {
                name: "demo_get_weather",
                arguments: json!({"city": "Lisbon", "units": "kelvin"}),
            }]),
            3 => {
                // Read the allowed values out of the error text.
                let (error, _) = &last_results[0];
                let Some(allowed) = error
                    .split("expected one of ")
                    .nth(1)
                    .and_then(|list| list.split('"').nth(1))
                else {
                    return Turn::Answer(format!("I could not make sense of: {error}"));
                };
                Turn::Calls(vec![
                    Call {
                        name: "demo_get_weather",
                        arguments: json!({"city": "Lisbon", "units": allowed}),
                    },
                    Call {
                        name: "filesystem_read_text_file",
                        arguments: json!({"path": notes}),
                    },
                ])
            }
            _ => Turn::Answer(format!(
                "Done: the sum is in {notes}, and I have the weather in Lisbon."
            )),
        }
    }
}

fn config(workdir: &str) -> Result<Config, String> {
    let demo = match std::env::var("MCPBIND_DEMO_SERVER") {
        Ok(path) => format!("command = {path:?}"),
        Err(_) => {
            "command = \"cargo\"\nargs = [\"run\", \"--quiet\", \"-p\", \"mcpbind-demo-server\"]"
                .into()
        }
    };
    let filesystem = match std::env::var("MCPBIND_FILESYSTEM_SERVER") {
        Ok(path) => format!("command = \"node\"\nargs = [{path:?}, {workdir:?}]"),
        Err(_) => format!(
            "command = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-filesystem@2026.8.31\", {workdir:?}]"
        ),
    };
    Config::from_toml_str(&format!(
        "[servers.demo]\n{demo}\n\n[servers.filesystem]\n{filesystem}\n"
    ))
}

fn one_line(text: &str) -> String {
    text.replace('\n', " ⏎ ").trim_end_matches(" ⏎ ").to_owned()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workdir = std::env::temp_dir().join(format!("mcpbind-agent-{}", std::process::id()));
    std::fs::create_dir_all(&workdir)?;
    let workdir = workdir.canonicalize()?.display().to_string();
    let result = run(&workdir).await;
    let _ = std::fs::remove_dir_all(&workdir);
    result
}

async fn run(workdir: &str) -> Result<(), Box<dyn std::error::Error>> {
    let config = config(workdir)?;
    let mut tools = Toolbox::new();
    tools.add(demo::Client::connect(&config).await?)?;
    tools.add(filesystem::Client::connect(&config).await?)?;
    // The model won't need these; they stay out of its context.
    tools.hold_back_tool("demo_crash")?;
    tools.hold_back_tool("demo_sleep")?;

    // What a real loop sends with each request (Anthropic's shape here).
    let definitions = tools.anthropic_tools().tools;
    println!("system: {} tools offered", definitions.len());
    println!("{}", tools.render_markdown().replace(workdir, "<workdir>"));

    let mut model = ScriptedModel {
        workdir: workdir.to_owned(),
        turn: 0,
    };
    let mut results: Vec<(String, bool)> = Vec::new();
    loop {
        match model.next(&results) {
            Turn::Answer(text) => {
                println!("model: {}", text.replace(workdir, "<workdir>"));
                break;
            }
            Turn::Calls(calls) => {
                for call in &calls {
                    let args = call.arguments.to_string().replace(workdir, "<workdir>");
                    println!("model -> {} {args}", call.name);
                }
                // The calls of one turn run concurrently.
                let done = join_calls(&tools, &calls).await?;
                results.clear();
                for (call, outcome) in calls.iter().zip(done) {
                    let reply = outcome.for_model();
                    let tag = if reply.is_error { "error" } else { "ok" };
                    let text = one_line(&reply.text).replace(workdir, "<workdir>");
                    println!("tool  <- {} [{tag}] {text}", call.name);
                    results.push((reply.text, reply.is_error));
                }
            }
        }
    }
    Ok(())
}

/// Runs the calls of one turn concurrently, results in call order.
async fn join_calls(
    tools: &Toolbox,
    calls: &[Call],
) -> Result<Vec<mcpbind::ToolCall>, tokio::task::JoinError> {
    let mut handles = Vec::new();
    for call in calls {
        let tools = tools.clone();
        let name = call.name;
        let arguments = call.arguments.clone();
        handles.push(tokio::spawn(async move {
            tools.call_value(name, arguments).await
        }));
    }
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await?);
    }
    Ok(out)
}
