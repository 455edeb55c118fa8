//! `mcpbind generate`: write the bindings of a lockfile.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use mcpbind::lock::LOCKFILE_NAME;
use mcpbind_codegen::{GenerationSettings, Generator};
use mcpbind_model::lock::Lockfile;

/// Generate Rust bindings from mcpbind.lock.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The lockfile [default: mcpbind.lock here, else at the workspace root;
    /// MCPBIND_LOCKFILE overrides].
    #[arg(long, value_name = "PATH")]
    lockfile: Option<PathBuf>,
    /// The server config, whose `annotations` keys the bindings follow
    /// [default: the mcpbind.toml beside the lockfile, when there is one].
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// Read no config: advise-mode bindings, which a config that says
    /// `annotations = "enforce"` refuses at connect.
    #[arg(long, conflicts_with = "config")]
    no_config: bool,
    /// Write here instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Write nothing: exit 0 when `--out FILE` holds exactly what the
    /// lockfile generates, else 1 with the first lines that differ (for CI,
    /// with bindings checked in).
    #[arg(long, requires = "out")]
    check: bool,
    /// Servers to bind [default: all locked servers].
    #[arg(value_name = "SERVER")]
    servers: Vec<String>,
}

/// Runs `mcpbind generate`.
///
/// # Errors
///
/// When the lockfile can't be read, a server's bindings can't be generated,
/// or `--out` can't be written.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.lockfile.as_deref().unwrap_or(Path::new(LOCKFILE_NAME));
    let lockfile = mcpbind::find_lockfile(path, Path::new(""))?;
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
    if let Some(config) = config(&args, &lockfile)? {
        settings.with_config(&config);
    }
    if !args.servers.is_empty() {
        settings.with_servers(args.servers.clone());
    }
    let mut generator = Generator::new(&settings);
    // Bindings the CLI writes are checked in (a build script generates
    // with the library): no build regenerates them, so their first line
    // says how.
    let text = generator.generate_text(&lock, &lockfile)?.replacen(
        mcpbind_codegen::GENERATED_HEADER,
        mcpbind_codegen::CHECKED_IN_HEADER,
        1,
    );
    for warning in generator.warnings() {
        crate::status!("warning: {warning}");
    }
    match &args.out {
        Some(path) if args.check => return Ok(check(&args, path, &lockfile, &text)),
        Some(path) => {
            // Only over a file mcpbind generated, and never reading a
            // device or FIFO.
            crate::signal::writing(|| {
                mcpbind_model::write::write_generated_if_changed(path, text.as_bytes())
                    .with_context(|| format!("failed to write {}", path.display()))
            })?;
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

/// The config whose `annotations` keys the bindings follow: `--config`,
/// else the `mcpbind.toml` beside the lockfile if there is one (as the
/// build.rs helper and `mcp_tools!` find it), none with `--no-config`.
fn config(args: &Args, lockfile: &Path) -> anyhow::Result<Option<mcpbind::Config>> {
    let default = mcpbind_model::lock::config_beside(lockfile);
    let path = match &args.config {
        Some(path) => path.as_path(),
        None if args.no_config => return Ok(None),
        None if std::fs::metadata(&default).is_ok() => default.as_path(),
        None => return Ok(None),
    };
    let config = mcpbind::Config::load(path)
        .with_context(|| format!("failed to load the server config {}", path.display()))?;
    Ok(Some(config))
}

/// The largest file `--check` reads: far more than any bindings.
const MAX_CHECKED_BYTES: u64 = 256 << 20;

/// `--check`: whether `out` holds exactly `text`; reports the first lines
/// that differ, and what to run, when it does not.
fn check(args: &Args, out: &Path, lockfile: &Path, text: &str) -> ExitCode {
    let old = match mcpbind_model::write::read_regular(out, MAX_CHECKED_BYTES) {
        Ok(old) => old,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return stale(args, out, lockfile, "it does not exist");
        }
        // A directory, a FIFO, a file too large: `generate --out` would
        // refuse it too, so it is not the fix.
        Err(e) => return not_bindings(out, &format!("it cannot be read: {e}")),
    };
    let marker = mcpbind_model::write::GENERATED_MARKER.as_bytes();
    if !old.is_empty() && !old.starts_with(marker) {
        return not_bindings(
            out,
            &format!(
                "it was not generated by mcpbind (it does not start with `{}`)",
                mcpbind_model::write::GENERATED_MARKER
            ),
        );
    }
    if old == text.as_bytes() {
        crate::status!(
            "       Fresh {} matches {}",
            out.display(),
            lockfile.display()
        );
        return ExitCode::SUCCESS;
    }
    let old = String::from_utf8_lossy(&old);
    stale(args, out, lockfile, &first_difference(&old, text))
}

/// Reports a checked file that is not what the lockfile generates.
fn stale(args: &Args, out: &Path, lockfile: &Path, why: &str) -> ExitCode {
    let mut command = String::from("mcpbind generate");
    if let Some(lockfile) = &args.lockfile {
        command.push_str(&format!(" --lockfile {}", lockfile.display()));
    }
    if let Some(config) = &args.config {
        command.push_str(&format!(" --config {}", config.display()));
    }
    command.push_str(&format!(" --out {}", out.display()));
    for server in &args.servers {
        command.push_str(&format!(" {server}"));
    }
    crate::report(&anyhow::Error::new(crate::Hinted::new(
        format!(
            "{} is not what {} generates: {why}",
            out.display(),
            lockfile.display()
        ),
        format!("run `{command}` and commit {}", out.display()),
    )));
    ExitCode::FAILURE
}

/// Reports a `--out` that is not a bindings file `mcpbind generate --out`
/// would write over (a hand-written module, a directory, a FIFO): the fix
/// is the path, not regenerating.
fn not_bindings(out: &Path, why: &str) -> ExitCode {
    crate::report(&anyhow::Error::new(crate::Hinted::new(
        format!("{} is not checked-in bindings: {why}", out.display()),
        format!(
            "point `--out` at the file `mcpbind generate --out` wrote (its first line is `{}…`); mcpbind does not overwrite {}",
            mcpbind_model::write::GENERATED_MARKER,
            out.display()
        ),
    )));
    ExitCode::FAILURE
}

/// How many differing lines `--check` shows.
const SHOWN_LINES: usize = 3;

/// The first lines where `old` (the file) and `new` (what the lockfile
/// generates) part, as `line N` and up to [`SHOWN_LINES`] lines of each.
fn first_difference(old: &str, new: &str) -> String {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let Some(at) =
        (0..old_lines.len().max(new_lines.len())).find(|&i| old_lines.get(i) != new_lines.get(i))
    else {
        return "they differ only in line endings or the final newline".to_owned();
    };
    let mut shown = format!("they differ from line {}:", at + 1);
    for (lines, sign) in [(&old_lines, '-'), (&new_lines, '+')] {
        let rest = &lines[at.min(lines.len())..];
        if rest.is_empty() {
            shown.push_str(&format!("\n  {sign} (end of file)"));
        }
        for line in rest.iter().take(SHOWN_LINES) {
            shown.push_str(&format!(
                "\n  {sign} {}",
                mcpbind::diff::terminal_safe(&bounded(line))
            ));
        }
    }
    shown
}

/// How many bytes of a differing line `--check` shows.
const SHOWN_BYTES: usize = 200;

/// `line`, cut to [`SHOWN_BYTES`] (at a character boundary) with what was
/// left out said.
fn bounded(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= SHOWN_BYTES {
        return line.into();
    }
    let mut end = SHOWN_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &line[..end], line.len() - end).into()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_difference_shows_both_sides() {
        assert_eq!(
            super::first_difference("a\nb\nc\n", "a\nB\nc\n"),
            "they differ from line 2:\n  - b\n  - c\n  + B\n  + c"
        );
        assert_eq!(
            super::first_difference("a\n", "a\nb\n"),
            "they differ from line 2:\n  - (end of file)\n  + b"
        );
        assert_eq!(
            super::first_difference("a\r\n", "a\n"),
            "they differ only in line endings or the final newline"
        );
    }

    /// A differing line is shown up to `SHOWN_BYTES`, cut at a character
    /// boundary, with how much was left out.
    #[test]
    fn a_long_differing_line_is_bounded() {
        let long = format!("é{}", "x".repeat(10 << 20));
        let shown = super::first_difference(&format!("{long}\n"), "a\n");
        assert!(
            shown.len() < 2 * super::SHOWN_BYTES,
            "{} bytes",
            shown.len()
        );
        let expected = format!(
            "they differ from line 1:\n  - é{}… ({} more bytes)\n  + a",
            "x".repeat(super::SHOWN_BYTES - 2),
            long.len() - super::SHOWN_BYTES
        );
        assert_eq!(shown, expected);
    }
}
