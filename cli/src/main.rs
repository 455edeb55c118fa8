use std::process::ExitCode;

use clap::Parser;
use mcpbind_cli::LogFormat;

fn main() -> ExitCode {
    let cli = mcpbind_cli::Cli::parse();
    logging(cli.verbose, cli.log_format);
    match mcpbind_cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            mcpbind_cli::report(&err);
            ExitCode::FAILURE
        }
    }
}

/// With `-v`, prints the runtime's `tracing` spans and events to stderr
/// (mcpbind's at debug level; with `-vv` at trace level, and rmcp's too).
/// Config values never reach them: the runtime logs names, not values.
fn logging(verbose: u8, format: LogFormat) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;

    let (ours, rmcp) = match verbose {
        0 => return,
        1 => (LevelFilter::DEBUG, LevelFilter::WARN),
        _ => (LevelFilter::TRACE, LevelFilter::DEBUG),
    };
    let filter = Targets::new()
        .with_target("mcpbind_core", ours)
        .with_target("rmcp", rmcp)
        .with_default(LevelFilter::WARN);
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let layer = match format {
        LogFormat::Text => layer.boxed(),
        LogFormat::Json => layer.json().with_current_span(true).boxed(),
    };
    tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .init();
}
