//! What the transports see below rmcp: the raw `result` of `tools/list`
//! responses (the lockfile keeps tools exactly as sent, unknown fields
//! included, which rmcp's typed `Tool` would drop), and the first failure a
//! transport recognised (a message over `max_response_bytes`, an HTTP
//! status, a refused redirect), so that the error rmcp reports as "transport
//! closed" can say what happened.

// Each half (HTTP failures, a stdio server's) is read by its own
// feature's transport only.
#![cfg_attr(not(all(feature = "stdio", feature = "http")), allow(dead_code))]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::Value;

use crate::error::Error;

/// serde_json's recursion limit: rmcp can't parse a message nested deeper.
pub(crate) const MAX_DEPTH: usize = 128;

/// Why a transport gave up, as the transport saw it.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// A message exceeded `max_response_bytes`.
    TooLarge {
        limit: usize,
        /// `max_response_bytes` is the limit (not rmcp's own).
        settable: bool,
    },
    /// An HTTP request was answered with an error status or a non-MCP body.
    Http {
        method: String,
        answer: String,
        status: Option<u16>,
        /// What `Retry-After` asked for.
        retry_after: Option<std::time::Duration>,
        /// A `403` whose challenge says `error="insufficient_scope"` (read
        /// as data): the scopes it names, space-separated (empty: none).
        insufficient_scope: Option<String>,
    },
    /// The transport refused to go on (secrets already redacted).
    Refused(String),
    /// A message could not be parsed.
    Invalid { method: String, reason: String },
}

impl Failure {
    pub(crate) fn into_error(self, server: &str) -> Error {
        let server = server.to_owned();
        match self {
            Failure::TooLarge { limit, settable } => Error::TooLarge {
                server,
                limit,
                settable,
            },
            Failure::Http {
                method,
                answer,
                status,
                retry_after,
                insufficient_scope,
            } => Error::Http {
                server,
                method,
                answer,
                status,
                retry_after,
                insufficient_scope,
            },
            Failure::Refused(reason) => Error::Refused { server, reason },
            Failure::Invalid { method, reason } => Error::Invalid {
                server,
                method,
                reason,
            },
        }
    }
}

/// Captures the raw `result` of JSON-RPC responses that carry a list
/// (`tools`, `prompts`, `resourceTemplates`) or a task (`taskId`), keyed by
/// request id, while armed; and the transport's first failure.
#[derive(Default)]
pub(crate) struct RawTap {
    /// How many requests want their raw answer now (a listing and a task's
    /// poll may be in flight at once).
    armed: AtomicUsize,
    results: Mutex<BTreeMap<String, Value>>,
    failure: Mutex<Option<Failure>>,
    /// `failure` holds one: the stdio reader asks on every read, without
    /// taking the lock.
    failed: AtomicBool,
}

impl RawTap {
    pub(crate) fn is_armed(&self) -> bool {
        self.armed.load(Ordering::SeqCst) > 0
    }

    /// One more request wants its raw answer (`on`), or one less.
    pub(crate) fn arm(&self, on: bool) {
        if on {
            self.armed.fetch_add(1, Ordering::SeqCst);
        } else {
            let _ = self
                .armed
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }

    /// Takes the captured result of the response to request `id`.
    pub(crate) fn take(&self, id: &str) -> Option<Value> {
        self.results.lock().ok()?.remove(id)
    }

    /// Records why the transport failed (the latest reason wins).
    pub(crate) fn fail(&self, failure: Failure) {
        if let Ok(mut slot) = self.failure.lock() {
            *slot = Some(failure);
            self.failed.store(true, Ordering::SeqCst);
        }
    }

    /// Whether the transport recorded a failure (cheap: no lock).
    pub(crate) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::SeqCst) && self.failure().is_some()
    }

    /// Forgets an HTTP status failure once a later request succeeded (a 401
    /// that OAuth answered with a refreshed token and a retry).
    pub(crate) fn recovered(&self) {
        if let Ok(mut slot) = self.failure.lock() {
            if matches!(*slot, Some(Failure::Http { .. })) {
                *slot = None;
                self.failed.store(false, Ordering::SeqCst);
            }
        }
    }

    /// The transport's failure, if it recorded one.
    pub(crate) fn failure(&self) -> Option<Failure> {
        self.failure.lock().ok()?.clone()
    }

    /// Records one JSON-RPC message body (a stdio line or an SSE event's
    /// data) while armed. A message nested deeper than rmcp can parse fails
    /// the transport: rmcp would drop it and leave the request waiting for
    /// its timeout.
    pub(crate) fn record(&self, message: &[u8]) {
        if !self.is_armed() {
            return;
        }
        if nesting_depth(message) > MAX_DEPTH {
            self.fail(Failure::Invalid {
                method: "tools/list".to_owned(),
                reason: format!(
                    "it is nested deeper than {MAX_DEPTH} levels (serde_json's recursion limit, which rmcp parses with); no tool can be read from it"
                ),
            });
            return;
        }
        let Ok(Value::Object(mut msg)) = serde_json::from_slice::<Value>(message) else {
            return;
        };
        let (Some(id), Some(result)) = (msg.remove("id"), msg.remove("result")) else {
            return;
        };
        // The lists the lockfile keeps raw: tools, prompts, resource
        // templates; and tasks, whose 2025-11-25 fields rmcp's model drops.
        if ["tools", "prompts", "resourceTemplates", "taskId"]
            .iter()
            .any(|key| result.get(key).is_some())
        {
            if let Ok(mut results) = self.results.lock() {
                results.insert(id_key(&id), result);
            }
        }
    }
}

/// The deepest nesting of arrays and objects in a JSON text (strings
/// skipped), counted without parsing.
pub(crate) fn nesting_depth(json: &[u8]) -> usize {
    mcpbind_model::lock::depth::text_depth(json, usize::MAX).0
}

/// A `Retry-After` value: seconds, or an HTTP date (RFC 9110 §10.2.3);
/// `None` for anything else.
#[cfg(feature = "http")]
pub(crate) fn retry_after(value: &str) -> Option<std::time::Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(std::time::Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}

/// The key under which a request id's response is captured.
pub(crate) fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "http")]
    fn retry_after_is_seconds_or_a_date() {
        use std::time::{Duration, SystemTime};
        assert_eq!(retry_after(" 5 "), Some(Duration::from_secs(5)));
        let soon = SystemTime::now() + Duration::from_secs(120);
        let waited = retry_after(&httpdate::fmt_http_date(soon)).unwrap();
        assert!(waited > Duration::from_secs(100) && waited <= Duration::from_secs(120));
        let past = httpdate::fmt_http_date(SystemTime::UNIX_EPOCH);
        assert_eq!(retry_after(&past), Some(Duration::ZERO));
        assert_eq!(retry_after("soon"), None);
        assert_eq!(retry_after("-3"), None);
    }

    #[test]
    fn depth_skips_strings() {
        assert_eq!(nesting_depth(br#"{"a": [1, {"b": "[[[{{"}]}"#), 3);
        assert_eq!(nesting_depth(br#"{"a": "\"[["}"#), 1);
        assert_eq!(nesting_depth(b"1"), 0);
    }
}
