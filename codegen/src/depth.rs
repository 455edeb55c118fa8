//! Schemas the type generator must not be handed: nested deeper than
//! [`MAX_SCHEMA_DEPTH`] JSON levels, a `$ref` chain through more than
//! [`MAX_SCHEMA_DEPTH`] definitions, or a root that is only a reference to
//! itself (`{"$ref": "#"}`). typify recurses over each (and overflows the
//! stack, which aborts the process), so they are refused first, with the
//! JSON pointer. No server can send a deeper schema anyway: rmcp parses
//! messages with serde_json's limit of 128 levels; only a hand-made
//! lockfile gets here.
//!
//! Every walk here is iterative, so any input is safe to check.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The deepest schema generated, in JSON levels and in `$ref` hops.
pub const MAX_SCHEMA_DEPTH: usize = 128;

/// Why a schema is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaProblem {
    /// Nested deeper than `limit` JSON levels.
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// A `$ref` chain through more than `limit` definitions.
    RefChain {
        /// The limit.
        limit: usize,
    },
    /// The schema is only a reference to itself.
    SelfReference,
}

impl std::fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaProblem::TooDeep { limit } => {
                write!(f, "the schema is nested deeper than {limit} levels")
            }
            SchemaProblem::RefChain { limit } => {
                write!(
                    f,
                    "a `$ref` chain goes through more than {limit} definitions"
                )
            }
            SchemaProblem::SelfReference => {
                f.write_str("the schema is only a `$ref` to itself, which defines no type")
            }
        }
    }
}

/// Checks one schema; the JSON pointer (relative to the schema) and the
/// problem when it is refused.
pub(crate) fn check_schema(schema: &Value) -> Result<(), (String, SchemaProblem)> {
    if is_self_reference(schema) {
        return Err((String::new(), SchemaProblem::SelfReference));
    }
    if let Some(pointer) = too_deep_at(schema, MAX_SCHEMA_DEPTH) {
        let limit = MAX_SCHEMA_DEPTH;
        return Err((pointer, SchemaProblem::TooDeep { limit }));
    }
    if let Some(pointer) = long_ref_chain(schema, MAX_SCHEMA_DEPTH) {
        let limit = MAX_SCHEMA_DEPTH;
        return Err((pointer, SchemaProblem::RefChain { limit }));
    }
    Ok(())
}

/// `{"$ref": "#"}`, or `{"allOf": [{"$ref": "#"}]}`.
fn is_self_reference(schema: &Value) -> bool {
    let target = match schema.get("allOf").and_then(Value::as_array) {
        Some(all) if all.len() == 1 => all[0].get("$ref"),
        _ => schema.get("$ref"),
    };
    target.and_then(Value::as_str) == Some("#")
}

/// The pointer of the first value nested deeper than `limit`.
fn too_deep_at(schema: &Value, limit: usize) -> Option<String> {
    let mut stack = vec![(schema, 0usize, String::new())];
    while let Some((value, depth, pointer)) = stack.pop() {
        if depth > limit {
            return Some(pointer);
        }
        match value {
            Value::Object(map) => stack.extend(
                map.iter()
                    .map(|(k, v)| (v, depth + 1, format!("{pointer}/{}", escape(k)))),
            ),
            Value::Array(items) => stack.extend(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v, depth + 1, format!("{pointer}/{i}"))),
            ),
            _ => {}
        }
    }
    None
}

/// The pointer of a definition that starts a `$ref` chain through more
/// than `limit` definitions (a cycle is not a chain: typify names it).
fn long_ref_chain(schema: &Value, limit: usize) -> Option<String> {
    let mut defs: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    for key in ["$defs", "definitions"] {
        let Some(map) = schema.get(key).and_then(Value::as_object) else {
            continue;
        };
        for (name, body) in map {
            let refs = refs_in(body);
            defs.insert(
                format!("#/{key}/{name}"),
                (format!("/{key}/{}", escape(name)), refs),
            );
        }
    }
    let mut memo: BTreeMap<&str, usize> = BTreeMap::new();
    for start in defs.keys() {
        // Iterative post-order: a chain's length is 1 + its longest
        // reference's; a reference back onto the path counts 0.
        let mut stack = vec![(start.as_str(), false)];
        let mut on_path = BTreeSet::new();
        while let Some((name, done)) = stack.pop() {
            if done {
                on_path.remove(name);
                let longest = defs[name]
                    .1
                    .iter()
                    .filter_map(|r| memo.get(r.as_str()))
                    .max()
                    .copied()
                    .unwrap_or(0);
                memo.insert(name, longest + 1);
                continue;
            }
            if memo.contains_key(name) || !on_path.insert(name) {
                continue;
            }
            stack.push((name, true));
            for next in &defs[name].1 {
                if defs.contains_key(next) && !memo.contains_key(next.as_str()) {
                    stack.push((next.as_str(), false));
                }
            }
        }
        if memo.get(start.as_str()).is_some_and(|&n| n > limit) {
            return Some(defs[start].0.clone());
        }
    }
    None
}

/// The local `$ref` targets inside a value.
fn refs_in(value: &Value) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(target) = map.get("$ref").and_then(Value::as_str) {
                    refs.insert(target.to_owned());
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    refs
}

/// A JSON pointer token: `~` and `/` escaped.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chain(n: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..n {
            defs.insert(
                format!("d{i:04}"),
                json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/d{:04}", i + 1)}}}),
            );
        }
        defs.insert(format!("d{n:04}"), json!({"type": "string"}));
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0000"}}, "$defs": defs})
    }

    #[test]
    fn refuses_what_typify_would_overflow_on() {
        assert_eq!(
            check_schema(&json!({"$ref": "#"})),
            Err((String::new(), SchemaProblem::SelfReference))
        );
        // A recursive root is fine: it has a type of its own.
        let tree = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        assert_eq!(check_schema(&tree), Ok(()));
        let mut deep = json!({"type": "string"});
        for _ in 0..135 {
            deep = json!({"type": "object", "properties": {"a": deep}});
        }
        let (pointer, problem) = check_schema(&deep).unwrap_err();
        assert_eq!(problem, SchemaProblem::TooDeep { limit: 128 });
        assert!(
            pointer.starts_with("/properties/a/properties/a/"),
            "{pointer}"
        );
        assert_eq!(check_schema(&chain(100)), Ok(()));
        assert_eq!(
            check_schema(&chain(1000)),
            Err((
                "/$defs/d0000".to_owned(),
                SchemaProblem::RefChain { limit: 128 }
            ))
        );
        // A cycle is not a chain.
        let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}});
        assert_eq!(check_schema(&cycle), Ok(()));
        assert_eq!(
            SchemaProblem::RefChain { limit: 128 }.to_string(),
            "a `$ref` chain goes through more than 128 definitions"
        );
    }
}
