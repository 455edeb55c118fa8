//! Keywords rewritten into what typify takes: values tidied, types
//! inferred, unions and constraints it cannot say dropped.

use serde_json::{json, Map, Value};

use mcpbind_model::internal::integer::{holds, integer_type, narrow, IntegerType};

/// Deduplicates `enum`, drops numeric bounds that aren't numbers, and
/// declares `required` names that aren't properties (untyped, so that the
/// call stays expressible).
pub(super) fn tidy_values(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        let mut seen = Vec::new();
        values.retain(|v| {
            let new = !seen.contains(v);
            if new {
                seen.push(v.clone());
            }
            new
        });
        if values.is_empty() {
            obj.remove("enum");
        }
    } else {
        obj.remove("enum");
    }
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if obj.get(key).is_some_and(|v| !v.is_number()) {
            obj.remove(key);
        }
    }
    // `required` names that aren't properties: declare them, untyped, so
    // the call stays expressible.
    match obj.get("required") {
        Some(Value::Array(names)) => {
            let mut unique: Vec<Value> = Vec::new();
            for n in names.iter().filter(|n| n.is_string()) {
                if !unique.contains(n) {
                    unique.push(n.clone());
                }
            }
            if unique.is_empty() {
                obj.remove("required");
            } else {
                let props = obj.entry("properties").or_insert_with(|| json!({}));
                if let Some(props) = props.as_object_mut() {
                    for n in &unique {
                        if let Some(n) = n.as_str() {
                            props.entry(n).or_insert_with(|| json!({}));
                        }
                    }
                }
                obj.insert("required".into(), Value::Array(unique));
            }
        }
        Some(_) => {
            obj.remove("required");
        }
        None => {}
    }
    if obj.get("properties").is_some_and(|p| !p.is_object()) {
        obj.remove("properties");
    }
}

/// An `enum` whose values are of several JSON types (`[1, "two", true]`)
/// is typed by those types (typify has no enum of mixed values).
pub(super) fn type_mixed_enum(obj: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = obj.get("enum") else {
        return;
    };
    let mut types: Vec<&str> = Vec::new();
    for v in values {
        let t = match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        if !types.contains(&t) {
            types.push(t);
        }
    }
    // `null` beside one type is typify's business (an `Option`).
    if types.iter().filter(|t| **t != "null").count() > 1 {
        if types.contains(&"number") {
            types.retain(|t| *t != "integer");
        }
        obj.remove("enum");
        obj.insert("type".into(), json!(types));
    }
}

/// Whether a (normalized) subschema accepts every value: `true`, `{}`, or
/// only annotations.
fn accepts_anything(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(obj) => obj
            .keys()
            .all(|k| matches!(k.as_str(), "description" | "title" | "default" | "examples")),
        _ => false,
    }
}

/// A union with a branch that accepts anything accepts anything: the union
/// is dropped (`anyOf: [{}, {"type": "string"}]` is `serde_json::Value`),
/// and an `allOf` branch that accepts anything adds nothing.
pub(super) fn drop_accept_all_unions(obj: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(subs)) = obj.get(key) {
            if subs.iter().any(accepts_anything) {
                obj.remove(key);
            }
        }
    }
    if let Some(Value::Array(subs)) = obj.get_mut("allOf") {
        subs.retain(|s| !accepts_anything(s));
        if subs.is_empty() {
            obj.remove("allOf");
        }
    }
}

/// `anyOf`/`oneOf` beside a base type whose branches only constrain it
/// (`{"type": "object", "properties": …, "anyOf": [{"required": ["a"]},
/// {"required": ["b"]}]}`) is a rule types can't say: the base type is kept,
/// the branches dropped (the locked schema still checks them).
pub(super) fn drop_constraint_only_branches(obj: &mut Map<String, Value>) {
    const SHAPING: &[&str] = &[
        "type",
        "properties",
        "items",
        "prefixItems",
        "$ref",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "additionalProperties",
    ];
    if !obj.contains_key("type") && !obj.contains_key("properties") {
        return;
    }
    for key in ["anyOf", "oneOf"] {
        let constraint_only = match obj.get(key) {
            Some(Value::Array(subs)) => subs.iter().all(|s| {
                s.as_object()
                    .is_some_and(|s| !s.keys().any(|k| SHAPING.contains(&k.as_str())))
            }),
            _ => false,
        };
        if constraint_only {
            obj.remove(key);
        }
    }
}

