//! Pins: the entries a client was given as locked, compared with the live
//! server's when it connects, after each reconnect, and when a list changes.
//!
//! Lists that change while connected: on the server's
//! `notifications/tools/list_changed` (`prompts/…`, `resources/…`), the
//! entries a client was pinned to are listed again and compared with the
//! lock under its `pin_policy`, as at connect: `warn` reports the drift (a
//! [`Notice::Drift`], a tracing warning), `refuse` stops using the changed
//! entries ([`Error::Drift`]) until they match again, `ignore` does nothing.
//! On an MCP 2026-07-28 connection those notifications come on the
//! `subscriptions/listen` stream the client opens at connect (see
//! `subscribe.rs`).
//!
//! Tools are pinned by [`Client::check_pins`] (a generated client's
//! `connect` calls it), prompts by [`Client::check_prompt_pins`] and
//! resource templates by [`Client::check_resource_template_pins`]. The
//! lockfile locks no concrete resources (they are data), so a
//! `resources/list_changed` is compared for the resource templates.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use super::lifecycle::Live;
use super::{Client, Shared};
use crate::error::{Error, Result};
use crate::notices::{ListKind, Notice};
use mcpbind_model::config::{PinPolicy, ServerConfig};
use mcpbind_model::diff::ServerDiff;
use mcpbind_model::lock::{EntryKind, LockedEntry};
use mcpbind_model::Drift;
use mcpbind_model::ToolMeta;
use mcpbind_model::{PromptMeta, ResourceTemplateMeta};

/// Entries whose use is refused: their definitions changed on the server
/// while connected, under `pin_policy = "refuse"`.
#[derive(Default)]
pub(super) struct Refused {
    /// Each entry with its list and what changed.
    entries: RwLock<Vec<(ListKind, String, Drift)>>,
    /// `entries` is not empty: a call sees it without a lock.
    any: AtomicBool,
}

impl Refused {
    /// Refuses nothing of `list` any more.
    fn clear(&self, list: ListKind) {
        if !self.any.load(Ordering::Acquire) {
            return;
        }
        let mut held = self.entries.write().unwrap_or_else(|e| e.into_inner());
        held.retain(|(l, _, _)| *l != list);
        self.any.store(!held.is_empty(), Ordering::Release);
    }
}

/// The prompts and resource templates given to
/// [`Client::check_prompt_pins`] and
/// [`Client::check_resource_template_pins`], as locked.
#[derive(Default)]
pub(super) struct EntryPins {
    prompts: Mutex<Option<Vec<LockedEntry>>>,
    templates: Mutex<Option<Vec<LockedEntry>>>,
}

/// The latest live listing of the server's tools, for a toolbox holding
/// them unlocked: listed again on each change, so that a changed tool is
/// held back and an unchanged one is not.
#[derive(Default)]
pub(super) struct LiveListing {
    /// A toolbox holds unlocked tools of this client.
    watched: AtomicBool,
    /// The change count read before the listing began, and each listed
    /// tool's digest by name.
    latest: Mutex<Option<LiveTools>>,
}

/// One live listing of the tools: the change count read before it began,
/// and each tool's digest by name.
pub type LiveTools = (u64, Arc<HashMap<String, String>>);

/// What is checked again after each reconnect: the pinned tools, and the
/// prompts and resource templates of [`EntryPins`].
pub(super) struct Pins {
    /// The tools given to [`Client::check_pins`] (none: only prompts or
    /// templates were pinned).
    tools: Option<Vec<ToolMeta>>,
    /// The connection they were last checked on.
    checked: u64,
}

