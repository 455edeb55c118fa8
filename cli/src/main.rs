use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = mcpbind_cli::Cli::parse();
    match mcpbind_cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            mcpbind_cli::report(&err);
            ExitCode::FAILURE
        }
    }
}
