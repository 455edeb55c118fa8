//! Stopping cleanly on SIGTERM, SIGINT and SIGHUP.
//!
//! A command that talks to servers runs its work through [`block_on`]. When
//! one of the three signals reaches the `mcpbind` process (a CI runner's
//! SIGTERM goes to the process alone, not to its group, so the servers it
//! started don't get it), the work is dropped: every client it held closes,
//! and a dropped request spawns its `notifications/cancelled`. The runtime
//! then runs a short grace for that spawned cleanup, and shuts down, which
//! kills each server process mcpbind started (they are spawned
//! `kill_on_drop`). The command exits with 128 + the signal's number (129,
//! 130, 143), as a shell reports a process the signal killed. Nothing is
//! written: `lock` writes its lockfile after the work, so the old one stays.

use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

/// How long spawned cleanup (cancellation notices, transports closing) may
/// run after the work is dropped, before the runtime is shut down.
const GRACE: Duration = Duration::from_millis(250);

/// A signal that stops a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGHUP: the terminal went away.
    Hangup,
    /// SIGINT: Ctrl-C.
    Interrupt,
    /// SIGTERM: asked to stop (a CI timeout, `kill`).
    Terminate,
}

impl Signal {
    /// The signal's number on Unix.
    pub fn number(self) -> u8 {
        match self {
            Signal::Hangup => 1,
            Signal::Interrupt => 2,
            Signal::Terminate => 15,
        }
    }

    /// `SIGHUP`, `SIGINT`, `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Hangup => "SIGHUP",
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
        }
    }
}

/// The work of a command was stopped by a signal (an error, so that `?`
/// carries it out of the command; `main` exits with [`Interrupted::exit_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted(pub Signal);

impl Interrupted {
    /// 128 + the signal's number, as a shell reports it.
    pub fn exit_code(self) -> ExitCode {
        ExitCode::from(128 + self.0.number())
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped by {}", self.0.name())
    }
}

impl std::error::Error for Interrupted {}

/// Runs `work` on a new runtime until it finishes or SIGTERM, SIGINT or
/// SIGHUP arrives. On a signal: drops `work` (closing its clients), gives
/// spawned cleanup [`GRACE`], shuts the runtime down (killing the server
/// processes it started) and returns [`Interrupted`].
///
/// # Errors
///
/// [`Interrupted`], or the runtime could not be started.
pub fn block_on<F: Future>(work: F) -> anyhow::Result<F::Output> {
    let runtime = crate::runtime()?;
    let outcome = runtime.block_on(async {
        let mut work = std::pin::pin!(work);
        let signal = tokio::select! {
            biased;
            signal = next_signal() => signal,
            out = &mut work => return Ok(out),
        };
        Err(signal)
    });
    match outcome {
        Ok(out) => Ok(out),
        Err(signal) => {
            // The work future was dropped when the async block returned.
            runtime.block_on(async { tokio::time::sleep(GRACE).await });
            runtime.shutdown_timeout(GRACE);
            Err(Interrupted(signal).into())
        }
    }
}

/// The next stopping signal. Pending forever when the handlers can't be
/// installed (the signals then act as they would by default).
#[cfg(unix)]
async fn next_signal() -> Signal {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut hup), Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = hup.recv() => Signal::Hangup,
        _ = int.recv() => Signal::Interrupt,
        _ = term.recv() => Signal::Terminate,
    }
}

/// The next stopping signal: Ctrl-C, where there are no Unix signals.
#[cfg(not(unix))]
async fn next_signal() -> Signal {
    match tokio::signal::ctrl_c().await {
        Ok(()) => Signal::Interrupt,
        Err(_) => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_128_plus_the_signal() {
        assert_eq!(Interrupted(Signal::Hangup).exit_code(), ExitCode::from(129));
        assert_eq!(
            Interrupted(Signal::Interrupt).exit_code(),
            ExitCode::from(130)
        );
        assert_eq!(
            Interrupted(Signal::Terminate).exit_code(),
            ExitCode::from(143)
        );
        assert_eq!(
            Interrupted(Signal::Terminate).to_string(),
            "stopped by SIGTERM"
        );
    }
}
