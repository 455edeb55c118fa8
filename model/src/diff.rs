//! Differences between a locked server and a live (or another locked) one:
//! the one drift detector behind `mcpbind check`, `mcpbind diff` and the
//! runtime's pin check (`Client::check_pins`).
//!
//! [`ServerDiff`] lists what differs, by tool and JSON pointer: all the
//! runtime needs. The review on top of it (each change classified as
//! breaking, review or compatible, and reported) is `mcpbind-review`.

use std::fmt;

use serde_json::Value;

use crate::lock::{on_deep_stack, value_depth, LockedTool, ServerLock};

/// How two snapshots of one server differ.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerDiff {
    /// Tools only in the new snapshot.
    pub added: Vec<String>,
    /// Tools only in the old snapshot.
    pub removed: Vec<String>,
    /// Tools in both whose definitions differ.
    pub changed: Vec<ToolDiff>,
    /// The server's identity or protocol version changed (informational).
    pub identity: Vec<Change>,
}

/// How one tool's definition differs.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDiff {
    /// The tool.
    pub name: String,
    /// Its digest in the old snapshot.
    pub old_sha256: String,
    /// Its digest in the new snapshot.
    pub new_sha256: String,
    /// Each difference, by JSON pointer into the definition.
    pub changes: Vec<Change>,
}

/// One difference at a JSON pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// Where, e.g. `/inputSchema/properties/city/type`.
    pub pointer: String,
    /// The old value (`None`: added).
    pub old: Option<Value>,
    /// The new value (`None`: removed).
    pub new: Option<Value>,
}

impl ServerDiff {
    /// Compares two snapshots of a server: its tools and its identity.
    pub fn new(old: &ServerLock, new: &ServerLock) -> ServerDiff {
        let mut diff = ServerDiff::tools(&old.tools, &new.tools);
        if old.protocol_version != new.protocol_version {
            diff.identity.push(Change {
                pointer: "/protocol_version".into(),
                old: Some(Value::String(old.protocol_version.clone())),
                new: Some(Value::String(new.protocol_version.clone())),
            });
        }
        let depth = value_depth(&old.server_info).max(value_depth(&new.server_info));
        on_deep_stack(depth, || {
            diff_values(
                "/server_info",
                Some(&old.server_info),
                Some(&new.server_info),
                &mut diff.identity,
            )
        });
        diff
    }

    /// Compares two lists of tools by name and digest; for a changed tool,
    /// every difference by JSON pointer.
    pub fn tools(old: &[LockedTool], new: &[LockedTool]) -> ServerDiff {
        let mut diff = ServerDiff::default();
        for tool in new {
            match old.iter().find(|t| t.name == tool.name) {
                None => diff.added.push(tool.name.clone()),
                Some(before) if before.sha256 != tool.sha256 => {
                    diff.changed.push(ToolDiff::new(before, tool))
                }
                Some(_) => {}
            }
        }
        for tool in old {
            if !new.iter().any(|t| t.name == tool.name) {
                diff.removed.push(tool.name.clone());
            }
        }
        diff
    }

    /// Whether the tools differ (identity changes alone don't count: a new
    /// server version with the same tools needs no new bindings).
    pub fn has_drift(&self) -> bool {
        !(self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty())
    }

    /// A one-line summary of the first differences, e.g.
    /// `tool get_forecast: input schema changed`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for tool in &self.changed {
            parts.push(format!(
                "tool `{}`: {} changed",
                tool.name,
                tool.parts().join(", ")
            ));
        }
        for name in &self.added {
            parts.push(format!("tool `{name}` added"));
        }
        for name in &self.removed {
            parts.push(format!("tool `{name}` removed"));
        }
        let more = parts.len().saturating_sub(3);
        parts.truncate(3);
        let mut text = parts.join("; ");
        if more > 0 {
            text.push_str(&format!("; and {more} more"));
        }
        text
    }
}