impl EntryPins {
    /// The locked entries of `kind` pinned so far.
    fn pinned(&self, kind: EntryKind) -> Option<Vec<LockedEntry>> {
        let pins = self.of(kind)?;
        pins.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn of(&self, kind: EntryKind) -> Option<&Mutex<Option<Vec<LockedEntry>>>> {
        match kind {
            EntryKind::Prompt => Some(&self.prompts),
            EntryKind::ResourceTemplate => Some(&self.templates),
            _ => None,
        }
    }
}

/// The list a kind of entry is in.
fn list_of(kind: EntryKind) -> ListKind {
    match kind {
        EntryKind::Prompt => ListKind::Prompts,
        EntryKind::ResourceTemplate => ListKind::Resources,
        _ => ListKind::Tools,
    }
}

impl Client {
    /// Follows the server's list changes (set up once per client; the
    /// handler holds only a weak reference to it).
    pub(super) fn follow_list_changes(
        name: &str,
        config: &Arc<ServerConfig>,
        shared: &Arc<Shared>,
    ) {
        let weak: Weak<Shared> = Arc::downgrade(shared);
        let (name, config) = (name.to_owned(), Arc::clone(config));
        shared.handler.notices.on_list_changed(move |list| {
            let Some(shared) = weak.upgrade() else { return };
            let live = list == ListKind::Tools && shared.live.watched.load(Ordering::Acquire);
            if config.pin_policy == PinPolicy::Ignore && !live {
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
                runtime.spawn(async move {
                    if live {
                        if let Err(error) = client.list_live_tools().await {
                            tracing::warn!(server = %client.name, %error, "the server's tools changed, and listing them again failed");
                        }
                    }
                    if client.config.pin_policy == PinPolicy::Ignore {
                        return;
                    }
                    match list {
                        ListKind::Tools => client.tools_changed().await,
                        ListKind::Prompts => client.entries_changed(EntryKind::Prompt).await,
                        ListKind::Resources => {
                            client.entries_changed(EntryKind::ResourceTemplate).await
                        }
                    }
                });
            }
        });
    }

    /// How many times the server said its `list` changed on this client's
    /// connections so far (what was listed before the count moved may be
    /// stale).
    pub(crate) fn list_changes(&self, list: ListKind) -> u64 {
        self.shared.handler.notices.changes(list)
    }

    /// Lists the tools again for the toolbox's unlocked ones, from now on
    /// after each change too.
    ///
    /// # Errors
    ///
    /// Those of [`Client::list_tools_raw`].
    pub(crate) async fn list_live_tools(&self) -> Result<LiveTools> {
        let at = self.list_changes(ListKind::Tools);
        let listed = self.list_tools_raw().await?;
        Ok(self.note_live_tools(at, &listed))
    }

    /// Keeps a live listing of the tools (`at`: the change count read
    /// before it began) as the latest, unless a later one is kept already;
    /// they are listed again after each change from now on.
    pub(crate) fn note_live_tools(&self, at: u64, listed: &[serde_json::Value]) -> LiveTools {
        self.shared.live.watched.store(true, Ordering::Release);
        let digests: HashMap<String, String> = listed
            .iter()
            .filter_map(|t| LockedEntry::new(t.clone()))
            .map(|e| (e.name, e.sha256))
            .collect();
        let listing = (at, Arc::new(digests));
        let mut latest = self
            .shared
            .live
            .latest
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if latest.as_ref().is_none_or(|(before, _)| *before <= at) {
            *latest = Some(listing.clone());
        }
        listing
    }

    /// The latest live listing of the tools, if any.
    pub(crate) fn latest_live_tools(&self) -> Option<LiveTools> {
        let latest = self
            .shared
            .live
            .latest
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        latest.clone()
    }

    /// Whether calls to `tool` are refused now: it changed on the server
    /// since it was locked, and the server's `pin_policy` is `refuse`.
    pub fn is_refused(&self, tool: &str) -> bool {
        self.refuse_drifted(tool).is_err()
    }

    /// Fails with [`Error::Drift`] for a tool whose calls are refused.
    pub(super) fn refuse_drifted(&self, tool: &str) -> Result<()> {
        self.refuse_drifted_in(ListKind::Tools, tool)
    }

    /// Fails with [`Error::Drift`] for an entry of `list` (a tool, a
    /// prompt, a resource template) whose use is refused.
    ///
    /// # Errors
    ///
    /// [`Error::Drift`] for an entry whose use is refused.
    pub(crate) fn refuse_drifted_in(&self, list: ListKind, name: &str) -> Result<()> {
        let refused = &self.shared.refused;
        if !refused.any.load(Ordering::Acquire) {
            return Ok(());
        }
        let entries = refused.entries.read().unwrap_or_else(|e| e.into_inner());
        match entries.iter().find(|(l, n, _)| *l == list && n == name) {
            Some((_, _, drift)) => Err(Error::Drift {
                server: self.name.clone(),
                drift: vec![drift.clone()],
            }),
            None => Ok(()),
        }
    }

