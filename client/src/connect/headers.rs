//! `Mcp-Param-*` headers (SEP-2243, MCP 2026-07-28): the parameters a
//! tool's input schema marks with `x-mcp-header`, mirrored into HTTP
//! headers. Whether a mapping is valid, and what each header carries, is
//! the model's (`mcpbind_model::internal::param_headers`): listing skips a
//! tool whose mapping is invalid on every transport.
//!
//! rmcp sends `Mcp-Param-*` headers only for tools it has seen in a
//! `tools/list` on the same connection. A generated client calls its tools
//! without listing them first (the lockfile has their schemas), so the
//! client keeps each tool's schema ([`ToolSchemas`]: the live listing's
//! when there was one, else the locked one, from the pins checked at
//! connect or, for a client that checked none, from the tool's first typed
//! call) and the Streamable HTTP tap adds the headers from it
//! ([`param_headers`]).

// The HTTP half (headers built) is read by the `http` feature's transports
// only.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use mcpbind_model::internal::param_headers::mirrors;
#[cfg(feature = "http")]
use mcpbind_model::internal::param_headers::values;
use serde_json::{Map, Value};

/// The input schemas of a client's tools, by name, for their
/// `Mcp-Param-*` headers: the schema of the latest `tools/list` on the
/// live connection wins over the locked one. A tool whose mapping is
/// invalid has no entry (it gets no headers, as rmcp does).
#[derive(Default)]
pub(crate) struct ToolSchemas {
    locked: RwLock<LockedSchemas>,
    /// `None` until the connection lists its tools.
    live: RwLock<Option<Schemas>>,
}

/// Input schemas by tool name.
type Schemas = HashMap<String, Arc<Map<String, Value>>>;

/// Locked input schemas by tool name; `None`: the tool mirrors nothing.
type LockedSchemas = HashMap<String, Option<Arc<Map<String, Value>>>>;

impl ToolSchemas {
    /// Keeps the locked input schemas of `tools` (`(name, schema JSON)`).
    pub(crate) fn lock<'a>(&self, tools: impl IntoIterator<Item = (&'a str, &'a str)>) {
        let mut locked = self.locked.write().unwrap_or_else(|p| p.into_inner());
        for (name, schema) in tools {
            let schema = match serde_json::from_str::<Value>(schema) {
                Ok(Value::Object(schema)) if mirrors(&schema) => Some(Arc::new(schema)),
                _ => None,
            };
            locked.insert(name.to_owned(), schema);
        }
    }

    /// Keeps `name`'s locked input schema unless one is kept already: what
    /// a typed call brings, for clients that checked no pins at connect
    /// (lazy ones, and generated clients made `from_client`).
    pub(crate) fn lock_once(&self, name: &str, schema: &str) {
        let locked = self.locked.read().unwrap_or_else(|p| p.into_inner());
        if locked.contains_key(name) {
            return;
        }
        drop(locked);
        self.lock([(name, schema)]);
    }

    /// Keeps the schemas of a live `tools/list` (all pages), replacing the
    /// previous listing's.
    pub(crate) fn listed(&self, tools: &[Value]) {
        let mut live = HashMap::new();
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str);
            let schema = tool.get("inputSchema").and_then(Value::as_object);
            if let (Some(name), Some(schema)) = (name, schema) {
                if mirrors(schema) {
                    live.insert(name.to_owned(), Arc::new(schema.clone()));
                }
            }
        }
        *self.live.write().unwrap_or_else(|p| p.into_inner()) = Some(live);
    }

    /// Forgets the live listing (a new connection may list other tools).
    pub(crate) fn forget_live(&self) {
        *self.live.write().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The schema `tool`'s headers come from, if it mirrors any parameter.
    pub(crate) fn get(&self, tool: &str) -> Option<Arc<Map<String, Value>>> {
        let live = self.live.read().unwrap_or_else(|p| p.into_inner());
        if let Some(live) = &*live {
            // The listing is the truth for this connection.
            return live.get(tool).cloned();
        }
        drop(live);
        let locked = self.locked.read().unwrap_or_else(|p| p.into_inner());
        locked.get(tool).cloned().flatten()
    }
}

