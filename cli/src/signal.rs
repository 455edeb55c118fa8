//! Stopping cleanly on SIGTERM, SIGINT and SIGHUP.
//!
//! [`install`] (called first thing in `main`) takes the three signals over.
//! What one does depends on where the command is:
//!
//! - In its work with servers ([`block_on`]): the work is dropped, every
//!   client it held closes, and a dropped request spawns its
//!   `notifications/cancelled`. The runtime then runs a short grace for that
//!   spawned cleanup, and shuts down, which kills each server process
//!   mcpbind started (they are spawned `kill_on_drop`). A CI runner's
//!   SIGTERM goes to the process alone, not to its group, so the servers it
//!   started don't get it.
//! - In a write ([`writing`]): the write is abandoned unless it has already
//!   replaced its file. Every write checks just before its rename
//!   ([`mcpbind_model::write::abandon_writes_when`]); the old file stays and the
//!   temporary is removed. A signal that comes after the rename is too late
//!   to undo it: the command finishes (it has nothing left but to say so)
//!   with its own status, and a note says the signal came after the write.
//! - Anywhere else (parsing, generating, printing): the process exits at
//!   once, as it would by default.
//!
//! Stopped, the command exits with 128 + the signal's number (129, 130,
//! 143), as a shell reports a process the signal killed, and has replaced
//! no file.
//!
//! A test-only pause point (debug builds only, never in a release build):
//! with `MCPBIND_TEST_PAUSE_IN_WRITE=1`, a write prints
//! `mcpbind-test: paused before replacing PATH` on stderr once its
//! temporary is written, synced and locked, and waits there for a stopping
//! signal. A test reads that line, then sends the signal: it certainly
//! arrives inside the write.

use std::future::Future;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
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
    /// The signal of a Unix signal number.
    pub fn from_number(number: u8) -> Option<Signal> {
        match number {
            1 => Some(Signal::Hangup),
            2 => Some(Signal::Interrupt),
            15 => Some(Signal::Terminate),
            _ => None,
        }
    }

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

/// The first stopping signal that arrived (its number), 0 for none.
static ARRIVED: AtomicU8 = AtomicU8::new(0);

/// Whether the command handles a stopping signal itself (in [`block_on`]
/// and [`writing`]); else the signal ends the process at once.
static DEFERRED: AtomicBool = AtomicBool::new(false);

/// The stopping signal that has arrived, if one has.
pub fn arrived() -> Option<Signal> {
    Signal::from_number(ARRIVED.load(Ordering::SeqCst))
}

/// Takes SIGTERM, SIGINT and SIGHUP over for the whole run (see the module
/// docs), and makes every write ask [`arrived`] before it replaces its
/// file. Called once, first thing in `main`.
pub fn install() {
    mcpbind_model::write::abandon_writes_when(abandon_write);
    #[cfg(unix)]
    unix::install();
    #[cfg(windows)]
    windows::install();
}

/// The check every write makes just before its rename: abandon it once a
/// stopping signal has arrived.
fn abandon_write(path: &Path) -> bool {
    #[cfg(all(unix, debug_assertions))]
    unix::test_pause(path);
    let _ = path;
    arrived().is_some()
}

/// While alive, a stopping signal is left to the command ([`DEFERRED`]).
struct Deferred(bool);

impl Deferred {
    fn new() -> Deferred {
        Deferred(DEFERRED.swap(true, Ordering::SeqCst))
    }
}

impl Drop for Deferred {
    fn drop(&mut self) {
        DEFERRED.store(self.0, Ordering::SeqCst);
        // A signal that came while deferred, and that the command did not
        // act on, is acted on by the next check (a write, a block_on).
    }
}

