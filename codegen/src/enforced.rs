//! Whether a tool's generated input type enforces its whole input schema,
//! so that a typed call need not check its arguments against the schema
//! (`Tool::INPUT_ENFORCES_SCHEMA`).
//!
//! Conservative by construction: a schema qualifies only if every keyword
//! in it is one whose meaning the generated types keep exactly. Objects
//! with named properties (each required one present, no other keys sent),
//! strings, numbers, integers (and `"minimum": 0` on one, which its `u64`
//! keeps), booleans, arrays of one item schema, string enums, `null` beside
//! one of those, local `$ref`s, and annotations.
//! Anything else (a bound, a `pattern`, a union) leaves the check on.
//! `format` qualifies only where the draft treats it as an annotation
//! (2019-09 and 2020-12, the default): under draft-07 the validator
//! asserts it and a `String` does not. A float that is NaN or infinite
//! serializes as `null`, which a `number` refuses: the runtime checks any
//! arguments that hold a `null` (or nest deep) all the same.

use mcpbind_model::internal::integer::{integer_type, IntegerType};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// The deepest a schema is walked; deeper ones keep their check.
const MAX_DEPTH: usize = 64;

/// Keywords that only annotate: they never make a value invalid.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "default",
];

/// Whether every value of the input type generated for `schema` is valid
/// against it.
pub(crate) fn input_enforced(schema: &Value) -> bool {
    let Value::Object(root) = schema else {
        return false;
    };
    let formats_annotate = match root.get("$schema") {
        None => true,
        Some(Value::String(url)) => annotation_draft(url),
        Some(_) => false,
    };
    let walk = Walk {
        root,
        formats_annotate,
    };
    root.get("type") == Some(&Value::String("object".into()))
        && walk.node(schema, 0, &mut BTreeSet::new())
}

/// Drafts in which `format` is an annotation unless a metaschema asks
/// otherwise: 2019-09 and 2020-12.
fn annotation_draft(url: &str) -> bool {
    let url = url.trim_end_matches('#');
    let url = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    matches!(
        url,
        Some("json-schema.org/draft/2020-12/schema" | "json-schema.org/draft/2019-09/schema")
    )
}

struct Walk<'a> {
    root: &'a Map<String, Value>,
    formats_annotate: bool,
}

