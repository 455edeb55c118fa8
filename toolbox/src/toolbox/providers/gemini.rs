//! Gemini function declarations: `{"name", "description", "parameters"}`
//! with `parameters` a `Schema`, "a select subset of an OpenAPI 3.0 schema
//! object" (<https://ai.google.dev/api/caching#Schema>,
//! <https://ai.google.dev/api/caching#FunctionDeclaration>).
//!
//! Rules from that documentation:
//! - G1 the only `Schema` fields are `type`, `format`, `title`,
//!   `description`, `nullable`, `enum`, `maxItems`, `minItems`,
//!   `properties`, `required`, `minProperties`, `maxProperties`,
//!   `minLength`, `maxLength`, `pattern`, `example`, `anyOf`,
//!   `propertyOrdering`, `default`, `items`, `minimum`, `maximum`: no `$ref`,
//!   `$defs`, `oneOf`, `allOf`, `const`, `additionalProperties`;
//! - G2 `type` is one `Type` enum value (`STRING`, `NUMBER`, `INTEGER`,
//!   `BOOLEAN`, `ARRAY`, `OBJECT`, `NULL`), never a list: a nullable type is
//!   `nullable: true`;
//! - G3 `enum` is a list of strings;
//! - G4 supported `format`s: `float`, `double` (NUMBER), `int32`, `int64`
//!   (INTEGER), `enum`, `date-time` (STRING);
//! - G5 parameter names "must start with a letter or an underscore and must
//!   only contain chars a-z, A-Z, 0-9, or underscores with a maximum length
//!   of 64" (Vertex AI `FunctionDeclaration.parameters`,
//!   <https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.cachedContents#FunctionDeclaration>):
//!   a refused name is declared under an alias and mapped back on dispatch
//!   (`params.rs`);
//! - G6 a `Schema` has a `type` (`Type`, "Required. Data type."); a node
//!   that accepts any JSON value gets the closest form, a nullable `anyOf`
//!   of every type.
//!
//! The reduction inlines local `$ref`s, turns `oneOf` into `anyOf`, `const`
//! into a one-value `enum`, and drops what G1 lacks. Constraints it drops
//! are still enforced: the toolbox validates every call against the locked
//! schema before sending it.

use serde_json::{json, Map, Value};

use super::ToolView;
use crate::toolbox::dispatch::resolve;
use crate::toolbox::params;

/// G1.
pub(crate) const SCHEMA_FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// G2.
pub(crate) const TYPES: &[&str] = &[
    "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
];

/// G4: (type, format) pairs kept.
pub(crate) const FORMATS: &[(&str, &str)] = &[
    ("NUMBER", "float"),
    ("NUMBER", "double"),
    ("INTEGER", "int32"),
    ("INTEGER", "int64"),
    ("STRING", "enum"),
    ("STRING", "date-time"),
];

/// How deep `$ref`s are inlined; a recursive schema is cut off below with
/// a plain `OBJECT`.
const MAX_INLINE_DEPTH: usize = 12;

