//! `mcpbind lock`: snapshot servers into the lockfile.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::{bail, Context as _};
use mcpbind_codegen::{lock::Lockfile, Error};

/// Which servers to lock.
pub use crate::ServerSelection as Args;

/// Runs `mcpbind lock`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = args.load_config()?;
    let lock_path = args.paths.lockfile();
    if config.servers.is_empty() {
        bail!("{} configures no servers", args.paths.config.display());
    }
    let mut lock =
        match Lockfile::read(&lock_path) {
            Ok(lock) => lock,
            Err(Error::LockMissing { .. }) => Lockfile::new(),
            // A broken lockfile is rewritten whole.
            Err(_) if args.servers.is_empty() => Lockfile::new(),
            Err(e) => return Err(e).context(
                "cannot update part of a broken lockfile; run `mcpbind lock` without server names",
            ),
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
    let failures = crate::runtime()?.block_on(mcpbind_codegen::snapshot::refresh(
        &config,
        &mut lock,
        &args.servers,
    ));
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
    for (name, err) in &failures {
        let err = anyhow::Error::new(ErrorText(
            err.to_string(),
            std::error::Error::source(err).map(|s| s.to_string()),
        ))
        .context(format!("failed to lock server `{name}`"));
        crate::report(&err);
    }
    Ok(ExitCode::FAILURE)
}

/// An error rendered to text (the codegen error is not `Clone`).
#[derive(Debug)]
struct ErrorText(String, Option<String>);

impl std::fmt::Display for ErrorText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)?;
        if let Some(source) = &self.1 {
            write!(f, ": {source}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ErrorText {}
