//! The lockfile: `mcpbind.lock`, a committed snapshot of each server's
//! `tools/list`.
//!
//! The format is JSON with sorted keys, two-space indentation, no timestamps
//! and a trailing newline, so that locking an unchanged server gives the same
//! bytes and a changed tool gives a small diff:
//!
//! ```json
//! {"lockfile_version": 1, "servers": {NAME: {"protocol_version", "server_info",
//!   "tools": [{"name", "sha256", "definition"}]}}}
//! ```
//!
//! `definition` is the tool object exactly as the server listed it, and
//! `sha256` the hex digest of its RFC 8785 canonical JSON. Reading checks both
//! agree, so that a hand-edited definition can't pass unnoticed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Error, Result};

/// The lockfile format this version reads and writes.
pub const LOCKFILE_VERSION: u64 = 1;

/// A lockfile: the locked servers, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lockfile {
    /// The format version; always [`LOCKFILE_VERSION`] once read.
    pub lockfile_version: u64,
    /// The servers, sorted by name.
    pub servers: BTreeMap<String, ServerLock>,
}

/// One locked server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerLock {
    /// The protocol version negotiated when locking.
    pub protocol_version: String,
    /// The server's `serverInfo` (name, version…).
    pub server_info: Value,
    /// Its tools, sorted by name.
    pub tools: Vec<LockedTool>,
    /// The config's `enabled_tools` when locked, if it had one (so that a
    /// changed filter is caught as a stale lockfile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_tools: Option<Vec<String>>,
    /// The config's `disabled_tools` when locked, if any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_tools: Vec<String>,
}

/// One locked tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockedTool {
    /// The tool's name on the wire.
    pub name: String,
    /// The hex sha256 of `definition`'s RFC 8785 canonical JSON.
    pub sha256: String,
    /// The tool object exactly as the server listed it.
    pub definition: Value,
}

impl LockedTool {
    /// Locks a tool definition as the server sent it.
    pub fn new(definition: Value) -> Option<LockedTool> {
        let name = definition.get("name")?.as_str()?.to_owned();
        Some(LockedTool {
            name,
            sha256: mcpbind_core::hash::sha256_hex(&definition),
            definition,
        })
    }

    /// The tool's `inputSchema`.
    pub fn input_schema(&self) -> Option<&Value> {
        self.definition.get("inputSchema")
    }

    /// The tool's `outputSchema`, if it has one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.definition.get("outputSchema").filter(|v| !v.is_null())
    }

    /// The tool's `description`, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.definition.get("description").and_then(Value::as_str)
    }

    /// The tool's `title` (or `annotations.title`), if it has one.
    pub fn title(&self) -> Option<&str> {
        self.definition
            .get("title")
            .or_else(|| self.definition.pointer("/annotations/title"))
            .and_then(Value::as_str)
    }

    /// An annotation hint (`readOnlyHint`…), if the server set it.
    pub fn hint(&self, name: &str) -> Option<bool> {
        self.definition
            .get("annotations")
            .and_then(|a| a.get(name))
            .and_then(Value::as_bool)
    }
}

impl ServerLock {
    /// Builds a server entry from a raw `tools/list`, sorting tools by name.
    /// Tools without a string `name` are reported as an error.
    pub fn new(
        server: &str,
        protocol_version: String,
        server_info: Value,
        tools: Vec<Value>,
    ) -> Result<ServerLock> {
        let mut locked = Vec::with_capacity(tools.len());
        for (index, tool) in tools.into_iter().enumerate() {
            let tool = LockedTool::new(tool).ok_or_else(|| Error::Server {
                server: server.to_owned(),
                message: format!("tool #{index} of tools/list has no string `name`"),
            })?;
            locked.push(tool);
        }
        locked.sort_by(|a, b| a.name.cmp(&b.name));
        if let Some(dup) = locked.windows(2).find(|w| w[0].name == w[1].name) {
            return Err(Error::Server {
                server: server.to_owned(),
                message: format!("tools/list lists tool `{}` twice", dup[0].name),
            });
        }
        Ok(ServerLock {
            protocol_version,
            server_info,
            tools: locked,
            enabled_tools: None,
            disabled_tools: Vec::new(),
        })
    }
}

