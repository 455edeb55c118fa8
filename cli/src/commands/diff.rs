//! `mcpbind diff`: what changed, classified as breaking, review or
//! compatible: the live servers against the lockfile, two lockfiles
//! (`--from`/`--to`), or the lockfile at a git revision against the one in
//! the working tree (`--git`). The last two are offline.
//!
//! Exit codes: 0 nothing changed, 1 something changed, 2 the comparison
//! could not be made (a usage error, a server that could not be reached, an
//! unreadable lockfile or revision).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::Context as _;
use mcpbind::diff::Review;
use mcpbind::Lockfile;

pub use super::review::Format;
use super::review::{print_report, COULD_NOT_COMPARE};
use crate::{Hinted, ServerSelection};

/// What to compare, and how to print it.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub selection: ServerSelection,
    /// Compare this lockfile (the old one) with `--to`, offline.
    #[arg(long, value_name = "OLD.lock", requires = "to")]
    pub from: Option<PathBuf>,
    /// The new lockfile for `--from`.
    #[arg(long, value_name = "NEW.lock", requires = "from")]
    pub to: Option<PathBuf>,
    /// Compare the lockfile at this git revision (e.g. `origin/main`) with
    /// the one in the working tree, offline.
    #[arg(long, value_name = "REV", conflicts_with_all = ["from", "to"])]
    pub git: Option<String>,
    /// How to print the report on stdout.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,
}

/// Runs `mcpbind diff`.
///
/// # Errors
///
/// When the config or the lockfiles can't be read, or the report can't be
/// written.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let review = if args.from.is_some() || args.git.is_some() {
        offline_review(&args)
    } else {
        live_review(&args)
    };
    let review = match review {
        Ok(review) => review,
        Err(err) if err.is::<Unreachable>() => return Ok(ExitCode::from(COULD_NOT_COMPARE)),
        Err(err) => return super::review::could_not_compare(err),
    };
    print_report(&review, &[], args.format)?;
    Ok(if review.worst().is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The live servers against the lockfile; [`Unreachable`] when a server
/// could not be listed, after printing what could be compared (never "no
/// changes" for what could not).
fn live_review(args: &Args) -> anyhow::Result<Review> {
    let live = super::review::live_review(&args.selection)?;
    if !live.unreachable.is_empty() {
        if live.review.worst().is_some() || args.format != Format::Text {
            print_report(&live.review, &live.unreachable, args.format)?;
        }
        return Err(Unreachable.into());
    }
    Ok(live.review)
}

/// A server could not be reached (its error was printed).
#[derive(Debug)]
struct Unreachable;

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a server could not be reached")
    }
}

impl std::error::Error for Unreachable {}

/// `--from`/`--to` or `--git`: two lockfiles, no server started.
fn offline_review(args: &Args) -> anyhow::Result<Review> {
    let (old, new) = match (&args.from, &args.to, &args.git) {
        (Some(from), Some(to), _) => (read(from)?, read(to)?),
        (_, _, Some(rev)) => {
            let path = args.selection.paths.find_lockfile()?;
            let new = Lockfile::read(&path)?;
            (lockfile_at(rev, &path)?, new)
        }
        _ => anyhow::bail!("`--from` needs `--to`"),
    };
    let known = |n: &String| old.servers.contains_key(n) || new.servers.contains_key(n);
    if let Some(name) = args.selection.servers.iter().find(|n| !known(n)) {
        let mut names: Vec<&str> = old
            .servers
            .keys()
            .chain(new.servers.keys())
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.dedup();
        return Err(Hinted::new(
            format!("server `{name}` is in neither lockfile"),
            format!("locked servers: {}", names.join(", ")),
        )
        .into());
    }
    Ok(Review::lockfiles(&old, &new, &args.selection.servers))
}

/// A lockfile named by `--from` or `--to`. The hint for a file that is no
/// lockfile is about these two flags (`--lockfile` does not apply here).
fn read(path: &Path) -> anyhow::Result<Lockfile> {
    Lockfile::read(path).map_err(|e| {
        let what = format!("cannot compare {}", path.display());
        if matches!(e, mcpbind::LockError::NotALockfile { .. }) {
            anyhow::Error::new(e).context(Hinted::new(
                what,
                "`--from` and `--to` each name a lockfile that `mcpbind lock` wrote (an old one, e.g. from `git show REV:mcpbind.lock`, or compare with a revision by `mcpbind diff --git REV`)",
            ))
        } else {
            anyhow::Error::new(e).context(what)
        }
    })
}

/// The lockfile at `path` as it was at git revision `rev`; an empty one
/// when the file was not there yet (every server is then new).
fn lockfile_at(rev: &str, path: &Path) -> anyhow::Result<Lockfile> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .output()
            .context("cannot run `git` (is it installed and on PATH?)")
    };
    let commit = git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("{rev}^{{commit}}"),
    ])?;
    if !commit.status.success() {
        let stderr = String::from_utf8_lossy(&commit.stderr);
        if let Some(fatal) = stderr.lines().find(|l| l.starts_with("fatal:")) {
            anyhow::bail!("cannot read `{rev}` with git in {}: {fatal}", dir.display());
        }
        return Err(Hinted::new(
            format!("`{rev}` is not a commit of the git repository at {}", dir.display()),
            "name a branch, tag or commit; in CI, fetch it first (e.g. `git fetch origin main`, or `fetch-depth: 0`)",
        )
        .into());
    }
    let spec = format!("{rev}:./{file}");
    if !git(&["cat-file", "-e", &spec])?.status.success() {
        crate::status!("note: {file} is not in `{rev}`: every server in it is new");
        return Ok(Lockfile::new());
    }
    let shown = git(&["show", &spec])?;
    if !shown.status.success() {
        anyhow::bail!(
            "`git show {spec}` failed: {}",
            String::from_utf8_lossy(&shown.stderr).trim()
        );
    }
    let text = String::from_utf8(shown.stdout)
        .with_context(|| format!("{file} at `{rev}` is not UTF-8"))?;
    Ok(Lockfile::parse(&text, Path::new(&spec))?)
}
