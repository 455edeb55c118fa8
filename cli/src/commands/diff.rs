//! `mcpbind diff`: what changed, classified as breaking, review or
//! compatible: the live servers against the lockfile, two lockfiles
//! (`--from`/`--to`), or the lockfile at a git revision against the one in
//! the working tree (`--git`). The last two are offline.
//!
//! Exit codes: 0 nothing changed, 1 something changed, 2 the comparison
//! could not be made (a usage error, a server that could not be reached, an
//! unreadable lockfile or revision).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::Context as _;
use mcpbind::diff::Review;
use mcpbind::Lockfile;

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

/// How a report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For a person: grouped by server and class, coloured on a terminal
    /// (`NO_COLOR` turns colour off, `CLICOLOR_FORCE` on).
    Text,
    /// For tools: the stable shape documented in the README.
    Json,
    /// For a pull-request comment: a summary line, a table per server, word
    /// diffs of changed descriptions.
    Markdown,
}

/// The exit code of a comparison that could not be made.
pub(crate) const COULD_NOT_COMPARE: u8 = 2;

/// Runs `mcpbind diff`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let review = if args.from.is_some() || args.git.is_some() {
        offline_review(&args)
    } else {
        live_review(&args)
    };
    let review = match review {
        Ok(review) => review,
        Err(err) if err.is::<Unreachable>() => return Ok(ExitCode::from(COULD_NOT_COMPARE)),
        Err(err) => return super::check::could_not_compare(err),
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
    let live = super::check::live_review(&args.selection)?;
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

/// Prints a report on stdout in `format`; text is coloured when stdout is a
/// terminal that takes colour (anstream's choice: `NO_COLOR`,
/// `CLICOLOR_FORCE`, `CLICOLOR`, `TERM`).
///
/// `unreachable` names the servers that could not be compared: the report
/// then says so, and never reads as a summary of them. When no server could
/// be compared at all, nothing is printed (the errors on stderr and exit 2
/// say it all). A closed stdout (`| head -1`) is no error: the exit status
/// stays the comparison's.
pub(crate) fn print_report(
    review: &Review,
    unreachable: &[String],
    format: Format,
) -> anyhow::Result<()> {
    if !unreachable.is_empty() && review.servers.is_empty() {
        return Ok(());
    }
    let text = match format {
        Format::Text => {
            let stdout = std::io::stdout();
            let choice = anstream::AutoStream::choice(&stdout);
            let mut text = review.to_text(choice != anstream::ColorChoice::Never);
            if !unreachable.is_empty() {
                text.push_str(&format!("not compared: {}\n", not_compared(unreachable)));
            }
            text
        }
        Format::Json => {
            let mut json = review.to_json();
            if !unreachable.is_empty() {
                json["unreachable"] = unreachable.into();
            }
            let mut json = serde_json::to_string_pretty(&json)?;
            json.push('\n');
            json
        }
        Format::Markdown if unreachable.is_empty() => review.to_markdown(),
        Format::Markdown => {
            let full = review.to_markdown();
            let rest = full.split_once("\n\n").map_or("", |(_, rest)| rest);
            let compared = match review.worst() {
                Some(_) => format!("Of the servers compared: {}.", review.summary()),
                None => "The servers compared are unchanged.".to_owned(),
            };
            format!(
                "### mcpbind: not compared: {}\n\n{compared}\n\n{rest}",
                not_compared(unreachable)
            )
        }
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("failed to write the report")
        }
        _ => Ok(()),
    }
}

/// `` `a` could not be reached ``, `` `a`, `b` could not be reached ``.
fn not_compared(unreachable: &[String]) -> String {
    let names: Vec<String> = unreachable.iter().map(|n| format!("`{n}`")).collect();
    format!("{} could not be reached", names.join(", "))
}
