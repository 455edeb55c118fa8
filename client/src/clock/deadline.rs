//! Request deadlines on one timer thread for the whole process.
//!
//! With a tokio timeout per request, each request registers a timer, and
//! registering one wakes the runtime thread parked on the time driver so
//! that it recomputes when to wake: a context switch per call, about a
//! tenth of a stdio call's client CPU (BENCHMARKS.md). And while any tokio
//! timer is armed, every park of a runtime thread reads the clock. So
//! requests share one plain thread instead (`mcpbind-deadlines`, started on
//! first use): a request puts its deadline in a slot and learns when it has
//! passed; the thread sleeps on a condition variable until the earliest
//! deadline, and is woken only for a deadline earlier than the one it sleeps
//! until, which calls that all have the same timeout never are. Under a
//! steady stream of calls it wakes once per timeout period; with nothing
//! pending it sleeps untimed. Being no task, it belongs to no runtime: a
//! client used from several runtimes, or from one that has shut down, keeps
//! its timeouts.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// How far away a deadline too far to represent is put (tokio's own "far
/// future").
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// The process's pending deadlines and the thread that tells them.
struct Timer {
    state: Mutex<State>,
    /// Wakes the thread for a deadline earlier than the one it sleeps until.
    earlier: Condvar,
}

/// The pending deadlines, in slots: adding and forgetting one, which every
/// request does, touch one slot; the thread, which wakes about once per
/// timeout period, scans them all (one per request in flight).
#[derive(Default)]
struct State {
    slots: Vec<Option<Waiting>>,
    /// Slots free for reuse.
    free: Vec<usize>,
    /// Tells apart the deadlines that used a slot in turn.
    next_id: u64,
    /// What the thread sleeps until (`None`: untimed, or not started).
    armed: Option<Instant>,
    /// Whether the thread runs (it is started on first use; should starting
    /// it fail, the next deadline tries again).
    started: bool,
}

/// A task waiting on a deadline. The thread takes it out of its slot when
/// the deadline passes: an [`Expiry`] whose slot no longer holds its id has
/// expired.
struct Waiting {
    id: u64,
    at: Instant,
    waker: Waker,
}

impl State {
    /// The deadline `id` in `slot`, if it is still pending.
    fn get(&mut self, slot: usize, id: u64) -> Option<&mut Waiting> {
        self.slots
            .get_mut(slot)?
            .as_mut()
            .filter(|pending| pending.id == id)
    }
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<Timer> = OnceLock::new();
    TIMER.get_or_init(|| Timer {
        state: Mutex::new(State::default()),
        earlier: Condvar::new(),
    })
}

/// A future that completes once `timeout` from now has passed. It takes
/// its place among the pending deadlines when first polled.
#[cfg(test)]
pub(super) fn after(timeout: Duration) -> Expiry {
    at(later(Instant::now(), timeout))
}

/// A future that completes once `at` has passed.
pub(super) fn at(at: Instant) -> Expiry {
    Expiry { at, key: None }
}

/// `from + timeout`, or far in the future when that is too far to
/// represent.
pub(crate) fn later(from: Instant, timeout: Duration) -> Instant {
    from.checked_add(timeout).unwrap_or(from + FAR_FUTURE)
}

impl Timer {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a deadline, starting the thread if need be and waking it if the
    /// deadline is earlier than the one it sleeps until. Returns its slot
    /// and id.
    fn add(&self, at: Instant, waker: Waker) -> (usize, u64) {
        let mut state = self.lock();
        let id = state.next_id;
        state.next_id += 1;
        let pending = Some(Waiting { id, at, waker });
        let slot = match state.free.pop() {
            Some(slot) => {
                state.slots[slot] = pending;
                slot
            }
            None => {
                state.slots.push(pending);
                state.slots.len() - 1
            }
        };
        if !state.started {
            state.started = std::thread::Builder::new()
                .name("mcpbind-deadlines".into())
                .spawn(|| self::timer().run())
                .is_ok();
        }
        if state.armed.is_none_or(|armed| at < armed) {
            state.armed = Some(at);
            self.earlier.notify_one();
        }
        (slot, id)
    }

    /// Takes out every deadline not after `now`, for the caller to wake
    /// once the lock is released, and returns the next deadline, which the
    /// thread then sleeps until.
    fn fire(state: &mut State, now: Instant, due: &mut Vec<Waker>) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        for (slot, entry) in state.slots.iter_mut().enumerate() {
            let Some(pending) = entry else { continue };
            if pending.at <= now {
                if let Some(pending) = entry.take() {
                    due.push(pending.waker);
                }
                state.free.push(slot);
            } else if next.is_none_or(|at| pending.at < at) {
                next = Some(pending.at);
            }
        }
        state.armed = next;
        next
    }

    /// The thread: sleeps until the earliest deadline (or until an earlier
    /// one comes), wakes the tasks whose deadline passed, and goes on.
    fn run(&self) {
        let mut due = Vec::new();
        let mut state = self.lock();
        loop {
            let now = Instant::now();
            let next = Self::fire(&mut state, now, &mut due);
            if !due.is_empty() {
                drop(state);
                due.drain(..).for_each(Waker::wake);
                state = self.lock();
                // Deadlines may have come meanwhile: look again.
                continue;
            }
            state = match next {
                Some(at) => {
                    self.earlier
                        .wait_timeout(state, at.saturating_duration_since(now))
                        .unwrap_or_else(|poisoned| poisoned.into_inner())
                        .0
                }
                None => self
                    .earlier
                    .wait(state)
                    .unwrap_or_else(|poisoned| poisoned.into_inner()),
            };
        }
    }
}

