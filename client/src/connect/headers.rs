//! `x-mcp-header` (SEP-2243, MCP 2026-07-28): a tool's input schema may
//! name parameters that the client mirrors into `Mcp-Param-<Name>` HTTP
//! headers. A tool whose mapping is invalid must not be used (rmcp's
//! Streamable HTTP client drops it from the typed list and sends it no
//! headers), so [`check`] says what is wrong, and listing skips the tool
//! with that reason, on every transport: the lockfile is the same whatever
//! the transport.
//!
//! A mapping is valid when each `x-mcp-header` is a non-empty HTTP token
//! (RFC 9110 §5.6.2), unique regardless of case, on a `string`, `integer`
//! or `boolean` property reached from the root through `properties` alone.

// The HTTP half (headers built, HTTP failures) is read by the `http`
// feature's transports only.
#![cfg_attr(not(feature = "http"), allow(dead_code))]
//!
//! rmcp sends `Mcp-Param-*` headers only for tools it has seen in a
//! `tools/list` on the same connection. A generated client calls its tools
//! without listing them first (the lockfile has their schemas), so the
//! client keeps each tool's schema ([`ToolSchemas`]: the live listing's
//! when there was one, else the locked one, from the pins checked at
//! connect or, for a client that checked none, from the tool's first typed
//! call) and the Streamable HTTP tap adds the headers from it
//! ([`param_headers`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use serde_json::{Map, Value};

const KEY: &str = "x-mcp-header";

/// What is wrong with `schema`'s `x-mcp-header` mapping, if anything.
pub(crate) fn check(schema: &Map<String, Value>) -> Result<(), String> {
    if schema.contains_key(KEY) {
        return Err(format!(
            "`{KEY}` is on the schema itself, not on a property"
        ));
    }
    if off_chain(schema, true) {
        return Err(format!(
            "an `{KEY}` is on a schema that is not reached through `properties` alone"
        ));
    }
    let mut seen = BTreeSet::new();
    check_properties(schema, &mut Vec::new(), &mut seen)
}

fn check_properties<'a>(
    schema: &'a Map<String, Value>,
    path: &mut Vec<&'a str>,
    seen: &mut BTreeSet<String>,
) -> Result<(), String> {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Ok(());
    };
    for (name, property) in properties {
        let Value::Object(property) = property else {
            continue;
        };
        path.push(name);
        if let Some(header) = property.get(KEY) {
            check_one(&path.join("."), header, property, seen)?;
        }
        check_properties(property, path, seen)?;
        path.pop();
    }
    Ok(())
}

fn check_one(
    at: &str,
    header: &Value,
    property: &Map<String, Value>,
    seen: &mut BTreeSet<String>,
) -> Result<(), String> {
    let Value::String(header) = header else {
        return Err(format!("`{KEY}` of property `{at}` is not a string"));
    };
    if header.is_empty() {
        return Err(format!("`{KEY}` of property `{at}` is empty"));
    }
    if !header.chars().all(is_token_char) {
        return Err(format!(
            "`{KEY}` {header:?} of property `{at}` is not an HTTP header name"
        ));
    }
    if !seen.insert(header.to_ascii_lowercase()) {
        return Err(format!(
            "`{KEY}` {header:?} of property `{at}` names a header another property names (case does not count)"
        ));
    }
    match property.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(()),
        other => Err(format!(
            "property `{at}` has an `{KEY}` but its type is {}, not string, integer or boolean",
            other.map_or("not given".to_owned(), |t| format!("`{t}`"))
        )),
    }
}

/// RFC 9110 §5.6.2 `tchar`.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Whether an `x-mcp-header` sits anywhere but on a `properties` chain
/// from the root (`on_chain`: `schema` is the root or on that chain).
fn off_chain(schema: &Map<String, Value>, on_chain: bool) -> bool {
    schema.iter().any(|(key, value)| match key.as_str() {
        KEY => !on_chain,
        "properties" => value
            .as_object()
            .is_some_and(|map| map.values().any(|s| off_chain_value(s, on_chain))),
        // Instance data, not schemas.
        "default" | "const" | "enum" | "examples" => false,
        _ => off_chain_value(value, false),
    })
}

