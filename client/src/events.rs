//! [`ToolInvoked`]: one event per tool call, typed or dispatched by a
//! `Toolbox` (`mcpbind::Toolbox`), delivered to every [`subscribe`]r.
//!
//! The bus is process-wide (a bounded `tokio::sync::broadcast` channel):
//! typed calls have no toolbox to hold subscribers, and a host usually wants
//! every call in one log. A subscriber that falls behind loses the oldest
//! events, never blocks a call. Nothing is built when nobody subscribes.
//!
//! Secrets: an event holds the arguments the caller passed and a one-line
//! outcome, never the server's config; every secret the server's config
//! resolves to ([`ServerConfig::secrets`]: `${VAR}` values, in `auth` too,
//! and URL passwords, also percent-encoded) is replaced in both, in case a
//! server echoed it into an error or a caller passed it on: a variable's
//! value by `${VAR}`, a URL's password by `***`.

use std::future::Future;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::call::ToolResult;
use crate::connect::secrets::ServerSecrets;
use crate::error::{Error, Result};
use crate::redact::{redact_labelled, redact_labelled_value};
use mcpbind_model::config::ServerConfig;
use mcpbind_model::ToolMeta;

/// How many events a slow subscriber may fall behind before losing some.
const CAPACITY: usize = 1024;

/// Which path a call came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CallSource {
    /// A generated client's method (`Client::call::<T>`).
    Typed,
    /// `Toolbox::call`, on a model's behalf.
    Toolbox,
}

/// How a call ended, in one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Outcome {
    /// The tool ran and succeeded.
    Ok,
    /// The tool ran and returned `isError: true`.
    ToolError {
        /// The text of its result.
        message: String,
    },
    /// The arguments were rejected (or the call was not approved) before
    /// anything was sent.
    Rejected {
        /// Why.
        message: String,
    },
    /// The call failed (timeout, lost connection, bad output…).
    Failed {
        /// The error's message.
        message: String,
    },
}

impl Outcome {
    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        matches!(self, Outcome::Ok)
    }
}

/// One tool call, published when it ends.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ToolInvoked {
    /// The server's name in the config.
    pub server: String,
    /// The tool's wire name.
    pub tool: String,
    /// The model-facing name (toolbox calls only).
    pub model_name: Option<String>,
    /// The arguments as sent (or as the model gave them, when rejected).
    pub arguments: Value,
    /// How the call ended.
    pub outcome: Outcome,
    /// Wall time from the call to its result.
    pub duration: Duration,
    /// How many times the request was sent (0 when rejected locally, 2 after
    /// a retry on a lost connection).
    pub attempts: u32,
    /// Typed call or toolbox.
    pub source: CallSource,
    /// The tool is unlocked: a toolbox took it from the server's live
    /// `tools/list` (`Toolbox::add_unlocked`),
    /// not from `mcpbind.lock`, so its arguments were checked against the
    /// schema the server gave at run time, which nobody reviewed.
    pub unlocked: bool,
}

impl ToolInvoked {
    /// The event of a call of an unlocked tool through the toolbox (which
    /// lives in another crate).
    pub(crate) fn unlocked_toolbox_call(
        server: String,
        tool: String,
        model_name: String,
        arguments: Value,
        outcome: Outcome,
        duration: Duration,
        attempts: u32,
    ) -> Self {
        ToolInvoked {
            server,
            tool,
            model_name: Some(model_name),
            arguments,
            outcome,
            duration,
            attempts,
            source: CallSource::Toolbox,
            unlocked: true,
        }
    }
}

/// Receives [`ToolInvoked`] events published after [`subscribe`].
#[derive(Debug)]
pub struct EventReceiver(broadcast::Receiver<Arc<ToolInvoked>>);