    /// Compares the live server's prompts with the locked `prompts` (a
    /// generated module's `PROMPTS`) under the server's [`PinPolicy`], as
    /// [`Client::check_pins`] does for tools, and compares them again each
    /// time the server says its prompts changed. Returns what drifted, one
    /// [`Drift`] per prompt; under `refuse`, a changed prompt is an
    /// [`Error::Drift`] here, and getting it one later.
    ///
    /// # Errors
    ///
    /// Those of listing the prompts ([`Client::list_prompts_checked`]).
    pub async fn check_prompt_pins(&self, prompts: &[PromptMeta]) -> Result<Vec<Drift>> {
        let locked = prompts
            .iter()
            .map(|p| locked_entry(p.name, p.sha256, p.definition))
            .collect();
        self.check_entry_pins(EntryKind::Prompt, locked).await
    }

    /// [`Client::check_prompt_pins`] for resource templates (a generated
    /// module's `RESOURCE_TEMPLATES`), compared again each time the server
    /// says its resources changed; under `refuse`, a changed template is
    /// not read.
    ///
    /// # Errors
    ///
    /// Those of listing the resource templates
    /// ([`Client::list_resource_templates_checked`]).
    pub async fn check_resource_template_pins(
        &self,
        templates: &[ResourceTemplateMeta],
    ) -> Result<Vec<Drift>> {
        let locked = templates
            .iter()
            .map(|t| locked_entry(t.name, t.sha256, t.definition))
            .collect();
        self.check_entry_pins(EntryKind::ResourceTemplate, locked)
            .await
    }

    async fn check_entry_pins(
        &self,
        kind: EntryKind,
        locked: Vec<LockedEntry>,
    ) -> Result<Vec<Drift>> {
        if let Some(pins) = self.shared.entry_pins.of(kind) {
            *pins.lock().unwrap_or_else(|e| e.into_inner()) = Some(locked.clone());
        }
        self.recheck_on_reconnect();
        if self.config.pin_policy == PinPolicy::Ignore || locked.is_empty() {
            return Ok(Vec::new());
        }
        let drift = self.entry_diff(kind, &locked).await?.drift(kind);
        self.apply_pin_policy(drift)
    }

    /// How the live server's prompts or resource templates differ from the
    /// locked ones: the drift detector of `mcpbind check`, on the entries
    /// of those names.
    async fn entry_diff(&self, kind: EntryKind, locked: &[LockedEntry]) -> Result<ServerDiff> {
        let (listed, _) = match kind {
            EntryKind::Prompt => self.list_prompts_checked().await?,
            _ => self.list_resource_templates_checked().await?,
        };
        let live: Vec<LockedEntry> = listed
            .into_iter()
            .filter_map(LockedEntry::new)
            .filter(|e| locked.iter().any(|l| l.name == e.name))
            .collect();
        Ok(ServerDiff::tools(locked, &live))
    }

    /// The server's tools changed: compares the pinned ones with the lock
    /// again and applies the policy.
    async fn tools_changed(&self) {
        let Some(pinned) = self.pinned() else {
            // Nothing was locked to compare with (an untyped client).
            return;
        };
        match self.pin_diff(&pinned).await {
            Ok(diff) => self.apply_drift(EntryKind::Tool, &diff),
            Err(error) => {
                tracing::warn!(server = %self.name, %error, "the server's tools changed, and listing them again failed");
            }
        }
    }

    /// The server's prompts (resources) changed: compares the pinned
    /// prompts (resource templates) with the lock again.
    async fn entries_changed(&self, kind: EntryKind) {
        let locked = self.shared.entry_pins.pinned(kind);
        let Some(locked) = locked.filter(|l| !l.is_empty()) else {
            return;
        };
        match self.entry_diff(kind, &locked).await {
            Ok(diff) => self.apply_drift(kind, &diff),
            Err(error) => {
                tracing::warn!(server = %self.name, %error, "the server's {}s changed, and listing them again failed", kind.noun());
            }
        }
    }