impl Walk<'_> {
    /// Whether `node` (a subschema) is one the types enforce; `refs`: the
    /// `$ref`s being followed (a recursive type enforces itself).
    fn node(&self, node: &Value, depth: usize, refs: &mut BTreeSet<String>) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let map = match node {
            Value::Bool(true) => return true,
            Value::Object(map) => map,
            _ => return false,
        };
        if let Some(target) = map.get("$ref") {
            return self.reference(map, target, depth, refs);
        }
        let Some((kind, nullable)) = kind_of(map.get("type")) else {
            return false;
        };
        let keywords = map.iter().all(|(key, value)| match key.as_str() {
            "type" => true,
            "$schema" | "$defs" | "definitions" => depth == 0,
            "format" => self.formats_annotate,
            "enum" => kind == "string" && !nullable && string_enum(value),
            "properties" | "required" | "additionalProperties" => kind == "object",
            "items" => kind == "array",
            "minimum" => kind == "integer" && natural(map),
            key => ANNOTATIONS.contains(&key),
        });
        keywords
            && match kind {
                "object" => self.object(map, depth, refs),
                "array" => map
                    .get("items")
                    .is_none_or(|items| self.node(items, depth + 1, refs)),
                _ => true,
            }
    }

    /// A `$ref` to a definition of this schema, beside annotations only.
    fn reference(
        &self,
        map: &Map<String, Value>,
        target: &Value,
        depth: usize,
        refs: &mut BTreeSet<String>,
    ) -> bool {
        let Some(target) = target.as_str() else {
            return false;
        };
        let only_annotations = map
            .keys()
            .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()));
        match self.definition(target) {
            Some(_) if !only_annotations => false,
            Some(_) if refs.contains(target) => true,
            Some(definition) => {
                refs.insert(target.to_owned());
                let enforced = self.node(definition, depth + 1, refs);
                refs.remove(target);
                enforced
            }
            None => false,
        }
    }

    /// The definition `target` names: `#/$defs/NAME` or
    /// `#/definitions/NAME` of the root (an escaped or nested pointer is
    /// not followed).
    fn definition(&self, target: &str) -> Option<&Value> {
        ["#/$defs/", "#/definitions/"].iter().find_map(|prefix| {
            let name = target.strip_prefix(prefix)?;
            let defs = prefix.trim_start_matches("#/").trim_end_matches('/');
            (!name.contains(['/', '~', '%'])).then(|| self.root.get(defs)?.get(name))?
        })
    }

    /// Whether `property` allows `null` (its own `type`, or its
    /// definition's).
    fn nullable(&self, property: &Value) -> bool {
        let target = property.get("$ref").and_then(Value::as_str);
        let node = target.and_then(|t| self.definition(t)).unwrap_or(property);
        node == &Value::Bool(true) || kind_of(node.get("type")).is_none_or(|(_, nullable)| nullable)
    }

    /// An object's `properties`, `required` and `additionalProperties`:
    /// every required name a property that is not nullable (an unset
    /// `Option` is not sent), no other properties allowed but by omission
    /// (a struct sends only its fields), and no two names that could make
    /// the same field.
    fn object(&self, map: &Map<String, Value>, depth: usize, refs: &mut BTreeSet<String>) -> bool {
        let empty = Map::new();
        let properties = match map.get("properties") {
            None => &empty,
            Some(Value::Object(properties)) => properties,
            Some(_) => return false,
        };
        let required = match map.get("required") {
            None => Vec::new(),
            Some(Value::Array(names)) => names.iter().map(Value::as_str).collect(),
            Some(_) => return false,
        };
        let additional = matches!(
            map.get("additionalProperties"),
            None | Some(Value::Bool(false))
        );
        let mut fields = BTreeSet::new();
        additional
            && required.iter().all(|name| {
                name.and_then(|n| properties.get(n))
                    .is_some_and(|p| !self.nullable(p))
            })
            && properties.iter().all(|(name, property)| {
                field_key(name).is_some_and(|key| fields.insert(key))
                    && self.node(property, depth + 1, refs)
            })
    }
}

/// A `type`: one of the kinds the types keep, and whether `null` is
/// allowed beside it.
fn kind_of(types: Option<&Value>) -> Option<(&str, bool)> {
    const KINDS: &[&str] = &["string", "number", "integer", "boolean", "object", "array"];
    match types? {
        Value::String(kind) if KINDS.contains(&kind.as_str()) => Some((kind, false)),
        Value::Array(kinds) => match kinds.as_slice() {
            [Value::String(a), Value::String(b)] if b == "null" && KINDS.contains(&a.as_str()) => {
                Some((a, true))
            }
            [Value::String(a), Value::String(b)] if a == "null" && KINDS.contains(&b.as_str()) => {
                Some((b, true))
            }
            [single] => kind_of(Some(single)),
            _ => None,
        },
        _ => None,
    }
}

/// `"minimum": 0` on an integer typed `u64`, which holds exactly the
/// integers it allows (not `minimum: 1`: a `u64` holds 0 too; not beside a
/// `format` that makes it a `BigInt`, which holds negative ones).
fn natural(map: &Map<String, Value>) -> bool {
    map.get("minimum").and_then(Value::as_f64) == Some(0.0)
        && integer_type(map) == IntegerType::Unsigned
}

/// Distinct strings only: each a variant that serializes as itself.
fn string_enum(values: &Value) -> bool {
    let Value::Array(values) = values else {
        return false;
    };
    let mut seen = BTreeSet::new();
    !values.is_empty()
        && values
            .iter()
            .all(|v| v.as_str().is_some_and(|s| seen.insert(s)))
}

