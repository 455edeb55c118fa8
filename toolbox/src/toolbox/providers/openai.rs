//! OpenAI tool definitions, plain and strict.
//!
//! Shapes: Chat Completions `tools[]` is
//! `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`
//! (<https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools>);
//! Responses `tools[]` is `{"type": "function", "name", "description",
//! "parameters", "strict"}`
//! (<https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools>).
//!
//! Strict mode accepts a subset of JSON Schema ("Supported schemas",
//! <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>):
//! - S1 "the root level object must be an object, and not use anyOf";
//! - S2 "all fields must be required" (optional ones are emulated "by using a
//!   union type with null");
//! - S3 "additionalProperties: false must always be set in objects", so an
//!   open object (a map, free-form labels) can't be strict;
//! - S4 supported keywords: types string, number, boolean, integer, object,
//!   array, enum, anyOf; for strings `pattern`, `format` (date-time, time,
//!   date, duration, email, hostname, ipv4, ipv6, uuid); for numbers
//!   `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
//!   `exclusiveMinimum`; for arrays `minItems`, `maxItems`; `$defs`/`$ref`
//!   (recursion included). Listed as not supported: `allOf`, `not`,
//!   `dependentRequired`, `dependentSchemas`, `if`/`then`/`else`,
//!   `patternProperties`, `unevaluatedProperties`, `propertyNames`,
//!   `minProperties`, `maxProperties`, `unevaluatedItems`, `contains`,
//!   `minContains`, `maxContains`, `uniqueItems`, and (for strings)
//!   `minLength`/`maxLength`;
//! - S5 "up to 10 levels of nesting" and "up to 5000 object properties".
//!
//! Constraint keywords strict mode does not take are dropped rather than
//! refused: the toolbox validates every call against the full locked schema
//! before sending it, so they are still enforced. Only what changes the
//! shape of the data (open objects, `allOf`, `not`, conditionals) refuses.

use serde_json::{json, Map, Value};

use super::{is_dropped_everywhere, OpenAiShape, ToolView};

/// S5.
pub(crate) const MAX_DEPTH: usize = 10;
/// S5.
pub(crate) const MAX_PROPERTIES: usize = 5000;

/// S4: `format` values strict mode accepts.
pub(crate) const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// S4: keywords kept in a strict schema.
pub(crate) const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// S4: keywords that change what data is valid in ways strict mode can't
/// express; a schema using one is refused.
const REFUSED_KEYWORDS: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "unevaluatedItems",
    "contains",
    "prefixItems",
];

/// A plain (non-strict) definition.
pub(crate) fn definition(tool: &ToolView<'_>, shape: OpenAiShape, strict: Option<Value>) -> Value {
    let is_strict = strict.is_some();
    let mut parameters = strict.unwrap_or_else(|| tool.schema.clone());
    if let Value::Object(map) = &mut parameters {
        map.retain(|k, _| !is_dropped_everywhere(k));
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        function.insert("description".into(), json!(tool.description));
    }
    function.insert("parameters".into(), parameters);
    function.insert("strict".into(), json!(is_strict));
    match shape {
        OpenAiShape::ChatCompletions => json!({"type": "function", "function": function}),
        OpenAiShape::Responses => {
            let mut tool = Map::new();
            tool.insert("type".into(), json!("function"));
            tool.extend(function);
            Value::Object(tool)
        }
    }
}

/// The strict-mode form of `schema`, or why there is none (naming the
/// JSON pointer).
pub(crate) fn strict_schema(schema: &Value) -> Result<Value, String> {
    if schema.get("type").and_then(Value::as_str) != Some("object") || schema.get("anyOf").is_some()
    {
        return Err("/: the root must be an object schema, not a union (strict mode S1)".into());
    }
    let mut count = 0;
    let mut out = strict_node(schema, "", 0, &mut count)?;
    if count > MAX_PROPERTIES {
        return Err(format!(
            "/: {count} object properties, more than strict mode's {MAX_PROPERTIES}"
        ));
    }
    for key in ["$defs", "definitions"] {
        if let (Value::Object(out), Some(Value::Object(defs))) = (&mut out, schema.get(key)) {
            let mut new_defs = Map::new();
            for (name, def) in defs {
                let pointer = format!("/{key}/{name}");
                new_defs.insert(name.clone(), strict_node(def, &pointer, 1, &mut count)?);
            }
            out.insert(key.into(), Value::Object(new_defs));
        }
    }
    Ok(out)
}