impl ToolDiff {
    fn new(old: &LockedTool, new: &LockedTool) -> ToolDiff {
        let mut changes = Vec::new();
        let depth = value_depth(&old.definition).max(value_depth(&new.definition));
        on_deep_stack(depth, || {
            diff_values(
                "",
                Some(&old.definition),
                Some(&new.definition),
                &mut changes,
            )
        });
        ToolDiff {
            name: new.name.clone(),
            old_sha256: old.sha256.clone(),
            new_sha256: new.sha256.clone(),
            changes,
        }
    }
}

#[doc(hidden)] // mcpbind-review (`crate::internal`)
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[doc(hidden)] // mcpbind-review (`crate::internal`)
pub fn diff_values(pointer: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    match (old, new) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                diff_values(
                    &format!("{pointer}/{}", escape(key)),
                    a.get(key),
                    b.get(key),
                    out,
                );
            }
        }
        (Some(a), Some(b)) if a == b => {}
        (a, b) => out.push(Change {
            pointer: pointer.to_owned(),
            old: a.cloned(),
            new: b.cloned(),
        }),
    }
}

impl fmt::Display for ServerDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short = |v: &Value| {
            let text = on_deep_stack(value_depth(v), || v.to_string());
            if text.chars().count() > 120 {
                format!("{}…", text.chars().take(120).collect::<String>())
            } else {
                text
            }
        };
        for name in &self.added {
            writeln!(f, "+ tool `{name}`")?;
        }
        for name in &self.removed {
            writeln!(f, "- tool `{name}`")?;
        }
        for tool in &self.changed {
            writeln!(f, "~ tool `{}`", tool.name)?;
            for c in &tool.changes {
                match (&c.old, &c.new) {
                    (None, Some(new)) => writeln!(f, "    + {}: {}", c.pointer, short(new))?,
                    (Some(old), None) => writeln!(f, "    - {}: {}", c.pointer, short(old))?,
                    (Some(old), Some(new)) => {
                        writeln!(f, "    ~ {}: {} -> {}", c.pointer, short(old), short(new))?
                    }
                    (None, None) => {}
                }
            }
        }
        for c in &self.identity {
            if let (Some(old), Some(new)) = (&c.old, &c.new) {
                writeln!(
                    f,
                    "  (server {}: {} -> {})",
                    c.pointer.trim_start_matches('/'),
                    short(old),
                    short(new)
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(tools: Vec<Value>) -> ServerLock {
        ServerLock::new(
            "s",
            "2025-11-25".into(),
            json!({"name": "s", "version": "1"}),
            tools,
        )
        .unwrap()
    }

    #[test]
    fn reports_changes_by_pointer() {
        let old = server(vec![
            json!({"name": "get_forecast", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}),
            json!({"name": "gone", "inputSchema": {"type": "object"}}),
        ]);
        let new = server(vec![
            json!({"name": "get_forecast", "inputSchema": {"type": "object", "properties": {"town": {"type": "string"}}}}),
            json!({"name": "fresh", "inputSchema": {"type": "object"}}),
        ]);
        let diff = ServerDiff::new(&old, &new);
        assert!(diff.has_drift());
        let lines = diff.drift_lines();
        assert!(
            lines[0].starts_with("tool `get_forecast` changed (sha256 ")
                && lines[0].ends_with(" live): input schema"),
            "{lines:?}"
        );
        assert_eq!(lines[1..], ["tool `gone` is gone", "tool `fresh` is new"]);
        assert_eq!(diff.added, ["fresh"]);
        assert_eq!(diff.removed, ["gone"]);
        assert_eq!(
            diff.summary(),
            "tool `get_forecast`: input schema changed; tool `fresh` added; tool `gone` removed"
        );
        let text = diff.to_string();
        assert!(
            text.contains("    - /inputSchema/properties/city: {\"type\":\"string\"}"),
            "{text}"
        );
        assert!(
            text.contains("    + /inputSchema/properties/town: {\"type\":\"string\"}"),
            "{text}"
        );
        assert!(!ServerDiff::new(&old, &old).has_drift());
    }
}
