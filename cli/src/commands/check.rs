//! `mcpbind check`: does the lockfile still match the live servers?

use std::process::ExitCode;

use anyhow::bail;
use mcpbind_codegen::{Lockfile, ServerDiff};

use crate::Paths;

/// Check that mcpbind.lock matches the config and the live servers (exit 1 on drift).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    paths: Paths,
    /// Servers to check [default: all configured servers].
    #[arg(value_name = "SERVER")]
    servers: Vec<String>,
}

/// Runs `mcpbind check`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    compare(&args.paths, &args.servers, false)
}

/// Snapshots `servers` and compares them with the lockfile; prints a summary
/// (or, with `detail`, every change). Exit 1 on drift or failure.
pub(crate) fn compare(paths: &Paths, servers: &[String], detail: bool) -> anyhow::Result<ExitCode> {
    let config = paths.load_config()?;
    let lock_path = paths.lockfile();
    let lock = Lockfile::read(&lock_path)?;
    for name in servers {
        if !config.servers.contains_key(name) {
            bail!("server `{name}` is not in {}", paths.config.display());
        }
    }
    let selected = (!servers.is_empty()).then_some(servers);
    lock.check_config(&config, selected, &lock_path)?;

    let names: Vec<String> = match selected {
        Some(s) => s.to_vec(),
        None => config.servers.keys().cloned().collect(),
    };
    let live =
        crate::runtime()?.block_on(mcpbind_codegen::snapshot::snapshot_servers(&config, &names));
    let lock_name = lock_path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut failed = false;
    for (name, result) in live {
        let locked = &lock.servers[&name];
        match result {
            Err(err) => {
                failed = true;
                crate::report(&anyhow::Error::new(err).context(format!(
                    "failed to check server `{name}`: could not list its tools (the lockfile was not compared)"
                )));
            }
            Ok(current) => {
                let diff = ServerDiff::new(locked, &current);
                if diff.has_drift() {
                    failed = true;
                    eprintln!(
                        "error: server `{name}` in {} is out of date ({})",
                        lock_path.display(),
                        diff.summary()
                    );
                    if detail {
                        eprint!("{diff}");
                    }
                    eprintln!("help: run `mcpbind lock {name}` and commit {lock_name}");
                } else {
                    if detail && !diff.identity.is_empty() {
                        eprint!("{diff}");
                    }
                    eprintln!("          Ok {name}: {} tools match", locked.tools.len());
                }
            }
        }
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