    /// Applies the policy to what drifted in one list: under `refuse`, the
    /// changed entries are refused (and the others no longer are); any
    /// drift is published and warned about.
    fn apply_drift(&self, kind: EntryKind, diff: &ServerDiff) {
        let list = list_of(kind);
        let names: Vec<String> = (diff.changed.iter().map(|t| t.name.clone()))
            .chain(diff.removed.iter().cloned())
            .collect();
        let drift = diff.drift(kind);
        let refuse = self.config.pin_policy == PinPolicy::Refuse;
        if refuse {
            let refused = &self.shared.refused;
            let mut held = refused.entries.write().unwrap_or_else(|e| e.into_inner());
            held.retain(|(l, _, _)| *l != list);
            held.extend(
                names
                    .iter()
                    .zip(&drift)
                    .map(|(name, drift)| (list, name.clone(), drift.clone())),
            );
            refused.any.store(!held.is_empty(), Ordering::Release);
        }
        if names.is_empty() {
            tracing::info!(server = %self.name, "the server's {}s changed; the locked ones still match", kind.noun());
            return;
        }
        for line in &drift {
            tracing::warn!(server = %self.name, refused = refuse, "changed since it was locked: {line}; review with `mcpbind diff {}`", self.name);
        }
        self.shared.handler.notices.publish(|| Notice::Drift {
            server: self.name.clone(),
            tools: names,
            drift,
            refused: refuse,
            list,
        });
    }

    /// The tools given to [`Client::check_pins`], if any.
    fn pinned(&self) -> Option<Vec<ToolMeta>> {
        let pins = self.shared.pins.lock().ok()?;
        pins.as_ref().and_then(|p| p.tools.clone())
    }
}

impl Client {
    /// Compares the live server's tools with the locked `tools` (a generated
    /// module's `TOOLS`) and applies the server's [`PinPolicy`]. Returns what
    /// drifted, one [`Drift`](mcpbind_model::Drift) per tool (empty when all match or
    /// the policy is `ignore`).
    ///
    /// # Errors
    ///
    /// Those of listing the tools ([`Client::list_tools_raw`]).
    pub async fn check_pins(&self, tools: &[ToolMeta]) -> Result<Vec<Drift>> {
        self.remember_pins(tools);
        if self.config.pin_policy == PinPolicy::Ignore || tools.is_empty() {
            return Ok(Vec::new());
        }
        let drift = self
            .pin_diff(tools)
            .await?
            .drift(mcpbind_model::lock::EntryKind::Tool);
        self.apply_pin_policy(drift)
    }

    /// The server's [`PinPolicy`] applied to what drifted: under `refuse`,
    /// any drift is an [`Error::Drift`]; under `warn`, each is a tracing
    /// warning and returned.
    fn apply_pin_policy(&self, drift: Vec<Drift>) -> Result<Vec<Drift>> {
        match self.config.pin_policy {
            PinPolicy::Refuse if !drift.is_empty() => Err(Error::Drift {
                server: self.name.clone(),
                drift,
            }),
            _ => {
                for line in &drift {
                    tracing::warn!(server = %self.name, "changed since it was locked: {line}; review with `mcpbind diff {}`", self.name);
                }
                Ok(drift)
            }
        }
    }

    /// How the live server's tools differ from the locked `tools`: the
    /// same drift detector as `mcpbind check`, on the tools of those names.
    pub(super) async fn pin_diff(
        &self,
        tools: &[ToolMeta],
    ) -> Result<mcpbind_model::diff::ServerDiff> {
        let locked: Vec<mcpbind_model::lock::LockedTool> = tools
            .iter()
            .map(|meta| mcpbind_model::lock::LockedTool {
                name: meta.name.to_owned(),
                sha256: meta.sha256(),
                definition: mcpbind_model::lock::parse_definition(meta.definition),
            })
            .collect();
        let live: Vec<mcpbind_model::lock::LockedTool> = self
            .list_tools_raw()
            .await?
            .into_iter()
            .filter(|t| {
                let name = t.get("name").and_then(serde_json::Value::as_str);
                name.is_some_and(|n| tools.iter().any(|meta| meta.name == n))
            })
            .filter_map(mcpbind_model::lock::LockedTool::new)
            .collect();
        Ok(mcpbind_model::diff::ServerDiff::tools(&locked, &live))
    }

    /// If connection `generation` has not been checked: the pinned tools
    /// (`None` when only prompts or templates were pinned).
    pub(super) fn pins_due(&self, generation: u64) -> Option<Option<Vec<ToolMeta>>> {
        let pins = self.shared.pins.lock().ok()?;
        pins.as_ref()
            .filter(|p| p.checked < generation)
            .map(|p| p.tools.clone())
    }

