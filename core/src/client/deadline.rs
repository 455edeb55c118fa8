//! Request deadlines on one timer per client.
//!
//! With a tokio timeout per request, each request registers a timer, and
//! registering one wakes the runtime thread parked on the time driver so
//! that it recomputes when to wake: a context switch per call, about a
//! tenth of a stdio call's client CPU (BENCHMARKS.md). A client's requests
//! share one timer task instead: a request adds its deadline and learns
//! when it has passed, and the task re-arms its timer only for a deadline
//! earlier than the one it sleeps until, which calls that all have the same
//! timeout never are. Under a steady stream of calls the timer fires once
//! per timeout period; with no request in flight the task sleeps untimed.
//! The task runs on the runtime of the client's first request (as the
//! connection's own task runs on the runtime that connected), is spawned
//! again if that runtime has shut down, and ends with the client.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::{oneshot, Notify};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How far away a deadline too far to represent is put (tokio's own "far
/// future").
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// The deadlines of one client's requests.
#[derive(Default)]
pub(super) struct Deadlines {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    /// Wakes the timer task for a deadline earlier than the one it sleeps
    /// until (a permit is kept if it is not waiting yet).
    earlier: Notify,
}

#[derive(Default)]
struct State {
    /// Waiting requests by deadline (and a number that tells apart equal
    /// deadlines).
    pending: BTreeMap<(Instant, u64), oneshot::Sender<()>>,
    next_id: u64,
    /// What the timer task sleeps until (`None`: untimed, nothing pending).
    armed: Option<Instant>,
    task: Option<JoinHandle<()>>,
}

impl Deadlines {
    /// A future that completes once `timeout` from now has passed. Must be
    /// called within a tokio runtime (the timer task is spawned on the first
    /// call, and again if its runtime has shut down).
    pub(super) fn after(&self, timeout: Duration) -> Expiry {
        let now = Instant::now();
        let at = now.checked_add(timeout).unwrap_or(now + FAR_FUTURE);
        let (sender, receiver) = oneshot::channel();
        let mut state = self.inner.lock();
        let key = (at, state.next_id);
        state.next_id += 1;
        state.pending.insert(key, sender);
        let earlier = state.armed.is_none_or(|armed| at < armed);
        match &state.task {
            Some(task) if !task.is_finished() => {
                if earlier {
                    self.inner.earlier.notify_one();
                }
            }
            _ => state.task = Some(tokio::spawn(run(Arc::clone(&self.inner)))),
        }
        Expiry {
            receiver,
            key,
            inner: Arc::clone(&self.inner),
        }
    }
}

impl Drop for Deadlines {
    fn drop(&mut self) {
        if let Some(task) = self.inner.lock().task.take() {
            task.abort();
        }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Tells every request whose deadline is not after `now`, and returns
    /// the next deadline, which the timer is then armed for.
    fn fire(&self, now: Instant) -> Option<Instant> {
        let mut state = self.lock();
        while let Some(entry) = state.pending.first_entry() {
            if entry.key().0 > now {
                break;
            }
            // The request may have its answer already and stopped waiting.
            let _ = entry.remove().send(());
        }
        state.armed = state.pending.keys().next().map(|&(at, _)| at);
        state.armed
    }
}

/// The timer task: sleeps until the earliest deadline (or until an earlier
/// one comes), tells the requests whose deadline passed, and goes on.
async fn run(inner: Arc<Inner>) {
    loop {
        match inner.fire(Instant::now()) {
            Some(at) => {
                tokio::select! {
                    () = tokio::time::sleep_until(at) => {}
                    () = inner.earlier.notified() => {}
                }
            }
            None => inner.earlier.notified().await,
        }
    }
}

/// Completes when its request's deadline has passed; dropping it (the
/// answer came first) forgets the deadline.
pub(super) struct Expiry {
    receiver: oneshot::Receiver<()>,
    key: (Instant, u64),
    inner: Arc<Inner>,
}

impl Future for Expiry {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // A dropped sender (the client is going away) counts as expired:
        // never wait forever.
        Pin::new(&mut self.receiver).poll(cx).map(|_| ())
    }
}

impl Drop for Expiry {
    fn drop(&mut self) {
        self.inner.lock().pending.remove(&self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_deadline_fires_once_it_has_passed() {
        let deadlines = Deadlines::default();
        let started = std::time::Instant::now();
        let soon = deadlines.after(Duration::from_millis(50));
        let later = deadlines.after(Duration::from_secs(60));
        soon.await;
        assert!(started.elapsed() >= Duration::from_millis(50));
        let mut later = std::pin::pin!(later);
        assert!(futures::poll!(later.as_mut()).is_pending());
    }

    #[tokio::test]
    async fn an_earlier_deadline_rearms_the_timer() {
        let deadlines = Deadlines::default();
        let _late = deadlines.after(Duration::from_secs(60));
        // Let the timer task arm itself for the late deadline first.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let soon = deadlines.after(Duration::from_millis(20));
        tokio::time::timeout(Duration::from_secs(10), soon)
            .await
            .expect("the earlier deadline fired without waiting for the later one");
    }

    #[tokio::test]
    async fn a_dropped_expiry_is_forgotten_and_the_task_ends_with_the_client() {
        let deadlines = Deadlines::default();
        drop(deadlines.after(Duration::from_secs(60)));
        assert!(deadlines.inner.lock().pending.is_empty());
        let inner = Arc::clone(&deadlines.inner);
        drop(deadlines);
        // The aborted task drops its `Arc<Inner>`.
        for _ in 0..100 {
            if Arc::strong_count(&inner) == 1 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the timer task outlived its client");
    }

    #[tokio::test]
    async fn a_huge_timeout_does_not_overflow() {
        let deadlines = Deadlines::default();
        let never = deadlines.after(Duration::MAX);
        let mut never = std::pin::pin!(never);
        assert!(futures::poll!(never.as_mut()).is_pending());
    }
}
