//! What a server says beside its answers: progress of a call, its log
//! messages, that its tools (prompts, resources) changed, and that a
//! resource it was asked to watch (`resources/subscribe`) was updated.
//!
//! Each client keeps a `Notices` shared with its connection's handler. A
//! tool call registers a watch under its request's progress token (rmcp
//! puts one in every request's `_meta`); the handler finds it when a
//! `notifications/progress` comes, records when (the call's `timeout` then
//! starts again) and hands the progress to the caller's [`ProgressSink`].
//!
//! Everything a server says also goes to tracing (its logs under target
//! `mcpbind::server`, at their levels) and, when someone listens, to the
//! process-wide bus of [`Notice`]s ([`subscribe`]), with the config's
//! secrets replaced as in [`ToolInvoked`](crate::events::ToolInvoked) events.

// Logging is deprecated by SEP-2577 (2026-07-28), and servers of earlier
// revisions send it: it is heard until rmcp removes it.
#![allow(deprecated)]

use std::borrow::Cow;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam};
use rmcp::model::{NumberOrString, ProgressToken};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::clock::Clock;

/// How many notices a slow subscriber may fall behind before losing some.
const CAPACITY: usize = 1024;

/// One progress report of a call (`notifications/progress`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Progress {
    /// How far the work is; it grows with each report.
    pub progress: f64,
    /// The total, when the server knows it.
    pub total: Option<f64>,
    /// What the server says it is doing.
    pub message: Option<String>,
}

impl Progress {
    /// `progress / total`, between 0 and 1, when the total is known.
    pub fn fraction(&self) -> Option<f64> {
        let total = self.total.filter(|t| *t > 0.0)?;
        Some((self.progress / total).clamp(0.0, 1.0))
    }
}

/// Receives the progress of one call ([`CallOptions::on_progress`]).
///
/// [`CallOptions::on_progress`]: crate::CallOptions::on_progress
#[derive(Clone)]
pub struct ProgressSink(Arc<dyn Fn(&Progress) + Send + Sync>);

impl ProgressSink {
    /// A sink that calls `f` with each report (on the connection's task:
    /// keep it short, or send the report on through a channel).
    pub fn new(f: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        ProgressSink(Arc::new(f))
    }
}

impl fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Which of a server's lists changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ListKind {
    /// `notifications/tools/list_changed`.
    Tools,
    /// `notifications/prompts/list_changed`.
    Prompts,
    /// `notifications/resources/list_changed`.
    Resources,
}

/// Something a server said beside its answers, as published on the bus.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Notice {
    /// A call in flight reported progress.
    Progress {
        /// The server.
        server: String,
        /// The tool being called.
        tool: String,
        /// The report.
        progress: Progress,
    },
    /// The server logged a message (`notifications/message`).
    Log {
        /// The server.
        server: String,
        /// Its level (`debug` … `emergency`).
        level: String,
        /// The logger's name, if it gave one.
        logger: Option<String>,
        /// What it logged.
        data: Value,
    },
    /// The server said one of its lists changed.
    ListChanged {
        /// The server.
        server: String,
        /// Which list.
        list: ListKind,
    },
    /// After a change, tools (prompts, resource templates) no longer match
    /// what was locked (under `pin_policy` `warn` or `refuse`).
    Drift {
        /// The server.
        server: String,
        /// The tools (prompts, resource templates: see `list`) that changed
        /// or went away.
        tools: Vec<String>,
        /// What changed, one entry per tool (prompt, resource template),
        /// in the order of `tools`.
        drift: Vec<mcpbind_model::Drift>,
        /// Whether calls to them are refused from now on (`refuse`).
        refused: bool,
        /// Which list they are in ([`ListKind::Tools`] for tools).
        list: ListKind,
    },
    /// A resource the client subscribed to
    /// ([`Client::subscribe_resource`](crate::Client::subscribe_resource))
    /// was updated (`notifications/resources/updated`): read it again.
    ResourceUpdated {
        /// The server.
        server: String,
        /// The resource's URI (at most [`MAX_URI_BYTES`]; a longer one is
        /// not published).
        uri: String,
    },
}

/// The longest resource URI a [`Notice::ResourceUpdated`] carries: what a
/// server puts in a notice is bounded like everything it sends.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// Receives [`Notice`]s published after [`subscribe`].
#[derive(Debug)]
pub struct NoticeReceiver(broadcast::Receiver<Arc<Notice>>);

