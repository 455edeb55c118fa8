//! Classifying changes: every difference between two snapshots of a server
//! is breaking, review or compatible, by a named rule.
//!
//! The unit is one *entry* of a server: a tool, a prompt or a resource
//! template. [`classify_tool`] compares one tool's old and new JSON, and its
//! schemas go through the shared schema rules (`schema.rs`) with a
//! [`Direction`](super::schema::Direction): what the client sends is an
//! input, what it receives an output. Prompts and resource templates have
//! their own rules (`prompts.rs`: arguments as params, a template's
//! variables and expansion), and share the text rules (`description`,
//! `title`) and the catch-all below with tools.
//!
//! Whatever no rule explains is never dropped: each raw difference (by JSON
//! pointer) that no rule looked at becomes an `other-changed` finding for a
//! human to review.

use std::fmt;

use serde_json::Value;

use super::prompts::{classify_prompt, classify_resource_template};
use super::schema::{short, Direction, SchemaCmp, MAX_COMPARE_DEPTH};
use super::{diff_values, escape, Change, ServerDiff};
use crate::lock::{on_deep_stack, value_depth, EntryKind, LockedEntry, ServerLock};

/// How a change affects code written against the old snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Code that compiled against the old lock can fail to compile or fail
    /// at run time.
    Breaking,
    /// The code still works, but a human should read the change (what the
    /// model is told, retry safety, the server's identity).
    Review,
    /// Nothing that worked stops working.
    Compatible,
}

impl Class {
    /// The class's name in reports: `breaking`, `review`, `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Review => "review",
            Class::Compatible => "compatible",
        }
    }

    /// All classes, most severe first.
    pub const ALL: [Class; 3] = [Class::Breaking, Class::Review, Class::Compatible];
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a finding is about: a server entry (a tool, a prompt, a resource
/// template), or the server itself when `None`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The kind of entry, in words ([`EntryKind::noun`]): `tool`, `prompt`
    /// or `resource template`.
    pub kind: &'static str,
    /// Its name on the wire.
    pub name: String,
}

/// A message of a finding: text with names and values set apart (as code),
/// so that each output format can quote server text safely.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Message(pub Vec<MessagePart>);

/// One part of a [`Message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessagePart {
    /// Words of mcpbind's own.
    Text(String),
    /// A name or value that came from a server, shown as code.
    Code(String),
}

impl Message {
    /// A message starting with `text`.
    pub fn text(text: impl Into<String>) -> Message {
        Message(vec![MessagePart::Text(text.into())])
    }

    /// Appends words.
    pub fn then(mut self, text: impl Into<String>) -> Message {
        self.0.push(MessagePart::Text(text.into()));
        self
    }

    /// Appends a name or value from the server.
    pub fn code(mut self, code: impl Into<String>) -> Message {
        self.0.push(MessagePart::Code(code.into()));
        self
    }

    /// Appends another message.
    pub fn join(mut self, other: Message) -> Message {
        self.0.extend(other.0);
        self
    }
}

impl fmt::Display for Message {
    /// Plain text, names in backticks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.0 {
            match part {
                MessagePart::Text(t) => f.write_str(t)?,
                MessagePart::Code(c) => write!(f, "`{c}`")?,
            }
        }
        Ok(())
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Breaking, review or compatible.
    pub class: Class,
    /// The rule that classified it (a stable id, e.g. `required-param-added`;
    /// the README lists them).
    pub rule: &'static str,
    /// The entry it is about; `None` for the server itself.
    pub entry: Option<Entry>,
    /// Where, as a JSON pointer into the entry's definition (into the new
    /// one, or the old one for what was removed); into the server's lock
    /// entry for server changes.
    pub pointer: String,
    /// What changed, in words.
    pub message: Message,
    /// The old value, if any.
    pub old: Option<Value>,
    /// The new value, if any.
    pub new: Option<Value>,
}

impl Finding {
    /// A finding about the server itself (`entry` is `None`; callers set it
    /// for an entry).
    pub(super) fn new(
        class: Class,
        rule: &'static str,
        pointer: &str,
        message: Message,
        old: Option<&Value>,
        new: Option<&Value>,
    ) -> Finding {
        Finding {
            class,
            rule,
            entry: None,
            pointer: pointer.to_owned(),
            message,
            old: old.cloned(),
            new: new.cloned(),
        }
    }