/// What a property's field name is made of, `None` for a name that is not
/// plain ASCII letters, digits, `_` and `-` beginning with a letter (such a
/// name may share its field, or go to a flattened map of extras). Names
/// equal here could be given one Rust name (`fooBar`, `foo_bar`), which
/// generation settles by loosening the type.
fn field_key(name: &str) -> Option<String> {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    plain.then(|| {
        name.chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::input_enforced;
    use serde_json::{json, Value};

    #[test]
    fn plain_objects_of_strings_integers_booleans_and_arrays_are_enforced() {
        for schema in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
            json!({"type": "object", "properties": {"s": {"type": "string", "description": "d"}}, "required": ["s"]}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                   "properties": {"a": {"type": "integer", "format": "int64"}, "b": {"type": ["boolean", "null"]}},
                   "required": ["a"], "additionalProperties": false}),
            json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}}}}),
            json!({"type": "object", "properties": {"x": {"type": "number", "format": "double"}}, "required": ["x"]}),
            // A `u64` holds exactly the integers `minimum: 0` allows.
            json!({"type": "object", "properties": {"i": {"type": "integer", "minimum": 0},
                   "n": {"type": ["integer", "null"], "minimum": 0.0},
                   "l": {"type": "array", "items": {"type": "integer", "minimum": 0}}}}),
            json!({"type": "object", "properties": {"c": {"$ref": "#/$defs/C", "description": "who"}},
                   "required": ["c"], "$defs": {"C": {"type": "object", "properties": {"name": {"type": "string"}}}}}),
            // A recursive definition: its type is recursive too.
            json!({"type": "object", "properties": {"n": {"$ref": "#/definitions/N"}},
                   "definitions": {"N": {"type": "object", "properties": {"next": {"$ref": "#/definitions/N"}}}}}),
        ] {
            assert!(input_enforced(&schema), "{schema}");
        }
    }

    #[test]
    fn anything_the_types_do_not_keep_leaves_the_check_on() {
        for schema in [
            json!(true),
            json!({"type": "array"}),
            json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 1}}}),
            json!({"type": "object", "properties": {"s": {"type": "string", "pattern": "^a"}}}),
            json!({"type": "object", "properties": {"i": {"type": "integer", "minimum": 1}}}),
            json!({"type": "object", "properties": {"i": {"type": "integer", "minimum": -1}}}),
            json!({"type": "object", "properties": {"i": {"type": "integer", "minimum": 0, "maximum": 9}}}),
            json!({"type": "object", "properties": {"i": {"type": "integer", "minimum": 0, "format": "int128"}}}),
            json!({"type": "object", "properties": {"n": {"type": "number", "minimum": 0}}}),
            json!({"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 0}}}),
            json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}, "maxItems": 2}}}),
            json!({"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
            json!({"type": "object", "properties": {"u": {"type": ["string", "integer"]}}}),
            json!({"type": "object", "properties": {"s": {}}}),
            json!({"type": "object", "required": ["missing"]}),
            // An unset Option is not sent: a required nullable property
            // would be missing.
            json!({"type": "object", "properties": {"s": {"type": ["string", "null"]}}, "required": ["s"]}),
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            json!({"type": "object", "properties": {"fooBar": {"type": "string"}, "foo_bar": {"type": "string"}}}),
            json!({"type": "object", "properties": {"": {"type": "string"}}}),
            json!({"type": "object", "properties": {"1st": {"type": "string"}}}),
            json!({"type": "object", "properties": {"café": {"type": "string"}}}),
            json!({"type": "object", "properties": {"e": {"type": "string", "enum": ["a", 1]}}}),
            json!({"type": "object", "properties": {"e": {"type": "string", "const": "a"}}}),
            json!({"type": "object", "properties": {"r": {"$ref": "https://example.com/s.json"}}}),
            json!({"type": "object", "properties": {"r": {"$ref": "#/$defs/R", "type": "string"}}, "$defs": {"R": {"type": "string"}}}),
            json!({"type": "object", "properties": {"x": {"type": "string", "x-unknown": 1}}}),
            // draft-07 asserts `format`; a String does not.
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                   "properties": {"e": {"type": "string", "format": "email"}}}),
        ] {
            assert!(!input_enforced(&schema), "{schema}");
        }
    }

    /// Values the generated types can hold, for a schema said to be
    /// enforced: `variant` picks, at each choice, one of its options (every
    /// string, integer extreme, enum value, `null`, empty and full arrays,
    /// objects with all properties and with the required ones only).
    fn sample(node: &Value, root: &Value, variant: usize, depth: usize) -> Value {
        let pick = |options: usize| (variant + depth) % options;
        if node == &Value::Bool(true) {
            return json!({"any": [1, "x"]});
        }
        if let Some(target) = node.get("$ref").and_then(Value::as_str) {
            let definition = root.pointer(&target[1..]).unwrap();
            return sample(definition, root, variant, depth + 1);
        }
        let (kind, nullable) = super::kind_of(node.get("type")).unwrap();
        if nullable && pick(3) == 0 {
            return Value::Null;
        }
        if let Some(Value::Array(values)) = node.get("enum") {
            return values[pick(values.len())].clone();
        }
        match kind {
            "string" => json!(
                [
                    "",
                    "x",
                    "not an e-mail, uri or date: ../é\u{0}",
                    &"y".repeat(300)
                ][pick(4)]
            ),
            // A `u64` (`minimum: 0`) holds no negative integer.
            "integer" if node.get("minimum").is_some() => {
                [json!(0), json!(i64::MAX), json!(u64::MAX)][pick(3)].clone()
            }
            "integer" => [
                json!(i64::MIN),
                json!(-1),
                json!(0),
                json!(i64::MAX),
                json!(u64::MAX),
            ][pick(5)]
            .clone(),
            // A finite float: NaN and the infinities serialize as `null`,
            // which the runtime checks (see the last test).
            "number" => [
                json!(-1.5),
                json!(0.0),
                json!(f64::MAX),
                json!(7),
                json!(f64::MIN_POSITIVE),
            ][pick(5)]
            .clone(),
            "boolean" => json!(pick(2) == 0),
            "array" => match node.get("items") {
                // A recursive item type ends in an empty array.
                Some(items) if pick(2) == 0 && depth < 6 => {
                    json!([sample(items, root, variant, depth + 1)])
                }
                Some(_) => json!([]),
                None => json!([1, "x", null]),
            },
            _ => {
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let all = pick(2) == 0 && depth < 6;
                let properties = node.get("properties").and_then(Value::as_object);
                let object = properties
                    .into_iter()
                    .flatten()
                    .filter(|(name, _)| all || required.contains(&name.as_str()))
                    .map(|(name, p)| (name.clone(), sample(p, root, variant, depth + 1)))
                    .collect();
                Value::Object(object)
            }
        }
    }

    #[test]
    fn what_an_enforced_schema_types_can_hold_is_valid_against_it() {
        // Every input schema of the real-world corpus (66 servers) said to
        // be enforced: values of the shapes its types can hold, checked by
        // the validator a typed call would otherwise run.
        let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/servers.lock");
        let lockfile = mcpbind_model::lock::Lockfile::read(corpus).unwrap();
        let (mut inputs, mut enforced) = (0, 0);
        for (server, lock) in &lockfile.servers {
            for tool in &lock.tools {
                let Some(schema) = tool.definition.get("inputSchema") else {
                    continue;
                };
                inputs += 1;
                if !input_enforced(schema) {
                    continue;
                }
                enforced += 1;
                let compiled = mcpbind_model::internal::validate::compile(schema).unwrap();
                for variant in 0..12 {
                    let value = sample(schema, schema, variant, 0);
                    let violations =
                        mcpbind_model::internal::validate::violations_of(&compiled, &value);
                    assert!(
                        violations.is_empty(),
                        "{server}.{}: {value}: {violations:?}",
                        tool.name
                    );
                }
            }
        }
        assert!(
            inputs > 1_000 && enforced > inputs / 4,
            "{enforced} of {inputs}"
        );
        eprintln!("{enforced} of {inputs} input schemas are enforced by their types");
    }

    #[test]
    fn a_float_that_is_no_number_serializes_as_null() {
        // Why the runtime checks arguments holding a `null` even for an
        // enforced tool: the one value an `f64` holds that a `number`
        // refuses reaches the schema as `null`.
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(serde_json::to_value(x).unwrap(), Value::Null);
        }
    }
}