impl NoticeReceiver {
    /// The next notice; notices lost to lag are skipped.
    pub async fn recv(&mut self) -> Option<Arc<Notice>> {
        loop {
            match self.0.recv().await {
                Ok(notice) => return Some(notice),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }

    /// The next notice if one is waiting.
    pub fn try_recv(&mut self) -> Option<Arc<Notice>> {
        loop {
            match self.0.try_recv() {
                Ok(notice) => return Some(notice),
                Err(broadcast::error::TryRecvError::Lagged(_)) => continue,
                Err(_) => return None,
            }
        }
    }
}

static BUS: OnceLock<broadcast::Sender<Arc<Notice>>> = OnceLock::new();

/// Subscribes to what every server says from now on: progress, logs, list
/// changes and the drift they reveal.
pub fn subscribe() -> NoticeReceiver {
    NoticeReceiver(
        BUS.get_or_init(|| broadcast::channel(CAPACITY).0)
            .subscribe(),
    )
}

/// One call waiting for its answer, as the handler sees it.
struct Watch {
    /// The progress token of its request.
    token: ProgressToken,
    tool: Cow<'static, str>,
    sink: Option<ProgressSink>,
    /// When progress was last heard.
    heard: Option<Instant>,
}

/// What a client's connections share with it about what servers say:
/// the calls waiting for progress, and who to tell of a changed list.
pub(crate) struct Notices {
    server: Arc<str>,
    /// `${VAR}` values and what stands for them, hidden in published notices.
    secrets: Vec<(String, String)>,
    /// Kept by value under the lock, in slots that calls reuse:
    /// registering a call takes a free slot (no hashing, no allocation once
    /// the slots are there), its waiter reads `heard` by its slot only when
    /// its timeout passed, and a progress report (rare beside calls) finds
    /// its call by scanning the slots in use.
    watches: Mutex<Slots>,
    /// Told (on the connection's task) when a list changed.
    listener: OnceLock<Box<dyn Fn(ListKind) + Send + Sync>>,
    /// How many times each list (tools, prompts, resources) was said to
    /// have changed: what was listed before is stale once it moved.
    changes: [AtomicU64; 3],
    /// When progress is heard, on the client's clock (a call's timeout
    /// starts again then).
    clock: Clock,
}

impl Notices {
    pub(crate) fn new(server: &str, secrets: Vec<(String, String)>, clock: Clock) -> Self {
        Notices {
            server: server.into(),
            secrets,
            watches: Mutex::new(Slots::default()),
            listener: OnceLock::new(),
            changes: Default::default(),
            clock,
        }
    }

    /// How many times `list` was said to have changed so far.
    pub(crate) fn changes(&self, list: ListKind) -> u64 {
        self.changes[slot(list)].load(Ordering::Acquire)
    }

    /// Who to tell when a list changes (set once, by the client).
    pub(crate) fn on_list_changed(&self, listener: impl Fn(ListKind) + Send + Sync + 'static) {
        let _ = self.listener.set(Box::new(listener));
    }

    /// Watches the progress of the request with `token` until the returned
    /// guard is dropped.
    pub(crate) fn watch(
        &self,
        token: ProgressToken,
        tool: Cow<'static, str>,
        sink: Option<ProgressSink>,
    ) -> Watching<'_> {
        let watch = Watch {
            token,
            tool,
            sink,
            heard: None,
        };
        let slot = match self.watches.lock() {
            Ok(mut watches) => watches.insert(watch),
            Err(_) => usize::MAX,
        };
        Watching {
            notices: self,
            slot,
        }
    }

    /// A `notifications/progress` came.
    pub(crate) fn progress(&self, params: ProgressNotificationParam) {
        let heard = self.clock.now();
        let found = self.watches.lock().ok().and_then(|mut watches| {
            let watch = watches.find(&params.progress_token)?;
            watch.heard = Some(heard);
            Some((watch.tool.clone(), watch.sink.clone()))
        });
        let Some((tool, sink)) = found else {
            tracing::debug!(server = %self.server, token = %token_text(&params.progress_token), "progress for no call in flight");
            return;
        };
        let progress = Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        tracing::debug!(
            server = %self.server,
            tool = %tool,
            progress = progress.progress,
            total = progress.total,
            message = progress.message.as_deref().unwrap_or(""),
            "progress"
        );
        if let Some(sink) = &sink {
            (sink.0)(&progress);
        }
        self.publish(|| Notice::Progress {
            server: self.server.to_string(),
            tool: tool.into_owned(),
            progress: progress.clone(),
        });
    }

    /// A `notifications/message` came: to tracing at its level, and to the
    /// bus.
    pub(crate) fn log(&self, params: LoggingMessageNotificationParam) {
        let text = match &params.data {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let text = crate::redact::redact_labelled(&text, &self.secrets);
        let logger = params.logger.as_deref().unwrap_or("");
        let server = &*self.server;
        match params.level {
            LoggingLevel::Debug => {
                tracing::debug!(target: "mcpbind::server", server, logger, "{text}")
            }
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(target: "mcpbind::server", server, logger, "{text}")
            }
            LoggingLevel::Warning => {
                tracing::warn!(target: "mcpbind::server", server, logger, "{text}")
            }
            _ => tracing::error!(target: "mcpbind::server", server, logger, "{text}"),
        }
        self.publish(|| Notice::Log {
            server: self.server.to_string(),
            level: level_name(params.level).to_owned(),
            logger: params.logger.clone(),
            data: params.data.clone(),
        });
    }

    /// A `notifications/*/list_changed` came.
    pub(crate) fn list_changed(&self, list: ListKind) {
        self.changes[slot(list)].fetch_add(1, Ordering::AcqRel);
        tracing::info!(server = %self.server, ?list, "the server's list changed");
        self.publish(|| Notice::ListChanged {
            server: self.server.to_string(),
            list,
        });
        if let Some(listener) = self.listener.get() {
            listener(list);
        }
    }

    /// A `notifications/resources/updated` came: to tracing, and to the
    /// bus (a URI longer than [`MAX_URI_BYTES`] only to tracing, cut).
    pub(crate) fn resource_updated(&self, uri: &str) {
        if uri.len() > MAX_URI_BYTES {
            let cut = &uri[..uri.floor_char_boundary(256)];
            tracing::warn!(server = %self.server, uri = cut, bytes = uri.len(), "a resource update with a URI over {MAX_URI_BYTES} bytes was ignored");
            return;
        }
        tracing::debug!(server = %self.server, uri, "a subscribed resource was updated");
        self.publish(|| Notice::ResourceUpdated {
            server: self.server.to_string(),
            uri: uri.to_owned(),
        });
    }

    /// Publishes a notice, when anyone listens, with secrets hidden.
    pub(crate) fn publish(&self, notice: impl FnOnce() -> Notice) {
        let Some(bus) = BUS.get().filter(|bus| bus.receiver_count() > 0) else {
            return;
        };
        let mut notice = notice();
        if !self.secrets.is_empty() {
            hide_secrets(&mut notice, &self.secrets);
        }
        let _ = bus.send(Arc::new(notice));
    }
}

/// The calls being watched, each in a slot until its guard is dropped.
#[derive(Default)]
struct Slots {
    slots: Vec<Option<Watch>>,
    /// Slots free for the next call.
    free: Vec<usize>,
}

impl Slots {
    fn insert(&mut self, watch: Watch) -> usize {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(watch);
                slot
            }
            None => {
                self.slots.push(Some(watch));
                self.slots.len() - 1
            }
        }
    }

    fn remove(&mut self, slot: usize) {
        if let Some(watch) = self.slots.get_mut(slot).and_then(Option::take) {
            drop(watch);
            self.free.push(slot);
        }
    }

    /// The call whose request carries `token`.
    fn find(&mut self, token: &ProgressToken) -> Option<&mut Watch> {
        self.slots
            .iter_mut()
            .flatten()
            .find(|watch| watch.token == *token)
    }

    #[cfg(test)]
    fn in_use(&self) -> usize {
        self.slots.iter().flatten().count()
    }
}

