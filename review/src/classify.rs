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
//! `title`) and the catch-all with tools (`shared.rs`).
//!
//! Whatever no rule explains is never dropped: each raw difference (by JSON
//! pointer) that no rule looked at becomes an `other-changed` finding for a
//! human to review.

use serde_json::Value;

use super::finding::{Class, Entry, Finding, Message};
use super::prompts::{classify_prompt, classify_resource_template};
use super::schema::{compare_stack, short, Direction, SchemaCmp};
use super::shared::{classify_texts, classify_unexplained, other_changed};
use super::{diff_values, escape, ServerDiff};
use mcpbind_model::internal::on_deep_stack;
use mcpbind_model::lock::{value_depth, EntryKind, LockedEntry, ServerLock};

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
