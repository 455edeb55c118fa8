//! `mcpbind check`: does the lockfile still match the live servers? For CI:
//! prints the classified report, and fails (exit 1) when a change of a
//! denied class is found (`--deny`); a server that cannot be reached is
//! exit 2.

use std::process::ExitCode;

use mcpbind::diff::{Class, Review};
use mcpbind::LockError;

use super::review::{could_not_compare, live_review, print_report, Format, COULD_NOT_COMPARE};
use crate::ServerSelection;

/// Which servers to check, what fails the check, how to print the report.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub selection: ServerSelection,
    /// Which changes fail the check (exit 1): `breaking` ones; `review`
    /// (review or breaking); `any` change at all.
    #[arg(long, value_enum, value_name = "CLASS", default_value_t = Deny::Any)]
    pub deny: Deny,
    /// How to print the report on stdout (text only when something changed).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    pub format: Format,
}

/// What `mcpbind check` fails on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Deny {
    /// Breaking changes only.
    Breaking,
    /// Breaking changes and changes a human should review.
    Review,
    /// Any change, compatible ones too.
    Any,
}

impl Deny {
    /// Whether a change of `class` fails the check.
    pub fn denies(self, class: Class) -> bool {
        match self {
            Deny::Breaking => class == Class::Breaking,
            Deny::Review => class != Class::Compatible,
            Deny::Any => true,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Deny::Breaking => "breaking",
            Deny::Review => "review",
            Deny::Any => "any",
        }
    }
}

/// Runs `mcpbind check`.
///
/// # Errors
///
/// When the config or the lockfile can't be read or is stale (a server
/// that can't be reached is reported and exits 2).
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let live = match live_review(&args.selection) {
        Ok(live) => live,
        Err(err) => return could_not_compare(err),
    };
    if args.format != Format::Text || live.review.worst().is_some() {
        print_report(&live.review, &live.unreachable, args.format)?;
    }
    let mut denied = false;
    for server in &live.review.servers {
        let name = &server.server;
        let blocking: Vec<_> = server
            .findings
            .iter()
            .filter(|f| args.deny.denies(f.class))
            .collect();
        if !blocking.is_empty() {
            denied = true;
            let reason = live.reasons.get(name).cloned().unwrap_or_else(|| {
                blocking
                    .iter()
                    .take(3)
                    .map(|f| f.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            });
            crate::report(&anyhow::Error::new(LockError::Stale {
                server: name.clone(),
                path: live.lock_path.clone(),
                reason: mcpbind::StaleReason::ServerChanged { changes: reason },
            }));
        } else if server.findings.is_empty() {
            let tools = live.lock.servers.get(name).map_or(0, |s| s.tools.len());
            let verb = if tools == 1 { "matches" } else { "match" };
            crate::status!("          Ok {name}: {} {verb}", super::tools(tools));
        } else {
            let summary = Review {
                servers: vec![server.clone()],
            }
            .summary();
            crate::status!(
                "          Ok {name}: {summary} (allowed by --deny {})",
                args.deny.as_str()
            );
        }
    }
    Ok(if !live.unreachable.is_empty() {
        ExitCode::from(COULD_NOT_COMPARE)
    } else if denied {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