/// G2 for a node that names no type (it accepts any JSON value, or its
/// `enum`/`const` values are not strings): the type of its values when they
/// share one, else the closest form `Schema` has, a union of every type.
/// The locked schema still decides what is valid: every call is checked
/// against it before it is sent.
fn any_value(map: &Map<String, Value>, out: &mut Map<String, Value>) {
    let values: Vec<&Value> = match (map.get("enum"), map.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().collect(),
        (_, Some(value)) => vec![value],
        _ => Vec::new(),
    };
    let types: std::collections::BTreeSet<&str> = values
        .iter()
        .filter_map(|v| match v {
            Value::Bool(_) => Some("BOOLEAN"),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some("INTEGER"),
            Value::Number(_) => Some("NUMBER"),
            Value::String(_) => Some("STRING"),
            Value::Array(_) => Some("ARRAY"),
            Value::Object(_) => Some("OBJECT"),
            Value::Null => None,
        })
        .collect();
    if types.len() == 1 {
        let only = types.into_iter().next().unwrap_or("STRING");
        out.insert("type".into(), json!(only));
        if only == "ARRAY" {
            out.insert("items".into(), any_scalar_or_object());
        }
        return;
    }
    let mut branches = match any_scalar_or_object() {
        Value::Object(mut m) => match m.remove("anyOf") {
            Some(Value::Array(b)) => b,
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    branches.push(json!({"type": "ARRAY", "items": any_scalar_or_object()}));
    out.insert("anyOf".into(), Value::Array(branches));
    out.insert("nullable".into(), json!(true));
}

/// Any value but an array (an array's items can't be "anything" again
/// without recursion, which `Schema` can't express).
fn any_scalar_or_object() -> Value {
    json!({"anyOf": [
        {"type": "STRING"}, {"type": "NUMBER"}, {"type": "BOOLEAN"}, {"type": "OBJECT"}
    ]})
}

fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The declaration of one tool, or why it can't have one.
pub(crate) fn declaration(tool: &ToolView<'_>) -> Result<Value, String> {
    let parameters = reduce(tool.schema, tool.schema, "", 0)?;
    let mut out = Map::new();
    out.insert("name".into(), json!(tool.name));
    out.insert("description".into(), json!(tool.description));
    let empty = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty);
    // "For function with no parameters, this can be left unset." It must
    // be: Gemini refuses an `OBJECT` with empty `properties` ("should be
    // non-empty for OBJECT type"), so a tool without parameters (root `{}`,
    // `{"type": "object"}`…) has none here, where OpenAI and Anthropic get
    // `{"type": "object", "properties": {}}` (README, "Every tool for every
    // provider").
    if !empty {
        out.insert("parameters".into(), parameters);
    }
    Ok(Value::Object(out))
}

fn reduce(root: &Value, node: &Value, pointer: &str, depth: usize) -> Result<Value, String> {
    if depth > MAX_INLINE_DEPTH {
        return Ok(json!({"type": "OBJECT"}));
    }
    let resolved = resolve(root, node);
    let depth = if std::ptr::eq(resolved, node) {
        depth
    } else {
        depth + 1
    };
    let Value::Object(map) = resolved else {
        // `true` (or a `$ref` that doesn't resolve to an object): any value.
        let mut out = Map::new();
        any_value(&Map::new(), &mut out);
        return Ok(Value::Object(out));
    };
    let mut out = Map::new();
    let mut nullable = false;
    // G2: one type, nullability apart.
    let types: Vec<String> = match map.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    };
    let non_null: Vec<String> = types
        .iter()
        .filter(|t| *t != "null")
        .map(|t| t.to_uppercase())
        .filter(|t| TYPES.contains(&t.as_str()))
        .collect();
    nullable |= types.len() != non_null.len();
    if non_null.len() > 1 {
        let branches: Vec<Value> = non_null.iter().map(|t| json!({"type": t})).collect();
        out.insert("anyOf".into(), Value::Array(branches));
    } else if let Some(t) = non_null.first() {
        out.insert("type".into(), json!(t));
    }
    for (key, value) in map {
        match key.as_str() {
            "type" | "anyOf" | "oneOf" | "properties" | "required" | "items" | "enum"
            | "format" => {}
            "const" => {
                if let Some(s) = value.as_str() {
                    out.insert("enum".into(), json!([s]));
                }
            }
            k if SCHEMA_FIELDS.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    reduce_keywords(root, map, &mut out, &mut nullable, pointer, depth)?;
    if nullable {
        out.insert("nullable".into(), json!(true));
    }
    Ok(Value::Object(out))
}

fn reduce_keywords(
    root: &Value,
    map: &Map<String, Value>,
    out: &mut Map<String, Value>,
    nullable: &mut bool,
    pointer: &str,
    depth: usize,
) -> Result<(), String> {
    // G3: only string enums.
    if let Some(Value::Array(values)) = map.get("enum") {
        *nullable |= values.contains(&Value::Null);
        let strings: Vec<&Value> = values.iter().filter(|v| v.is_string()).collect();
        if !strings.is_empty() && strings.len() + usize::from(*nullable) == values.len() {
            out.insert("enum".into(), json!(strings));
            out.entry("type").or_insert(json!("STRING"));
        }
    }
    // G4.
    if let (Some(Value::String(format)), Some(Value::String(t))) =
        (map.get("format"), out.get("type"))
    {
        if FORMATS.contains(&(t.as_str(), format.as_str())) {
            out.insert("format".into(), json!(format));
        }
    }
    // G1: anyOf kept, oneOf becomes anyOf, a null branch becomes nullable.
    let branches = map.get("anyOf").or_else(|| map.get("oneOf"));
    if let Some(Value::Array(branches)) = branches {
        reduce_branches(root, branches, out, nullable, pointer, depth)?;
    }
    if let Some(items) = map.get("items") {
        out.insert(
            "items".into(),
            reduce(root, items, &format!("{pointer}/items"), depth + 1)?,
        );
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        reduce_properties(root, map, properties, out, pointer, depth)?;
    }
    if !out.contains_key("type") && !out.contains_key("anyOf") {
        any_value(map, out);
    }
    Ok(())
}

/// `anyOf`/`oneOf` reduced into `out`: a null branch makes it nullable,
/// one branch left is merged in, more stay as `anyOf`.
fn reduce_branches(
    root: &Value,
    branches: &[Value],
    out: &mut Map<String, Value>,
    nullable: &mut bool,
    pointer: &str,
    depth: usize,
) -> Result<(), String> {
    let mut reduced = Vec::new();
    for (i, b) in branches.iter().enumerate() {
        if b.get("type") == Some(&json!("null")) {
            *nullable = true;
            continue;
        }
        reduced.push(reduce(root, b, &format!("{pointer}/anyOf/{i}"), depth + 1)?);
    }
    match reduced.len() {
        0 => {}
        1 => {
            if let Value::Object(only) = reduced.remove(0) {
                for (k, v) in only {
                    out.entry(k).or_insert(v);
                }
            }
        }
        _ => {
            out.insert("anyOf".into(), Value::Array(reduced));
        }
    }
    Ok(())
}

/// An object's `properties` (and its `required`) reduced into `out`.
fn reduce_properties(
    root: &Value,
    map: &Map<String, Value>,
    properties: &Map<String, Value>,
    out: &mut Map<String, Value>,
    pointer: &str,
    depth: usize,
) -> Result<(), String> {
    // G5: a refused name is declared under its alias (`params`), which
    // dispatch maps back.
    let declared = params::aliases(properties.keys().map(String::as_str));
    let mut reduced = Map::new();
    for ((name, alias), property) in declared.iter().zip(properties.values()) {
        let child = format!("{pointer}/properties/{}", pointer_token(name));
        reduced.insert(alias.clone(), reduce(root, property, &child, depth + 1)?);
    }
    let required: Vec<Value> = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|r| declared.iter().find(|(name, _)| *name == r))
        .map(|(_, alias)| json!(alias))
        .collect();
    out.insert("type".into(), json!("OBJECT"));
    out.insert("properties".into(), Value::Object(reduced));
    if !required.is_empty() {
        out.insert("required".into(), json!(required));
    }
    Ok(())
}
