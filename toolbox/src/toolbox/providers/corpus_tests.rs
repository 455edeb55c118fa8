//! Every tool of the real-world corpus (`codegen/tests/corpus/servers.lock`,
//! 66 servers) gets a definition from every provider, valid by the rules
//! the fix for names, typeless nodes and empty roots is about, and each
//! alias maps back to its property.

use serde_json::{json, Value};

use super::{anthropic, gemini, object_root, openai, OpenAiShape, ToolView};
use crate::toolbox::params;

fn corpus() -> Vec<(String, Value)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../codegen/tests/corpus/servers.lock"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let lock: Value = serde_json::from_str(&text).unwrap();
    let mut out = Vec::new();
    for (server, entry) in lock["servers"].as_object().unwrap() {
        for tool in entry["tools"].as_array().unwrap() {
            let definition = &tool["definition"];
            let name = format!("{server}_{}", definition["name"].as_str().unwrap());
            let schema = definition.get("inputSchema").cloned().unwrap_or(json!({}));
            out.push((name, object_root(schema)));
        }
    }
    out
}

/// Every Schema node of a Gemini declaration, with its pointer.
fn nodes<'a>(node: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>) {
    out.push((at.clone(), node));
    if let Some(Value::Object(props)) = node.get("properties") {
        for (k, v) in props {
            nodes(v, format!("{at}/properties/{k}"), out);
        }
    }
    if let Some(items) = node.get("items") {
        nodes(items, format!("{at}/items"), out);
    }
    if let Some(Value::Array(branches)) = node.get("anyOf") {
        for (i, b) in branches.iter().enumerate() {
            nodes(b, format!("{at}/anyOf/{i}"), out);
        }
    }
}

#[test]
fn every_corpus_tool_is_declared_for_every_provider() {
    let corpus = corpus();
    assert!(corpus.len() > 1500, "{} tools", corpus.len());
    let mut failures = Vec::new();
    let mut aliased = 0;
    for (name, schema) in &corpus {
        let view = ToolView {
            name,
            description: String::new(),
            schema,
        };
        let openai = openai::definition(&view, OpenAiShape::Responses, None);
        if openai["parameters"]["type"] != "object" {
            failures.push(format!(
                "{name}: openai parameters are not an object schema"
            ));
        }
        if anthropic::definition(&view)["input_schema"]["type"] != "object" {
            failures.push(format!("{name}: anthropic input_schema is not an object"));
        }
        let declaration = match gemini::declaration(&view) {
            Ok(d) => d,
            Err(reason) => {
                failures.push(format!("{name}: gemini refused: {reason}"));
                continue;
            }
        };
        let mut all = Vec::new();
        if let Some(parameters) = declaration.get("parameters") {
            nodes(parameters, String::new(), &mut all);
        }
        for (at, node) in all {
            if node.get("type").is_none() && node.get("anyOf").is_none() {
                failures.push(format!("{name}{at}: gemini node without a type: {node}"));
            }
            for key in node["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|p| p.0)
            {
                if !params::is_legal(key) {
                    failures.push(format!("{name}{at}: gemini parameter {key:?}"));
                }
            }
        }
        aliased += usize::from(round_trips(name, schema, &declaration, &mut failures));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The corpus has tools with refused names (`auth-method`…); they are
    // declared, not left out.
    assert!(aliased >= 7, "only {aliased} tools needed aliases");
}

/// Arguments written with the declared (aliased) top-level names map back
/// to the schema's own names. Returns whether the tool had an alias.
fn round_trips(
    name: &str,
    schema: &Value,
    declaration: &Value,
    failures: &mut Vec<String>,
) -> bool {
    let Some(declared) = declaration["parameters"]["properties"].as_object() else {
        return false;
    };
    let own: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    if declared.keys().zip(&own).all(|(d, o)| d == *o) {
        return false;
    }
    let mut arguments: Value = declared.keys().map(|k| (k.clone(), json!(k))).collect();
    params::unalias(schema, &mut arguments);
    let got: Vec<&String> = arguments.as_object().unwrap().keys().collect();
    let mut want = own.clone();
    let mut got_sorted = got.clone();
    want.sort();
    got_sorted.sort();
    if got_sorted != want {
        failures.push(format!("{name}: {got:?} do not map back to {own:?}"));
    }
    true
}