/// Runs a write (`write` returns whether it replaced its file). A stopping
/// signal that arrives before the rename abandons it ([`Interrupted`]); one
/// that arrives after the file was replaced is too late to undo that: the
/// write stands, a note says so, and the command goes on to finish.
///
/// # Errors
///
/// [`Interrupted`] when a signal stopped the write (the file was not
/// replaced), else the write's own error.
pub fn writing(write: impl FnOnce() -> anyhow::Result<bool>) -> anyhow::Result<bool> {
    let deferred = Deferred::new();
    let outcome = write();
    let signal = arrived();
    drop(deferred);
    match (outcome, signal) {
        (Ok(true), Some(signal)) => {
            crate::status!(
                "note: {} arrived after the file was replaced; finishing",
                signal.name()
            );
            ARRIVED.store(0, Ordering::SeqCst);
            Ok(true)
        }
        (_, Some(signal)) => Err(Interrupted(signal).into()),
        (outcome, None) => outcome,
    }
}

/// Runs `work` on a new runtime until it finishes or SIGTERM, SIGINT or
/// SIGHUP arrives. On a signal: drops `work` (closing its clients), gives
/// spawned cleanup `GRACE`, shuts the runtime down (killing the server
/// processes it started) and returns [`Interrupted`].
///
/// # Errors
///
/// [`Interrupted`], or the runtime could not be started.
pub fn block_on<F: Future>(work: F) -> anyhow::Result<F::Output> {
    let deferred = Deferred::new();
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
    // A signal that came as the work finished stops the command all the
    // same: it is not yet past anything it cannot undo.
    let outcome = match (outcome, arrived()) {
        (Ok(_), Some(signal)) => Err(signal),
        (outcome, _) => outcome,
    };
    match outcome {
        Ok(out) => Ok(out),
        Err(signal) => {
            // The work future was dropped when the async block returned.
            runtime.block_on(async { tokio::time::sleep(GRACE).await });
            runtime.shutdown_timeout(GRACE);
            drop(deferred);
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
    // One that came before these handlers were in place.
    if let Some(signal) = arrived() {
        return signal;
    }
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

/// Records `signal` and, outside the parts that handle it themselves
/// ([`DEFERRED`]), ends the process at once as the signal would: the
/// same as the Unix handler, for a platform whose handler runs on a thread
/// of its own (Windows), where it need not be async-signal-safe.
#[cfg(any(windows, test))]
fn stop_unless_deferred(signal: Signal) -> Option<ExitCode> {
    let _ = ARRIVED.compare_exchange(0, signal.number(), Ordering::SeqCst, Ordering::SeqCst);
    if DEFERRED.load(Ordering::SeqCst) {
        return None;
    }
    Some(Interrupted(signal).exit_code())
}

/// Ctrl-C on Windows, at any moment: a console control handler runs on a
/// thread of its own, so tokio's (the one [`next_signal`] also listens to)
/// is watched by a thread that lives as long as the process. In a write
/// ([`writing`]) or the work with servers ([`block_on`]) the command acts
/// on it; anywhere else the process exits 130 at once, as on Unix.
#[cfg(windows)]
mod windows {
    use super::Signal;

    pub(super) fn install() {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        // Listening from here on (not from when the thread starts): a
        // Ctrl-C from now on is this handler's.
        let Ok(mut ctrl_c) = runtime.block_on(async { tokio::signal::windows::ctrl_c() }) else {
            return;
        };
        let watch = move || {
            runtime.block_on(async move {
                while ctrl_c.recv().await.is_some() {
                    if super::stop_unless_deferred(Signal::Interrupt).is_some() {
                        eprintln!("error: stopped by Ctrl-C");
                        std::process::exit(128 + i32::from(Signal::Interrupt.number()));
                    }
                }
            });
        };
        let _ = std::thread::Builder::new()
            .name("ctrl-c".into())
            .spawn(watch);
    }
}

/// The signal handler, and the test-only pause point.
#[cfg(unix)]
mod unix {
    use std::sync::atomic::{AtomicI32, Ordering};

    use super::{Signal, ARRIVED, DEFERRED};

    /// The write end of the pipe the handler wakes the pause point on
    /// (debug builds with the pause asked for; else -1).
    static WAKE: AtomicI32 = AtomicI32::new(-1);

    pub(super) fn install() {
        #[cfg(debug_assertions)]
        if std::env::var_os("MCPBIND_TEST_PAUSE_IN_WRITE").is_some() {
            make_wake_pipe();
        }
        for signal in [Signal::Hangup, Signal::Interrupt, Signal::Terminate] {
            let number = signal.number();
            // SAFETY: the action only stores to atomics and calls write(2)
            // and _exit(2), all async-signal-safe. A failure leaves the
            // signal's default action, which stops the process anyway.
            let _ = unsafe {
                signal_hook_registry::register(i32::from(number), move || on_signal(number))
            };
        }
    }

    /// In the signal handler: records the first signal, wakes the pause
    /// point; outside deferred parts, says so and exits 128 + n at once.
    fn on_signal(number: u8) {
        let _ = ARRIVED.compare_exchange(0, number, Ordering::SeqCst, Ordering::SeqCst);
        let wake = WAKE.load(Ordering::SeqCst);
        if wake >= 0 {
            // SAFETY: write(2) of one byte from a static to an open fd.
            unsafe { libc::write(wake, b"!".as_ptr().cast(), 1) };
        }
        if DEFERRED.load(Ordering::SeqCst) {
            return;
        }
        let message: &[u8] = match number {
            1 => b"error: stopped by SIGHUP\n",
            2 => b"error: stopped by SIGINT\n",
            _ => b"error: stopped by SIGTERM\n",
        };
        // SAFETY: write(2) and _exit(2) are async-signal-safe.
        unsafe {
            libc::write(2, message.as_ptr().cast(), message.len());
            libc::_exit(128 + i32::from(number));
        }
    }

    /// The wake pipe: std's, close-on-exec on every Unix (`pipe2` where
    /// there is one, `pipe` then `fcntl` on Apple's), with a non-blocking
    /// write end so that the handler's write never waits.
    #[cfg(debug_assertions)]
    fn make_wake_pipe() {
        use std::os::fd::{AsRawFd as _, IntoRawFd as _};
        let Ok((read, write)) = std::io::pipe() else {
            return;
        };
        // SAFETY: fcntl on a descriptor we own.
        let nonblocking = unsafe {
            let flags = libc::fcntl(write.as_raw_fd(), libc::F_GETFL);
            flags >= 0
                && libc::fcntl(write.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
        };
        if nonblocking {
            WAKE.store(write.into_raw_fd(), Ordering::SeqCst);
            READ.store(read.into_raw_fd(), Ordering::SeqCst);
        }
    }

    /// The read end of the wake pipe.
    #[cfg(debug_assertions)]
    static READ: AtomicI32 = AtomicI32::new(-1);

    /// The test-only pause point (see the module docs): says where it is on
    /// stderr, then waits until the handler has recorded a stopping signal.
    #[cfg(debug_assertions)]
    pub(super) fn test_pause(path: &std::path::Path) {
        use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
        let read = READ.swap(-1, Ordering::SeqCst);
        if read < 0 {
            return;
        }
        // SAFETY: the read end was made by make_wake_pipe and is used only
        // here, once.
        let read = unsafe { OwnedFd::from_raw_fd(read) };
        crate::status!("mcpbind-test: paused before replacing {}", path.display());
        while ARRIVED.load(Ordering::SeqCst) == 0 {
            let mut poll = libc::pollfd {
                fd: read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: polling one valid descriptor.
            unsafe { libc::poll(&mut poll, 1, -1) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_outside_deferred_parts_ends_the_process_and_inside_abandons_the_write() {
        let deferred = Deferred::new();
        assert_eq!(stop_unless_deferred(Signal::Interrupt), None);
        assert_eq!(arrived(), Some(Signal::Interrupt));
        // The write checks before its rename: it is abandoned.
        assert!(abandon_write(Path::new("mcpbind.lock")));
        drop(deferred);
        assert_eq!(
            stop_unless_deferred(Signal::Interrupt),
            Some(ExitCode::from(130))
        );
        ARRIVED.store(0, Ordering::SeqCst);
    }

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
