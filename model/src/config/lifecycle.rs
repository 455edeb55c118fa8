//! How a long-running client treats a server: timeouts, retries, the
//! circuit breaker, idle connections, and what a pin mismatch does.

use std::time::Duration;

/// The default per-call timeout when a server sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The default total limit of one call (`max_call_time`): however often the
/// server reports progress, a call ends after this long.
pub const DEFAULT_MAX_CALL_TIME: Duration = Duration::from_secs(600);

/// The default time allowed to start a server and finish the handshake.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(120);

/// The default bound on one message from a server (`max_response_bytes`).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;
/// The default number of extra attempts for a retry-safe call.
pub const DEFAULT_RETRIES: u32 = 2;

/// The default first delay between attempts (doubled each time, with jitter).
pub const DEFAULT_RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// The default longest delay between attempts.
pub const DEFAULT_RETRY_BACKOFF_MAX: Duration = Duration::from_secs(5);

/// The default number of consecutive connection failures that open a
/// server's circuit.
pub const DEFAULT_BREAKER_THRESHOLD: u32 = 5;

/// The default time an open circuit fails calls fast before a probe.
pub const DEFAULT_BREAKER_COOLDOWN: Duration = Duration::from_secs(30);

/// How a long-running client treats a server: retries, the circuit breaker,
/// the concurrency limit and idle connections (the `retries`,
/// `retry_backoff`, `retry_backoff_max`, `breaker_threshold`,
/// `breaker_cooldown`, `max_concurrent_calls` and `idle_timeout` keys).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Lifecycle {
    /// Extra attempts for a retry-safe call (a failure before the request
    /// was sent, or a read-only or idempotent tool whose connection was
    /// lost).
    pub retries: u32,
    /// The delay before the first retry; doubled for each next one, capped
    /// by `retry_backoff_max`, with random jitter (half to all of it).
    pub retry_backoff: Duration,
    /// The longest delay between two attempts.
    pub retry_backoff_max: Duration,
    /// Consecutive connection failures that open the circuit: calls then
    /// fail fast ("circuit open") until `breaker_cooldown` has passed, then
    /// one probe call is let through. `0` disables the breaker.
    pub breaker_threshold: u32,
    /// How long an open circuit fails calls fast.
    pub breaker_cooldown: Duration,
    /// At most this many calls in flight to the server; calls beyond it wait,
    /// in order. `None`: no limit.
    pub max_concurrent_calls: Option<usize>,
    /// Close the connection (and end the server's process) after it has been
    /// idle this long; the next call reopens it. `None`: keep it open.
    pub idle_timeout: Option<Duration>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            retries: DEFAULT_RETRIES,
            retry_backoff: DEFAULT_RETRY_BACKOFF,
            retry_backoff_max: DEFAULT_RETRY_BACKOFF_MAX,
            breaker_threshold: DEFAULT_BREAKER_THRESHOLD,
            breaker_cooldown: DEFAULT_BREAKER_COOLDOWN,
            max_concurrent_calls: None,
            idle_timeout: None,
        }
    }
}

/// What to do when a live tool no longer matches its locked hash.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PinPolicy {
    /// Don't compare (no extra `tools/list` at connect).
    Ignore,
    /// Report the drift with `tracing::warn!` and go on.
    #[default]
    Warn,
    /// Fail the connect.
    Refuse,
}
