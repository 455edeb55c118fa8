//! `mcpbind call`: call one tool with JSON arguments (untyped).

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use serde_json::Value;

use crate::Paths;

/// Calls the tool, as a task when its definition requires one (or
/// `--task`), showing its progress on stderr. The live listing says
/// whether it must be a task (`call` needs no lockfile); a call of a tool
/// the server does not list that fails says which tools it lists.
async fn call(
    client: &mcpbind::Client,
    args: &Args,
    arguments: serde_json::Map<String, Value>,
    progress: &ProgressLine,
) -> anyhow::Result<mcpbind::protocol::CallToolResult> {
    let tools = client.list_tools_raw().await?;
    fn name(tool: &Value) -> Option<&str> {
        tool.get("name").and_then(Value::as_str)
    }
    let definition = tools.iter().find(|t| name(t) == Some(&args.tool));
    let mut options = mcpbind::CallOptions::default();
    let required = definition.map(mcpbind::TaskSupport::of) == Some(mcpbind::TaskSupport::Required);
    if args.task || required {
        options = options.run_as_task();
    }
    let line = progress.clone();
    options = options.on_progress(move |p| line.show(p));
    let result = client.call_raw(&args.tool, arguments, &options).await;
    match result {
        Err(error) if definition.is_none() => {
            let names: Vec<&str> = tools.iter().filter_map(name).collect();
            let help = unlisted_help(&args.server, &args.tool, &names);
            let message = format!("{:#}", anyhow::Error::new(error));
            Err(anyhow::Error::new(crate::Hinted::new(message, help)))
        }
        result => Ok(result?),
    }
}

/// What to say when a call of `tool`, which `server` does not list, failed:
/// the nearest listed name, if one is near, and the names listed.
fn unlisted_help(server: &str, tool: &str, listed: &[&str]) -> String {
    let mut help = format!("`{server}` lists no tool `{}`", super::one_line(tool));
    let near = (listed.iter())
        .map(|name| (edit_distance(tool, name), name))
        .filter(|(distance, _)| *distance <= (tool.chars().count() / 3).max(2))
        .min();
    if let Some((_, name)) = near {
        help += &format!("; did you mean `{}`?", super::one_line(name));
    }
    let shown: Vec<String> = listed.iter().take(20).map(|n| super::one_line(n)).collect();
    let more = listed.len().saturating_sub(shown.len());
    help += &format!("\nits tools: {}", shown.join(", "));
    if more > 0 {
        help += &format!(" and {more} more (`mcpbind list {server}` after `mcpbind lock`)");
    }
    help
}

