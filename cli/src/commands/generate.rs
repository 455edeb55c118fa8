//! `mcpbind generate`: write the bindings of a lockfile.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use mcpbind::lock::LOCKFILE_NAME;
use mcpbind_codegen::{GenerationSettings, Generator, Lockfile};

/// Generate Rust bindings from mcpbind.lock.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The lockfile [default: mcpbind.lock here, else at the workspace root;
    /// MCPBIND_LOCKFILE overrides].
    #[arg(long, value_name = "PATH")]
    lockfile: Option<PathBuf>,
    /// Write here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Servers to bind [default: all locked servers].
    #[arg(value_name = "SERVER")]
    servers: Vec<String>,
}

/// Runs `mcpbind generate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.lockfile.as_deref().unwrap_or(Path::new(LOCKFILE_NAME));
    let lockfile = mcpbind::lock::find_lockfile(path, Path::new(""))?;
    if let Some(out) = &args.out {
        let same = |a: &std::path::Path, b: &std::path::Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
        if same(out, &lockfile) {
            anyhow::bail!(
                "--out {} is the lockfile; write the bindings to a .rs file",
                out.display()
            );
        }
    }
    let lock = Lockfile::read(&lockfile)?;
    let mut settings = GenerationSettings::new();
    settings.all_cores();
    if !args.servers.is_empty() {
        settings.with_servers(args.servers.clone());
    }
    let mut generator = Generator::new(&settings);
    let text = generator.generate_text(&lock, &lockfile)?;
    for warning in generator.warnings() {
        crate::status!("warning: {warning}");
    }
    match &args.out {
        Some(path) => {
            // Only over a file mcpbind generated, and never reading a
            // device or FIFO.
            mcpbind_model::write::write_generated_if_changed(path, text.as_bytes())
                .with_context(|| format!("failed to write {}", path.display()))?;
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(text.as_bytes()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(e).context("failed to write to stdout");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