    /// Remembers the tools [`Client::check_pins`] is checking, so that each
    /// reconnect checks them again.
    pub(super) fn remember_pins(&self, tools: &[ToolMeta]) {
        if matches!(
            self.config.transport,
            mcpbind_model::config::TransportConfig::StreamableHttp { .. }
        ) {
            // `Mcp-Param-*` headers for tools called before any listing.
            let locked = tools.iter().map(|t| (t.name, t.input_schema));
            self.shared.handler.tool_schemas.lock(locked);
        }
        // Before the first connection, the one `check_pins` makes is the one
        // it checks.
        let checked = self.shared.generation.load(Ordering::SeqCst).max(1);
        if let Ok(mut pins) = self.shared.pins.lock() {
            *pins = Some(Pins {
                tools: Some(tools.to_vec()),
                checked,
            });
            self.shared.pins_checked.store(checked, Ordering::Release);
        }
    }

    /// Makes each reconnect check the prompts and templates pinned (when
    /// no tools were: [`Client::remember_pins`] does then).
    fn recheck_on_reconnect(&self) {
        let checked = self.shared.generation.load(Ordering::SeqCst).max(1);
        if let Ok(mut pins) = self.shared.pins.lock() {
            if pins.is_none() {
                *pins = Some(Pins {
                    tools: None,
                    checked,
                });
                self.shared.pins_checked.store(checked, Ordering::Release);
            }
        }
    }

    /// Checks what was pinned again on a new connection, as at connect:
    /// the tools, the prompts and the resource templates.
    pub(super) async fn recheck_pins(&self, live: &Arc<Live>) -> Result<()> {
        let _gate = self.shared.pin_gate.lock().await;
        let Some(tools) = self.pins_due(live.generation) else {
            return Ok(());
        };
        match self.check_pinned(tools.as_deref()).await {
            Ok(drifted) => {
                if drifted > 0 {
                    tracing::warn!(server = %self.name, entries = drifted, "pin drift after a reconnect");
                }
                if let Ok(mut pins) = self.shared.pins.lock() {
                    if let Some(p) = pins.as_mut() {
                        p.checked = p.checked.max(live.generation);
                        self.shared.pins_checked.store(p.checked, Ordering::Release);
                    }
                }
                Ok(())
            }
            Err(error) => {
                if let Error::Drift { drift, .. } = &error {
                    tracing::warn!(server = %self.name, entries = drift.len(), "pin drift after a reconnect: refusing the server");
                    // The next call connects (and checks) again.
                    self.forget(live).await;
                }
                Err(error)
            }
        }
    }
}

impl Client {
    /// Checks the pinned `tools`, prompts and resource templates under the
    /// `pin_policy`; returns how many drifted (`Error::Drift` under
    /// `refuse`). Under `refuse`, an entry refused when its list changed is
    /// no longer refused once its list matches again.
    async fn check_pinned(&self, tools: Option<&[ToolMeta]>) -> Result<usize> {
        let mut drifted = 0;
        if let Some(tools) = tools {
            drifted += self.check_pins(tools).await?.len();
            self.shared.refused.clear(ListKind::Tools);
        }
        for kind in [EntryKind::Prompt, EntryKind::ResourceTemplate] {
            if let Some(locked) = self.shared.entry_pins.pinned(kind) {
                drifted += self.check_entry_pins(kind, locked).await?.len();
                self.shared.refused.clear(list_of(kind));
            }
        }
        Ok(drifted)
    }
}

/// A locked prompt or template as the diff takes it.
fn locked_entry(name: &str, sha256: &str, definition: &str) -> LockedEntry {
    LockedEntry {
        name: name.to_owned(),
        sha256: sha256.to_owned(),
        definition: mcpbind_model::lock::parse_definition(definition),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_drift_names_its_kind() {
        let entry = |description: &str| {
            LockedEntry::new(serde_json::json!({"name": "p", "description": description})).unwrap()
        };
        let gone = LockedEntry::new(serde_json::json!({"name": "q"})).unwrap();
        let diff = ServerDiff::tools(&[entry("a"), gone], &[entry("b")]);
        let drift = diff.drift(EntryKind::Prompt);
        assert_eq!(drift.len(), 2);
        assert_eq!(drift[0].kind, EntryKind::Prompt);
        assert!(
            drift[0]
                .to_string()
                .starts_with("prompt `p` changed (sha256 ")
                && drift[0].to_string().ends_with(" live): description"),
            "{drift:?}"
        );
        assert_eq!(drift[1].to_string(), "prompt `q` is gone");
        assert_eq!(
            diff.drift(EntryKind::ResourceTemplate)[1].to_string(),
            "resource template `q` is gone"
        );
    }
}
