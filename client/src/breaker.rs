//! The circuit breaker of one server, and the backoff between retries.
//!
//! The breaker counts consecutive connection failures (a connect that fails,
//! a connection lost during a request). At `breaker_threshold` it opens: new
//! connection attempts fail fast with [`Error::CircuitOpen`] until
//! `breaker_cooldown` has passed; then one attempt (the probe) goes through.
//! A probe that connects closes the circuit; one that fails opens it again.
//! Calls on a live connection are never refused: an open circuit only means
//! there is no connection.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::clock::Clock;
use crate::error::Error;
use mcpbind_model::config::Lifecycle;

/// The state of a server's circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Connections are attempted; `failures` in a row so far.
    Closed { failures: u32 },
    /// Connections fail fast until `until`.
    Open { failures: u32, until: Instant },
    /// One probe is under way; others fail fast.
    HalfOpen { failures: u32 },
}

/// One server's circuit breaker.
#[derive(Debug)]
pub(crate) struct Breaker {
    server: String,
    threshold: u32,
    cooldown: Duration,
    clock: Clock,
    state: Mutex<State>,
}

/// Leave to attempt a connection. A probe that is dropped without an outcome
/// (its caller gave up) lets the next attempt probe instead.
#[must_use]
pub(crate) struct Admission<'a> {
    breaker: &'a Breaker,
    probe: bool,
}

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        if !self.probe {
            return;
        }
        if let Ok(mut state) = self.breaker.state.lock() {
            if let State::HalfOpen { failures } = *state {
                *state = State::Open {
                    failures,
                    until: self.breaker.clock.now(),
                };
            }
        }
    }
}

impl Breaker {
    pub(crate) fn new(server: &str, lifecycle: &Lifecycle, clock: Clock) -> Self {
        Breaker {
            server: server.to_owned(),
            threshold: lifecycle.breaker_threshold,
            cooldown: lifecycle.breaker_cooldown,
            clock,
            state: Mutex::new(State::Closed { failures: 0 }),
        }
    }