fn off_chain_value(value: &Value, on_chain: bool) -> bool {
    match value {
        Value::Object(schema) => off_chain(schema, on_chain),
        Value::Array(items) => items.iter().any(|item| off_chain_value(item, false)),
        _ => false,
    }
}

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

/// Whether `schema` has a valid mapping that mirrors at least one
/// parameter.
fn mirrors(schema: &Map<String, Value>) -> bool {
    check(schema).is_ok() && !annotations(schema).is_empty()
}

/// Each `x-mcp-header`: the property path from the root, and the header's
/// name (after `Mcp-Param-`).
fn annotations(schema: &Map<String, Value>) -> Vec<(Vec<&str>, &str)> {
    fn walk<'a>(
        schema: &'a Map<String, Value>,
        path: &mut Vec<&'a str>,
        out: &mut Vec<(Vec<&'a str>, &'a str)>,
    ) {
        let Some(Value::Object(properties)) = schema.get("properties") else {
            return;
        };
        for (name, property) in properties {
            let Value::Object(property) = property else {
                continue;
            };
            path.push(name);
            if let Some(Value::String(header)) = property.get(KEY) {
                out.push((path.clone(), header));
            }
            walk(property, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

/// The `Mcp-Param-*` headers of a `tools/call` with `arguments`, as
/// SEP-2243 encodes them: a string as it is, an integer or boolean in its
/// JSON form, Base64 in `=?base64?…?=` when the value can't travel as a
/// plain header value. An argument that is absent (or not a primitive)
/// gets no header.
#[cfg(feature = "http")]
pub(crate) fn param_headers(
    schema: &Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Vec<(http::HeaderName, http::HeaderValue)> {
    let mut out = Vec::new();
    for (path, header) in annotations(schema) {
        let Some((first, rest)) = path.split_first() else {
            continue;
        };
        let mut value = arguments.get(*first);
        for key in rest {
            value = value.and_then(|v| v.get(key));
        }
        let text = match value {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
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

    fn checked(schema: Value) -> Result<(), String> {
        check(schema.as_object().unwrap())
    }

    fn property(p: Value) -> Value {
        json!({"type": "object", "properties": {"p": p}})
    }

    #[test]
    fn valid_mappings_pass() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "nested": {"type": "object", "properties": {
                "flag": {"type": "boolean", "x-mcp-header": "Flag"}}},
            "plain": {"type": "number"}
        }});
        assert_eq!(checked(schema), Ok(()));
    }

    #[test]
    fn each_invalid_mapping_says_why() {
        let cases = [
            (property(json!({"type": "string", "x-mcp-header": ""})), "`x-mcp-header` of property `p` is empty"),
            (property(json!({"type": "object", "x-mcp-header": "D"})), "property `p` has an `x-mcp-header` but its type is `object`, not string, integer or boolean"),
            (property(json!({"type": "number", "x-mcp-header": "S"})), "property `p` has an `x-mcp-header` but its type is `number`, not string, integer or boolean"),
            (property(json!({"type": "string", "x-mcp-header": "My Region"})), "`x-mcp-header` \"My Region\" of property `p` is not an HTTP header name"),
            (property(json!({"type": "string", "x-mcp-header": "Région"})), "`x-mcp-header` \"Région\" of property `p` is not an HTTP header name"),
            (property(json!({"type": "string", "x-mcp-header": 7})), "`x-mcp-header` of property `p` is not a string"),
            (json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}}}),
             "`x-mcp-header` \"myfield\" of property `b` names a header another property names (case does not count)"),
            (json!({"type": "object", "properties": {"a": {"type": "array",
                "items": {"type": "string", "x-mcp-header": "I"}}}}),
             "an `x-mcp-header` is on a schema that is not reached through `properties` alone"),
        ];
        for (schema, why) in cases {
            assert_eq!(checked(schema.clone()), Err(why.to_owned()), "{schema}");
        }
    }

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
