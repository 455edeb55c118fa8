//! `mcpbind-demo-server`: the demo MCP server used by mcpbind's quickstart and tests.
//!
//! ```text
//! mcpbind-demo-server                      # serve over stdio
//! mcpbind-demo-server --http 127.0.0.1:0   # serve Streamable HTTP at /mcp
//! ```
//!
//! stdout carries the protocol in stdio mode; everything else goes to stderr.
//! `MCPBIND_DEMO_VARIANT=v2` serves a later release of the same server, with
//! a few tools changed (see `v2.rs`), to show `mcpbind check` and `mcpbind diff`.

mod tools;
mod v2;

use axum::serve::ListenerExt;
use std::{io::Write, process::ExitCode, sync::Arc};

use rmcp::{
    transport::{
        stdio,
        streamable_http_server::{
            session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
        },
    },
    ServiceExt,
};

use crate::tools::DemoServer;

const USAGE: &str = "\
usage: mcpbind-demo-server [--http ADDR]

Without arguments, serve MCP over stdio.
With --http ADDR (e.g. 127.0.0.1:0), serve Streamable HTTP at http://ADDR/mcp and print
`listening on http://HOST:PORT/mcp` to stdout once bound.";

type BoxError = Box<dyn std::error::Error + Send + Sync>;

enum Mode {
    Stdio,
    /// A `host:port` to bind; the host may be a name such as `localhost`.
    Http(String),
}

/// Parse the command line; `Ok(None)` means "help or version was printed, exit 0".
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Mode>, String> {
    let mut mode = Mode::Stdio;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let addr = match arg.as_str() {
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("mcpbind-demo-server {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--http" => args
                .next()
                .ok_or_else(|| "--http needs an address, e.g. 127.0.0.1:0".to_owned())?,
            other => match other.strip_prefix("--http=") {
                Some(addr) => addr.to_owned(),
                None => return Err(format!("unexpected argument `{other}`")),
            },
        };
        mode = Mode::Http(addr);
    }
    Ok(Some(mode))
}

async fn serve_stdio() -> Result<(), BoxError> {
    let service = DemoServer::new().serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}

async fn serve_http(addr: &str) -> Result<(), BoxError> {
    let service: StreamableHttpService<DemoServer, LocalSessionManager> =
        StreamableHttpService::new(
            || Ok(DemoServer::new()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on `{addr}`: {e}"))?;
    let local = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{local}/mcp")?;
        stdout.flush()?;
    }
    // Without TCP_NODELAY, Nagle's algorithm holds each SSE event until the
    // client acknowledges the response headers, which a reused connection
    // does only after its delayed-ACK timer (~40 ms on Linux).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await?;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    let mode = match parse_args(std::env::args().skip(1)) {
        Ok(Some(mode)) => mode,
        Ok(None) => return ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcpbind-demo-server: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match mode {
        Mode::Stdio => serve_stdio().await,
        Mode::Http(addr) => serve_http(&addr).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcpbind-demo-server: {error}");
            ExitCode::FAILURE
        }
    }
}