/// The registration of a call's progress; dropping it ends the watch.
pub(crate) struct Watching<'n> {
    notices: &'n Notices,
    /// Its slot (`usize::MAX` if the lock was poisoned: nothing watched).
    slot: usize,
}

impl Watching<'_> {
    /// When the server last reported progress for this call.
    pub(crate) fn last_heard(&self) -> Option<Instant> {
        let watches = self.notices.watches.lock().ok()?;
        watches.slots.get(self.slot)?.as_ref()?.heard
    }
}

impl Drop for Watching<'_> {
    fn drop(&mut self) {
        if let Ok(mut watches) = self.notices.watches.lock() {
            watches.remove(self.slot);
        }
    }
}

fn hide_secrets(notice: &mut Notice, secrets: &[(String, String)]) {
    let hide = |s: &mut String| *s = crate::redact::redact_labelled(s, secrets);
    match notice {
        Notice::Progress { progress, .. } => {
            if let Some(message) = &mut progress.message {
                hide(message);
            }
        }
        Notice::Log { data, logger, .. } => {
            crate::redact::redact_labelled_value(data, secrets);
            if let Some(logger) = logger {
                hide(logger);
            }
        }
        Notice::Drift { tools, drift, .. } => {
            tools.iter_mut().for_each(hide);
            for entry in drift {
                entry.for_each_text(&mut |text| hide(text));
            }
        }
        Notice::ResourceUpdated { uri, .. } => hide(uri),
        Notice::ListChanged { .. } => {}
    }
}