/// Completes when its request's deadline has passed; dropping it (the
/// answer came first) forgets the deadline.
///
/// No channel: the thread wakes the task and takes the deadline out of its
/// slot, which is how a poll tells it has passed. A request answered before
/// its deadline costs two short locks, and nothing wakes its task (a wake
/// while it runs would have the runtime poll it again for nothing, waking a
/// parked worker thread to do so: an eventfd write and an `epoll_wait`
/// return per call; BENCHMARKS.md).
pub(crate) struct Expiry {
    at: Instant,
    /// Its slot and id, once among the pending deadlines.
    key: Option<(usize, u64)>,
}

impl Future for Expiry {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let timer = timer();
        let Some((slot, id)) = self.key else {
            self.key = Some(timer.add(self.at, cx.waker().clone()));
            return Poll::Pending;
        };
        let mut state = timer.lock();
        match state.get(slot, id) {
            None => Poll::Ready(()),
            Some(pending) => {
                if !pending.waker.will_wake(cx.waker()) {
                    pending.waker = cx.waker().clone();
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Expiry {
    fn drop(&mut self) {
        let Some((slot, id)) = self.key else { return };
        let mut state = timer().lock();
        if state.get(slot, id).is_none() {
            return;
        }
        let pending = state.slots[slot].take();
        state.free.push(slot);
        drop(state);
        drop(pending);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polls `expiry` once (which registers it) and says it is pending.
    async fn register(expiry: Pin<&mut Expiry>) {
        assert!(futures::poll!(expiry).is_pending());
    }

    #[tokio::test]
    async fn a_deadline_fires_once_it_has_passed() {
        let started = Instant::now();
        let soon = after(Duration::from_millis(50));
        let later = after(Duration::from_secs(60));
        soon.await;
        assert!(started.elapsed() >= Duration::from_millis(50));
        let mut later = std::pin::pin!(later);
        register(later.as_mut()).await;
        assert!(futures::poll!(later.as_mut()).is_pending());
    }

    #[tokio::test]
    async fn an_earlier_deadline_rearms_the_timer() {
        let mut late = std::pin::pin!(after(Duration::from_secs(60)));
        register(late.as_mut()).await;
        // Let the thread arm itself for the late deadline first.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let soon = after(Duration::from_millis(20));
        tokio::time::timeout(Duration::from_secs(10), soon)
            .await
            .expect("the earlier deadline fired without waiting for the later one");
    }

    #[tokio::test]
    async fn a_dropped_expiry_is_forgotten() {
        let mut expiry = Box::pin(after(Duration::from_secs(60)));
        register(expiry.as_mut()).await;
        let (slot, id) = expiry.key.unwrap();
        assert!(timer().lock().get(slot, id).is_some());
        drop(expiry);
        assert!(timer().lock().get(slot, id).is_none());
    }

    /// The answer came first: forgetting the deadline must not wake the
    /// task, which is running (a wake would have the runtime poll it again
    /// for nothing, and wake a parked worker to do so).
    #[test]
    fn forgetting_a_deadline_does_not_wake_its_task() {
        struct Count(std::sync::atomic::AtomicUsize);
        impl std::task::Wake for Count {
            fn wake(self: std::sync::Arc<Self>) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let count = std::sync::Arc::new(Count(Default::default()));
        let waker = Waker::from(std::sync::Arc::clone(&count));
        let mut expiry = Box::pin(after(Duration::from_secs(60)));
        let mut cx = Context::from_waker(&waker);
        assert!(expiry.as_mut().poll(&mut cx).is_pending());
        assert!(expiry.as_mut().poll(&mut cx).is_pending());
        drop(expiry);
        assert_eq!(count.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_huge_timeout_does_not_overflow() {
        let never = after(Duration::MAX);
        let mut never = std::pin::pin!(never);
        register(never.as_mut()).await;
        assert!(futures::poll!(never.as_mut()).is_pending());
    }

    #[test]
    fn deadlines_outlive_the_runtime_that_set_the_first_one() {
        let first = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        first.block_on(async {
            let mut expiry = std::pin::pin!(after(Duration::from_secs(60)));
            register(expiry.as_mut()).await;
        });
        drop(first);
        let second = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        second.block_on(async {
            tokio::time::timeout(Duration::from_secs(10), after(Duration::from_millis(20)))
                .await
                .expect("a deadline fired after the first runtime was gone");
        });
    }
}
