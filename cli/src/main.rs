use std::process::ExitCode;

use clap::Parser;
use mcpbind_cli::LogFormat;

fn main() -> ExitCode {
    let cli = mcpbind_cli::Cli::parse();
    mcpbind_cli::signal::install();
    quiet_typify_panics();
    ignore_file_size_signal();
    logging(cli.verbose, cli.log_format);
    match mcpbind_cli::run(cli) {
        Ok(code) => code,
        Err(err) => mcpbind_cli::exit_code_of(&err),
    }
}

/// A write past `ulimit -f` raises SIGXFSZ, which kills the process by
/// default (mid-write, leaving a temporary file); ignored, the write fails
/// with EFBIG instead, and mcpbind reports it and removes the temporary.
fn ignore_file_size_signal() {
    #[cfg(unix)]
    // SAFETY: setting a signal to SIG_IGN before any thread is started;
    // no handler runs.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// typify panics on some odd schemas; the generator catches that and
/// reports it as a warning with the server, tool and JSON pointer, so the
/// panic message itself is noise. Only this binary installs a hook (a
/// process-wide setting the library must not touch); any other panic is
/// printed as usual.
fn quiet_typify_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_typify = info.location().is_some_and(|l| l.file().contains("typify"));
        if !in_typify {
            default(info);
        }
    }));
}

/// With `-v`, prints the runtime's `tracing` spans and events to stderr
/// (mcpbind's at debug level; with `-vv` at trace level, and rmcp's too).
/// The runtime logs names, not values; what rmcp or reqwest print is
/// redacted too ([`mcpbind_cli::log`]).
fn logging(verbose: u8, format: LogFormat) {
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::prelude::*;

    let (ours, rmcp) = match verbose {
        0 => return,
        1 => (LevelFilter::DEBUG, LevelFilter::WARN),
        _ => (LevelFilter::TRACE, LevelFilter::DEBUG),
    };
    let filter = Targets::new()
        .with_target("mcpbind_client", ours)
        // What servers log (`notifications/message`), at their levels.
        .with_target("mcpbind::server", ours)
        .with_target("rmcp", rmcp)
        // rmcp's OAuth debug lines show the authorization code.
        .with_target("rmcp::transport::auth", rmcp.min(LevelFilter::INFO))
        .with_default(LevelFilter::WARN);
    let layer = tracing_subscriber::fmt::layer().with_writer(mcpbind_cli::log::RedactedStderr);
    let layer = match format {
        LogFormat::Text => layer.boxed(),
        LogFormat::Json => layer.json().with_current_span(true).boxed(),
    };
    tracing_subscriber::registry()
        .with(layer.with_filter(filter))
        .init();
}