    /// Whether the change is to text a model reads (a description or a
    /// title): reports show it as a word diff.
    pub fn text_change(&self) -> Option<(&str, &str)> {
        if self.rule != "description-changed" && self.rule != "title-changed" {
            return None;
        }
        let old = self.old.as_ref().and_then(Value::as_str).unwrap_or("");
        let new = self.new.as_ref().and_then(Value::as_str).unwrap_or("");
        Some((old, new))
    }
}

impl fmt::Display for Finding {
    /// The finding as one line, naming its entry: ``prompt `p`: argument
    /// `a` removed``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.entry {
            Some(e) => write!(f, "{} `{}`: {}", e.kind, e.name, self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

/// The classified changes of one server between two snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerReview {
    /// The server's name in the config.
    pub server: String,
    /// The findings: most severe first, then by entry and pointer.
    pub findings: Vec<Finding>,
}

impl ServerReview {
    /// Classifies the changes of server `name` from `old` to `new` (`None`:
    /// the server is not in that snapshot).
    pub fn new(name: &str, old: Option<&ServerLock>, new: Option<&ServerLock>) -> ServerReview {
        let mut findings = Vec::new();
        match (old, new) {
            (None, None) => {}
            (None, Some(new)) => findings.push(Finding::new(
                Class::Compatible,
                "server-added",
                "",
                Message::text(format!("server added ({})", counts(new))),
                None,
                None,
            )),
            (Some(old), None) => findings.push(Finding::new(
                Class::Breaking,
                "server-removed",
                "",
                Message::text(format!("server removed ({})", counts(old))),
                None,
                None,
            )),
            (Some(old), Some(new)) => {
                classify_identity(old, new, &mut findings);
                for kind in [
                    EntryKind::Tool,
                    EntryKind::Prompt,
                    EntryKind::ResourceTemplate,
                ] {
                    classify_entries(kind, old, new, &mut findings);
                }
                classify_completions(old, new, &mut findings);
                classify_rest(old, new, &mut findings);
            }
        }
        findings
            .sort_by(|a, b| (a.class, &a.entry, &a.pointer).cmp(&(b.class, &b.entry, &b.pointer)));
        ServerReview {
            server: name.to_owned(),
            findings,
        }
    }

    /// How many findings of `class`.
    pub fn count(&self, class: Class) -> usize {
        self.findings.iter().filter(|f| f.class == class).count()
    }

