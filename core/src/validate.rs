//! Validation of arguments and structured output against the locked
//! schemas, for what types can't say (`minimum`, `pattern`, `minItems`…).
//!
//! Each schema is compiled once per process, on first use, and cached by the
//! address of its `'static` text (generated code holds one per tool). A
//! schema that can't be compiled (an unknown draft, a network `$ref`, which
//! is never fetched) disables validation for that schema only: the server
//! still checks.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use foldhash::fast::FixedState;
use serde_json::Value;

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

/// The first violations of `schema` by `instance`, each as
/// `"<JSON pointer>: <rule>"`; empty when valid (or not checkable).
pub(crate) fn violations(schema: &'static str, instance: &Value) -> Vec<String> {
    let Some(validator) = validator(schema) else {
        return Vec::new();
    };
    // The common case, valid, without building any error.
    if validator.is_valid(instance) {
        return Vec::new();
    }
    validator
        .iter_errors(instance)
        .take(3)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("{}: {e}", if at.is_empty() { "/" } else { &at })
        })
        .collect()
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
        assert_eq!(v, ["/count: 30 is greater than the maximum of 10"]);
        let v = violations(SCHEMA, &json!({}));
        assert_eq!(v.len(), 1);
        assert!(v[0].starts_with("/: "), "{v:?}");
    }

    #[test]
    fn uncompilable_schema_checks_nothing() {
        const BAD: &str = r#"{"$ref": "https://example.com/never-fetched.json"}"#;
        assert!(violations(BAD, &json!({"anything": 1})).is_empty());
    }
}