impl EventReceiver {
    /// The next event; `None` only if the bus is gone (never, in practice).
    /// Events lost to lag are skipped.
    pub async fn recv(&mut self) -> Option<Arc<ToolInvoked>> {
        loop {
            match self.0.recv().await {
                Ok(event) => return Some(event),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next event if one is waiting.
    pub fn try_recv(&mut self) -> Option<Arc<ToolInvoked>> {
        loop {
            match self.0.try_recv() {
                Ok(event) => return Some(event),
                Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
                Err(_) => return None,
            }
        }
    }
}

static BUS: OnceLock<broadcast::Sender<Arc<ToolInvoked>>> = OnceLock::new();

fn bus() -> &'static broadcast::Sender<Arc<ToolInvoked>> {
    BUS.get_or_init(|| broadcast::channel(CAPACITY).0)
}

/// Subscribes to every tool call made in this process from now on (a call
/// whose future was made before is not reported).
pub fn subscribe() -> EventReceiver {
    EventReceiver(bus().subscribe())
}

fn has_subscribers() -> bool {
    // Counting receivers takes the channel's lock: a process that never
    // subscribed has no channel, and pays nothing per call.
    BUS.get().is_some_and(|bus| bus.receiver_count() > 0)
}

/// What a toolbox tells the typed path about the call it is making.
#[derive(Debug, Default)]
pub struct CallScope {
    /// The name the model called the tool by.
    pub model_name: Option<String>,
    /// How many times the call's request was sent.
    pub attempts: AtomicU32,
}

tokio::task_local! {
    static SCOPE: Arc<CallScope>;
}

/// Runs `fut` (a toolbox dispatch) so that the typed call inside it
/// reports itself as a toolbox call named `scope.model_name`.
pub async fn with_scope<F: Future>(scope: Arc<CallScope>, fut: F) -> F::Output {
    SCOPE.scope(scope, fut).await
}

/// Counts one send of the current call's request (called by `call_raw`).
pub(crate) fn record_attempt() {
    let _ = SCOPE.try_with(|s| s.attempts.fetch_add(1, Ordering::Relaxed));
}

/// Whether a typed call now would be observed: it runs inside a toolbox
/// dispatch, or someone subscribed to the events.
pub(crate) fn observed() -> bool {
    SCOPE.try_with(|_| ()).is_ok() || has_subscribers()
}

/// Wraps one typed call that is [`observed`]: times it, counts its attempts
/// and publishes its [`ToolInvoked`] (the hook in `Client::call`). A
/// subscriber that arrives during an unobserved call sees the next one.
pub(crate) async fn observe<I: Serialize, O>(
    config: &ServerConfig,
    server: &str,
    meta: &ToolMeta,
    input: &I,
    call: impl Future<Output = Result<ToolResult<O>>>,
) -> Result<ToolResult<O>> {
    let outer = SCOPE.try_with(Arc::clone).ok();
    if outer.is_none() && !has_subscribers() {
        // The last subscriber left since `observed` said yes.
        return call.await;
    }
    let scope = outer.clone().unwrap_or_default();
    let start = Instant::now();
    let result = match outer {
        Some(_) => call.await,
        None => SCOPE.scope(Arc::clone(&scope), call).await,
    };
    if has_subscribers() {
        let outcome = match &result {
            Ok(_) => Outcome::Ok,
            Err(e) => outcome_of(e),
        };
        publish(
            config,
            ToolInvoked {
                server: server.to_owned(),
                tool: meta.name.to_owned(),
                model_name: scope.model_name.clone(),
                arguments: serde_json::to_value(input).unwrap_or(Value::Null),
                outcome,
                duration: start.elapsed(),
                attempts: scope.attempts.load(Ordering::Relaxed),
                source: if scope.model_name.is_some() {
                    CallSource::Toolbox
                } else {
                    CallSource::Typed
                },
                unlocked: false,
            },
        );
    }
    result
}

/// How a failed call ended, in one line.
pub fn outcome_of(error: &Error) -> Outcome {
    match error {
        Error::Tool { message, .. } => Outcome::ToolError {
            message: message.clone(),
        },
        e @ (Error::Arguments { .. } | Error::Unapproved { .. }) => Outcome::Rejected {
            message: e.to_string(),
        },
        e => Outcome::Failed {
            message: e.to_string(),
        },
    }
}

/// Publishes a toolbox call that never reached the typed path (its
/// arguments were rejected).
pub fn publish_rejected(
    config: &ServerConfig,
    server: &str,
    meta: &ToolMeta,
    model_name: &str,
    arguments: Value,
    message: String,
    duration: Duration,
) {
    publish_toolbox_call(
        config,
        ToolInvoked {
            server: server.to_owned(),
            tool: meta.name.to_owned(),
            model_name: Some(model_name.to_owned()),
            arguments,
            outcome: Outcome::Rejected { message },
            duration,
            attempts: 0,
            source: CallSource::Toolbox,
            unlocked: false,
        },
    );
}

/// Publishes a toolbox call that did not go through the typed path (an
/// unlocked tool's, or a rejected one), when anyone listens.
pub fn publish_toolbox_call(config: &ServerConfig, event: ToolInvoked) {
    if has_subscribers() {
        publish(config, event);
    }
}

fn publish(config: &ServerConfig, mut event: ToolInvoked) {
    let secrets = config.labelled_secrets();
    if !secrets.is_empty() {
        redact_labelled_value(&mut event.arguments, &secrets);
        match &mut event.outcome {
            Outcome::Ok => {}
            Outcome::ToolError { message }
            | Outcome::Rejected { message }
            | Outcome::Failed { message } => *message = redact_labelled(message, &secrets),
        }
    }
    // An error only means nobody listens any more.
    let _ = bus().send(Arc::new(event));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_secret_values_everywhere() {
        let secrets = vec![("s3cr3t-value".to_owned(), "${TOKEN}".to_owned())];
        let mut value = serde_json::json!({"a": ["x s3cr3t-value y"], "b": "s3cr3t-value"});
        redact_labelled_value(&mut value, &secrets);
        assert_eq!(
            value,
            serde_json::json!({"a": ["x ${TOKEN} y"], "b": "${TOKEN}"})
        );
    }

    /// Every secret the config resolves to is hidden in an event: a
    /// header's `${VAR}` and its percent-encoded form as `${VAR}`, a URL's
    /// password as `***`.
    #[test]
    fn events_hide_every_secret_of_the_config() {
        let config = mcpbind_model::config::Config::from_toml_str(
            r#"
            [servers.events-test]
            transport = "streamable-http"
            url = "https://user:p4ssw0rd@example.com/mcp"
            headers = { Authorization = "Bearer ${MCPBIND_EVENTS_TEST_TOKEN}" }
            "#,
        )
        .unwrap();
        let mut events = subscribe();
        let arguments = serde_json::json!({
            "a": "tok/en+value",
            "b": "tok%2Fen%2Bvalue",
            "c": ["the p4ssw0rd"],
        });
        publish(
            &config.servers["events-test"],
            ToolInvoked {
                server: "events-test".into(),
                tool: "t".into(),
                model_name: None,
                arguments,
                outcome: Outcome::Failed {
                    message: "server said tok/en+value".into(),
                },
                duration: Duration::ZERO,
                attempts: 1,
                source: CallSource::Typed,
                unlocked: false,
            },
        );
        // The bus is the process's: skip other tests' events.
        let event = std::iter::from_fn(|| events.0.try_recv().ok())
            .find(|e| e.server == "events-test")
            .expect("the event");
        assert_eq!(
            event.arguments,
            serde_json::json!({
                "a": "${MCPBIND_EVENTS_TEST_TOKEN}",
                "b": "${MCPBIND_EVENTS_TEST_TOKEN}",
                "c": ["the ***"],
            })
        );
        let Outcome::Failed { message } = &event.outcome else {
            panic!("{:?}", event.outcome)
        };
        assert_eq!(message, "server said ${MCPBIND_EVENTS_TEST_TOKEN}");
    }
}
