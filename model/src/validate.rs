//! Validation of arguments and structured output against the locked
//! schemas, for what types can't say (`minimum`, `pattern`, `minItems`…).
//!
//! Each schema is compiled once per process, on first use, and cached by the
//! address of its `'static` text (generated code holds one per tool). A
//! schema that can't be compiled (an unknown draft, a network `$ref`, which
//! is never fetched) disables validation for that schema only: the server
//! still checks.
//!
//! The validator recurses over the instance as deep as the schema leads it,
//! and a recursive schema (`{"properties": {"child": {"$ref": "#"}}}`) leads
//! it all the way down. Schemas are at most 128 levels (serde_json's limit
//! when the text is parsed here, the generator's when it is written), but
//! an instance is whatever the caller built; so an instance nested deeper
//! than 128 levels is a violation at the pointer where it goes
//! too deep, checked without recursing, instead of a stack overflow.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use foldhash::fast::FixedState;
use serde_json::Value;

use crate::lock::deeper_than;
use crate::violation::small;
pub use crate::violation::{join, Violation};

/// The deepest instance validated, in JSON levels: as deep as serde_json
/// (and so rmcp, on either side) parses a message, envelope included, so a
/// deeper one could not reach a server anyway.
pub(crate) const MAX_INSTANCE_DEPTH: usize = 128;

/// Compiled validators by the address and length of their schema's text.
/// They live as long as the process, as the `'static` texts do: the lookup
/// on every call is then a read lock and no reference count.
type Cache = RwLock<HashMap<(usize, usize), Option<&'static jsonschema::Validator>, FixedState>>;

fn validator(schema: &'static str) -> Option<&'static jsonschema::Validator> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (schema.as_ptr() as usize, schema.len());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.read().ok()?.get(&key) {
        return *found;
    }
    let compiled = serde_json::from_str::<Value>(schema)
        .ok()
        .and_then(|schema| jsonschema::validator_for(&schema).ok());
    let mut cache = cache.write().ok()?;
    // Another thread may have compiled it meanwhile: keep the first.
    *cache
        .entry(key)
        .or_insert_with(|| compiled.map(|v| &*Box::leak(Box::new(v))))
}

/// The first violations of `schema` by `instance`; empty when valid (or
/// not checkable).
pub fn violations(schema: &'static str, instance: &Value) -> Vec<Violation> {
    match validator(schema) {
        Some(validator) => violations_of(validator, instance),
        None => Vec::new(),
    }
}

/// [`violations`] of a compiled schema (an unlocked tool's, compiled when
/// it was listed).
#[inline]
pub fn violations_of(validator: &jsonschema::Validator, instance: &Value) -> Vec<Violation> {
    if deeper_than(instance, MAX_INSTANCE_DEPTH) {
        let at = too_deep_at(instance, MAX_INSTANCE_DEPTH);
        return vec![Violation::new(
            at,
            "depth",
            format!(
                "nested deeper than {MAX_INSTANCE_DEPTH} levels, more than is validated or sent"
            ),
        )];
    }
    // The common case, valid, without building any error.
    if validator.is_valid(instance) {
        return Vec::new();
    }
    validator
        .iter_errors(instance)
        .take(3)
        .map(|e| Violation {
            given: small(e.instance()),
            ..Violation::new(
                e.instance_path().to_string(),
                e.kind().keyword(),
                e.to_string(),
            )
        })
        .collect()
}

/// The JSON pointer of the first object or array nested deeper than
/// `limit` (iterative: any depth is safe).
fn too_deep_at(instance: &Value, limit: usize) -> String {
    let mut stack = vec![(instance, 1usize, String::new())];
    while let Some((value, depth, pointer)) = stack.pop() {
        let children: Vec<(String, &Value)> = match value {
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            _ => continue,
        };
        if depth > limit {
            return if pointer.is_empty() {
                "/".into()
            } else {
                pointer
            };
        }
        for (token, child) in children {
            stack.push((child, depth + 1, format!("{pointer}/{token}")));
        }
    }
    "/".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SCHEMA: &str = r#"{"type":"object","properties":{"count":{"type":"number","minimum":1,"maximum":10}},"required":["count"]}"#;

    #[test]
    fn reports_pointer_and_rule() {
        assert!(violations(SCHEMA, &json!({"count": 3})).is_empty());
        let v = violations(SCHEMA, &json!({"count": 30}));
        assert_eq!(
            (v[0].pointer.as_str(), v[0].keyword.as_str()),
            ("/count", "maximum")
        );
        assert_eq!(
            v[0].to_string(),
            "/count: 30 is greater than the maximum of 10"
        );
        assert_eq!(v[0].given, Some(json!(30)));
        let v = violations(SCHEMA, &json!({}));
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].pointer.as_str(), v[0].keyword.as_str()),
            ("/", "required")
        );
        assert!(v[0].to_string().starts_with("/: "), "{v:?}");
        assert_eq!(v[0].given, Some(json!({})));
        // A value too large to carry is left out (the message names it).
        let big = "x".repeat(crate::violation::MAX_GIVEN_BYTES);
        let v = violations(SCHEMA, &json!({"count": big}));
        assert_eq!((v[0].keyword.as_str(), &v[0].given), ("type", &None));
        let v = violations(
            r#"{"properties":{"unit":{"enum":["c","f"]}}}"#,
            &json!({"unit": "k"}),
        );
        assert_eq!(
            (v[0].pointer.as_str(), v[0].keyword.as_str()),
            ("/unit", "enum")
        );
    }

    #[test]
    fn deep_instances_are_violations_not_overflows() {
        const TREE: &str =
            r##"{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}"##;
        // Built by moving each level in (`json!` would copy it, recursively).
        let nest = |levels: usize| {
            let mut v = json!({"n": 1});
            for _ in 1..levels {
                let mut parent = serde_json::Map::new();
                parent.insert("child".into(), v);
                v = Value::Object(parent);
            }
            v
        };
        // As deep as may be: validated (and wrong where it is wrong).
        let ok = nest(MAX_INSTANCE_DEPTH);
        assert!(violations(TREE, &ok).is_empty());
        let mut bad = nest(MAX_INSTANCE_DEPTH - 1);
        bad["n"] = json!("one");
        let v = violations(TREE, &bad);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].to_string(), r#"/n: "one" is not of type "integer""#);
        assert_eq!(v[0].keyword, "type");
        // Far deeper: the validator would recurse 100,000 levels.
        let deep = nest(100_000);
        let v = violations(TREE, &deep);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].pointer, "/child".repeat(MAX_INSTANCE_DEPTH));
        assert_eq!(v[0].keyword, "depth");
        assert_eq!(
            v[0].message,
            "nested deeper than 128 levels, more than is validated or sent"
        );
        crate::lock::depth::drop_deep(deep);
    }

    #[test]
    fn uncompilable_schema_checks_nothing() {
        const BAD: &str = r#"{"$ref": "https://example.com/never-fetched.json"}"#;
        assert!(violations(BAD, &json!({"anything": 1})).is_empty());
    }
}
