//! The lean path end to end: the demo server (its command is the first
//! argument) called through checked-in bindings, and a URL server refused
//! by name, since this build has no `http`.

// Generated and checked in: `cargo fmt` leaves it as `mcpbind generate`
// wrote it (else `generate --check` fails). A binary uses a few of the
// bindings; a library would `pub mod mcp;`.
#[rustfmt::skip]
#[allow(dead_code)]
mod mcp;

use mcpbind::{Config, ServerConfig};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let command = std::env::args().nth(1).ok_or("usage: lean DEMO_SERVER")?;
    let config = Config::new()
        .server("demo", ServerConfig::stdio(command))?
        .server("remote", ServerConfig::http("http://127.0.0.1:9/mcp"))?;
    let demo = mcp::demo::Client::connect(&config).await?;
    let sum = demo.add(mcp::demo::types::AddInput { a: 2, b: 40 }).await?;
    println!("sum = {}", sum.output.sum);
    match mcpbind::Client::connect(&config, "remote").await {
        Ok(_) => return Err("a URL server connected without the `http` feature".into()),
        Err(e) => println!("remote: {e}"),
    }
    Ok(())
}