    /// The most severe class found, if anything changed.
    pub fn worst(&self) -> Option<Class> {
        self.findings.iter().map(|f| f.class).min()
    }
}

fn classify_identity(old: &ServerLock, new: &ServerLock, out: &mut Vec<Finding>) {
    if old.protocol_version != new.protocol_version {
        out.push(Finding::new(
            Class::Review,
            "protocol-version-changed",
            "/protocol_version",
            Message::text("protocol version changed: ")
                .code(&old.protocol_version)
                .then(" → ")
                .code(&new.protocol_version),
            Some(&Value::String(old.protocol_version.clone())),
            Some(&Value::String(new.protocol_version.clone())),
        ));
    }
    classify_server_info(old, new, out);
    classify_filters(old, new, out);
}

/// The changes in `server_info`: its version, or any other field, for
/// review.
fn classify_server_info(old: &ServerLock, new: &ServerLock, out: &mut Vec<Finding>) {
    let mut changes = Vec::new();
    let depth = value_depth(&old.server_info).max(value_depth(&new.server_info));
    on_deep_stack(depth, || {
        diff_values(
            "/server_info",
            Some(&old.server_info),
            Some(&new.server_info),
            &mut changes,
        )
    });
    for c in changes {
        let version = c.pointer == "/server_info/version";
        let what = c
            .pointer
            .trim_start_matches("/server_info/")
            .trim_start_matches('/');
        let message = match version {
            true => Message::text("server version changed: "),
            false => Message::text("server info ").code(what).then(" changed: "),
        }
        .code(c.old.as_ref().map_or("(none)".into(), short))
        .then(" → ")
        .code(c.new.as_ref().map_or("(none)".into(), short));
        let rule = if version {
            "server-version-changed"
        } else {
            "server-info-changed"
        };
        out.push(Finding::new(
            Class::Review,
            rule,
            &c.pointer,
            message,
            c.old.as_ref(),
            c.new.as_ref(),
        ));
    }
}

/// A changed tool, prompt or resource-template filter of the config, for
/// review.
fn classify_filters(old: &ServerLock, new: &ServerLock, out: &mut Vec<Finding>) {
    let filters = [
        (
            old.enabled_tools != new.enabled_tools || old.disabled_tools != new.disabled_tools,
            "/enabled_tools",
            "enabled_tools/disabled_tools",
        ),
        (
            old.enabled_prompts != new.enabled_prompts
                || old.disabled_prompts != new.disabled_prompts,
            "/enabled_prompts",
            "enabled_prompts/disabled_prompts",
        ),
        (
            old.enabled_resource_templates != new.enabled_resource_templates
                || old.disabled_resource_templates != new.disabled_resource_templates,
            "/enabled_resource_templates",
            "enabled_resource_templates/disabled_resource_templates",
        ),
    ];
    for (changed, pointer, names) in filters {
        if changed {
            out.push(Finding::new(
                Class::Review,
                "filter-changed",
                pointer,
                Message::text(format!("the config's {names} changed")),
                None,
                None,
            ));
        }
    }
}

/// `tools`, or `3 tools, 2 prompts, 1 resource template` when the server
/// has prompts or templates.
fn counts(lock: &ServerLock) -> String {
    let mut parts = vec![format!("{} tools", lock.tools.len())];
    for kind in [EntryKind::Prompt, EntryKind::ResourceTemplate] {
        let n = lock.entries(kind).len();
        if n > 0 {
            let plural = if n == 1 { "" } else { "s" };
            parts.push(format!("{n} {}{plural}", kind.noun()));
        }
    }
    parts.join(", ")
}

/// `completions` turned off removes the generated `complete_*` methods
/// (code calling them no longer compiles); turned on adds them.
fn classify_completions(old: &ServerLock, new: &ServerLock, out: &mut Vec<Finding>) {
    if old.completions == new.completions {
        return;
    }
    let (class, message) = match new.completions {
        true => (
            Class::Compatible,
            "the server now completes prompt arguments (`completion/complete`)",
        ),
        false => (
            Class::Breaking,
            "the server no longer completes prompt arguments (`completion/complete`: the generated `complete_*` methods are gone)",
        ),
    };
    out.push(Finding::new(
        class,
        "completions-changed",
        "/completions",
        Message::text(message),
        Some(&Value::Bool(old.completions)),
        Some(&Value::Bool(new.completions)),
    ));
}

/// The parts of a server's entry no rule classifies (keys a later lockfile
/// version may add): each change is for review, so that a check never
/// passes a lockfile that would change.
fn classify_rest(old: &ServerLock, new: &ServerLock, out: &mut Vec<Finding>) {
    const CLASSIFIED: [&str; 12] = [
        "tools",
        "prompts",
        "resource_templates",
        "completions",
        "protocol_version",
        "server_info",
        "enabled_tools",
        "disabled_tools",
        "enabled_prompts",
        "disabled_prompts",
        "enabled_resource_templates",
        "disabled_resource_templates",
    ];
    let rest = |lock: &ServerLock| {
        let depth = [
            EntryKind::Tool,
            EntryKind::Prompt,
            EntryKind::ResourceTemplate,
        ]
        .iter()
        .flat_map(|kind| lock.entries(*kind))
        .map(|t| value_depth(&t.definition))
        .max()
        .unwrap_or(0)
            + 8;
        let mut value = on_deep_stack(depth, || serde_json::to_value(lock)).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.retain(|k, _| !CLASSIFIED.contains(&k.as_str()));
        }
        value
    };
    let (old, new) = (rest(old), rest(new));
    if old == new {
        return;
    }
    let mut changes = Vec::new();
    let depth = value_depth(&old).max(value_depth(&new));
    on_deep_stack(depth, || {
        diff_values("", Some(&old), Some(&new), &mut changes)
    });
    out.extend(changes.iter().map(other_changed));
}

/// The rules of entries added and removed, by kind. A prompt or template
/// removed is breaking like a tool (its generated method and types are
/// gone); one added is compatible.
fn added_removed(kind: EntryKind) -> (&'static str, &'static str) {
    match kind {
        EntryKind::Tool => ("tool-added", "tool-removed"),
        EntryKind::Prompt => ("prompt-added", "prompt-removed"),
        EntryKind::ResourceTemplate => ("resource-template-added", "resource-template-removed"),
    }
}

