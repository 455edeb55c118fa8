//! Differences between a locked server and a live (or another locked) one:
//! what `mcpbind check` and `mcpbind diff` report.

use std::fmt;

use serde_json::Value;

use crate::lock::ServerLock;

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
    /// Compares two snapshots of a server.
    pub fn new(old: &ServerLock, new: &ServerLock) -> ServerDiff {
        let mut diff = ServerDiff::default();
        for tool in &new.tools {
            match old.tools.iter().find(|t| t.name == tool.name) {
                None => diff.added.push(tool.name.clone()),
                Some(before) if before.sha256 != tool.sha256 => {
                    let mut changes = Vec::new();
                    diff_values(
                        "",
                        Some(&before.definition),
                        Some(&tool.definition),
                        &mut changes,
                    );
                    diff.changed.push(ToolDiff {
                        name: tool.name.clone(),
                        changes,
                    });
                }
                Some(_) => {}
            }
        }
        for tool in &old.tools {
            if !new.tools.iter().any(|t| t.name == tool.name) {
                diff.removed.push(tool.name.clone());
            }
        }
        if old.protocol_version != new.protocol_version {
            diff.identity.push(Change {
                pointer: "/protocol_version".into(),
                old: Some(Value::String(old.protocol_version.clone())),
                new: Some(Value::String(new.protocol_version.clone())),
            });
        }
        diff_values(
            "/server_info",
            Some(&old.server_info),
            Some(&new.server_info),
            &mut diff.identity,
        );
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
            let mut what: Vec<&str> = tool.changes.iter().map(|c| part_of(&c.pointer)).collect();
            what.dedup();
            parts.push(format!("tool `{}`: {} changed", tool.name, what.join(", ")));
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

fn part_of(pointer: &str) -> &'static str {
    let first = pointer
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("");
    match first {
        "inputSchema" => "input schema",
        "outputSchema" => "output schema",
        "description" => "description",
        "title" => "title",
        "annotations" => "annotations",
        _ => "definition",
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn diff_values(pointer: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
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
            let text = v.to_string();
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
