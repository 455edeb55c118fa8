//! The one clock a client's timing reads: request timeouts and total
//! limits, the backoff between retries, the circuit breaker's cool-down,
//! task polling, idle connections and the shutdown grace.
//!
//! In a program it is the wall clock: `std::time::Instant`, with deadlines
//! on the process's deadline thread ([`deadline`], which says why a thread
//! and not a tokio timer per request). The unit tests can choose tokio's
//! clock instead ([`Clock::Tokio`], test builds only), which
//! `#[tokio::test(start_paused = true)]` pauses and moves when every task
//! waits: a 30 s timeout then takes no time, and its test asserts exactly
//! 30 s.
//!
//! Instants stay `std::time::Instant` either way (tokio's clock gives its
//! own through [`tokio::time::Instant::into_std`]), so the code that plans
//! with them is the same on both clocks. In a program [`Clock`] has one
//! variant and no size: choosing it costs nothing.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

mod deadline;

pub(crate) use deadline::later;

/// Where a client reads the time and waits for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Clock {
    /// The wall clock, deadlines on the process's deadline thread.
    #[default]
    Wall,
    /// tokio's clock (`tokio::time`), which a test can pause.
    #[cfg(test)]
    Tokio,
}

impl Clock {
    /// Now.
    #[inline]
    pub(crate) fn now(self) -> Instant {
        match self {
            Clock::Wall => Instant::now(),
            #[cfg(test)]
            Clock::Tokio => tokio::time::Instant::now().into_std(),
        }
    }

    /// How long since `then`.
    pub(crate) fn since(self, then: Instant) -> Duration {
        self.now().saturating_duration_since(then)
    }

    /// Completes once `at` has passed.
    #[inline]
    pub(crate) fn deadline(self, at: Instant) -> Deadline {
        match self {
            Clock::Wall => Deadline::Wall(deadline::at(at)),
            #[cfg(test)]
            Clock::Tokio => Deadline::Tokio(Box::pin(tokio::time::sleep_until(at.into()))),
        }
    }

    /// Completes once `d` from now has passed.
    pub(crate) fn sleep(self, d: Duration) -> Deadline {
        self.deadline(later(self.now(), d))
    }
}

/// A wait on a [`Clock`]: dropping it forgets the deadline.
pub(crate) enum Deadline {
    Wall(deadline::Expiry),
    #[cfg(test)]
    Tokio(Pin<Box<tokio::time::Sleep>>),
}

impl Future for Deadline {
    type Output = ();

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // `Expiry` and a boxed `Sleep` are both `Unpin`.
        match self.get_mut() {
            Deadline::Wall(expiry) => Pin::new(expiry).poll(cx),
            #[cfg(test)]
            Deadline::Tokio(sleep) => sleep.as_mut().poll(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn tokios_clock_moves_only_with_tokio_time() {
        let clock = Clock::Tokio;
        let start = clock.now();
        clock.sleep(Duration::from_secs(30)).await;
        assert_eq!(clock.since(start), Duration::from_secs(30));
        clock.deadline(start + Duration::from_secs(45)).await;
        assert_eq!(clock.now() - start, Duration::from_secs(45));
        // A deadline that has passed completes at once.
        clock.deadline(start).await;
        assert_eq!(clock.now() - start, Duration::from_secs(45));
    }

    #[tokio::test]
    async fn the_wall_clock_waits_on_the_deadline_thread() {
        let clock = Clock::Wall;
        let start = clock.now();
        clock.sleep(Duration::from_millis(20)).await;
        assert!(clock.since(start) >= Duration::from_millis(20));
    }
}
