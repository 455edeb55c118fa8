//! `$ref`s: resolved (JSON pointers, `$anchor`, `$id`) and hoisted into
//! definitions, listed, and renamed.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

use super::LocalRefs;
use crate::naming::{sanitize, Case, SHADOWING};

impl LocalRefs<'_> {
    /// A schema with `$ref`: the reference, resolved and hoisted, with the
    /// siblings that matter kept.
    pub(super) fn normalize_ref(&mut self, schema: &mut Value, reference: &Value, at: &str) {
        let Value::Object(obj) = schema else {
            return;
        };
        let target = match reference.as_str() {
            Some(r) => self.resolve(r, at),
            None => None,
        };
        match target {
            Some(name) => {
                // Siblings of `$ref` (a description, a default) are kept by
                // wrapping: typify reads `allOf: [ref]` as the ref.
                let mut siblings: Map<String, Value> = std::mem::take(obj);
                siblings.remove("$ref");
                let description = siblings.remove("description");
                let default = siblings.remove("default");
                obj.insert("$ref".into(), json!(format!("#/$defs/{name}")));
                if description.is_some() || default.is_some() {
                    let reference = Value::Object(std::mem::take(obj));
                    obj.insert("allOf".into(), json!([reference]));
                    if let Some(d) = description {
                        obj.insert("description".into(), d);
                    }
                    if let Some(d) = default {
                        obj.insert("default".into(), d);
                    }
                }
            }
            None => {
                self.warn(
                    format!("{at}/$ref"),
                    &format!("cannot resolve $ref {reference}; using serde_json::Value"),
                );
                *schema = json!({});
            }
        }
    }

    /// Resolves a `$ref` to a local definition name, hoisting its target.
    fn resolve(&mut self, reference: &str, at: &str) -> Option<String> {
        let (key, target) = if let Some(pointer) = reference.strip_prefix('#') {
            if pointer.is_empty() || pointer.starts_with('/') {
                let decoded = percent_decode(pointer);
                (decoded.clone(), self.original.pointer(&decoded)?.clone())
            } else {
                // `#anchor`
                (
                    reference.to_owned(),
                    find_by(self.original, "$anchor", pointer)?.clone(),
                )
            }
        } else {
            // `$id`-named subschemas; anything else would be a fetch.
            (
                reference.to_owned(),
                find_by(self.original, "$id", reference)?.clone(),
            )
        };
        if let Some(name) = self.names.get(&key) {
            return Some(name.clone());
        }
        let base = key
            .rsplit('/')
            .find(|s| !s.is_empty())
            .map(|s| sanitize(&s.replace("~1", "/").replace("~0", "~"), Case::Pascal))
            .unwrap_or_else(|| "Root".to_owned());
        // A definition named like a prelude type would shadow it in the
        // generated module, where typify's code names some of them bare.
        let base = if SHADOWING.contains(&base.as_str()) {
            format!("{base}Def")
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 2;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.names.insert(key, name.clone());
        self.origins.insert(name.clone(), format!("{at}/$ref"));
        let mut body = target;
        self.normalize(&mut body, &format!("{at}/$ref"));
        self.bodies.insert(name.clone(), body);
        Some(name)
    }
}

/// The subschema whose `key` (`$id`, `$anchor`) is `wanted`. Only schemas
/// are searched: an `$id` inside an `enum` or `const` value, or under a
/// keyword that holds no schemas, is data, not an identifier.
fn find_by<'v>(schema: &'v Value, key: &str, wanted: &str) -> Option<&'v Value> {
    let obj = schema.as_object()?;
    if obj.get(key).and_then(Value::as_str) == Some(wanted) {
        return Some(schema);
    }
    obj.iter().find_map(|(keyword, value)| {
        // draft-07's `items` may be a list too.
        match (SchemaPlace::of(keyword)?, value) {
            (SchemaPlace::One | SchemaPlace::List, Value::Array(items)) => {
                items.iter().find_map(|v| find_by(v, key, wanted))
            }
            (SchemaPlace::One, _) => find_by(value, key, wanted),
            (SchemaPlace::Map, Value::Object(map)) => {
                map.values().find_map(|v| find_by(v, key, wanted))
            }
            _ => None,
        }
    })
}

/// Where a keyword holds subschemas (JSON Schema 2020-12 and draft-07).
enum SchemaPlace {
    /// One schema (`items`, `not`).
    One,
    /// A list of them (`anyOf`, `prefixItems`).
    List,
    /// A map of them (`properties`, `$defs`).
    Map,
}

impl SchemaPlace {
    fn of(keyword: &str) -> Option<SchemaPlace> {
        Some(match keyword {
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contentSchema" => SchemaPlace::One,
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => SchemaPlace::List,
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            | "dependencies" => SchemaPlace::Map,
            _ => return None,
        })
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The definition names a schema refers to.
pub(crate) fn refs_of(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_refs(schema, &mut out);
    out
}

fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(obj) => {
            if let Some(name) = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                out.push(name.to_owned());
            }
            obj.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

pub(crate) fn rewrite_refs(schema: &mut Value, rename: &BTreeMap<String, String>) {
    match schema {
        Value::Object(obj) => {
            if let Some(Value::String(r)) = obj.get_mut("$ref") {
                if let Some(new) = r.strip_prefix("#/$defs/").and_then(|n| rename.get(n)) {
                    *r = format!("#/$defs/{new}");
                }
            }
            obj.values_mut().for_each(|v| rewrite_refs(v, rename));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, rename)),
        _ => {}
    }
}
