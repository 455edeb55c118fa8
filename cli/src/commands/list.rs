//! `mcpbind list`: the locked tools, offline.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcpbind::lock::LOCKFILE_NAME;
use mcpbind::Lockfile;

use super::one_line;

/// List the locked tools (offline).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The lockfile [default: mcpbind.lock here, else at the workspace root;
    /// MCPBIND_LOCKFILE overrides].
    #[arg(long, value_name = "PATH")]
    lockfile: Option<PathBuf>,
    /// Only this server.
    #[arg(value_name = "SERVER")]
    server: Option<String>,
}

/// Runs `mcpbind list`.
///
/// # Errors
///
/// When the config or the lockfile can't be read.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.lockfile.as_deref().unwrap_or(Path::new(LOCKFILE_NAME));
    let lockfile = mcpbind::find_lockfile(path, Path::new(""))?;
    let lock = Lockfile::read(&lockfile)?;
    note_disabled(&lockfile);
    if let Some(name) = &args.server {
        if !lock.servers.contains_key(name) {
            let locked: Vec<&str> = lock.servers.keys().map(String::as_str).collect();
            return Err(crate::Hinted::new(
                format!("server `{name}` is not in {}", lockfile.display()),
                format!(
                    "locked servers: {}; to lock a server, add it to mcpbind.toml and run `mcpbind lock`",
                    locked.join(", ")
                ),
            )
            .into());
        }
    }
    let mut out = String::new();
    for (name, server) in &lock.servers {
        if args.server.as_ref().is_some_and(|s| s != name) {
            continue;
        }
        let info = &server.server_info;
        let field = |k: &str| one_line(info.get(k).and_then(|v| v.as_str()).unwrap_or("?"));
        out.push_str(&format!(
            "{name} ({} {}, protocol {}, {})\n",
            field("name"),
            field("version"),
            one_line(&server.protocol_version),
            super::tools(server.tools.len())
        ));
        let names: Vec<String> = server.tools.iter().map(|t| one_line(&t.name)).collect();
        let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        for (tool, shown) in server.tools.iter().zip(&names) {
            let summary = tool
                .description()
                .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
                .unwrap_or("");
            let summary: String = summary.chars().take(100).collect();
            let line = format!("  {shown:width$}  {}", one_line(&summary));
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Says on stderr which servers the config beside the lockfile marks
/// disabled (`mcpbind lock` skips them, so they are not listed). `list`
/// works offline from the lockfile alone: a missing or broken config is
/// not its business, and says nothing.
fn note_disabled(lockfile: &Path) {
    let dir = lockfile.parent().unwrap_or(Path::new(""));
    let Ok(config) = mcpbind::Config::load(dir.join("mcpbind.toml")) else {
        return;
    };
    for name in &config.disabled {
        crate::status!("note: server `{name}` is disabled in the config: skipped, not locked");
    }
}