/// `unevaluatedProperties: false` (read before it is dropped) on an object
/// with properties and no keyword that evaluates others (`allOf`, `$ref`,
/// `dependentSchemas`…) says what `additionalProperties: false` says: the
/// walk writes it so.
fn unevaluated_seals(obj: &Map<String, Value>) -> bool {
    const APPLICATORS: &[&str] = &[
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
        "$dynamicRef",
        "dependentSchemas",
        "dependencies",
        "patternProperties",
        "additionalProperties",
    ];
    obj.get("unevaluatedProperties") == Some(&Value::Bool(false))
        && obj.get("properties").is_some_and(Value::is_object)
        && !APPLICATORS.iter().any(|k| obj.contains_key(*k))
}

/// `unevaluatedProperties` beside properties that other keywords may
/// evaluate (`allOf`, `dependentSchemas`…): which fields are unknown depends
/// on those, which types can't say, so the struct keeps every field it
/// doesn't name (a flattened map) rather than dropping them. The value is
/// then sent as given, and the locked schema judges it (`validate_input`).
fn keeps_unevaluated(obj: &Map<String, Value>) -> bool {
    obj.contains_key("unevaluatedProperties")
        && !obj.contains_key("additionalProperties")
        && !obj.contains_key("patternProperties")
        && (obj.contains_key("properties") || obj.get("type") == Some(&json!("object")))
}

/// `additionalProperties: false` on an object with properties, in an output:
/// the struct ignores unknown fields instead of refusing them, so an output
/// field a server adds later (a compatible change) doesn't break a typed
/// call. (Arguments stay closed: a field the server refuses is refused.)
fn open_closed_object(obj: &mut Map<String, Value>) {
    let has_properties = obj
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_properties && obj.get("additionalProperties") == Some(&Value::Bool(false)) {
        obj.remove("additionalProperties");
    }
}

/// A property's `default` becomes a line of its docs: the field stays
/// optional, and an unset field is left off the wire so that the server
/// applies its own default (which may change) rather than ours.
pub(super) fn defaults_to_docs(obj: &mut Map<String, Value>) {
    let Some(Value::Object(props)) = obj.get_mut("properties") else {
        return;
    };
    for sub in props.values_mut() {
        let Some(sub) = sub.as_object_mut() else {
            continue;
        };
        let Some(default) = sub.remove("default") else {
            continue;
        };
        let line = format!("Default: `{}`.", default.to_string().replace('`', "'"));
        let doc = match sub.get("description").and_then(Value::as_str) {
            Some(d) if !d.trim().is_empty() => format!("{}\n\n{line}", d.trim_end()),
            _ => line,
        };
        sub.insert("description".into(), Value::String(doc));
    }
}

/// Every JSON type, as JSON Schema names them (`integer` is in `number`).
const ANY: &[&str] = &["object", "array", "string", "number", "boolean", "null"];

/// Makes `type` something typify takes: deduplicated, and inferred from the
/// keywords when missing.
pub(super) fn normalize_type(obj: &mut Map<String, Value>) {
    const TYPES: &[&str] = &[
        "string", "number", "integer", "boolean", "object", "array", "null",
    ];
    match obj.get("type").cloned() {
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
        Some(Value::Array(types)) => {
            let mut unique: Vec<Value> = Vec::new();
            for t in types {
                if t.as_str().is_some_and(|t| TYPES.contains(&t)) && !unique.contains(&t) {
                    unique.push(t);
                }
            }
            match unique.len() {
                0 => {
                    obj.remove("type");
                }
                1 => {
                    obj.insert("type".into(), unique.remove(0));
                }
                _ => {
                    obj.insert("type".into(), Value::Array(unique));
                }
            }
        }
        Some(_) => {
            obj.remove("type");
        }
        None => {
            let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(*k));
            let combinator = has(&["anyOf", "oneOf", "allOf", "enum", "const", "$ref"]);
            let inferred = if combinator {
                None
            } else if has(&["properties", "required", "additionalProperties"]) {
                Some("object")
            } else if has(&["items"]) {
                Some("array")
            } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
                Some("number")
            } else {
                None
            };
            // The keywords constrain values of their type only: a value of
            // any other type is legal too (`{"properties": …}` allows `12`),
            // so the type is theirs first, then every other.
            if let Some(t) = inferred {
                let mut all = vec![t];
                all.extend(ANY.iter().filter(|other| **other != t));
                obj.insert("type".into(), json!(all));
                // Its `number` branch keeps a number as written (`12` stays
                // an integer): `serde_json::Number`, not `f64`.
                obj.insert("format".into(), json!(super::ANY_NUMBER_FORMAT));
            }
        }
    }
    // Numeric bounds on a non-numeric type confuse typify.
    let numeric = match obj.get("type") {
        Some(Value::String(t)) => t == "number" || t == "integer",
        _ => false,
    };
    if !numeric {
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            obj.remove(key);
        }
    }
}

