//! The agent: its toolbox settings, its approval policy and its loop. The
//! loop knows nothing of where the model's turns come from: here, a script
//! of Anthropic Messages responses (`script/anthropic.json`), handed out by
//! `mcpbind::testing::ScriptedModel`, which also keeps what the loop sent
//! back.

use mcpbind::testing::{ScriptError, ScriptedModel};
use mcpbind::{CallRequest, Provider, Toolbox, ToolboxError, Verdict};
use serde_json::Value;

/// The model's turns: Anthropic responses as the API returns them, with
/// `<workdir>` where the run's directory goes.
const SCRIPT: &str = include_str!("../script/anthropic.json");

/// The script, for a run in `workdir`.
pub fn script(workdir: &str) -> Result<ScriptedModel, ScriptError> {
    // The directory as it is written inside a JSON string.
    let escaped = serde_json::to_string(workdir).unwrap_or_default();
    let escaped = escaped.trim_matches('"');
    ScriptedModel::from_json(
        "script/anthropic.json",
        &SCRIPT.replace("<workdir>", escaped),
    )
}

/// What the agent offers the model, and who decides what runs.
pub fn prepare(tools: &mut Toolbox) -> Result<(), ToolboxError> {
    // The model won't need these; they stay out of its context.
    tools.hold_back_tool("demo_crash")?;
    tools.hold_back_tool("demo_sleep")?;
    tools.with_approval(|call: CallRequest| async move { approve(&call) });
    Ok(())
}

/// A human in the loop for destructive tools: the user approved writing
/// files for this session, and says no to anything else. Nobody reviewed
/// an unlocked tool: only its read-only ones run.
pub fn approve(call: &CallRequest) -> Verdict {
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
}

/// The loop: ask the model, run the calls of its turn concurrently, send
/// each result back in the model's shape, until it answers. Prints the
/// transcript (`workdir` shown as `<workdir>`); returns the answer.
pub async fn run(
    tools: &Toolbox,
    model: &mut ScriptedModel,
    workdir: &str,
) -> Result<String, Box<dyn std::error::Error>> {
    // What a real loop sends with each request.
    let definitions = tools.anthropic_tools();
    println!(
        "system: {} tools offered, unlocked: {}",
        definitions.tools.len(),
        definitions.unlocked.join(", ")
    );
    println!("{}", tools.render_markdown().replace(workdir, "<workdir>"));
    loop {
        let turn = model.respond()?;
        if turn.is_final() {
            println!("model: {}", turn.text.replace(workdir, "<workdir>"));
            return Ok(turn.text);
        }
        for call in &turn.calls {
            let args = call.arguments.replace(workdir, "<workdir>");
            println!("model -> {} {args}", call.name);
        }
        let calls: Vec<(String, String)> = turn
            .calls
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()))
            .collect();
        let done = join_calls(tools, calls).await?;
        for (call, outcome) in turn.calls.iter().zip(done) {
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
            model.send(outcome.for_provider(model.provider(), &call.id))?;
        }
    }
}

fn one_line(text: &str) -> String {
    text.replace('\n', " ⏎ ").trim_end_matches(" ⏎ ").to_owned()
}

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
    calls: Vec<(String, String)>,
) -> Result<Vec<mcpbind::ToolCall>, tokio::task::JoinError> {
    let mut handles = Vec::new();
    for (name, arguments) in calls {
        let tools = tools.clone();
        handles.push(tokio::spawn(
            async move { tools.call(&name, &arguments).await },
        ));
    }
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await?);
    }
    Ok(out)
}
