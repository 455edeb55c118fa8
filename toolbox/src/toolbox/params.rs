//! Parameter names a provider refuses, mapped to legal ones in the
//! definitions and back on dispatch.
//!
//! Gemini's rule (G5 in `providers/gemini.rs`) is the only documented rule
//! on property names among the providers: a name must start with a letter
//! or `_` and hold only `[a-zA-Z0-9_]`, at most 64 characters. A property
//! whose name breaks it (`auth-method`, `filter.query`, `2fa`) is declared
//! under an alias:
//!
//! - characters outside `[a-zA-Z0-9_]` become `_`, a leading digit gets a
//!   `_` before it, a name over 64 characters is cut to 55 and given `_` and
//!   8 hex digits of the sha256 of the original name;
//! - legal names keep their place: an alias never equals another property
//!   of the same object, nor another alias (`_2`, `_3`… until free), so the
//!   mapping is deterministic (it depends on the object's property names
//!   only, in their locked order) and reversible.
//!
//! Dispatch maps back without knowing which provider the model used: a key
//! that is a property's own name stays; a key that is only an alias of one
//! becomes that property's name. Nested objects (properties, items, local
//! `$ref`s, `anyOf`/`oneOf` branches) follow the same rule at each level.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::dispatch::resolve;

/// G5's maximum length.
const MAX_LEN: usize = 64;

/// Whether Gemini accepts `name` as a parameter name (G5).
pub(crate) fn is_legal(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_LEN
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `(original, declared)` for each property name of one object, in order:
/// `declared` is the name itself when legal, its alias otherwise.
pub(crate) fn aliases<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, String)> {
    let names: Vec<&str> = names.into_iter().collect();
    let mut taken: std::collections::HashSet<String> = names
        .iter()
        .filter(|n| is_legal(n))
        .map(|n| (*n).to_owned())
        .collect();
    names
        .into_iter()
        .map(|name| {
            if is_legal(name) {
                return (name, name.to_owned());
            }
            let base = legal_form(name);
            let mut alias = base.clone();
            let mut n = 2;
            while taken.contains(&alias) {
                let suffix = format!("_{n}");
                let mut cut = base.clone();
                cut.truncate(MAX_LEN - suffix.len());
                alias = format!("{cut}{suffix}");
                n += 1;
            }
            taken.insert(alias.clone());
            (name, alias)
        })
        .collect()
}

fn legal_form(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    if out.len() > MAX_LEN {
        let digest = Sha256::digest(name.as_bytes());
        let hex: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
        out.truncate(MAX_LEN - hex.len() - 1);
        out.push('_');
        out.push_str(&hex);
    }
    out
}

/// Maps aliases in a model's arguments back to the property names of
/// `schema` (the tool's locked input schema), at every level.
pub(crate) fn unalias(schema: &Value, arguments: &mut Value) {
    unalias_at(schema, schema, arguments, 0);
}

/// Deep enough for any real schema; a recursive `$ref` stops here.
const MAX_DEPTH: usize = 64;

fn unalias_at(root: &Value, schema: &Value, value: &mut Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(root, schema);
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    for branch in &branches {
        unalias_at(root, branch, value, depth + 1);
    }
    match value {
        Value::Object(map) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            rename_keys(properties, map);
            for (key, v) in map.iter_mut() {
                if let Some(property) = properties.get(key) {
                    unalias_at(root, property, v, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for v in items {
                    unalias_at(root, item_schema, v, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn rename_keys(properties: &Map<String, Value>, map: &mut Map<String, Value>) {
    let renames: Vec<(String, &str)> = aliases(properties.keys().map(String::as_str))
        .into_iter()
        .filter(|(original, alias)| original != alias)
        .filter(|(original, alias)| map.contains_key(alias) && !map.contains_key(*original))
        .map(|(original, alias)| (alias, original))
        .collect();
    for (alias, original) in renames {
        if let Some(v) = map.remove(&alias) {
            map.insert(original.to_owned(), v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aliases_are_legal_deterministic_and_collision_free() {
        let names = ["auth-method", "auth_method", "2fa", "ok", "a.b", "a-b"];
        let got = aliases(names);
        assert_eq!(
            got.iter().map(|(_, a)| a.as_str()).collect::<Vec<_>>(),
            ["auth_method_2", "auth_method", "_2fa", "ok", "a_b", "a_b_2"]
        );
        assert!(got.iter().all(|(_, a)| is_legal(a)));
        assert_eq!(got, aliases(names));
        let long = "x-".repeat(40);
        let long_alias = &aliases([long.as_str()])[0].1;
        assert_eq!(long_alias.len(), 64);
        assert!(is_legal(long_alias));
    }

    #[test]
    fn arguments_map_back_at_every_level() {
        let schema = json!({"type": "object", "$defs": {"F": {"type": "object",
            "properties": {"filter-query": {"type": "string"}}}},
            "properties": {"auth-method": {"type": "string"}, "auth_method": {"type": "string"},
                "filters": {"type": "array", "items": {"$ref": "#/$defs/F"}}}});
        let mut args = json!({"auth_method_2": "x", "auth_method": "y",
            "filters": [{"filter_query": "q"}]});
        unalias(&schema, &mut args);
        assert_eq!(
            args,
            json!({"auth-method": "x", "auth_method": "y", "filters": [{"filter-query": "q"}]})
        );
        // The original names pass as they are.
        let mut args = json!({"auth-method": "x"});
        unalias(&schema, &mut args);
        assert_eq!(args, json!({"auth-method": "x"}));
    }
}