/// What the walk reads from a subschema before it drops the keywords types
/// can't say (`format`, `unevaluatedProperties`).
pub(super) struct BeforeDropping {
    /// The Rust type the subschema gets if it is an integer: read before
    /// its `format` is dropped, and before its bounds are (beside a type
    /// array: `["integer", "null"]`).
    pub(super) integer: IntegerType,
    /// `unevaluatedProperties: false` that closes the object alone
    /// ([`unevaluated_seals`]).
    sealed: bool,
    /// `unevaluatedProperties` whose unknown fields a struct should keep
    /// ([`keeps_unevaluated`]).
    keeps_unknown: bool,
}

impl BeforeDropping {
    pub(super) fn read(obj: &Map<String, Value>) -> BeforeDropping {
        let sealed = unevaluated_seals(obj);
        BeforeDropping {
            integer: integer_type(obj),
            sealed,
            keeps_unknown: !sealed && keeps_unevaluated(obj),
        }
    }
}

/// An `integer`'s Rust type (`mcpbind_model::internal::integer`), said to typify through
/// its bounds and `format`: no bounds for `i64`; `minimum: 0` alone for
/// `u64` (typify's rule; `minimum: 1` would make a `NonZeroU64`, which no
/// literal converts to); [`super::BIG_INTEGER_FORMAT`] for
/// `mcpbind::BigInt`; bounds that are exactly a narrower machine type's
/// (`0..=255`) stay, and typify makes that type (`u8`). Other bounds go
/// (the locked schema still checks them), and so does a `default` the type
/// can't hold. An integer `enum` or `const` is typed by its values.
pub(super) fn type_integers(obj: &mut Map<String, Value>, integer: IntegerType) {
    let is_integer = match obj.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => types.iter().any(|t| t == "integer"),
        _ => false,
    };
    if !is_integer {
        return;
    }
    if obj.contains_key("enum") || obj.contains_key("const") {
        if obj.get("minimum").and_then(Value::as_f64) == Some(1.0) {
            obj.insert("minimum".into(), json!(0));
        }
        return;
    }
    let narrow = narrow(obj);
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        obj.remove(key);
    }
    // typify would write a default it can't parse into code that unwraps
    // the parse: one the type can't hold goes here.
    if obj.get("default").is_some_and(|d| !holds(integer, d)) {
        obj.remove("default");
    }
    if let Some((_, least, greatest)) = narrow.filter(|_| integer != IntegerType::Big) {
        // Bounds that are exactly a narrower machine type's (`u8`): typify
        // types it so. A default outside them is dropped (typify refuses it).
        let fits = |d: &Value| {
            d.as_i64()
                .is_some_and(|d| (least..=greatest).contains(&i128::from(d)))
        };
        if obj.get("default").is_some_and(|d| !fits(d)) {
            obj.remove("default");
        }
        obj.insert("minimum".into(), json!(least as i64));
        obj.insert("maximum".into(), json!(greatest as i64));
        return;
    }
    match integer {
        IntegerType::Signed => {}
        IntegerType::Unsigned => {
            obj.insert("minimum".into(), json!(0));
        }
        IntegerType::Big => {
            obj.insert("format".into(), json!(super::BIG_INTEGER_FORMAT));
        }
    }
}

/// Whether an object's struct refuses, keeps or ignores fields it doesn't
/// name: `unevaluatedProperties` read as `additionalProperties` where it
/// says the same ([`BeforeDropping`]); arguments keep a closed object
/// closed (the type refuses a field the server would), an output opens it
/// ([`open_closed_object`]).
pub(super) fn close_objects(obj: &mut Map<String, Value>, read: &BeforeDropping, arguments: bool) {
    if read.sealed {
        obj.insert("additionalProperties".into(), Value::Bool(false));
    } else if read.keeps_unknown {
        obj.insert("additionalProperties".into(), json!({}));
    }
    if !arguments {
        open_closed_object(obj);
    }
}