impl ServerLock {
    /// Why this entry no longer matches the server's config, if it doesn't.
    pub fn stale_reason(&self, config: &mcpbind_core::ServerConfig) -> Option<String> {
        if self.enabled_tools != config.enabled_tools
            || self.disabled_tools != config.disabled_tools
        {
            return Some("its enabled_tools/disabled_tools changed".to_owned());
        }
        self.tools
            .iter()
            .find(|t| !config.allows_tool(&t.name))
            .map(|t| format!("tool `{}` is filtered out by the config", t.name))
    }
}

impl Lockfile {
    /// Checks that the lockfile matches the config for `servers` (all
    /// configured servers when `None`): every server locked, with the same
    /// filters, and no locked server missing from the config.
    pub fn check_config(
        &self,
        config: &mcpbind_core::Config,
        servers: Option<&[String]>,
        path: &Path,
    ) -> Result<()> {
        let stale = |server: &str, reason: String| Error::Stale {
            server: server.to_owned(),
            path: path.to_owned(),
            reason,
        };
        let names: Vec<&String> = match servers {
            Some(names) => names.iter().collect(),
            None => config.servers.keys().collect(),
        };
        for name in names {
            let Some(server) = config.servers.get(name) else {
                continue;
            };
            match self.servers.get(name) {
                None => {
                    return Err(stale(
                        name,
                        "the server is configured but not locked".into(),
                    ))
                }
                Some(locked) => {
                    if let Some(reason) = locked.stale_reason(server) {
                        return Err(stale(name, reason));
                    }
                }
            }
        }
        if servers.is_none() {
            if let Some(name) = self
                .servers
                .keys()
                .find(|n| !config.servers.contains_key(*n))
            {
                return Err(stale(name, "the server is no longer configured".into()));
            }
        }
        Ok(())
    }

    /// An empty lockfile.
    pub fn new() -> Lockfile {
        Lockfile {
            lockfile_version: LOCKFILE_VERSION,
            servers: BTreeMap::new(),
        }
    }

    /// Reads and checks a lockfile.
    pub fn read(path: impl AsRef<Path>) -> Result<Lockfile> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                Error::LockMissing {
                    path: path.to_owned(),
                }
            } else {
                Error::Io {
                    path: path.to_owned(),
                    source,
                }
            }
        })?;
        Lockfile::parse(&text, path)
    }

    /// Parses and checks lockfile text; `path` is used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Lockfile> {
        let invalid = |line: usize, message: String| Error::LockInvalid {
            path: path.to_owned(),
            line,
            message,
        };
        let value: Value =
            serde_json::from_str(text).map_err(|e| invalid(e.line(), e.to_string()))?;
        match value.get("lockfile_version") {
            Some(Value::Number(n)) if n.as_u64() == Some(LOCKFILE_VERSION) => {}
            Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v > LOCKFILE_VERSION) => {
                return Err(Error::LockVersion {
                    path: path.to_owned(),
                    found: n.to_string(),
                })
            }
            other => {
                return Err(invalid(
                    line_of(text, "\"lockfile_version\"").unwrap_or(1),
                    format!(
                        "`lockfile_version` must be {LOCKFILE_VERSION}, found {}",
                        other.map_or("nothing".to_owned(), Value::to_string)
                    ),
                ))
            }
        }
        let lockfile: Lockfile =
            serde_json::from_str(text).map_err(|e| invalid(e.line(), e.to_string()))?;
        for (server, entry) in &lockfile.servers {
            if !mcpbind_core::config::is_valid_server_name(server) {
                return Err(invalid(
                    line_of(text, &format!("\"{server}\"")).unwrap_or(1),
                    format!("invalid server name `{server}`"),
                ));
            }
            for tool in &entry.tools {
                if tool.definition.get("name").and_then(Value::as_str) != Some(&tool.name) {
                    return Err(invalid(
                        line_of(text, &tool.sha256).unwrap_or(1),
                        format!(
                            "server `{server}`: tool `{}` does not match the name in its definition",
                            tool.name
                        ),
                    ));
                }
                let actual = mcpbind_core::hash::sha256_hex(&tool.definition);
                if actual != tool.sha256 {
                    return Err(Error::LockHash {
                        path: path.to_owned(),
                        line: line_of(text, &tool.sha256).unwrap_or(1),
                        server: server.clone(),
                        tool: tool.name.clone(),
                    });
                }
            }
        }
        Ok(lockfile)
    }

    /// The canonical text: sorted keys, two-space indent, trailing newline.
    pub fn to_json(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        let mut text = serde_json::to_string_pretty(&Sorted(&value)).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Writes the lockfile unless the file already holds the same bytes.
    /// Returns whether it wrote.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<bool> {
        crate::write_file_if_changed(path.as_ref(), self.to_json().as_bytes())
    }
}

