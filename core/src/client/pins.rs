//! Tools that change while connected: on the server's
//! `notifications/tools/list_changed`, the tools a client was generated for
//! are listed again and compared with the lock under its `pin_policy`, as
//! at connect: `warn` reports the drift (a [`Notice::Drift`], a tracing
//! warning), `refuse` stops calling the changed tools ([`Error::Drift`])
//! until they match again, `ignore` does nothing.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::{Client, Shared};
use crate::config::{PinPolicy, ServerConfig};
use crate::error::{Error, Result};
use crate::notices::{ListKind, Notice};
use crate::tool::ToolMeta;

/// Tools whose calls are refused: their definitions changed on the server
/// while connected, under `pin_policy = "refuse"`.
#[derive(Default)]
pub(super) struct Refused {
    /// Each tool with what changed.
    tools: std::sync::RwLock<Vec<(String, String)>>,
    /// `tools` is not empty: a call sees it without a lock.
    any: std::sync::atomic::AtomicBool,
}

impl Client {
    /// Lists the tools again when the server says they changed (set up
    /// once per client; the handler holds only a weak reference to it).
    pub(super) fn follow_list_changes(
        name: &str,
        config: &Arc<ServerConfig>,
        shared: &Arc<Shared>,
    ) {
        let weak: Weak<Shared> = Arc::downgrade(shared);
        let (name, config) = (name.to_owned(), Arc::clone(config));
        shared.handler.notices.on_list_changed(move |list| {
            let Some(shared) = weak.upgrade() else { return };
            if list != ListKind::Tools || config.pin_policy == PinPolicy::Ignore {
                return;
            }
            let client = Client {
                name: name.clone(),
                config: Arc::clone(&config),
                shared,
                timeout: None,
            };
            // On the connection's task: the listing is sent from another.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { client.tools_changed().await });
            }
        });
    }

    /// Whether calls to `tool` are refused now: it changed on the server
    /// since it was locked, and the server's `pin_policy` is `refuse`.
    pub fn is_refused(&self, tool: &str) -> bool {
        self.refuse_drifted(tool).is_err()
    }

    /// Fails with [`Error::Drift`] for a tool whose calls are refused.
    pub(super) fn refuse_drifted(&self, tool: &str) -> Result<()> {
        let refused = &self.shared.refused;
        if !refused.any.load(Ordering::Acquire) {
            return Ok(());
        }
        let tools = refused.tools.read().unwrap_or_else(|e| e.into_inner());
        match tools.iter().find(|(name, _)| name == tool) {
            Some((_, line)) => Err(Error::Drift {
                server: self.name.clone(),
                drift: vec![line.clone()],
            }),
            None => Ok(()),
        }
    }

    /// The server's tools changed: compares the pinned ones with the lock
    /// again and applies the policy.
    async fn tools_changed(&self) {
        let Some(pinned) = self.pinned() else {
            // Nothing was locked to compare with (an untyped client).
            return;
        };
        let diff = match self.pin_diff(&pinned).await {
            Ok(diff) => diff,
            Err(error) => {
                tracing::warn!(server = %self.name, %error, "the server's tools changed, and listing them again failed");
                return;
            }
        };
        let tools: Vec<String> = (diff.changed.iter().map(|t| t.name.clone()))
            .chain(diff.removed.iter().cloned())
            .collect();
        let lines = diff.drift_lines();
        let refuse = self.config.pin_policy == PinPolicy::Refuse;
        if refuse {
            let refused = &self.shared.refused;
            let mut held = refused.tools.write().unwrap_or_else(|e| e.into_inner());
            *held = tools.iter().cloned().zip(lines.iter().cloned()).collect();
            refused.any.store(!held.is_empty(), Ordering::Release);
        }
        if tools.is_empty() {
            tracing::info!(server = %self.name, "the server's tools changed; the locked ones still match");
            return;
        }
        for line in &lines {
            tracing::warn!(server = %self.name, refused = refuse, "changed since it was locked: {line}; review with `mcpbind diff {}`", self.name);
        }
        self.shared.handler.notices.publish(|| Notice::Drift {
            server: self.name.clone(),
            tools,
            lines,
            refused: refuse,
        });
    }

    /// The tools given to [`Client::check_pins`], if any.
    fn pinned(&self) -> Option<Vec<ToolMeta>> {
        let pins = self.shared.pins.lock().ok()?;
        pins.as_ref().map(|p| p.tools.clone())
    }
}
