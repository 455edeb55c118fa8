//! Definitions for each provider, checked against the provider's documented
//! rules over the real schemas of `tests/mcpbind.lock`. No server starts:
//! the toolbox's clients would connect on their first call, and none is
//! made.
//!
//! The rules are restated here from each provider's documentation (cited in
//! toolbox/src/toolbox/providers/*.rs), not imported from the
//! implementation: one table per provider.

use mcpbind::{DescriptionPolicy, OpenAiShape};
use serde_json::{json, Value};

use super::{offline_config, offline_toolbox};

/// Every subschema of `schema`: properties, items, unions and definitions.
fn subschemas<'a>(schema: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    out.push((pointer.clone(), schema));
    let Some(map) = schema.as_object() else {
        return;
    };
    for key in ["properties", "$defs", "definitions"] {
        if let Some(Value::Object(children)) = map.get(key) {
            for (name, child) in children {
                subschemas(child, format!("{pointer}/{key}/{name}"), out);
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(children)) = map.get(key) {
            for (i, child) in children.iter().enumerate() {
                subschemas(child, format!("{pointer}/{key}/{i}"), out);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child @ Value::Object(_)) = map.get(key) {
            subschemas(child, format!("{pointer}/{key}"), out);
        }
    }
}

fn all_nodes(schema: &Value) -> Vec<(String, &Value)> {
    let mut out = Vec::new();
    subschemas(schema, String::new(), &mut out);
    out
}

fn is_object_node(node: &Value) -> bool {
    node.get("type") == Some(&json!("object"))
        || node
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")))
        || node.get("properties").is_some()
}

type Rule = (&'static str, fn(&Value) -> Result<(), String>);

fn name_is_legal(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    ok.then_some(())
        .ok_or_else(|| format!("name {name:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$"))
}

const OPENAI_STRICT_RULES: &[Rule] = &[
    ("name matches ^[a-zA-Z0-9_-]{1,64}$", |t| {
        name_is_legal(t["function"]["name"].as_str().unwrap_or_default())
    }),
    ("S1 root is an object, not anyOf", |t| {
        let p = &t["function"]["parameters"];
        (p["type"] == "object" && p.get("anyOf").is_none())
            .then_some(())
            .ok_or_else(|| "root is not a plain object".into())
    }),
    ("S2 every property is required", |t| {
        for (at, node) in all_nodes(&t["function"]["parameters"]) {
            if let Some(Value::Object(props)) = node.get("properties") {
                let required: Vec<&str> = node["required"]
                    .as_array()
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(missing) = props.keys().find(|k| !required.contains(&k.as_str())) {
                    return Err(format!("{at}: `{missing}` not required"));
                }
            }
        }
        Ok(())
    }),
    ("S3 additionalProperties: false on every object", |t| {
        for (at, node) in all_nodes(&t["function"]["parameters"]) {
            if is_object_node(node) && node.get("additionalProperties") != Some(&json!(false)) {
                return Err(format!("{at}: additionalProperties is not false"));
            }
        }
        Ok(())
    }),
    ("S4 only supported keywords and formats", |t| {
        const SUPPORTED: &[&str] = &[
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
        const FORMATS: &[&str] = &[
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
        for (at, node) in all_nodes(&t["function"]["parameters"]) {
            for (key, value) in node.as_object().into_iter().flatten() {
                if !SUPPORTED.contains(&key.as_str()) {
                    return Err(format!("{at}: `{key}` is not supported"));
                }
                if key == "format" && !FORMATS.contains(&value.as_str().unwrap_or_default()) {
                    return Err(format!("{at}: format {value} is not supported"));
                }
            }
        }
        Ok(())
    }),
    ("S5 at most 10 levels of nesting", |t| {
        let deepest = all_nodes(&t["function"]["parameters"])
            .iter()
            .map(|(at, _)| at.matches("/properties/").count() + at.matches("/items").count())
            .max()
            .unwrap_or(0);
        (deepest <= 10)
            .then_some(())
            .ok_or_else(|| format!("{deepest} levels"))
    }),
];

const ANTHROPIC_RULES: &[Rule] = &[
    ("A1 name matches ^[a-zA-Z0-9_-]{1,64}$", |t| {
        name_is_legal(t["name"].as_str().unwrap_or_default())
    }),
    ("A2 input_schema is an object schema", |t| {
        (t["input_schema"]["type"] == "object")
            .then_some(())
            .ok_or_else(|| "input_schema.type is not object".into())
    }),
    ("only name, description and input_schema", |t| {
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        keys.iter()
            .all(|k| ["name", "description", "input_schema"].contains(&k.as_str()))
            .then_some(())
            .ok_or_else(|| format!("keys {keys:?}"))
    }),
];

fn gemini_nodes(t: &Value) -> Vec<(String, &Value)> {
    t.get("parameters").map(all_nodes).unwrap_or_default()
}

const GEMINI_RULES: &[Rule] = &[
    (
        "name starts with a letter or _, [a-zA-Z0-9_.:-]{1,64}",
        |t| {
            let name = t["name"].as_str().unwrap_or_default();
            let ok = name.len() <= 64
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c));
            ok.then_some(()).ok_or_else(|| format!("name {name:?}"))
        },
    ),
    ("G1 only Schema fields", |t| {
        const FIELDS: &[&str] = &[
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
        for (at, node) in gemini_nodes(t) {
            if let Some(key) = node
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
                .find(|k| !FIELDS.contains(&k.as_str()))
            {
                return Err(format!("{at}: `{key}`"));
            }
        }
        Ok(())
    }),
    ("G2 type is one Type enum value", |t| {
        const TYPES: &[&str] = &[
            "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
        ];
        for (at, node) in gemini_nodes(t) {
            if let Some(ty) = node.get("type") {
                if !ty.as_str().is_some_and(|s| TYPES.contains(&s)) {
                    return Err(format!("{at}: type {ty}"));
                }
            }
        }
        Ok(())
    }),
    ("G3 enum values are strings", |t| {
        for (at, node) in gemini_nodes(t) {
            if let Some(Value::Array(values)) = node.get("enum") {
                if !values.iter().all(Value::is_string) {
                    return Err(format!("{at}: enum {values:?}"));
                }
            }
        }
        Ok(())
    }),
    ("G4 supported formats only", |t| {
        const PAIRS: &[(&str, &str)] = &[
            ("NUMBER", "float"),
            ("NUMBER", "double"),
            ("INTEGER", "int32"),
            ("INTEGER", "int64"),
            ("STRING", "enum"),
            ("STRING", "date-time"),
        ];
        for (at, node) in gemini_nodes(t) {
            if let Some(format) = node.get("format").and_then(Value::as_str) {
                let ty = node["type"].as_str().unwrap_or_default();
                if !PAIRS.contains(&(ty, format)) {
                    return Err(format!("{at}: format {format} on {ty}"));
                }
            }
        }
        Ok(())
    }),
    (
        "G6 every Schema node has a type",
        gemini_every_node_has_a_type,
    ),
    ("G5 parameter names", |t| {
        for (at, node) in gemini_nodes(t) {
            for name in node["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
            {
                let ok = name.len() <= 64
                    && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ok {
                    return Err(format!("{at}: parameter {name:?}"));
                }
            }
        }
        Ok(())
    }),
];

/// Every `Schema` node of a Gemini declaration, unions included.
fn gemini_schema_nodes(node: &Value, at: String, out: &mut Vec<(String, Value)>) {
    out.push((at.clone(), node.clone()));
    for (k, v) in node["properties"].as_object().into_iter().flatten() {
        gemini_schema_nodes(v, format!("{at}/properties/{k}"), out);
    }
    if let Some(items) = node.get("items") {
        gemini_schema_nodes(items, format!("{at}/items"), out);
    }
    for (i, b) in node["anyOf"].as_array().into_iter().flatten().enumerate() {
        gemini_schema_nodes(b, format!("{at}/anyOf/{i}"), out);
    }
}

/// G6: `Schema.type` is "Required" (<https://ai.google.dev/api/caching#Schema>);
/// a union's branches carry theirs.
fn gemini_every_node_has_a_type(t: &Value) -> Result<(), String> {
    let mut nodes = Vec::new();
    if let Some(parameters) = t.get("parameters") {
        gemini_schema_nodes(parameters, String::new(), &mut nodes);
    }
    match nodes
        .iter()
        .find(|(_, n)| n.get("type").is_none() && n.get("anyOf").is_none())
    {
        Some((at, node)) => Err(format!("{at}: no type in {node}")),
        None => Ok(()),
    }
}

/// OpenAI, strict or not: `parameters` is an object schema
/// (<https://platform.openai.com/docs/guides/function-calling>: "parameters
/// … defined by a JSON schema" whose root is `"type": "object"`).
const OPENAI_RULES: &[Rule] = &[("root is an object schema with properties", |t| {
    let p = &t["function"]["parameters"];
    (p["type"] == "object" && p["properties"].is_object())
        .then_some(())
        .ok_or_else(|| format!("parameters {p}"))
})];

fn check_rules(provider: &str, rules: &[Rule], tools: &[Value]) {
    assert!(tools.len() > 40, "{provider}: only {} tools", tools.len());
    let mut failures = Vec::new();
    for (rule, check) in rules {
        for tool in tools {
            if let Err(e) = check(tool) {
                failures.push(format!("{provider} / {rule}: {e}\n  in {tool}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn openai_strict_definitions_follow_the_documented_subset() {
    let tools = offline_toolbox(&offline_config()).unwrap();
    let definitions = tools.openai_tools(OpenAiShape::ChatCompletions, true);
    let strict: Vec<Value> = definitions
        .tools
        .iter()
        .filter(|t| t["function"]["strict"] == true)
        .cloned()
        .collect();
    check_rules("openai strict", OPENAI_STRICT_RULES, &strict);
    check_rules("openai", OPENAI_RULES, &definitions.tools);
    assert_eq!(definitions.exceeded, [], "fewer than 128 tools");
    // The honest refusals: open objects only, each naming where.
    let refused: Vec<(&str, &str)> = definitions
        .refusals
        .iter()
        .map(|r| (r.name.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(
        refused.iter().map(|r| r.0).collect::<Vec<_>>(),
        ["demo_tag_counts"],
        "{refused:#?}"
    );
    assert!(
        refused[0]
            .1
            .starts_with("/properties/counts: an open object"),
        "{}",
        refused[0].1
    );
    assert!(
        (definitions.refusals[0].to_string())
            .starts_with("demo_tag_counts: /properties/counts: an open object"),
        "{:?}",
        definitions.refusals[0]
    );
    // A refused tool is still offered, not strict.
    let tag_counts = definitions
        .tools
        .iter()
        .find(|t| t["function"]["name"] == "demo_tag_counts")
        .unwrap();
    assert_eq!(tag_counts["function"]["strict"], false);
    // The Responses shape carries the same fields, flat.
    let responses = tools.openai_tools(OpenAiShape::Responses, true);
    assert_eq!(responses.tools.len(), definitions.tools.len());
    for (flat, nested) in responses.tools.iter().zip(&definitions.tools) {
        assert_eq!(flat["type"], "function");
        assert_eq!(flat["name"], nested["function"]["name"]);
        assert_eq!(flat["parameters"], nested["function"]["parameters"]);
        assert_eq!(flat["strict"], nested["function"]["strict"]);
    }
}

#[test]
fn anthropic_definitions_follow_the_documented_rules() {
    let tools = offline_toolbox(&offline_config()).unwrap();
    let definitions = tools.anthropic_tools();
    assert!(definitions.refusals.is_empty());
    check_rules("anthropic", ANTHROPIC_RULES, &definitions.tools);
}

#[test]
fn gemini_declarations_follow_the_documented_subset() {
    let tools = offline_toolbox(&offline_config()).unwrap();
    let definitions = tools.gemini_declarations();
    assert_eq!(definitions.refusals, []);
    check_rules("gemini", GEMINI_RULES, &definitions.tools);
    // The reduction keeps meaning: a nullable $ref'd enum stays an enum.
    let weather = definitions
        .tools
        .iter()
        .find(|t| t["name"] == "demo_get_weather")
        .unwrap();
    assert_eq!(
        weather["parameters"]["properties"]["units"]["enum"],
        json!(["celsius", "fahrenheit"])
    );
    assert_eq!(
        weather["parameters"]["properties"]["units"]["nullable"],
        true
    );
}

#[test]
fn descriptions_are_truncated_at_a_word_boundary() {
    let mut tools = offline_toolbox(&offline_config()).unwrap();
    tools.with_description_policy(DescriptionPolicy::Truncate(40));
    for tool in tools.anthropic_tools().tools {
        let text = tool["description"].as_str().unwrap_or_default();
        assert!(text.chars().count() <= 40, "{text:?}");
        if text.ends_with('…') {
            let cut = text.trim_end_matches('…');
            assert!(!cut.ends_with(' '), "{text:?}");
        }
    }
}
