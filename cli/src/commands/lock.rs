//! `mcpbind lock`: snapshot servers into the lockfile.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use mcpbind::{LockError, Lockfile};

/// Which servers to lock.
pub use crate::ServerSelection as Args;

/// Runs `mcpbind lock`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = args.load_config()?;
    let lock_path = args.paths.lockfile_to_write();
    if config.servers.is_empty() {
        bail!("{} configures no servers", args.paths.config.display());
    }
    let mut lock = match Lockfile::read(&lock_path) {
        Ok(lock) => lock,
        Err(LockError::Missing { .. }) => Lockfile::new(),
        // A broken lockfile is rewritten whole.
        Err(_) if args.servers.is_empty() => Lockfile::new(),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(crate::Hinted::new(
                "cannot update part of a broken lockfile",
                "run `mcpbind lock` without server names to rewrite it whole",
            )))
        }
    };
    let before = lock.clone();
    let names: Vec<String> = if args.servers.is_empty() {
        config.servers.keys().cloned().collect()
    } else {
        args.servers.clone()
    };
    let progress = std::io::stderr().is_terminal();
    if progress {
        for name in &names {
            eprintln!("     Locking {name}");
        }
    }
    let refreshed = crate::runtime()?.block_on(mcpbind_codegen::snapshot::refresh(
        &config,
        &mut lock,
        &args.servers,
    ));
    for line in &refreshed.skipped {
        eprintln!("warning: {line}");
    }
    let failures = refreshed.failures;
    for name in &names {
        if failures.iter().any(|(n, _)| n == name) {
            continue;
        }
        if let Some(server) = lock.servers.get(name) {
            let status = match before.servers.get(name) {
                None => "added",
                Some(old) if old == server => "unchanged",
                Some(_) => "changed",
            };
            eprintln!(
                "      Locked {name}: {} tools ({status})",
                server.tools.len()
            );
        }
    }
    // Nothing locked and nothing changed: leave the file system alone.
    let wrote = (lock != before || lock_path.exists())
        && lock
            .write(&lock_path)
            .with_context(|| format!("failed to write {}", lock_path.display()))?;
    if wrote {
        eprintln!("       Wrote {}", lock_path.display());
    }
    if failures.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for (name, err) in failures {
        crate::report(&anyhow::Error::new(err).context(format!("failed to lock server `{name}`")));
    }
    Ok(ExitCode::FAILURE)
}
