//! An agent loop over locked, typed MCP tools, with a scripted model (no
//! network, no API key): the model's turns are a fixed script. It lists the
//! tools, calls two servers (the bundled demo server and
//! `@modelcontextprotocol/server-filesystem` on a temporary directory) in
//! one turn, sends a bad argument, recovers from the error text, reads an
//! image (shown as each provider takes it back: OpenAI Chat Completions,
//! OpenAI Responses, Anthropic, Gemini), tries a destructive call that the
//! host's approval hook refuses, uses a server chosen at run time that the
//! lockfile doesn't hold (its live tools, labelled unlocked: the approval
//! lets only its read-only ones run), and answers. The run prints the
//! transcript.
//!
//! ```text
//! MCPBIND_DEMO_SERVER=target/debug/mcpbind-demo-server \
//! MCPBIND_FILESYSTEM_SERVER=tests/servers/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js \
//!   cargo run -p mcpbind-example-agent
//! ```
//!
//! Without the variables it runs the demo server built beside it (`cargo
//! build -p mcpbind-demo-server`) and the filesystem server through `npx`.

mcpbind::include_bindings!();

use mcpbind::{CallRequest, Config, Provider, ServerConfig, Toolbox, Verdict};
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
            4 => Turn::Calls(vec![
                Call {
                    name: "filesystem_read_media_file",
                    arguments: json!({"path": format!("{}/chart.png", self.workdir)}),
                },
                Call {
                    name: "demo_delete_item",
                    arguments: json!({"id": "notes"}),
                },
            ]),
            5 => Turn::Calls(vec![
                Call {
                    name: "scratch_echo",
                    arguments: json!({"message": "unlocked", "repeat": 2}),
                },
                Call {
                    name: "scratch_set_mode",
                    arguments: json!({"mode": "fast-mode"}),
                },
            ]),
            _ => Turn::Answer(format!(
                "Done: the sum is in {notes}, I have the weather in Lisbon and I saw the chart; deleting needs your approval, and the scratch server's mode stays as it is."
            )),
        }
    }
}

fn config(workdir: &str) -> Result<Config, mcpbind::ConfigError> {
    // Never through `cargo run`, which waits on cargo's locks while another
    // build holds them: the demo server built beside this example.
    let demo = || match std::env::var("MCPBIND_DEMO_SERVER") {
        Ok(path) => ServerConfig::stdio(path),
        Err(_) => ServerConfig::stdio(beside_this_program("mcpbind-demo-server")),
    };
    let filesystem = match std::env::var("MCPBIND_FILESYSTEM_SERVER") {
        Ok(path) => ServerConfig::stdio("node").args([path.as_str(), workdir]),
        Err(_) => ServerConfig::stdio("npx").args([
            "-y",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            workdir,
        ]),
    };
    // `scratch` is not in mcpbind.lock: a server the user picked at run
    // time (here, another demo server), offered two of its tools.
    Config::new()
        .server("demo", demo())?
        .server("filesystem", filesystem)?
        .server("scratch", demo().enabled_tools(["echo", "set_mode"]))
}

/// The path of `program` in this program's directory (cargo builds the
/// workspace's binaries into one: `cargo build -p mcpbind-demo-server`).
fn beside_this_program(program: &str) -> String {
    let exe = std::env::current_exe().unwrap_or_default();
    let name = format!("{program}{}", std::env::consts::EXE_SUFFIX);
    exe.with_file_name(name).display().to_string()
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
    // A server the lockfile doesn't hold, from its live `tools/list`: checked
    // against the schemas it lists now, and labelled unlocked.
    tools
        .add_unlocked(mcpbind::Client::connect(&config, "scratch").await?)
        .await?;
    // The model won't need these; they stay out of its context.
    tools.hold_back_tool("demo_crash")?;
    tools.hold_back_tool("demo_sleep")?;
    // A human in the loop for destructive tools: the user approved writing
    // files for this session, and says no to anything else.
    // Nobody reviewed an unlocked tool: only its read-only ones run.
    tools.with_approval(|call: CallRequest| async move {
        const APPROVED: &[&str] = &["write_file"];
        if call.unlocked && !call.read_only {
            Verdict::refuse(format!(
                "`{}` is unlocked (not reviewed) and not read-only",
                call.tool
            ))
        } else if call.destructive && !APPROVED.contains(&call.tool.as_str()) {
            Verdict::refuse(format!(
                "`{}` is destructive and the user said no",
                call.tool
            ))
        } else {
            Verdict::Approve
        }
    });
    // A chart the host made earlier (a 1×1 PNG).
    std::fs::write(format!("{workdir}/chart.png"), PNG)?;

    // What a real loop sends with each request (Anthropic's shape here).
    let definitions = tools.anthropic_tools();
    println!(
        "system: {} tools offered, unlocked: {}",
        definitions.tools.len(),
        definitions.unlocked.join(", ")
    );
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
                    if outcome
                        .outcome
                        .as_ref()
                        .is_ok_and(|r| r.content.iter().any(|c| c.as_image().is_some()))
                    {
                        show_providers(&outcome);
                    }
                    results.push((reply.text, reply.is_error));
                }
            }
        }
    }
    Ok(())
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0x60, 0xf8, 0x5f,
    0x0f, 0x00, 0x02, 0x87, 0x01, 0x80, 0xeb, 0x47, 0xba, 0x92, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// What each provider is sent back for a result with an image (base64
/// shortened for the transcript): the tool result, and what goes after it.
fn show_providers(call: &mcpbind::ToolCall) {
    for (provider, id) in [
        (Provider::OpenAiChat, "call_1"),
        (Provider::OpenAiResponses, "call_1"),
        (Provider::Anthropic, "toolu_1"),
        (Provider::Gemini, ""),
    ] {
        let rendered = call.for_provider(provider, id);
        println!("        as {provider:?}: {}", shorten(&rendered.message));
        for extra in &rendered.follow_up {
            println!("          then: {}", shorten(extra));
        }
    }
}

/// The JSON text with base64 data cut to its first 12 characters.
fn shorten(value: &Value) -> String {
    fn walk(value: &mut Value) {
        match value {
            Value::String(s) if s.len() > 40 && !s.contains(' ') => {
                // Keep a data URL's `data:<mime>;base64,` prefix.
                let keep = s.find(',').map_or(0, |comma| comma + 1) + 12;
                let head: String = s.chars().take(keep).collect();
                *s = format!("{head}…");
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            Value::Object(map) => map.values_mut().for_each(walk),
            _ => {}
        }
    }
    let mut value = value.clone();
    walk(&mut value);
    value.to_string()
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
