//! `mcpbind check`: does the lockfile still match the live servers?

use std::process::ExitCode;

use mcpbind::{LockError, Lockfile, ServerDiff};

use crate::ServerSelection;

/// Which servers to check.
pub use crate::ServerSelection as Args;

/// Runs `mcpbind check`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    compare(&args, false)
}

/// Snapshots `servers` and compares them with the lockfile; prints a summary
/// (or, with `detail`, every change). Exit 1 on drift or failure.
pub(crate) fn compare(selection: &ServerSelection, detail: bool) -> anyhow::Result<ExitCode> {
    let config = selection.load_config()?;
    let servers = selection.servers.as_slice();
    let lock_path = selection.paths.find_lockfile()?;
    let lock = Lockfile::read(&lock_path)?;
    let selected = (!servers.is_empty()).then_some(servers);
    lock.check_config(&config, selected, &lock_path)?;

    let names: Vec<String> = match selected {
        Some(s) => s.to_vec(),
        None => config.servers.keys().cloned().collect(),
    };
    let live =
        crate::runtime()?.block_on(mcpbind_codegen::snapshot::snapshot_servers(&config, &names));
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
                if detail && (diff.has_drift() || !diff.identity.is_empty()) {
                    eprint!("{diff}");
                }
                if diff.has_drift() {
                    failed = true;
                    crate::report(&anyhow::Error::new(LockError::Stale {
                        server: name.clone(),
                        path: lock_path.clone(),
                        reason: diff.summary(),
                    }));
                } else {
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
