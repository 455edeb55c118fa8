//! What `mcpbind check` and `mcpbind diff` share: the live servers
//! compared with the lockfile, the report and how it is printed, and the
//! exit code of a comparison that could not be made.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use mcpbind::diff::{Review, ServerReview};
use mcpbind::{LockError, Lockfile, ServerDiff};

use crate::ServerSelection;

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

/// A comparison that could not be made: the lockfile no longer matching
/// the config is drift (the error, exit 1), a signal stops the command;
/// anything else (an unknown server, an unreadable config or lockfile) is
/// reported here, exit 2.
pub(crate) fn could_not_compare(err: anyhow::Error) -> anyhow::Result<ExitCode> {
    let drift = err.chain().any(|e| {
        matches!(
            e.downcast_ref::<LockError>(),
            Some(LockError::Stale { .. } | LockError::Unconfigured { .. })
        )
    });
    if drift || err.is::<crate::signal::Interrupted>() {
        return Err(err);
    }
    crate::report(&err);
    Ok(ExitCode::from(COULD_NOT_COMPARE))
}

/// The live servers compared with the lockfile.
pub(crate) struct Live {
    /// The classified changes of each server that could be reached.
    pub review: Review,
    /// The servers that could not be reached (their errors were printed).
    pub unreachable: Vec<String>,
    /// Per server with changed tools, a one-line summary of them.
    pub reasons: std::collections::BTreeMap<String, String>,
    pub lock: Lockfile,
    pub lock_path: PathBuf,
}

/// Snapshots the selected servers and classifies how each differs from the
/// lockfile. A server that can't be listed is reported on stderr and left
/// out of the review.
pub(crate) fn live_review(selection: &ServerSelection) -> anyhow::Result<Live> {
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
        crate::signal::block_on(mcpbind::snapshot::snapshot_servers(&config, &lock, &names))?;
    let mut review = Review::default();
    let mut reasons = std::collections::BTreeMap::new();
    let mut unreachable = Vec::new();
    for (name, result) in live {
        let locked = &lock.servers[&name];
        match result {
            Err(err) => {
                unreachable.push(name.clone());
                crate::report(&anyhow::Error::new(err).context(format!(
                    "failed to check server `{name}`: could not list its tools (the lockfile was not compared)"
                )));
            }
            Ok(current) => {
                let diff = ServerDiff::new(locked, &current);
                if diff.has_drift() {
                    reasons.insert(name.clone(), diff.summary());
                }
                review
                    .servers
                    .push(ServerReview::new(&name, Some(locked), Some(&current)));
            }
        }
    }
    Ok(Live {
        review,
        unreachable,
        reasons,
        lock,
        lock_path,
    })
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
