//! The HTTP client every Streamable HTTP and legacy SSE server shares, and
//! every reconnect: one connection pool, one set of TLS roots.
//!
//! Building a reqwest client loads and parses the platform's root
//! certificates (rustls-platform-verifier reads the system store), which a
//! client built per connection paid on every connect, and a client per
//! connection also starts every connect on a new TCP (and TLS) connection.
//!
//! A pooled connection belongs to the tokio runtime that opened it: its
//! task runs there, and a pool handed to another runtime stalls or panics
//! once that runtime stops driving it (reqwest#1148, #2501). So the client
//! is kept per runtime: a process with one runtime, the usual case, builds
//! one client; one that runs several (a test harness, a CLI that makes a
//! runtime per command) builds one per runtime, and keeps the last few.
//!
//! Redirects are followed only within the origin of the request's URL, so
//! that configured headers (credentials) never reach another host. The
//! policy can't know which server a request is for, so it only refuses,
//! with a [`CrossOrigin`] error; whoever sees that error records it, with
//! the server's secrets hidden ([`refusal`]).

use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::redact::redact;

use super::tap::Failure;

/// How many runtimes' clients are kept.
const KEPT: usize = 4;

/// Redirects followed within one origin before giving up.
const MAX_REDIRECTS: usize = 10;

static CLIENTS: Mutex<Vec<(tokio::runtime::Id, reqwest::Client)>> = Mutex::new(Vec::new());

/// The shared client of the current runtime, built on first use. `server`
/// names the server in the error when no client can be built (no TLS
/// roots on the system, say).
pub(crate) fn shared(server: &str) -> Result<reqwest::Client> {
    let failed = |e: reqwest::Error| Error::Connect {
        server: server.to_owned(),
        reason: format!("cannot set up the HTTP client: {}", crate::error::chain(&e)),
        stderr: None,
        cause: None,
    };
    // Outside a tokio runtime (rmcp needs one anyway), nothing to share.
    let Ok(runtime) = tokio::runtime::Handle::try_current().map(|h| h.id()) else {
        return build().map_err(failed);
    };
    let mut clients = CLIENTS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(i) = clients.iter().position(|(id, _)| *id == runtime) {
        // Most recently used last.
        let entry = clients.remove(i);
        let client = entry.1.clone();
        clients.push(entry);
        return Ok(client);
    }
    // Built under the lock: two first connects on one runtime share too.
    let client = build().map_err(failed)?;
    if clients.len() >= KEPT {
        clients.remove(0);
    }
    clients.push((runtime, client.clone()));
    Ok(client)
}

fn build() -> reqwest::Result<reqwest::Client> {
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let from = attempt.previous().first().map(|u| u.origin());
        let to = attempt.url().origin();
        match from {
            Some(from) if from != to => {
                let refused = CrossOrigin {
                    from: from.ascii_serialization(),
                    to: to.ascii_serialization(),
                };
                attempt.error(refused)
            }
            _ if attempt.previous().len() >= MAX_REDIRECTS => attempt.error("too many redirects"),
            _ => attempt.follow(),
        }
    });
    reqwest::Client::builder()
        .redirect(policy)
        .tcp_nodelay(true)
        .build()
}

/// A redirect to another origin, refused.
#[derive(Debug)]
pub(crate) struct CrossOrigin {
    from: String,
    to: String,
}

impl std::fmt::Display for CrossOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "refused a redirect from {} to another origin, {} (configured headers are sent only to the configured origin)",
            self.from, self.to
        )
    }
}

impl std::error::Error for CrossOrigin {}

/// The failure to record when `error` is a refused cross-origin redirect,
/// with `secrets` hidden (a `${VAR}` may be part of a host name).
pub(crate) fn refusal(
    error: &(dyn std::error::Error + 'static),
    secrets: &[String],
) -> Option<Failure> {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(refused) = e.downcast_ref::<CrossOrigin>() {
            return Some(Failure::Refused(redact(&refused.to_string(), secrets)));
        }
        cause = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    /// How many clients are kept for runtime `id`.
    fn kept_for(id: tokio::runtime::Id) -> usize {
        let clients = CLIENTS.lock().unwrap();
        clients.iter().filter(|(kept, _)| *kept == id).count()
    }

    /// One client per runtime: every connect on a runtime gets the same
    /// pool, and another runtime gets its own.
    #[test]
    fn one_client_per_runtime() {
        let first = runtime();
        let id = first.block_on(async {
            shared("s").unwrap();
            shared("s").unwrap();
            tokio::runtime::Handle::current().id()
        });
        assert_eq!(kept_for(id), 1);
        let second = runtime();
        let other = second.block_on(async {
            shared("s").unwrap();
            tokio::runtime::Handle::current().id()
        });
        assert_ne!(id, other);
        assert_eq!(kept_for(other), 1);
        assert!(CLIENTS.lock().unwrap().len() <= KEPT);
    }

    #[test]
    fn a_refused_redirect_is_found_in_the_chain_and_redacted() {
        #[derive(Debug)]
        struct Outer(CrossOrigin);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("error following redirect")
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let error = Outer(CrossOrigin {
            from: "http://127.0.0.1:1".into(),
            to: "http://sekrit.example".into(),
        });
        let Some(Failure::Refused(reason)) = refusal(&error, &["sekrit".into()]) else {
            panic!("not found");
        };
        assert_eq!(
            reason,
            "refused a redirect from http://127.0.0.1:1 to another origin, http://***.example (configured headers are sent only to the configured origin)"
        );
        assert!(refusal(&std::io::Error::other("x"), &[]).is_none());
    }
}