/// Serializes a JSON value with object keys in sorted order, whatever order
/// `serde_json::Map` keeps (`preserve_order` may be on in the build).
struct Sorted<'a>(&'a Value);

impl Serialize for Sorted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                let mut out = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    out.serialize_entry(k, &Sorted(v))?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(&Sorted(item))?;
                }
                out.end()
            }
            other => other.serialize(s),
        }
    }
}

/// The 1-based line of the first occurrence of `needle`.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    let at = text.find(needle)?;
    Some(text[..at].matches('\n').count() + 1)
}

/// Where a lockfile is looked for when none is named: `MCPBIND_LOCKFILE`,
/// then `<dir>/mcpbind.lock`.
pub fn default_lockfile_path(dir: &Path) -> PathBuf {
    match std::env::var_os("MCPBIND_LOCKFILE") {
        Some(p) => dir.join(p),
        None => dir.join("mcpbind.lock"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> Lockfile {
        let mut lock = Lockfile::new();
        let server = ServerLock::new(
            "demo",
            "2025-11-25".into(),
            json!({"name": "demo", "version": "1"}),
            vec![
                json!({"name": "zeta", "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}}}),
                json!({"name": "alpha", "inputSchema": {"type": "object"}, "execution": {"x": 1}}),
            ],
        )
        .unwrap();
        lock.servers.insert("demo".into(), server);
        lock
    }

    #[test]
    fn round_trips_byte_identical() {
        let text = sample().to_json();
        assert!(text.ends_with("}\n"));
        let back = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap();
        assert_eq!(back.to_json(), text);
        // tools sorted, keys sorted, unknown fields kept
        assert!(text.find("\"alpha\"").unwrap() < text.find("\"zeta\"").unwrap());
        assert!(text.find("\"a\": {}").unwrap() < text.find("\"b\": {}").unwrap());
        assert!(text.contains("\"execution\""));
    }

    #[test]
    fn rejects_edited_definition() {
        let text = sample().to_json().replace("\"x\": 1", "\"x\": 2");
        let err = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("mcpbind.lock:{}: server `demo`, tool `alpha`: sha256 does not match the definition", text[..text.find("\"sha256\": \"").unwrap()].matches('\n').count() + 1)
        );
    }

    #[test]
    fn rejects_newer_version_and_bad_json() {
        let err = Lockfile::parse(
            r#"{"lockfile_version": 2, "servers": {}}"#,
            Path::new("x.lock"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("lockfile_version 2"), "{err}");
        let err = Lockfile::parse(
            "{\n\"lockfile_version\": 1,\n\"servers\": {]\n}",
            Path::new("x.lock"),
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("x.lock:3: invalid lockfile"),
            "{err}"
        );
    }
}
