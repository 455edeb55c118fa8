//! How a client's connection lives: activity tracking, closing it when idle
//! (`idle_timeout`), and closing it gracefully ([`Client::shutdown`]).
//!
//! Closing gracefully means: cancel the rmcp service (for a process, that
//! closes its stdin, which MCP servers take as the end), then wait for the
//! process to exit, reaping it. A process still running at the deadline is
//! killed when its session is dropped.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::{millis, Client, Shared};
use crate::clock::Clock;
use crate::connect::Session;

/// How long [`Client::close`] and an idle close give a server to exit.
pub(super) const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// One connection, numbered in the order they were made.
pub(crate) struct Live {
    pub(crate) session: Arc<Session>,
    pub(crate) generation: u64,
}

/// How a connection was closed by [`Client::shutdown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Closed {
    /// Every call in flight finished and the server (its process) ended in
    /// time, or there was no connection.
    Graceful,
    /// The deadline passed: calls still in flight were cut off, or the
    /// process did not exit and was killed.
    Forced,
}

/// Calls in flight and when the last one ended (on `clock`).
#[derive(Debug)]
pub(super) struct Activity {
    in_flight: AtomicUsize,
    last: Mutex<Instant>,
    idle: tokio::sync::Notify,
    clock: Clock,
}

/// A call in flight; dropping it marks the end of the call.
pub(super) struct Busy<'a>(&'a Activity);

impl Drop for Busy<'_> {
    fn drop(&mut self) {
        if let Ok(mut last) = self.0.last.lock() {
            *last = self.0.clock.now();
        }
        if self.0.in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Activity {
    pub(super) fn new(clock: Clock) -> Self {
        Activity {
            in_flight: AtomicUsize::new(0),
            last: Mutex::new(clock.now()),
            idle: tokio::sync::Notify::new(),
            clock,
        }
    }

    pub(super) fn enter(&self) -> Busy<'_> {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        Busy(self)
    }

    pub(super) fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }

    /// How long no call has been in flight (`None` while one is).
    fn idle_for(&self) -> Option<Duration> {
        if self.in_flight.load(Ordering::SeqCst) > 0 {
            return None;
        }
        self.last.lock().ok().map(|last| self.clock.since(*last))
    }

    /// Waits until no call is in flight, or `deadline`; true when idle.
    async fn wait_idle(&self, deadline: Instant) -> bool {
        loop {
            let notified = self.idle.notified();
            if self.in_flight.load(Ordering::SeqCst) == 0 {
                return true;
            }
            tokio::select! {
                biased;
                () = notified => {}
                () = self.clock.deadline(deadline) => {
                    return self.in_flight.load(Ordering::SeqCst) == 0;
                }
            }
        }
    }
}

/// Watches `live` and closes it once no call has used it for `idle`. The
/// watcher holds no strong reference: dropping the client ends it.
pub(super) fn reap_when_idle(client: &Client, live: &Arc<Live>, idle: Duration) {
    let shared = Arc::downgrade(&client.shared);
    let live = Arc::downgrade(live);
    let server = client.name.clone();
    tokio::spawn(async move {
        loop {
            let (wait, clock) = {
                let (Some(shared), Some(_)) = (shared.upgrade(), live.upgrade()) else {
                    return;
                };
                let wait = match shared.activity.idle_for() {
                    Some(quiet) if quiet >= idle => Duration::ZERO,
                    Some(quiet) => idle - quiet,
                    None => idle,
                };
                (wait, shared.clock)
            };
            if wait.is_zero() {
                if close_if_idle(&shared, &live, idle, &server).await {
                    return;
                }
            } else {
                clock.sleep(wait).await;
            }
        }
    });
}

/// Takes the connection out of the client if it is still idle, then closes
/// it. False when a call came in meanwhile.
async fn close_if_idle(
    shared: &Weak<Shared>,
    live: &Weak<Live>,
    idle: Duration,
    server: &str,
) -> bool {
    let (Some(shared), Some(live)) = (shared.upgrade(), live.upgrade()) else {
        return true;
    };
    let taken = {
        let mut slot = shared.slot.lock().await;
        // A call that has begun counts as activity before it takes the slot.
        if shared.activity.idle_for().is_none_or(|quiet| quiet < idle) {
            return false;
        }
        match slot.as_ref() {
            Some(current) if Arc::ptr_eq(current, &live) => slot.take(),
            _ => return true,
        }
    };
    let clock = shared.clock;
    drop(shared);
    drop(live);
    if let Some(live) = taken {
        tracing::info!(
            server,
            idle_ms = millis(idle),
            "closing the idle connection"
        );
        close_session(&live.session, clock, clock.now() + CLOSE_GRACE).await;
    }
    true
}

/// Cancels the session and waits (until `deadline` on `clock`) for its
/// process to exit. True when it ended in time (always for HTTP).
pub(super) async fn close_session(session: &Session, clock: Clock, deadline: Instant) -> bool {
    session.service.cancellation_token().cancel();
    let Some(process) = &session.process else {
        return true;
    };
    loop {
        // `exit_status` reaps the process once it has ended.
        if process.exit_status().is_some() {
            return true;
        }
        if clock.now() >= deadline {
            return false;
        }
        clock.sleep(Duration::from_millis(5)).await;
    }
}

impl Client {
    /// Shuts the connection down for every clone: new calls fail with
    /// [`crate::Error::Shutdown`], calls in flight may finish until
    /// `deadline`, then the connection is closed gracefully (a process gets
    /// the rest of the deadline to exit, and is killed after it).
    pub async fn shutdown(&self, deadline: Duration) -> Closed {
        let clock = self.shared.clock;
        let end = crate::clock::later(clock.now(), deadline);
        self.shared.shut.store(true, Ordering::SeqCst);
        if let Some(limit) = &self.shared.limit {
            // Calls waiting for their turn fail now.
            limit.close();
        }
        let drained = self.shared.activity.wait_idle(end).await;
        let live = tokio::select! {
            biased;
            mut slot = self.shared.slot.lock() => slot.take(),
            // A connect is under way and outlived the deadline: dropping the
            // client ends it.
            () = clock.deadline(end) => return Closed::Forced,
        };
        let ended = match &live {
            Some(live) => close_session(&live.session, clock, end).await,
            None => true,
        };
        let outcome = if drained && ended {
            Closed::Graceful
        } else {
            Closed::Forced
        };
        tracing::info!(server = %self.name, outcome = ?outcome, "shut down");
        outcome
    }
}