/// Classifies the entries of one kind: added, removed, and each changed
/// one by its kind's rules. A renamed entry is one removed and one added
/// (its name is its identity, and the generated names follow it).
fn classify_entries(kind: EntryKind, old: &ServerLock, new: &ServerLock, out: &mut Vec<Finding>) {
    let (old_entries, new_entries) = (old.entries(kind), new.entries(kind));
    let diff = ServerDiff::tools(old_entries, new_entries);
    let entry = |name: &str| {
        Some(Entry {
            kind: kind.noun(),
            name: name.to_owned(),
        })
    };
    let (added, removed) = added_removed(kind);
    for (names, class, rule, word) in [
        (&diff.added, Class::Compatible, added, "added"),
        (&diff.removed, Class::Breaking, removed, "removed"),
    ] {
        for name in names {
            out.push(Finding {
                entry: entry(name),
                ..Finding::new(class, rule, "", Message::text(word), None, None)
            });
        }
    }
    for changed in &diff.changed {
        let find = |entries: &[LockedEntry]| {
            entries
                .iter()
                .find(|t| t.name == changed.name)
                .map(|t| t.definition.clone())
        };
        let (Some(before), Some(after)) = (find(old_entries), find(new_entries)) else {
            continue;
        };
        let findings = match kind {
            EntryKind::Tool => classify_tool(&before, &after),
            EntryKind::Prompt => classify_prompt(&before, &after),
            EntryKind::ResourceTemplate => classify_resource_template(&before, &after),
        };
        for mut finding in findings {
            finding.entry = entry(&changed.name);
            out.push(finding);
        }
    }
}

/// An annotation hint, with the default the MCP spec gives it when absent.
const HINTS: [(&str, bool, &str, &str); 4] = [
    ("readOnlyHint", false, "turned on (the tool says it changes nothing)", "turned off (the tool may change things; calls are no longer retried after a lost connection unless idempotent)"),
    ("destructiveHint", true, "turned on (the tool may destroy data)", "turned off"),
    ("idempotentHint", false, "turned on (calls may be retried)", "turned off (calls are no longer retried after a lost connection)"),
    ("openWorldHint", true, "turned on (the tool reaches outside systems)", "turned off"),
];

/// Classifies the changes between two versions of one tool definition (the
/// tool object as listed). The findings' `entry` is left for the caller.
pub fn classify_tool(old: &Value, new: &Value) -> Vec<Finding> {
    on_deep_stack(compare_stack(old, new), || classify_tool_impl(old, new))
}

/// The stack, in levels, that classifying `old` against `new` needs: the
/// schema comparison recurses at most [`MAX_COMPARE_DEPTH`] levels (two
/// frames each), and each level may clone or compare a value as deep as
/// the definitions.
pub(super) fn compare_stack(old: &Value, new: &Value) -> usize {
    let depth = value_depth(old).max(value_depth(new));
    2 * (MAX_COMPARE_DEPTH + depth) + 64
}

fn classify_tool_impl(old: &Value, new: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut examined: Vec<String> = vec!["/name".into()];
    let get = |v: &Value, k: &str| v.get(k).filter(|v| !v.is_null()).cloned();
    classify_texts("", old, new, &mut out, &mut examined);
    classify_annotations(
        old.get("annotations"),
        new.get("annotations"),
        &mut out,
        &mut examined,
    );

    let empty = Value::Object(Default::default());
    let mut input = SchemaCmp::new(
        old.get("inputSchema").unwrap_or(&empty),
        new.get("inputSchema").unwrap_or(&empty),
        "/inputSchema",
        Direction::Input,
    );
    input.run();
    out.append(&mut input.findings);
    examined.append(&mut input.examined);

    examined.push("/outputSchema".into());
    match (get(old, "outputSchema"), get(new, "outputSchema")) {
        (None, None) => {}
        (None, Some(n)) => out.push(Finding::new(
            Class::Compatible,
            "output-schema-added",
            "/outputSchema",
            Message::text("output schema added (calls now return typed output)"),
            None,
            Some(&n),
        )),
        (Some(o), None) => out.push(Finding::new(
            Class::Breaking,
            "output-schema-removed",
            "/outputSchema",
            Message::text("output schema removed (no typed output any more)"),
            Some(&o),
            None,
        )),
        (Some(o), Some(n)) => {
            let mut output = SchemaCmp::new(&o, &n, "/outputSchema", Direction::Output);
            output.run();
            out.append(&mut output.findings);
            examined.append(&mut output.examined);
        }
    }
    // Whatever no rule looked at is for a human to read.
    classify_unexplained(old, new, examined, &mut out);
    out
}