/// A list's place in [`Notices::changes`].
fn slot(list: ListKind) -> usize {
    match list {
        ListKind::Tools => 0,
        ListKind::Prompts => 1,
        ListKind::Resources => 2,
    }
}

fn token_text(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.to_string(),
    }
}

fn level_name(level: LoggingLevel) -> &'static str {
    match level {
        LoggingLevel::Debug => "debug",
        LoggingLevel::Info => "info",
        LoggingLevel::Notice => "notice",
        LoggingLevel::Warning => "warning",
        LoggingLevel::Error => "error",
        LoggingLevel::Critical => "critical",
        LoggingLevel::Alert => "alert",
        LoggingLevel::Emergency => "emergency",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_hears_its_progress_and_ends_with_its_guard() {
        let notices = Notices::new("s", Vec::new(), Clock::Wall);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = {
            let seen = Arc::clone(&seen);
            ProgressSink::new(move |p| seen.lock().unwrap().push(p.progress))
        };
        let token = ProgressToken(NumberOrString::Number(7));
        let guard = notices.watch(token.clone(), "t".into(), Some(sink));
        assert!(guard.last_heard().is_none());
        let before = Instant::now();
        notices.progress(ProgressNotificationParam::new(token.clone(), 1.0));
        assert!(guard.last_heard().is_some_and(|t| t >= before));
        // Another call's token is not this call's progress.
        notices.progress(ProgressNotificationParam::new(
            ProgressToken(NumberOrString::Number(8)),
            5.0,
        ));
        assert_eq!(*seen.lock().unwrap(), [1.0]);
        drop(guard);
        notices.progress(ProgressNotificationParam::new(token.clone(), 2.0));
        assert_eq!(*seen.lock().unwrap(), [1.0]);
        assert_eq!(notices.watches.lock().unwrap().in_use(), 0);
        // A later call reuses the slot: the old token's reports are not its.
        let other = ProgressToken(NumberOrString::Number(9));
        let later = notices.watch(other.clone(), "u".into(), None);
        assert_eq!(later.slot, 0);
        notices.progress(ProgressNotificationParam::new(token, 3.0));
        assert!(later.last_heard().is_none());
        notices.progress(ProgressNotificationParam::new(other, 1.0));
        assert!(later.last_heard().is_some());
    }

    #[test]
    fn resource_updates_are_bounded_and_hide_secrets() {
        let notices = Notices::new("s", vec![("s3cr3t".into(), "${TOKEN}".into())], Clock::Wall);
        let mut bus = subscribe();
        notices.resource_updated("file:///s3cr3t/a");
        notices.resource_updated(&"x".repeat(MAX_URI_BYTES + 1));
        notices.resource_updated("file:///b");
        let uris: Vec<String> = std::iter::from_fn(|| bus.try_recv())
            .filter_map(|n| match &*n {
                Notice::ResourceUpdated { server, uri } if server == "s" => Some(uri.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(uris, ["file:///${TOKEN}/a", "file:///b"]);
    }

    #[test]
    fn each_list_counts_its_own_changes() {
        let notices = Notices::new("s", Vec::new(), Clock::Wall);
        notices.list_changed(ListKind::Prompts);
        notices.list_changed(ListKind::Prompts);
        notices.list_changed(ListKind::Resources);
        assert_eq!(
            [ListKind::Tools, ListKind::Prompts, ListKind::Resources].map(|l| notices.changes(l)),
            [0, 2, 1]
        );
    }

    #[test]
    fn fraction_is_clamped_and_needs_a_total() {
        let p = |progress, total| Progress {
            progress,
            total,
            message: None,
        };
        assert_eq!(p(2.0, Some(4.0)).fraction(), Some(0.5));
        assert_eq!(p(9.0, Some(4.0)).fraction(), Some(1.0));
        assert_eq!(p(2.0, None).fraction(), None);
        assert_eq!(p(2.0, Some(0.0)).fraction(), None);
    }
}
