//! `mcpbind lock`: snapshot servers into the lockfile.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;
use mcpbind::{LockError, Lockfile};

/// Which servers to lock.
pub use crate::ServerSelection as Args;

/// Runs `mcpbind lock`.
///
/// # Errors
///
/// When the config can't be read or the lockfile can't be written (a
/// server that can't be locked is reported, and the rest are kept).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let config = args.load_config()?;
    if args.servers.is_empty() {
        for name in &config.disabled {
            crate::status!("     Skipped {name} (disabled in the config)");
        }
    }
    let lock_path = args.paths.lockfile_to_write();
    if config.servers.is_empty() {
        bail!("{} configures no servers", args.paths.config.display());
    }
    let (mut lock, damaged) = read_for_update(&lock_path, args.servers.is_empty())?;
    let before = lock.clone();
    let names: Vec<String> = if args.servers.is_empty() {
        config.servers.keys().cloned().collect()
    } else {
        args.servers.clone()
    };
    let progress = std::io::stderr().is_terminal();
    if progress {
        for name in &names {
            crate::status!("     Locking {name}");
        }
    }
    let refreshed = crate::signal::block_on(mcpbind::snapshot::refresh(
        &config,
        &mut lock,
        &args.servers,
    ))?;
    for line in &refreshed.skipped {
        crate::status!("warning: {line}");
    }
    let failures = refreshed.failures;
    if let (Some(damaged), false) = (&damaged, failures.is_empty()) {
        // Rewriting it whole would drop the entries of the servers that
        // failed: keep the file as it is.
        report_failures(failures);
        crate::report(&anyhow::Error::new(crate::Hinted::new(
            format!(
                "did not rewrite {}: it could not be read ({damaged}), and the servers above could not be listed, so their entries would be lost",
                lock_path.display()
            ),
            format!("restore {} (e.g. from git), or make every server reachable and run `mcpbind lock` again", lock_path.display()),
        )));
        return Ok(ExitCode::FAILURE);
    }
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
            crate::status!(
                "      Locked {name}: {} ({status})",
                super::tools(server.tools.len())
            );
            if let Some(config) = config.servers.get(name) {
                warn_unchecked(name, server, config);
            }
        }
    }
    // Nothing locked and nothing changed: leave the file system alone.
    let wrote = (lock != before || lock_path.exists())
        // The error names the file: no context to add.
        && crate::signal::writing(|| Ok(lock.write(&lock_path)?))?;
    if wrote {
        crate::status!("       Wrote {}", lock_path.display());
    }
    if failures.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    report_failures(failures);
    Ok(ExitCode::FAILURE)
}

/// Warns of each locked schema that calls can't be checked against (it
/// refers to another document, or is not valid JSON Schema): such a tool's
/// arguments or results go unchecked by mcpbind, and only the server
/// checks. Schemas whose checks the config turns off are not looked at.
fn warn_unchecked(name: &str, server: &mcpbind::ServerLock, config: &mcpbind::ServerConfig) {
    for tool in &server.tools {
        let schemas = [
            ("inputSchema", tool.input_schema(), config.validate_input),
            ("outputSchema", tool.output_schema(), config.validate_output),
        ];
        for (key, schema, checked) in schemas {
            let Some(schema) = schema.filter(|_| checked) else {
                continue;
            };
            if let Err(why) = mcpbind_model::internal::validate::compile(schema) {
                // The tool's name and the schema's text are the server's.
                let safe = mcpbind::diff::terminal_safe;
                crate::status!(
                    "warning: server `{name}`, tool `{}`: its {key} can't be checked by mcpbind ({}); only the server checks it",
                    safe(&tool.name),
                    safe(&why)
                );
            }
        }
    }
}

fn report_failures(failures: Vec<(String, mcpbind::Error)>) {
    for (name, err) in failures {
        crate::report(&anyhow::Error::new(err).context(format!("failed to lock server `{name}`")));
    }
}

/// The lockfile to update, and the error it could not be read with when
/// it is an mcpbind lockfile that will be rewritten whole (when every
/// server is locked, and only if every one of them is listed). Anything
/// else that can't be read is never overwritten: a file that isn't a
/// lockfile, a newer format, git conflict markers, a FIFO.
fn read_for_update(path: &Path, all: bool) -> anyhow::Result<(Lockfile, Option<LockError>)> {
    match Lockfile::read_for_update(path) {
        Ok(lock) => Ok((lock, None)),
        Err(
            e @ (LockError::Invalid { .. }
            | LockError::Hash { .. }
            | LockError::DuplicateTool { .. }),
        ) if all => Ok((Lockfile::new(), Some(e))),
        Err(
            e @ (LockError::Invalid { .. }
            | LockError::Hash { .. }
            | LockError::DuplicateTool { .. }),
        ) => Err(anyhow::Error::new(e).context(crate::Hinted::new(
            "cannot update part of a broken lockfile",
            "run `mcpbind lock` without server names to rewrite it whole",
        ))),
        Err(e) => {
            Err(anyhow::Error::new(e).context(format!("refusing to overwrite {}", path.display())))
        }
    }
}