/// Levenshtein distance, by characters (names longer than 64 characters
/// are never near: they cost no more than that to compare).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The progress of a call on stderr: one line redrawn in place on a
/// terminal, a line per report otherwise.
#[derive(Clone)]
struct ProgressLine {
    terminal: bool,
    drawn: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl ProgressLine {
    fn new() -> Self {
        use std::io::IsTerminal as _;
        ProgressLine {
            terminal: std::io::stderr().is_terminal(),
            drawn: Default::default(),
        }
    }

    fn show(&self, progress: &mcpbind::Progress) {
        let text = describe(progress);
        let mut stderr = std::io::stderr().lock();
        // A closed stderr loses the progress, not the call.
        let _ = if self.terminal {
            self.drawn.store(true, std::sync::atomic::Ordering::Relaxed);
            write!(stderr, "\r\x1b[2K{text}")
        } else {
            writeln!(stderr, "{text}")
        };
        let _ = stderr.flush();
    }

    /// Ends the redrawn line, if one was drawn.
    fn finish(&self) {
        if self.drawn.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// `progress: [#####     ] 3/6 message`, with what the server wrote made
/// safe for a terminal.
fn describe(progress: &mcpbind::Progress) -> String {
    const WIDTH: usize = 20;
    let number = |n: f64| {
        if n.fract() == 0.0 && n.abs() < 1e15 {
            format!("{}", n as i64)
        } else {
            format!("{n:.2}")
        }
    };
    let mut text = String::from("progress: ");
    if let (Some(fraction), Some(total)) = (progress.fraction(), progress.total) {
        let filled = (fraction * WIDTH as f64).round() as usize;
        text += &format!("[{}{}] ", "#".repeat(filled), " ".repeat(WIDTH - filled));
        text += &format!("{}/{}", number(progress.progress), number(total));
    } else {
        text += &number(progress.progress);
    }
    if let Some(message) = &progress.message {
        text.push(' ');
        text.extend(message.chars().take(200).flat_map(|c| {
            let unsafe_char = c.is_control() || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            if unsafe_char { c.escape_default().collect::<Vec<_>>() } else { vec![c] }
        }));
    }
    text
}

/// Call a tool with JSON arguments and print its result.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    paths: Paths,
    /// The server.
    server: String,
    /// The tool, by its wire name.
    tool: String,
    /// The arguments, a JSON object.
    #[arg(default_value = "{}")]
    arguments: String,
    /// Print the whole result as JSON.
    #[arg(long)]
    json: bool,
    /// Run the call as a task (for a tool whose `execution.taskSupport` is
    /// `optional`; one that says `required` always runs as a task).
    #[arg(long)]
    task: bool,
    /// Append the call (arguments and result, `${VAR}` secrets redacted)
    /// to this cassette, for `mcpbind::testing` to replay.
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
}

/// Appends the call to the cassette `file`: the tool's definition hash
/// (as `mcpbind lock` records it), the protocol version, the arguments
/// and the answer, secrets replaced by their `${VAR}`.
async fn record(
    client: &mcpbind::Client,
    args: &Args,
    file: &std::path::Path,
    arguments: &serde_json::Map<String, Value>,
    result: &anyhow::Result<mcpbind::protocol::CallToolResult>,
) -> anyhow::Result<()> {
    use mcpbind::ServerSecrets as _;
    let tools = client.list_tools_raw().await?;
    let definition = tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(args.tool.as_str()))
        .with_context(|| format!("`{}` lists no tool `{}` to record", args.server, args.tool))?;
    let protocol = client.server_info().await?.protocol_version;
    let answer = match result {
        Ok(result) => Ok(serde_json::to_value(result)?),
        Err(e) => Err(format!("{e:#}")),
    };
    let recorder = mcpbind::testing::Recorder::new(file);
    recorder.record_call(
        &args.server,
        protocol.as_str(),
        &args.tool,
        &mcpbind::hash::sha256_hex(definition),
        arguments,
        answer,
        &client.server_config().labelled_secrets(),
    );
    recorder.save()?;
    Ok(())
}

/// The protocol version the lockfile records for the server, when one is
/// found and holds it: a call to record is made with the handshake that
/// version calls for, so that the cassette loads against that lockfile.
fn locked_protocol(args: &Args) -> Option<String> {
    let lockfile = mcpbind::Lockfile::read(args.paths.find_lockfile().ok()?).ok()?;
    Some(lockfile.servers.get(&args.server)?.protocol_version.clone())
}

/// Connects to server `name`: with the handshake of protocol version
/// `locked`, if given, as a generated client does.
async fn connect(
    name: &str,
    server: mcpbind::ServerConfig,
    locked: Option<&str>,
) -> mcpbind::Result<mcpbind::Client> {
    match locked {
        Some(version) => {
            let mut config = mcpbind::Config::new();
            config.servers.insert(name.to_owned(), server);
            mcpbind::Client::connect_locked(&config, name, version).await
        }
        None => mcpbind::Client::connect_server(name, server).await,
    }
}

/// A content block as `call` prints it: text as it is; an image, audio or
/// binary resource as one line saying what it is (`--json` prints its
/// data); an embedded text resource as its text under a line naming it.
fn shown(content: &mcpbind::protocol::ContentBlock) -> String {
    use super::one_line as safe;
    use mcpbind::protocol::{ContentBlock, ResourceContents};
    // Base64 holds 3 bytes in 4 characters.
    let bytes = |base64: &str| base64.trim_end_matches('=').len() * 3 / 4;
    let blob = |kind: &str, mime: &str, data: &str| {
        format!(
            "[{kind}: {}, {} bytes; --json prints it]",
            safe(mime),
            bytes(data)
        )
    };
    match content {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => blob("image", &image.mime_type, &image.data),
        ContentBlock::Audio(audio) => blob("audio", &audio.mime_type, &audio.data),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource: {}]\n{text}", safe(uri))
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob: data,
                ..
            } => {
                let mime = mime_type.as_deref().unwrap_or("binary");
                blob(&format!("resource {}", safe(uri)), mime, data)
            }
            other => serde_json::to_string(other).unwrap_or_default(),
        },
        ContentBlock::ResourceLink(link) => {
            format!(
                "[resource link: {} ({})]",
                safe(&link.uri),
                safe(&link.name)
            )
        }
        // A kind of content newer than this build: as JSON.
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// Runs `mcpbind call`.
///
/// # Errors
///
/// When the config, the lockfile or the arguments can't be read, or the
/// server can't be reached; a tool's own error is an exit code, not an `Err`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let server = args.paths.load_server(&args.server)?;
    let arguments = match serde_json::from_str::<Value>(&args.arguments) {
        Ok(Value::Object(map)) => map,
        Ok(_) => bail!("the arguments must be a JSON object, e.g. '{{\"city\": \"Oslo\"}}'"),
        Err(e) => bail!("the arguments are not valid JSON: {e}"),
    };
    let progress = ProgressLine::new();
    // On SIGINT or SIGTERM the call is dropped, which cancels it on the
    // wire (`notifications/cancelled`, `tasks/cancel` for a task); `held`
    // keeps the connection open meanwhile, for the cancellation to go out.
    let held = std::sync::Mutex::new(None);
    let locked = args.record.as_ref().and_then(|_| locked_protocol(&args));
    let result = crate::signal::block_on(async {
        let client = connect(&args.server, server, locked.as_deref()).await?;
        *held.lock().unwrap_or_else(|e| e.into_inner()) = Some(client.clone());
        let result = call(&client, &args, arguments.clone(), &progress).await;
        if let Some(file) = &args.record {
            record(&client, &args, file, &arguments, &result)
                .await
                .with_context(|| format!("failed to record the call in {}", file.display()))?;
        }
        client.close().await;
        result
    });
    progress.finish();
    drop(held);
    let result = result?;
    let result =
        result.with_context(|| format!("failed to call `{}.{}`", args.server, args.tool))?;
    let mut stdout = std::io::stdout().lock();
    let text = if args.json {
        serde_json::to_string_pretty(&result)?
    } else if let Some(structured) = &result.structured_content {
        serde_json::to_string_pretty(structured)?
    } else {
        result
            .content
            .iter()
            .map(shown)
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Err(e) = writeln!(stdout, "{text}") {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    if result.is_error == Some(true) {
        crate::status!(
            "error: tool `{}.{}` returned an error",
            args.server,
            args.tool
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(progress: f64, total: Option<f64>, message: Option<&str>) -> mcpbind::Progress {
        let json = serde_json::json!({ "progress": progress, "total": total, "message": message });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn progress_is_a_bar_with_a_safe_message() {
        assert_eq!(
            describe(&progress(3.0, Some(6.0), Some("step"))),
            "progress: [##########          ] 3/6 step"
        );
        assert_eq!(describe(&progress(2.5, None, None)), "progress: 2.50");
        // Terminal escapes and bidi controls from the server are shown, not obeyed.
        assert_eq!(
            describe(&progress(1.0, None, Some("\u{1b}[2J\u{202e}x"))),
            "progress: 1 \\u{1b}[2J\\u{202e}x"
        );
    }
}