    /// Whether a connection may be attempted now.
    pub(crate) fn admit(&self) -> Result<Admission<'_>, Error> {
        let mut state = self.lock();
        let now = self.clock.now();
        let refuse = |failures, retry_in| Error::CircuitOpen {
            server: self.server.clone(),
            failures,
            retry_in,
        };
        match *state {
            State::Closed { .. } => Ok(Admission {
                breaker: self,
                probe: false,
            }),
            State::Open { failures, until } if until > now => Err(refuse(failures, until - now)),
            State::Open { failures, .. } => {
                *state = State::HalfOpen { failures };
                tracing::info!(server = %self.server, failures, "circuit half-open: probing the server");
                Ok(Admission {
                    breaker: self,
                    probe: true,
                })
            }
            State::HalfOpen { failures } => Err(refuse(failures, Duration::ZERO)),
        }
    }

    /// A connection was made, or a request answered.
    pub(crate) fn success(&self) {
        let mut state = self.lock();
        if !matches!(*state, State::Closed { failures: 0 }) {
            if !matches!(*state, State::Closed { .. }) {
                tracing::info!(server = %self.server, "circuit closed: the server is back");
                #[cfg(feature = "metrics")]
                crate::metrics::circuit(&self.server, false);
            }
            *state = State::Closed { failures: 0 };
        }
    }

    /// A connection failed, or was lost during a request.
    pub(crate) fn failure(&self) {
        if self.threshold == 0 {
            return;
        }
        let mut state = self.lock();
        let failures = match *state {
            State::Closed { failures } | State::Open { failures, .. } => failures + 1,
            State::HalfOpen { failures } => failures + 1,
        };
        let reopen = matches!(*state, State::HalfOpen { .. });
        if failures >= self.threshold || reopen {
            *state = State::Open {
                failures,
                until: crate::clock::later(self.clock.now(), self.cooldown),
            };
            tracing::warn!(
                server = %self.server,
                failures,
                cooldown_ms = self.cooldown.as_millis() as u64,
                "circuit open: calls fail fast until the cool-down has passed"
            );
            #[cfg(feature = "metrics")]
            crate::metrics::circuit(&self.server, true);
        } else {
            *state = State::Closed { failures };
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is a plain value: a panic elsewhere cannot leave it torn.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The delay before retry number `retry` (1 for the first): the backoff
/// doubled per retry, capped, then jittered to between half and all of it.
pub(crate) fn backoff(lifecycle: &Lifecycle, retry: u32) -> Duration {
    let doubled = lifecycle.retry_backoff.saturating_mul(
        1u32.checked_shl(retry.saturating_sub(1))
            .unwrap_or(u32::MAX),
    );
    let capped = doubled.min(lifecycle.retry_backoff_max);
    capped.mul_f64(0.5 + 0.5 * unit_random())
}

/// A number in `[0, 1)`, from the standard library's randomly keyed hasher
/// (jitter needs spread, not cryptographic quality).
fn unit_random() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    #[cfg(test)]
    if let Some(fixed) = FIXED_JITTER.with(std::cell::Cell::get) {
        return fixed;
    }
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
thread_local! {
    static FIXED_JITTER: std::cell::Cell<Option<f64>> = const { std::cell::Cell::new(None) };
}

/// Test builds: the jitter of this thread's backoffs from now on (`1.0`:
/// the whole delay), so that a test on paused time can assert exact
/// delays.
#[cfg(test)]
pub(crate) fn fix_jitter(unit: f64) {
    FIXED_JITTER.with(|fixed| fixed.set(Some(unit)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lifecycle(threshold: u32, cooldown_ms: u64) -> Lifecycle {
        let mut lifecycle = Lifecycle::default();
        lifecycle.breaker_threshold = threshold;
        lifecycle.breaker_cooldown = Duration::from_millis(cooldown_ms);
        lifecycle
    }

    #[test]
    fn opens_after_threshold_then_probes_once() {
        let breaker = Breaker::new("demo", &lifecycle(2, 0), Clock::Wall);
        breaker.failure();
        drop(breaker.admit().unwrap());
        breaker.failure();
        // Open, and the cool-down (0) has passed: one probe.
        let probe = breaker.admit().unwrap();
        assert!(probe.probe);
        assert!(matches!(
            breaker.admit(),
            Err(Error::CircuitOpen { failures: 2, .. })
        ));
        breaker.failure();
        drop(probe);
        let probe = breaker.admit().unwrap();
        breaker.success();
        drop(probe);
        assert_eq!(*breaker.lock(), State::Closed { failures: 0 });
    }

    fn retry_in(breaker: &Breaker) -> Duration {
        match breaker.admit() {
            Err(Error::CircuitOpen { retry_in, .. }) => retry_in,
            Err(err) => panic!("{err}"),
            Ok(_) => panic!("admitted"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn open_circuit_fails_fast_for_exactly_the_cooldown() {
        let breaker = Breaker::new("demo", &lifecycle(1, 60_000), Clock::Tokio);
        breaker.failure();
        assert_eq!(retry_in(&breaker), Duration::from_secs(60));
        tokio::time::advance(Duration::from_millis(59_999)).await;
        assert_eq!(retry_in(&breaker), Duration::from_millis(1));
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(breaker.admit().unwrap().probe);
    }

    #[test]
    fn an_abandoned_probe_lets_the_next_call_probe() {
        let breaker = Breaker::new("demo", &lifecycle(1, 0), Clock::Wall);
        breaker.failure();
        drop(breaker.admit().unwrap());
        assert!(breaker.admit().unwrap().probe);
    }

    #[test]
    fn zero_threshold_never_opens() {
        let breaker = Breaker::new("demo", &lifecycle(0, 60_000), Clock::Wall);
        for _ in 0..10 {
            breaker.failure();
        }
        assert!(breaker.admit().is_ok());
    }

    #[test]
    fn backoff_doubles_is_capped_and_jittered() {
        let mut lifecycle = Lifecycle::default();
        lifecycle.retry_backoff = Duration::from_millis(100);
        lifecycle.retry_backoff_max = Duration::from_millis(350);
        for _ in 0..50 {
            let first = backoff(&lifecycle, 1);
            assert!((50..=100).contains(&first.as_millis()), "{first:?}");
            let second = backoff(&lifecycle, 2);
            assert!((100..=200).contains(&second.as_millis()), "{second:?}");
            let late = backoff(&lifecycle, 40);
            assert!((175..=350).contains(&late.as_millis()), "{late:?}");
        }
    }
}
