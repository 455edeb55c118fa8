//! `mcpbind call`: call one tool with JSON arguments (untyped).

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use serde_json::Value;

use crate::Paths;

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
}

/// Runs `mcpbind call`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let server = args.paths.load_server(&args.server)?;
    let arguments = match serde_json::from_str::<Value>(&args.arguments) {
        Ok(Value::Object(map)) => map,
        Ok(_) => bail!("the arguments must be a JSON object, e.g. '{{\"city\": \"Oslo\"}}'"),
        Err(e) => bail!("the arguments are not valid JSON: {e}"),
    };
    let result = crate::runtime()?.block_on(async {
        let client = mcpbind::Client::connect_server(&args.server, server).await?;
        let result = client
            .call_raw(&args.tool, arguments, &mcpbind::CallOptions::default())
            .await;
        client.close().await;
        result
    });
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
            .map(|c| match c.as_text() {
                Some(t) => t.text.clone(),
                None => serde_json::to_string(c).unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Err(e) = writeln!(stdout, "{text}") {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    if result.is_error == Some(true) {
        eprintln!(
            "error: tool `{}.{}` returned an error",
            args.server, args.tool
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