fn strict_node(
    node: &Value,
    pointer: &str,
    depth: usize,
    count: &mut usize,
) -> Result<Value, String> {
    let at = if pointer.is_empty() { "/" } else { pointer };
    if depth > MAX_DEPTH {
        return Err(format!(
            "{at}: nested deeper than strict mode's {MAX_DEPTH} levels"
        ));
    }
    let Value::Object(node) = node else {
        return Err(format!("{at}: `true`/`false` schemas can't be strict"));
    };
    if let Some(key) = REFUSED_KEYWORDS.iter().find(|k| node.contains_key(**k)) {
        return Err(format!("{at}: `{key}` is not supported in strict mode"));
    }
    if node.is_empty() || (!node.contains_key("type") && !has_shape(node)) {
        return Err(format!(
            "{at}: a schema that accepts any value can't be strict"
        ));
    }
    let mut out = Map::new();
    for (key, value) in node {
        if !STRICT_KEYWORDS.contains(&key.as_str()) || key == "$defs" || key == "definitions" {
            continue;
        }
        match key.as_str() {
            "format" if !value.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f)) => {}
            "const" => {
                out.insert("enum".into(), json!([value]));
            }
            "items" => {
                let child = format!("{pointer}/items");
                out.insert(key.clone(), strict_node(value, &child, depth + 1, count)?);
            }
            "anyOf" => {
                let mut branches = Vec::new();
                for (i, b) in value.as_array().into_iter().flatten().enumerate() {
                    branches.push(strict_node(
                        b,
                        &format!("{pointer}/anyOf/{i}"),
                        depth + 1,
                        count,
                    )?);
                }
                out.insert(key.clone(), Value::Array(branches));
            }
            "properties" | "required" | "additionalProperties" => {}
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(Value::Array(branches)) = node.get("oneOf") {
        // Strict mode has no oneOf; anyOf accepts what it accepts, and the
        // call is still checked against the locked oneOf before sending.
        let mut converted = Vec::new();
        for (i, b) in branches.iter().enumerate() {
            converted.push(strict_node(
                b,
                &format!("{pointer}/oneOf/{i}"),
                depth + 1,
                count,
            )?);
        }
        out.insert("anyOf".into(), Value::Array(converted));
    }
    if is_object(node) {
        strict_object(node, &mut out, pointer, depth, count)?;
    }
    Ok(Value::Object(out))
}

fn has_shape(node: &Map<String, Value>) -> bool {
    ["$ref", "anyOf", "oneOf", "enum", "const"]
        .iter()
        .any(|k| node.contains_key(*k))
}

fn is_object(node: &Map<String, Value>) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => node.contains_key("properties"),
    }
}

/// S2 and S3 for one object schema.
fn strict_object(
    node: &Map<String, Value>,
    out: &mut Map<String, Value>,
    pointer: &str,
    depth: usize,
    count: &mut usize,
) -> Result<(), String> {
    let at = if pointer.is_empty() { "/" } else { pointer };
    match node.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => {
            return Err(format!(
                "{at}: an open object (`additionalProperties`) can't be strict: strict mode requires `additionalProperties: false`"
            ))
        }
    }
    let empty = Map::new();
    let properties = node
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if properties.is_empty()
        && pointer_is_nested(pointer)
        && node.get("additionalProperties").is_none()
    {
        return Err(format!(
            "{at}: an object without declared properties accepts any keys and can't be strict"
        ));
    }
    let required: Vec<&str> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut new_properties = Map::new();
    for (name, property) in properties {
        *count += 1;
        let child = format!(
            "{pointer}/properties/{}",
            name.replace('~', "~0").replace('/', "~1")
        );
        let mut strict = strict_node(property, &child, depth + 1, count)?;
        if !required.contains(&name.as_str()) {
            make_nullable(&mut strict);
        }
        new_properties.insert(name.clone(), strict);
    }
    out.insert(
        "required".into(),
        Value::Array(new_properties.keys().map(|k| json!(k)).collect()),
    );
    out.insert("properties".into(), Value::Object(new_properties));
    out.insert("additionalProperties".into(), json!(false));
    Ok(())
}

fn pointer_is_nested(pointer: &str) -> bool {
    !pointer.is_empty()
}

/// S2: an optional property becomes required and nullable.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        if !map.contains_key("type") {
            return;
        }
    }
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            map.insert("type".into(), json!([t, "null"]));
            return;
        }
        Some(Value::String(_)) => return,
        Some(Value::Array(types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        if !branches
            .iter()
            .any(|b| b.get("type") == Some(&json!("null")))
        {
            branches.push(json!({"type": "null"}));
        }
        return;
    }
    // `$ref` or `enum` alone: wrap.
    let inner = std::mem::take(map);
    let description = inner.get("description").cloned();
    let mut wrapped = Map::new();
    if let Some(d) = description {
        wrapped.insert("description".into(), d);
    }
    let mut inner = inner;
    inner.remove("description");
    wrapped.insert(
        "anyOf".into(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
    *map = wrapped;
}