/// The text rules, shared by every kind of entry (and a prompt's
/// arguments): a changed `description` or `title` at `base` is for review
/// (what the model reads), shown as a word diff.
pub(super) fn classify_texts(
    base: &str,
    old: &Value,
    new: &Value,
    out: &mut Vec<Finding>,
    examined: &mut Vec<String>,
) {
    let get = |v: &Value, k: &str| v.get(k).filter(|v| !v.is_null()).cloned();
    for key in ["description", "title"] {
        let pointer = format!("{base}/{key}");
        examined.push(pointer.clone());
        let (o, n) = (get(old, key), get(new, key));
        if o != n {
            let rule = if key == "title" {
                "title-changed"
            } else {
                "description-changed"
            };
            let word = match (&o, &n) {
                (None, _) => " added",
                (_, None) => " removed",
                _ => " changed",
            };
            out.push(Finding::new(
                Class::Review,
                rule,
                &pointer,
                Message::text(format!("{key}{word}")),
                o.as_ref(),
                n.as_ref(),
            ));
        }
    }
}

/// The catch-all, shared by every kind of entry: each raw difference
/// between `old` and `new` that no rule examined or reported becomes an
/// `other-changed` finding; a definition that differs only in form
/// (nothing found) is `same-meaning`.
pub(super) fn classify_unexplained(
    old: &Value,
    new: &Value,
    mut examined: Vec<String>,
    out: &mut Vec<Finding>,
) {
    examined.sort();
    examined.dedup();
    let mut raw = Vec::new();
    diff_values("", Some(old), Some(new), &mut raw);
    let explained = |c: &Change| {
        examined
            .iter()
            .any(|e| covers(e, &c.pointer) || covers(&c.pointer, e))
            || out.iter().any(|f| covers(&f.pointer, &c.pointer))
    };
    let unexplained: Vec<Change> = raw.into_iter().filter(|c| !explained(c)).collect();
    out.extend(unexplained.iter().map(other_changed));
    if out.is_empty() && old != new {
        out.push(Finding::new(
            Class::Compatible,
            "same-meaning",
            "",
            Message::text(
                "definition rewritten with the same meaning (keys reordered, references renamed)",
            ),
            None,
            None,
        ));
    }
}

fn classify_annotations(
    old: Option<&Value>,
    new: Option<&Value>,
    out: &mut Vec<Finding>,
    examined: &mut Vec<String>,
) {
    let empty = serde_json::Map::new();
    let o = old.and_then(Value::as_object).unwrap_or(&empty);
    let n = new.and_then(Value::as_object).unwrap_or(&empty);
    if old.is_some_and(|v| !v.is_object()) || new.is_some_and(|v| !v.is_object()) {
        return; // not an object: left to the catch-all
    }
    examined.push("/annotations".into());
    let mut keys: Vec<&String> = o.keys().chain(n.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let (ov, nv) = (o.get(key), n.get(key));
        if ov == nv {
            continue;
        }
        let ptr = format!("/annotations/{}", escape(key));
        if key == "title" {
            out.push(Finding::new(
                Class::Review,
                "title-changed",
                &ptr,
                Message::text("annotations title changed"),
                ov,
                nv,
            ));
            continue;
        }
        let Some((_, default, on, off)) = HINTS.iter().find(|h| h.0 == key) else {
            let message = Message::text("annotation ")
                .code(key.as_str())
                .then(" changed");
            out.push(Finding::new(
                Class::Review,
                "annotation-changed",
                &ptr,
                message,
                ov,
                nv,
            ));
            continue;
        };
        let effective = |v: Option<&Value>| v.and_then(Value::as_bool).unwrap_or(*default);
        let (was, is) = (effective(ov), effective(nv));
        let message = Message::text("").code(key.as_str());
        if was == is {
            let message = message.then(format!(
                " now {} (same meaning: the default is {default})",
                if nv.is_some() { "explicit" } else { "left out" }
            ));
            out.push(Finding::new(
                Class::Compatible,
                "annotation-changed",
                &ptr,
                message,
                ov,
                nv,
            ));
        } else {
            let message = message.then(format!(" {}", if is { on } else { off }));
            out.push(Finding::new(
                Class::Review,
                "annotation-changed",
                &ptr,
                message,
                ov,
                nv,
            ));
        }
    }
}

/// Whether pointer `outer` is `inner` or one of its ancestors.
pub(super) fn covers(outer: &str, inner: &str) -> bool {
    inner == outer || (inner.starts_with(outer) && inner[outer.len()..].starts_with('/'))
}

/// A change no rule explains: `other-changed`, for review.
fn other_changed(c: &Change) -> Finding {
    let message = Message::text("")
        .code(&c.pointer)
        .then(match (&c.old, &c.new) {
            (None, _) => " added",
            (_, None) => " removed",
            _ => " changed",
        });
    Finding::new(
        Class::Review,
        "other-changed",
        &c.pointer,
        message,
        c.old.as_ref(),
        c.new.as_ref(),
    )
}
