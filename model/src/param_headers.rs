//! `x-mcp-header` (SEP-2243, MCP 2026-07-28): a tool's input schema may
//! name parameters that the client mirrors into `Mcp-Param-<Name>` HTTP
//! headers. A tool whose mapping is invalid must not be used, so [`check`]
//! says what is wrong, and listing skips the tool with that reason, on
//! every transport: the lockfile is the same whatever the transport. The
//! client (`mcpbind-client`, `connect/headers.rs`) sends the headers
//! ([`values`] gives what they carry).
//!
//! A mapping is valid when each `x-mcp-header` is a non-empty HTTP token
//! (RFC 9110 §5.6.2), unique regardless of case, on a `string`, `integer`
//! or `boolean` property reached from the root through `properties` alone.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

const KEY: &str = "x-mcp-header";

/// What is wrong with `schema`'s `x-mcp-header` mapping, if anything.
///
/// # Errors
///
/// Why the mapping is invalid, naming the property (the reason listing
/// gives for skipping the tool).
pub fn check(schema: &Map<String, Value>) -> Result<(), String> {
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

/// Whether `schema` has a valid mapping that mirrors at least one
/// parameter.
pub fn mirrors(schema: &Map<String, Value>) -> bool {
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

/// What each mirrored parameter of a `tools/call` with `arguments` carries:
/// the header's name (after `Mcp-Param-`) and the argument as text (a
/// string as it is, an integer or boolean in its JSON form). An argument
/// that is absent (or not a primitive) has none.
pub fn values<'a>(
    schema: &'a Map<String, Value>,
    arguments: &Map<String, Value>,
) -> Vec<(&'a str, String)> {
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
        out.push((header, text));
    }
    out
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
}
