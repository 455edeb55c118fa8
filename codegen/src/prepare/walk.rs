//! The walk over a tool schema: each subschema normalized in place, its
//! `$ref`s resolved, its keywords made what typify takes.

use serde_json::{json, Map, Value};

use super::keywords::{
    close_objects, defaults_to_docs, drop_accept_all_unions, drop_constraint_only_branches,
    normalize_type, tidy_values, type_integers, type_mixed_enum, BeforeDropping,
};
use super::{escape, LocalRefs};
use crate::Warning;

/// Keywords dropped because no Rust type expresses them (the locked schema
/// still says them), and definitions (hoisted by then).
const DROPPED: &[&str] = &[
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveAnchor",
    "$recursiveRef",
    "$comment",
    "$vocabulary",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
    "discriminator",
    "title",
];

impl LocalRefs<'_> {
    pub(super) fn warn(&mut self, at: String, message: &str) {
        self.warnings.push(Warning {
            server: String::new(),
            tool: self.tool.to_owned(),
            pointer: format!("{}{}", self.pointer, at),
            message: message.to_owned(),
        });
    }

    /// Normalizes a subschema in place; `at` is its pointer in the tool
    /// schema (for warnings).
    pub(super) fn normalize(&mut self, schema: &mut Value, at: &str) {
        let Value::Object(obj) = schema else {
            if !schema.is_boolean() {
                self.warn(
                    at.to_owned(),
                    "a subschema is neither an object nor a boolean; using any value",
                );
                *schema = json!({});
            }
            return;
        };

        if let Some(reference) = obj.get("$ref").cloned() {
            self.normalize_ref(schema, &reference, at);
            return;
        }
        let read = BeforeDropping::read(obj);
        // The keywords present, removed in `DROPPED`'s order (one pass over
        // the few keys an object has, rather than a lookup per keyword).
        let mut dropped: Vec<(usize, String)> = obj
            .keys()
            .filter_map(|k| Some((DROPPED.iter().position(|d| d == k)?, k.clone())))
            .collect();
        dropped.sort_unstable();
        for (_, key) in dropped {
            obj.remove(&key);
        }
        // The keys first, then each removed in that order (with
        // `preserve_order`, `remove` moves the last key into the gap, so the
        // order of removals decides the order of what is left).
        let dropped: Vec<String> = obj
            .iter()
            .filter(|(k, v)| k.starts_with("x-") || (*k == "description" && !v.is_string()))
            .map(|(k, _)| k.clone())
            .collect();
        for k in dropped {
            obj.remove(&k);
        }
        // Descriptions become doc comments: a lone CR or a NUL is not legal
        // there, whatever form the formatter picks.
        if let Some(Value::String(d)) = obj.get_mut("description") {
            if d.contains(['\r', '\0']) {
                *d = d
                    .replace("\r\n", "\n")
                    .replace('\r', "\n")
                    .replace('\0', "");
            }
        }
        drop_constraint_only_branches(obj);
        // Tuples: typify's mapping is wrong for `prefixItems` and brittle for
        // draft-07 array `items`; an array of any value is always right.
        if obj.remove("prefixItems").is_some() || obj.get("items").is_some_and(Value::is_array) {
            obj.remove("items");
            obj.remove("additionalItems");
        }
        if obj.contains_key("patternProperties") {
            obj.remove("patternProperties");
            obj.insert("additionalProperties".into(), json!({}));
        }

        type_mixed_enum(obj);
        normalize_type(obj);
        type_integers(obj, read.integer);
        tidy_values(obj);
        close_objects(obj, &read, self.pointer.starts_with("/inputSchema"));
        defaults_to_docs(obj);
        self.separate_colliding_properties(obj, at);
        self.loosen_colliding_enum(obj, at);

        self.normalize_children(obj, at);
        drop_accept_all_unions(obj);
        self.overlapping_values_as_one_of(obj);
    }

    /// typify types an `anyOf` whose branches may overlap as a struct with
    /// one flattened optional field per branch, which holds objects only: a
    /// string or a number there fails to parse. When a branch takes no
    /// objects at all, the `anyOf` is typed as a `oneOf` (an untagged enum:
    /// the first branch that takes the value holds it); the locked schema
    /// still says `anyOf`. (Branches that take objects keep the struct,
    /// which holds a value that several of them describe in full.)
    fn overlapping_values_as_one_of(&self, obj: &mut Map<String, Value>) {
        if obj.contains_key("oneOf") {
            return;
        }
        let Some(Value::Array(branches)) = obj.get("anyOf") else {
            return;
        };
        if branches.iter().any(|b| self.takes_no_objects(b, true)) {
            if let Some(branches) = obj.remove("anyOf") {
                obj.insert("oneOf".into(), branches);
            }
        }
    }

    /// Whether a normalized subschema's `type` leaves objects out; `follow`
    /// looks through one `$ref` to a definition already normalized (one
    /// still being normalized, in a cycle, counts as taking objects).
    fn takes_no_objects(&self, schema: &Value, follow: bool) -> bool {
        let Value::Object(obj) = schema else {
            return false;
        };
        if let Some(reference) = obj.get("$ref").and_then(Value::as_str) {
            let body = reference
                .strip_prefix("#/$defs/")
                .and_then(|name| self.bodies.get(name));
            return follow && body.is_some_and(|b| self.takes_no_objects(b, false));
        }
        match obj.get("type") {
            Some(Value::String(t)) => t != "object",
            Some(Value::Array(types)) => !types.iter().any(|t| t == "object"),
            _ => false,
        }
    }

    /// Normalizes the subschemas of an object schema.
    fn normalize_children(&mut self, obj: &mut Map<String, Value>, at: &str) {
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, sub) in props.iter_mut() {
                self.normalize(sub, &format!("{at}/properties/{}", escape(name)));
            }
        }
        for key in ["additionalProperties", "items"] {
            if let Some(sub) = obj.get_mut(key) {
                self.normalize(sub, &format!("{at}/{key}"));
            }
        }
        // A branch without `type` beside one (`{"type": "object", "anyOf":
        // [{"properties": …}]}`) takes only what the base takes: its type.
        let base = obj.get("type").filter(|t| t.is_string()).cloned();
        for key in ["anyOf", "oneOf", "allOf"] {
            match obj.get_mut(key) {
                Some(Value::Array(subs)) if !subs.is_empty() => {
                    for (i, sub) in subs.iter_mut().enumerate() {
                        if let (Some(base), Value::Object(branch)) = (&base, &mut *sub) {
                            if !branch.contains_key("type") && !branch.contains_key("$ref") {
                                branch.insert("type".into(), base.clone());
                            }
                        }
                        self.normalize(sub, &format!("{at}/{key}/{i}"));
                    }
                }
                Some(_) => {
                    obj.remove(key);
                }
                None => {}
            }
        }
    }
}
