//! An agent loop over locked, typed MCP tools, with a scripted model (no
//! network, no API key): the model's turns are Anthropic Messages responses
//! written down once (`script/anthropic.json`), handed out by
//! `mcpbind::testing::ScriptedModel`. It lists the
//! tools, calls two servers (the bundled demo server and
//! `@modelcontextprotocol/server-filesystem` on a temporary directory) in
//! one turn, sends a bad argument and corrects it after the error, reads an
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
//!
//! `cargo test -p mcpbind-example-agent` runs the same loop offline: the
//! servers are in-process doubles, and the test asserts what the loop sent
//! back to the model (`src/tests.rs`).

mcpbind::include_bindings!();

mod agent;
#[cfg(test)]
mod tests;

use mcpbind::{Config, ServerConfig, Toolbox};

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
    agent::prepare(&mut tools)?;
    // A chart the host made earlier (a 1×1 PNG).
    std::fs::write(format!("{workdir}/chart.png"), PNG)?;
    let mut model = agent::script(workdir)?;
    agent::run(&tools, &mut model, workdir).await?;
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