/// The `Mcp-Param-*` headers of a `tools/call` with `arguments`, as
/// SEP-2243 encodes them: each value as the model gives it
/// ([`values`]), Base64 in `=?base64?…?=` when it can't travel as a plain
/// header value. An argument that is absent (or not a primitive) gets no
/// header.
#[cfg(feature = "http")]
pub(crate) fn param_headers(
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Vec<(http::HeaderName, http::HeaderValue)> {
    let mut out = Vec::new();
    for (header, text) in values(schema, arguments) {
        let name = http::HeaderName::from_bytes(format!("mcp-param-{header}").as_bytes());
        let value = http::HeaderValue::from_str(&encode(&text));
        if let (Ok(name), Ok(value)) = (name, value) {
            out.push((name, value));
        }
    }
    out
}

#[cfg(feature = "http")]
const BASE64_PREFIX: &str = "=?base64?";
#[cfg(feature = "http")]
const BASE64_SUFFIX: &str = "?=";

/// A header value as SEP-2243 sends it: Base64-wrapped when it has a
/// leading or trailing space or tab, a control or non-ASCII character, or
/// already looks like the wrapper.
#[cfg(feature = "http")]
fn encode(value: &str) -> String {
    use base64::Engine as _;
    let needs_base64 = value.starts_with([' ', '\t'])
        || value.ends_with([' ', '\t'])
        || value.chars().any(|c| !(' '..='~').contains(&c))
        || (value.starts_with(BASE64_PREFIX) && value.ends_with(BASE64_SUFFIX));
    if needs_base64 {
        let encoded = base64::engine::general_purpose::STANDARD.encode(value);
        format!("{BASE64_PREFIX}{encoded}{BASE64_SUFFIX}")
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn headers_of(schema: Value, arguments: Value) -> Vec<(String, String)> {
        param_headers(schema.as_object().unwrap(), arguments.as_object().unwrap())
            .into_iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
            .collect()
    }

    #[test]
    fn param_headers_follow_the_sep_2243_encoding() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "nested": {"type": "object", "properties": {
                "id": {"type": "string", "x-mcp-header": "Id"}}},
            "plain": {"type": "string"}
        }});
        let args = json!({"region": "us-west1", "n": 3, "flag": false,
            "nested": {"id": "x"}, "plain": "p"});
        assert_eq!(
            headers_of(schema.clone(), args),
            [
                ("mcp-param-region", "us-west1"),
                ("mcp-param-n", "3"),
                ("mcp-param-flag", "false"),
                ("mcp-param-id", "x"),
            ]
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
        );
        // Absent arguments send nothing; values that can't travel plain
        // are Base64.
        for (value, sent) in [
            (" padded", "=?base64?IHBhZGRlZA==?="),
            ("tab\t", "=?base64?dGFiCQ==?="),
            ("Zürich", "=?base64?WsO8cmljaA==?="),
            ("line\nbreak", "=?base64?bGluZQpicmVhaw==?="),
            ("=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="),
            ("", ""),
        ] {
            assert_eq!(
                headers_of(schema.clone(), json!({"region": value})),
                [("mcp-param-region".to_owned(), sent.to_owned())],
                "{value:?}"
            );
        }
        assert_eq!(
            headers_of(schema, json!({"region": {"not": "primitive"}})),
            []
        );
    }

    #[test]
    fn the_live_listing_wins_over_the_lock() {
        let schemas = ToolSchemas::default();
        let locked = r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}"#;
        let bad = r#"{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}"#;
        schemas.lock([
            ("t", locked),
            ("bad", bad),
            ("plain", r#"{"type":"object"}"#),
        ]);
        assert!(schemas.get("t").is_some());
        assert!(
            schemas.get("bad").is_none(),
            "an invalid mapping sends nothing"
        );
        assert!(schemas.get("plain").is_none());
        schemas.listed(&[
            json!({"name": "t", "inputSchema": {"type": "object", "properties": {
            "b": {"type": "string", "x-mcp-header": "B"}}}}),
        ]);
        let live = schemas.get("t").unwrap();
        assert!(live["properties"].get("b").is_some());
        schemas.listed(&[json!({"name": "other", "inputSchema": {"type": "object"}})]);
        assert!(schemas.get("t").is_none(), "no longer listed: no headers");
        schemas.forget_live();
        assert!(
            schemas.get("t").is_some(),
            "a new connection: the lock again"
        );
    }
}
