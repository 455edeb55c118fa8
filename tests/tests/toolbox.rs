//! The agent toolbox: definitions for each provider checked against their
//! documented rules over the real schemas of `tests/mcpbind.lock`, and
//! dispatch against the real servers.

use std::sync::{Arc, Mutex};

use mcpbind::{
    CallError, CallSource, Config, DescriptionPolicy, HookCall, OpenAiShape, Outcome,
    PromptRequest, ServerBuilder, ServerConfig, ToolCall, ToolHook, Toolbox, ToolboxError,
};
use mcpbind_tests::{demo, everything, filesystem, memory, time};
use serde_json::{json, Value};

use crate::util;

// ---------------------------------------------------------------------------
// Toolboxes

fn config(dir: &std::path::Path) -> Config {
    util::stdio_servers(dir)
}

/// A config whose servers are never started (for definitions and names).
fn offline_config() -> Config {
    offline_config_with(|_, server| server)
}

/// [`offline_config`], with what `extra` adds to each server (given its
/// name).
fn offline_config_with(extra: impl Fn(&str, ServerBuilder) -> ServerBuilder) -> Config {
    ["demo", "everything", "filesystem", "memory", "time"]
        .into_iter()
        .try_fold(Config::new(), |config, name| {
            config.server(name, extra(name, ServerConfig::stdio("never-run")))
        })
        .unwrap()
}

fn lazy(config: &Config, name: &str) -> mcpbind::Client {
    mcpbind::Client::lazy(name, config.servers[name].clone())
}

/// All five locked servers, not connected (clients connect on first call).
fn offline_toolbox(config: &Config) -> Result<Toolbox, ToolboxError> {
    let mut tools = Toolbox::new();
    tools.add(demo::Client::from_client(lazy(config, "demo")))?;
    tools.add(everything::Client::from_client(lazy(config, "everything")))?;
    tools.add(filesystem::Client::from_client(lazy(config, "filesystem")))?;
    tools.add(memory::Client::from_client(lazy(config, "memory")))?;
    tools.add(time::Client::from_client(lazy(config, "time")))?;
    Ok(tools)
}

async fn demo_and_filesystem(config: &Config) -> Toolbox {
    let mut tools = Toolbox::new();
    tools
        .add(demo::Client::connect(config).await.unwrap())
        .unwrap();
    tools
        .add(filesystem::Client::connect(config).await.unwrap())
        .unwrap();
    tools
}

// ---------------------------------------------------------------------------
// Provider rules, one table per provider. The rules are restated here from
// each provider's documentation (cited in core/src/toolbox/providers/*.rs),
// not imported from the implementation.

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

// ---------------------------------------------------------------------------
// Names

#[test]
fn names_are_prefixed_shortened_and_map_back_exactly() {
    let long = "a_rather_long_prefix_for_a_server_that_makes_names_too_long";
    let config = offline_config_with(|name, server| match name {
        "everything" => server.tool_prefix(long),
        "time" => server.tool_prefix(""),
        _ => server,
    });
    let tools = offline_toolbox(&config).unwrap();
    assert_eq!(tools.resolve("demo_add"), Some(("demo", "add")));
    assert_eq!(
        tools.resolve("get_current_time"),
        Some(("time", "get_current_time"))
    );
    assert_eq!(
        tools.resolve("everything_get-sum"),
        None,
        "the prefix replaces the server name"
    );
    let mut shortened = 0;
    for name in tools.names() {
        assert!(name.len() <= 64, "{name}");
        assert!(mcpbind::toolbox::is_legal_tool_name(name), "{name}");
        let (server, tool) = tools.resolve(name).unwrap();
        if server == "everything" && name != format!("{long}_{tool}") {
            shortened += 1;
            assert_eq!(name.len(), 64);
            assert_eq!(name, mcpbind::toolbox::model_name(long, tool));
        }
    }
    assert!(shortened > 5, "{shortened} names shortened");
}

#[test]
fn colliding_names_are_an_error_naming_both() {
    let config = offline_config_with(|name, server| match name {
        "demo" | "everything" => server.tool_prefix(""),
        _ => server,
    });
    let err = offline_toolbox(&config).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model-facing name `echo` is taken twice: by tool `echo` of server `demo` and by tool `echo` of server `everything`"
    );
    // The help is not in the message: it is the error's, as the CLI's.
    assert_eq!(
        mcpbind::help(&err).as_deref(),
        Some("set a different `tool_prefix` for one of the servers in mcpbind.toml")
    );
}

// ---------------------------------------------------------------------------
// Composition, disclosure, inventory

#[test]
fn toolboxes_merge_and_hold_back() {
    let config = offline_config();
    let mut first = Toolbox::new();
    first
        .add(demo::Client::from_client(lazy(&config, "demo")))
        .unwrap();
    let mut second = Toolbox::new();
    second
        .add(demo::Client::from_client(lazy(&config, "demo")))
        .unwrap();
    second
        .add(time::Client::from_client(lazy(&config, "time")))
        .unwrap();
    second.hold_back_server("time").unwrap();
    first.merge(second).unwrap();
    assert_eq!(first.server_names(), ["demo", "time"]);
    assert_eq!(
        first.warnings(),
        ["server `demo` was added twice; the first one is kept"]
    );
    assert_eq!(first.tool_count(), 12);
    assert_eq!(
        first.held_back(),
        ["time_convert_time", "time_get_current_time"]
    );

    first.hold_back_tool("demo_crash").unwrap();
    assert!(!first.names().contains(&"demo_crash"));
    assert_eq!(first.anthropic_tools().tools.len(), 11);
    first.enable_server("time").unwrap();
    assert_eq!(first.tool_count(), 13);
    assert_eq!(first.held_back(), ["demo_crash"]);
    assert!(matches!(
        first.hold_back_server("nope"),
        Err(ToolboxError::UnknownServer { .. })
    ));
}

#[test]
fn config_filters_apply() {
    let config = offline_config_with(|name, server| match name {
        "demo" => server.enabled_tools(["add", "echo", "fail"]),
        "time" => server.disabled_tools(["convert_time"]),
        _ => server,
    });
    let mut tools = Toolbox::new();
    tools
        .add(demo::Client::from_client(lazy(&config, "demo")))
        .unwrap();
    tools
        .add(time::Client::from_client(lazy(&config, "time")))
        .unwrap();
    assert_eq!(
        tools.names(),
        [
            "demo_add",
            "demo_echo",
            "demo_fail",
            "time_get_current_time"
        ]
    );
}

#[test]
fn inventory_renders_as_markdown() {
    let mut tools = offline_toolbox(&offline_config()).unwrap();
    tools.hold_back_server("memory").unwrap();
    tools.hold_back_tool("demo_crash").unwrap();
    let inventory = tools.tools_by_server();
    assert_eq!(inventory.len(), 5);
    assert_eq!(inventory[0].held_back_tools, ["demo_crash"]);
    util::assert_golden(
        &util::tests_dir().join("golden/toolbox_inventory.md"),
        &tools.render_markdown(),
    );
}

// ---------------------------------------------------------------------------
// Dispatch against real servers

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatches_valid_invalid_and_unknown_calls() {
    let dir = tempfile::tempdir().unwrap();
    let tools = demo_and_filesystem(&config(dir.path())).await;

    // A whole float is an integer, as models often write them.
    let call = tools.call("demo_add", r#"{"a": 2, "b": 40.0}"#).await;
    assert_eq!(call.target, Some(("demo".to_owned(), "add")));
    assert_eq!(call.attempts, 1);
    let result = call.outcome.as_ref().unwrap();
    assert_eq!(result.output, json!({"sum": 42}));
    assert!(!call.for_model().is_error);

    let file = dir.path().join("files/notes.txt").display().to_string();
    let write = tools
        .call_value(
            "filesystem_write_file",
            json!({"path": file, "content": "hello from a model"}),
        )
        .await;
    assert!(write.outcome.is_ok(), "{:?}", write.outcome);
    let read = tools
        .call_value("filesystem_read_text_file", json!({"path": file}))
        .await;
    assert_eq!(read.for_model().text, "hello from a model");

    // A fraction where an integer belongs: which field, expected, given.
    let call = tools.call("demo_add", r#"{"a": 1.5, "b": 2}"#).await;
    assert_eq!(call.attempts, 0, "never sent");
    let reply = call.for_model();
    assert!(reply.is_error);
    assert_eq!(
        reply.text,
        "invalid arguments for `demo_add`:\n- /a: expected an integer, got 1.5\nFix these arguments and call the tool again."
    );
    // Schema violations, named by JSON pointer.
    let call = tools.call("demo_add", r#"{"a": "two"}"#).await;
    let Err(CallError::Arguments {
        violations: problems,
    }) = &call.outcome
    else {
        panic!("{:?}", call.outcome)
    };
    // As data: the pointer and the keyword broken, from the validator.
    assert!(
        problems
            .iter()
            .any(|p| (p.pointer.as_str(), p.keyword.as_str()) == ("/a", "type")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.keyword == "required"
            && p.pointer == "/"
            && p.message.contains("\"b\" is a required property")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.to_string().starts_with("/a: ")),
        "{problems:?}"
    );
    assert!(
        !call.for_model().text.contains("Error"),
        "no Rust debug dump"
    );
    // Malformed JSON and unknown names.
    let call = tools.call("demo_add", r#"{"a": 1,"#).await;
    assert!(matches!(call.outcome, Err(CallError::MalformedJson { .. })));
    assert_eq!(call.attempts, 0);
    let call = tools.call("demo_ad", "{}").await;
    assert_eq!(call.for_model().text, "unknown tool `demo_ad`");
    assert_eq!(call.target, None);
    // A tool-level error is the model's to read.
    let call = tools
        .call_value("demo_fail", json!({"message": "no such order"}))
        .await;
    let reply = call.for_model();
    assert!(reply.is_error);
    assert_eq!(reply.text, "no such order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatches_concurrently() {
    let dir = tempfile::tempdir().unwrap();
    let tools = Arc::new(demo_and_filesystem(&config(dir.path())).await);
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..8 {
        let tools = Arc::clone(&tools);
        calls.spawn(async move {
            let call = if i % 2 == 0 {
                tools
                    .call_value("demo_echo", json!({"message": format!("m{i}")}))
                    .await
            } else {
                tools.call_value("demo_sleep", json!({"millis": 100})).await
            };
            (i, call)
        });
    }
    let mut seen = Vec::new();
    while let Some(joined) = calls.join_next().await {
        let (i, call) = joined.unwrap();
        assert!(call.outcome.is_ok(), "{i}: {:?}", call.outcome);
        if i % 2 == 0 {
            assert_eq!(call.for_model().text, format!("m{i}"));
        }
        seen.push(i);
    }
    seen.sort();
    assert_eq!(seen, (0..8).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_definition_round_trips_a_valid_call() {
    let dir = tempfile::tempdir().unwrap();
    let tools = demo_and_filesystem(&config(dir.path())).await;
    let definitions = tools.openai_tools(OpenAiShape::Responses, true);
    let strict_schema = |name: &str| {
        let tool = definitions
            .tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        assert_eq!(tool["strict"], true);
        tool["parameters"].clone()
    };
    // What a strict-mode model sends: every property, null for "absent".
    let cases = [
        (
            "demo_search",
            json!({"query": "rust", "after": null, "limit": null}),
        ),
        (
            "demo_create_order",
            json!({"customer": {"name": "Ada", "email": null},
                   "items": [{"sku": "a", "quantity": 2.0}], "note": null}),
        ),
        ("demo_get_weather", json!({"city": "Lisbon", "units": null})),
    ];
    for (name, arguments) in cases {
        let schema = strict_schema(name);
        let errors = crate::util::schema_errors(&schema, &arguments);
        assert!(errors.is_empty(), "{name}: {errors:?}");
        let call = tools.call_value(name, arguments).await;
        assert!(call.outcome.is_ok(), "{name}: {:?}", call.outcome);
    }
}

// ---------------------------------------------------------------------------
// Hooks and events

#[derive(Default)]
struct Host {
    log: Mutex<Vec<String>>,
    /// State the host changes with each call and rolls back on failure.
    state: Mutex<Vec<String>>,
    snapshot: Mutex<Vec<Vec<String>>>,
}

struct Recorder(&'static str, Arc<Host>);

impl ToolHook for Recorder {
    fn before(&self, call: &HookCall<'_>) {
        let mut log = self.1.log.lock().unwrap();
        log.push(format!("{} before {}", self.0, call.name));
        if self.0 == "state" {
            let state = self.1.state.lock().unwrap().clone();
            self.1.snapshot.lock().unwrap().push(state);
            self.1.state.lock().unwrap().push(call.tool.to_owned());
        }
    }

    fn after(&self, call: &HookCall<'_>, result: &ToolCall) {
        let status = if result.is_error() { "failed" } else { "ok" };
        let mut log = self.1.log.lock().unwrap();
        log.push(format!("{} after {} {status}", self.0, call.name));
        if self.0 == "state" {
            let snapshot = self.1.snapshot.lock().unwrap().pop().unwrap();
            if result.is_error() {
                *self.1.state.lock().unwrap() = snapshot;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_run_in_order_and_roll_back_failures() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = demo_and_filesystem(&config(dir.path())).await;
    let host = Arc::new(Host::default());
    tools.with_hook(Recorder("outer", Arc::clone(&host)));
    tools.with_hook(Recorder("state", Arc::clone(&host)));

    tools.call("demo_add", r#"{"a": 1, "b": 2}"#).await;
    tools.call("demo_fail", r#"{"message": "boom"}"#).await;
    tools.call("demo_add", r#"{"a": 1.5, "b": 2}"#).await;
    tools.call("nope", "{}").await;

    assert_eq!(
        *host.log.lock().unwrap(),
        [
            "outer before demo_add",
            "state before demo_add",
            "state after demo_add ok",
            "outer after demo_add ok",
            "outer before demo_fail",
            "state before demo_fail",
            "state after demo_fail failed",
            "outer after demo_fail failed",
            "outer before demo_add",
            "state before demo_add",
            "state after demo_add failed",
            "outer after demo_add failed",
        ]
    );
    assert_eq!(*host.state.lock().unwrap(), ["add"], "failures rolled back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_cover_typed_and_toolbox_calls_without_secrets() {
    let secret = crate::env::value("MCPBIND_TOOLBOX_CANARY");
    let dir = tempfile::tempdir().unwrap();
    let config = util::stdio_servers_with(dir.path(), |name, server| match name {
        "everything" => server.env("LEAKY", "${MCPBIND_TOOLBOX_CANARY}"),
        _ => server,
    });
    let mut events = mcpbind::subscribe_events();

    // Numbers no other test sends: the bus is the process's, and under
    // `cargo test` other tests call the same tools meanwhile; their events
    // are left out below by these arguments (and by `get-env`, which only
    // this test calls).
    let demo = demo::Client::connect(&config).await.unwrap();
    demo.add(demo::types::AddInput { a: 9101, b: 2 })
        .await
        .unwrap();
    let mut tools = Toolbox::new();
    tools.add(demo).unwrap();
    tools
        .add(everything::Client::connect(&config).await.unwrap())
        .unwrap();
    tools.call("demo_add", r#"{"a": 9103, "b": 4}"#).await;
    tools.call("demo_add", r#"{"a": 9103.5, "b": 4}"#).await;
    // The secret reaches the server (its env) and comes back in the result…
    let env = tools.call("everything_get-env", "{}").await;
    assert!(env.for_model().text.contains(secret));
    // …and a model may even pass it on; events never show it.
    tools
        .call_value("everything_echo", json!({"message": secret}))
        .await;

    let ours = [
        json!({"a": 9101, "b": 2}),
        json!({"a": 9103, "b": 4}),
        json!({"a": 9103.5, "b": 4}),
        json!({"message": "${MCPBIND_TOOLBOX_CANARY}"}),
    ];
    let mut seen = Vec::new();
    while let Some(event) = events.try_recv() {
        if ours.contains(&event.arguments) || event.tool == "get-env" {
            seen.push(event);
        }
    }
    let summary: Vec<(String, Option<String>, CallSource, u32, bool)> = seen
        .iter()
        .map(|e| {
            (
                e.tool.clone(),
                e.model_name.clone(),
                e.source,
                e.attempts,
                e.outcome.is_ok(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("add".into(), None, CallSource::Typed, 1, true),
            (
                "add".into(),
                Some("demo_add".into()),
                CallSource::Toolbox,
                1,
                true
            ),
            (
                "add".into(),
                Some("demo_add".into()),
                CallSource::Toolbox,
                0,
                false
            ),
            (
                "get-env".into(),
                Some("everything_get-env".into()),
                CallSource::Toolbox,
                1,
                true
            ),
            (
                "echo".into(),
                Some("everything_echo".into()),
                CallSource::Toolbox,
                1,
                true
            ),
        ]
    );
    assert_eq!(seen[0].arguments, json!({"a": 9101, "b": 2}));
    assert!(matches!(seen[2].outcome, Outcome::Rejected { .. }));
    assert_eq!(
        seen[4].arguments,
        json!({"message": "${MCPBIND_TOOLBOX_CANARY}"})
    );
    for event in &seen {
        let dump = format!("{event:?} {}", serde_json::to_string(&**event).unwrap());
        assert!(!dump.contains(secret), "{dump}");
    }
}

// ---------------------------------------------------------------------------
// The example

#[test]
fn agent_example_runs_its_script() {
    let demo = util::bin("mcpbind-demo-server");
    let filesystem = util::npm_server("server-filesystem");
    let out = util::cargo()
        .current_dir(util::root())
        .args(["run", "--quiet", "-p", "mcpbind-example-agent"])
        .env("MCPBIND_DEMO_SERVER", demo)
        .env("MCPBIND_FILESYSTEM_SERVER", filesystem)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The model recovered from the error text with a value it read there.
    assert!(
        stdout.contains(r#"model -> demo_get_weather {"city":"Lisbon","units":"celsius"}"#),
        "{stdout}"
    );
    util::assert_golden(
        &util::tests_dir().join("golden/agent_transcript.txt"),
        &stdout,
    );
}

// ---------------------------------------------------------------------------
// Opt-ins: resource templates as read tools, prompts as a system prompt

/// The names in a list of definitions.
fn definition_names(definitions: &[Value]) -> Vec<String> {
    definitions
        .iter()
        .filter_map(|d| d["name"].as_str().or(d["function"]["name"].as_str()))
        .map(str::to_owned)
        .collect()
}

/// Server-everything's templates become read tools only when asked for;
/// a model's call by name reads the real resource (text as it is, a blob
/// as a note), and a missing variable is an argument error naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_templates_are_read_tools_when_opted_in() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let mut tools = Toolbox::new();
    tools
        .add(everything::Client::connect(&config).await.unwrap())
        .unwrap();
    let read_text = "everything_read_Dynamic_Text_Resource";
    let read_blob = "everything_read_Dynamic_Blob_Resource";
    let count = tools.tool_count();
    assert!(!definition_names(&tools.anthropic_tools().tools).contains(&read_text.to_owned()));
    let call = tools.call(read_text, r#"{"resourceId": "7"}"#).await;
    assert_eq!(call.for_model().text, format!("unknown tool `{read_text}`"));

    tools
        .add_resource_templates(everything::RESOURCE_TEMPLATES)
        .unwrap();
    assert_eq!(tools.tool_count(), count + 2);
    // Kept once when added twice.
    tools
        .add_resource_templates(everything::RESOURCE_TEMPLATES)
        .unwrap();
    assert_eq!(tools.tool_count(), count + 2);
    let anthropic = tools.anthropic_tools().tools;
    let definition = anthropic.iter().find(|d| d["name"] == read_text).unwrap();
    assert_eq!(
        definition["input_schema"],
        json!({
            "type": "object",
            "properties": {"resourceId": {"type": "string", "description": "`{resourceId}` in `demo://resource/dynamic/text/{resourceId}`"}},
            "required": ["resourceId"],
            "additionalProperties": false,
        })
    );
    let description = definition["description"].as_str().unwrap();
    assert!(
        description.starts_with("Plaintext dynamic resource")
            && description.ends_with(
                "Reads the resource `demo://resource/dynamic/text/{resourceId}` (text/plain)."
            ),
        "{description}"
    );
    for names in [
        definition_names(&tools.openai_tools(OpenAiShape::ChatCompletions, true).tools),
        definition_names(&tools.gemini_declarations().tools),
    ] {
        assert!(names.contains(&read_text.to_owned()) && names.contains(&read_blob.to_owned()));
    }
    assert_eq!(
        tools.resolve(read_text),
        Some(("everything", "Dynamic Text Resource"))
    );

    // A model's call, by name with JSON arguments: the real resource.
    let call = tools.call(read_text, r#"{"resourceId": "7"}"#).await;
    assert_eq!(
        call.target,
        Some(("everything".to_owned(), "Dynamic Text Resource"))
    );
    assert_eq!(call.attempts, 1);
    let reply = call.for_model();
    assert!(!reply.is_error, "{reply:?}");
    assert!(
        reply
            .text
            .starts_with("Resource 7: This is a plaintext resource created at "),
        "{reply:?}"
    );
    // A blob is described, not pasted: the decoded size of "Resource 7:
    // This is a base64 blob created at <local time>", not its base64.
    let call = tools.call_value(read_blob, json!({"resourceId": 7})).await;
    let text = call.for_model().text;
    let size: usize = text
        .strip_prefix("[binary contents: text/plain, ")
        .and_then(|rest| rest.strip_suffix(" bytes]"))
        .unwrap_or_else(|| panic!("{text}"))
        .parse()
        .unwrap();
    assert!((50..=60).contains(&size), "{text}");

    // A missing variable: never sent, named for the model.
    let call = tools.call(read_text, "{}").await;
    assert_eq!(call.attempts, 0);
    let Err(CallError::Arguments {
        violations: problems,
    }) = &call.outcome
    else {
        panic!("{:?}", call.outcome)
    };
    assert_eq!(
        (
            problems.len(),
            problems[0].pointer.as_str(),
            problems[0].keyword.as_str()
        ),
        (1, "/", "required")
    );
    assert_eq!(
        problems[0].to_string(),
        "/: missing required variable `resourceId` (it fills `{resourceId}` in `demo://resource/dynamic/text/{resourceId}`)"
    );
    assert!(call.for_model().text.starts_with(&format!(
        "invalid arguments for `{read_text}`:\n- /: missing required variable `resourceId`"
    )));
    let call = tools
        .call_value(read_text, json!({"resourceId": "7", "id": "8"}))
        .await;
    assert!(
        matches!(&call.outcome, Err(CallError::Arguments { violations: problems }) if problems[0].pointer == "/id" && problems[0].message.starts_with("unknown variable")),
        "{:?}",
        call.outcome
    );
    // The server's own refusal (the id must be an integer) is an error.
    let call = tools
        .call_value(read_text, json!({"resourceId": "seven"}))
        .await;
    assert!(call.for_model().is_error, "{:?}", call.outcome);

    // Held back with their server; merged with it.
    tools.hold_back_server("everything").unwrap();
    assert!(tools.held_back().contains(&read_text));
    tools.enable_server("everything").unwrap();
    let mut merged = Toolbox::new();
    merged.merge(tools.clone()).unwrap();
    assert_eq!(merged.names(), tools.names());

    let err = Toolbox::new()
        .add_resource_templates(everything::RESOURCE_TEMPLATES)
        .unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `everything`");
}

/// Prompts rendered into a system prompt (rig's `preamble`): the real
/// prompts' text, in order, typed or by name; a missing required argument
/// is an error naming the server and the prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_render_into_a_system_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let mut tools = Toolbox::new();
    tools
        .add(everything::Client::connect(&config).await.unwrap())
        .unwrap();
    let preamble = tools
        .system_prompt(&[
            PromptRequest::of(
                &everything::prompts::ArgsPromptArguments::new("Austin").with_state("TX"),
            ),
            PromptRequest::new("everything", "args-prompt").arg("city", "Paris"),
        ])
        .await
        .unwrap();
    assert_eq!(
        preamble,
        "What's weather in Austin, TX?\n\nWhat's weather in Paris?"
    );
    // Two messages of one role, the second an embedded resource: its text.
    let preamble = tools
        .system_prompt(&[PromptRequest::new("everything", "resource-prompt")
            .arg("resourceType", "Text")
            .arg("resourceId", "3")])
        .await
        .unwrap();
    assert!(
        preamble.starts_with("This prompt includes the Text resource with id: 3. Please analyze the following resource:\n\n[resource demo://resource/dynamic/text/3]\nResource 3: This is a plaintext resource created at "),
        "{preamble}"
    );

    let err = tools
        .system_prompt(&[PromptRequest::new("everything", "args-prompt")])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolboxError::Prompt { server, prompt, .. } if server == "everything" && prompt == "args-prompt")
    );
    // The server's refusal, which names the argument, is in the causes.
    let mut causes = String::new();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        causes.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    assert_eq!(
        err.to_string(),
        "prompt `args-prompt` of server `everything` could not be rendered"
    );
    assert!(
        causes.starts_with(": request `prompts/get args-prompt` to server `everything` failed: ")
            && causes.contains("city"),
        "{causes}"
    );
    let err = tools
        .system_prompt(&[PromptRequest::new("nowhere", "p")])
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `nowhere`");
}

// ---------------------------------------------------------------------------
// Parameter names a provider refuses, and empty roots, from a real listing

/// `tests/servers/misbehave.py names` as server `names`, its tools added
/// from its live listing (no lockfile holds it): `login` has parameters
/// Gemini refuses (`auth-method`, a nested `retry-count`) and answers with
/// the arguments it got; `ping`'s input schema is `{}`, `noop`'s
/// `{"type": "object"}`.
async fn names_toolbox() -> Toolbox {
    let script = util::tests_dir().join("servers/misbehave.py");
    let names = ServerConfig::stdio("python3").args([script.display().to_string(), "names".into()]);
    let config = Config::new().server("names", names).unwrap();
    let client = mcpbind::Client::connect(&config, "names").await.unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    assert!(tools.warnings().is_empty(), "{:?}", tools.warnings());
    tools
}

/// The arguments each call's hooks saw.
struct SeenArguments(Arc<Mutex<Vec<Value>>>);

impl ToolHook for SeenArguments {
    fn before(&self, call: &HookCall<'_>) {
        self.0.lock().unwrap().push(call.arguments.clone());
    }
}

/// The next event of server `names` (other tests' events pass by).
async fn next_names_event(events: &mut mcpbind::EventReceiver) -> Arc<mcpbind::ToolInvoked> {
    loop {
        let event = events.recv().await.unwrap();
        if event.server == "names" {
            return event;
        }
    }
}

/// A model on Gemini calls with the aliases its declaration gave; the
/// approval, its amend, the hooks, the events and the server all see the
/// server's names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_amends_and_hooks_see_the_server_names_of_a_gemini_call() {
    let mut tools = names_toolbox().await;
    let gemini = tools.gemini_declarations();
    let login = gemini
        .tools
        .iter()
        .find(|d| d["name"] == "names_login")
        .unwrap();
    let parameters = &login["parameters"];
    assert!(
        parameters["properties"].get("auth-method").is_none(),
        "{login}"
    );
    assert_eq!(parameters["required"], json!(["auth_method"]), "{login}");
    let options = &parameters["properties"]["options"]["properties"];
    assert!(options.get("retry_count").is_some(), "{login}");

    let reviewed = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&reviewed);
    tools.with_approval(move |call: mcpbind::CallRequest| {
        log.lock().unwrap().push(call.arguments.clone());
        async move {
            match call.arguments["auth-method"].as_str() {
                // Written against the server's names, and sent as written.
                Some("password") => mcpbind::Verdict::Amend {
                    arguments: json!({"auth-method": "token", "user": call.arguments["user"],
                        "options": {"retry-count": 1}}),
                },
                Some("token") => mcpbind::Verdict::Approve,
                _ => mcpbind::Verdict::refuse("auth-method must be password or token"),
            }
        }
    });
    let hooked = Arc::new(Mutex::new(Vec::new()));
    tools.with_hook(SeenArguments(Arc::clone(&hooked)));
    let mut events = mcpbind::subscribe_events();

    let call = tools
        .call(
            "names_login",
            r#"{"auth_method": "password", "user": "ada", "options": {"retry_count": 3}}"#,
        )
        .await;
    let amended = json!({"auth-method": "token", "user": "ada", "options": {"retry-count": 1}});
    let received: Value = serde_json::from_str(&call.for_model().text).unwrap();
    assert_eq!(received, amended, "what the server got");
    assert_eq!(next_names_event(&mut events).await.arguments, amended);

    // Approved as the model wrote it: the server's names reach the server.
    let call = tools
        .call_value("names_login", json!({"auth_method": "token"}))
        .await;
    let received: Value = serde_json::from_str(&call.for_model().text).unwrap();
    assert_eq!(received, json!({"auth-method": "token"}));
    next_names_event(&mut events).await;

    // Refused: never sent; the event records the server's names too.
    let refused = tools
        .call_value("names_login", json!({"auth_method": "sso", "user": "eve"}))
        .await;
    assert!(
        matches!(refused.outcome, Err(CallError::Refused { .. })),
        "{:?}",
        refused.outcome
    );
    let event = next_names_event(&mut events).await;
    assert_eq!(
        event.arguments,
        json!({"auth-method": "sso", "user": "eve"})
    );

    assert_eq!(
        *reviewed.lock().unwrap(),
        [
            json!({"auth-method": "password", "user": "ada", "options": {"retry-count": 3}}),
            json!({"auth-method": "token"}),
            json!({"auth-method": "sso", "user": "eve"}),
        ]
    );
    assert_eq!(
        *hooked.lock().unwrap(),
        [amended, json!({"auth-method": "token"})],
        "hooks run around approved calls only"
    );
}

/// A tool without parameters, whether its root is `{}` or `{"type":
/// "object"}`, is declared by one rule per provider (README, "Every tool
/// for every provider"): the empty object schema for OpenAI (strict too)
/// and Anthropic, no `parameters` for Gemini; and it can be called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_roots_follow_one_rule_per_provider() {
    let tools = names_toolbox().await;
    let empty = json!({"type": "object", "properties": {}});
    let find = |tools: &[Value], name: &str| -> Value {
        tools
            .iter()
            .find(|t| t["name"] == name || t["function"]["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    let chat = tools
        .openai_tools(OpenAiShape::ChatCompletions, false)
        .tools;
    let responses = tools.openai_tools(OpenAiShape::Responses, false).tools;
    let strict = tools.openai_tools(OpenAiShape::Responses, true);
    let anthropic = tools.anthropic_tools().tools;
    let gemini = tools.gemini_declarations();
    assert!(gemini.refusals.is_empty(), "{:?}", gemini.refusals);
    for name in ["names_ping", "names_noop"] {
        assert_eq!(find(&chat, name)["function"]["parameters"], empty, "{name}");
        assert_eq!(find(&responses, name)["parameters"], empty, "{name}");
        let strict_tool = find(&strict.tools, name);
        assert_eq!(strict_tool["strict"], true, "{name}");
        assert_eq!(strict_tool["parameters"]["properties"], json!({}), "{name}");
        assert_eq!(strict_tool["parameters"]["type"], "object", "{name}");
        assert_eq!(find(&anthropic, name)["input_schema"], empty, "{name}");
        let declaration = find(&gemini.tools, name);
        assert_eq!(
            declaration,
            json!({"name": name, "description": "No parameters."}),
            "{name}"
        );
        let call = tools.call(name, "").await;
        assert!(call.outcome.is_ok(), "{name}: {:?}", call.outcome);
    }
}

// ---------------------------------------------------------------------------
// rig

#[cfg(feature = "rig")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rig_tools_dispatch_through_the_toolbox() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = demo_and_filesystem(&config(dir.path())).await;
    tools.hold_back_server("filesystem").unwrap();
    let rig_tools: Vec<mcpbind::rig::DynamicTool> = tools.rig_tools();
    assert_eq!(rig_tools.len(), tools.tool_count());
    let add = rig_tools
        .iter()
        .find(|t| &**t.name() == "demo_add")
        .unwrap();
    let definition = add.definition();
    assert_eq!(definition.parameters["type"], "object");
    assert!(definition.description.starts_with("Add two integers"));

    let output = add.execute(json!({"a": 2, "b": 40})).await.unwrap();
    assert_eq!(output.as_text(), Some(r#"{"sum":42}"#));
    let error = add.execute(json!({"a": 1.5, "b": 1})).await.unwrap_err();
    assert!(
        error.message().contains("/a: expected an integer, got 1.5"),
        "{}",
        error.message()
    );
}

// ---------------------------------------------------------------------------
// Unlocked (live) tools

/// A server the toolbox adds from its live `tools/list` gives the model the
/// same definitions as its locked bindings, but labelled unlocked
/// everywhere; calls are checked against the listed schemas before they
/// are sent, and their events say unlocked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocked_tools_join_when_asked_and_are_labelled() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let mut locked = Toolbox::new();
    locked
        .add(demo::Client::connect(&config).await.unwrap())
        .unwrap();
    let mut live = Toolbox::new();
    let client = mcpbind::Client::connect(&config, "demo").await.unwrap();
    live.add_unlocked(client).await.unwrap();
    assert!(live.warnings().is_empty(), "{:?}", live.warnings());

    // The same tools, the same definitions: only the label differs.
    assert_eq!(live.names(), locked.names());
    let (mine, theirs) = (live.anthropic_tools(), locked.anthropic_tools());
    assert_eq!(mine.tools, theirs.tools);
    assert_eq!(mine.unlocked, live.names());
    assert!(theirs.unlocked.is_empty());
    // Strict schemas list `required` in property order, which the lockfile
    // sorts and the live listing keeps as sent: compare what is strict.
    let strict = live.openai_tools(OpenAiShape::Responses, true);
    let strictness = |d: &mcpbind::Definitions| -> Vec<(Value, Value)> {
        d.tools
            .iter()
            .map(|t| (t["name"].clone(), t["strict"].clone()))
            .collect()
    };
    assert_eq!(
        strictness(&strict),
        strictness(&locked.openai_tools(OpenAiShape::Responses, true))
    );
    assert_eq!(strict.unlocked.len(), live.tool_count());
    assert_eq!(
        live.gemini_declarations().unlocked.len(),
        live.gemini_declarations().tools.len()
    );
    let inventory = live.tools_by_server();
    assert!(inventory[0].unlocked && inventory[0].tools.iter().all(|t| t.unlocked));
    assert!(!locked.tools_by_server()[0].unlocked);
    assert!(
        live.render_markdown()
            .contains("## demo (12 tools, unlocked: listed live, not reviewed)"),
        "{}",
        live.render_markdown()
    );
    assert!(live.tool_facts().iter().all(|t| t.unlocked));
    assert!(locked.tool_facts().iter().all(|t| !t.unlocked));
    let facts = live.tool_facts();
    let delete = facts.iter().find(|t| t.tool == "delete_item").unwrap();
    let locked_facts = locked.tool_facts();
    let locked_delete = locked_facts
        .iter()
        .find(|t| t.tool == "delete_item")
        .unwrap();
    assert_eq!(
        (delete.read_only, delete.destructive, delete.idempotent),
        (
            locked_delete.read_only,
            locked_delete.destructive,
            locked_delete.idempotent
        )
    );

    let mut events = mcpbind::subscribe_events();
    // A valid call, its structured output checked and returned.
    let call = live.call("demo_add", r#"{"a": 9202, "b": 40.0}"#).await;
    assert_eq!(call.target, Some(("demo".to_owned(), "add")));
    assert_eq!(call.attempts, 1);
    assert_eq!(call.outcome.as_ref().unwrap().output, json!({"sum": 9242}));
    // Checked against the listed schema: never sent.
    let call = live.call("demo_add", r#"{"a": "two-9202"}"#).await;
    assert_eq!(call.attempts, 0);
    let Err(CallError::Arguments {
        violations: problems,
    }) = &call.outcome
    else {
        panic!("{:?}", call.outcome)
    };
    assert!(
        problems
            .iter()
            .any(|p| (p.pointer.as_str(), p.keyword.as_str()) == ("/a", "type")),
        "{problems:?}"
    );
    // A tool error is the model's to read, as for a locked tool.
    let call = live
        .call_value("demo_fail", json!({"message": "no such order 9202"}))
        .await;
    assert_eq!(call.for_model().text, "no such order 9202");
    assert!(call.for_model().is_error);

    // This test's events, by their arguments: under `cargo test` other
    // tests call the same tools meanwhile, on the process's one bus.
    let ours = [
        json!({"a": 9202, "b": 40.0}),
        // (the event has the arguments as sent: `40.0` made an integer)
        json!({"a": 9202, "b": 40}),
        json!({"a": "two-9202"}),
        json!({"message": "no such order 9202"}),
    ];
    let seen: Vec<_> = std::iter::from_fn(|| events.try_recv())
        .filter(|e| ours.contains(&e.arguments))
        .collect();
    let summary: Vec<(&str, bool, u32, bool)> = seen
        .iter()
        .map(|e| (e.tool.as_str(), e.unlocked, e.attempts, e.outcome.is_ok()))
        .collect();
    assert_eq!(
        summary,
        [
            ("add", true, 1, true),
            ("add", true, 0, false),
            ("fail", true, 1, false)
        ]
    );
    assert!(matches!(seen[1].outcome, Outcome::Rejected { .. }));
    assert!(matches!(seen[2].outcome, Outcome::ToolError { .. }));

    // A server already in the toolbox is kept once.
    let again = mcpbind::Client::connect(&config, "demo").await.unwrap();
    live.add_unlocked(again).await.unwrap();
    assert_eq!(
        live.warnings(),
        ["server `demo` was added twice; the first one is kept"]
    );
    // And a merged toolbox keeps them unlocked.
    let mut merged = Toolbox::new();
    merged.merge(live).unwrap();
    assert_eq!(merged.anthropic_tools().unlocked.len(), 12);
}

/// Server-everything, unlocked: a tool that requires a task runs as one,
/// structured content is checked against the listed output schema, and the
/// config's filters and prefix apply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocked_tools_of_server_everything_run_as_listed() {
    let dir = tempfile::tempdir().unwrap();
    let config = util::stdio_servers_with(dir.path(), |name, server| match name {
        "everything" => server.tool_prefix("ev").disabled_tools(["get-env"]),
        _ => server,
    });
    let client = mcpbind::Client::connect(&config, "everything")
        .await
        .unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    let names = tools.names();
    assert!(
        names.contains(&"ev_get-structured-content"),
        "{names:?} {:?} {:?}",
        tools.warnings(),
        tools.held_back()
    );
    assert!(!names.iter().any(|n| n.contains("get-env")), "{names:?}");

    let call = tools
        .call_value("ev_get-structured-content", json!({"location": "Chicago"}))
        .await;
    let result = call.outcome.as_ref().unwrap();
    assert!(result.output.get("temperature").is_some(), "{result:?}");
    assert_eq!(result.structured_content.as_ref(), Some(&result.output));

    // `execution.taskSupport: "required"`: a plain call would be refused.
    let call = tools
        .call_value(
            "ev_simulate-research-query",
            json!({"topic": "rust", "ambiguous": false}),
        )
        .await;
    assert!(call.outcome.is_ok(), "{:?}", call.outcome);
    assert!(!call.for_model().text.is_empty());
}

/// When an unlocked server says its tools changed, its tools are held back
/// (their definitions may be stale) until the toolbox lists them again; the
/// new schema is then the one calls are checked against.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlocked_tools_that_change_are_held_back_until_listed_again() {
    let script = util::servers_dir().join("evolving.py");
    let evolving = ServerConfig::stdio("python3")
        .arg(script.display().to_string())
        .timeout(std::time::Duration::from_secs(60));
    let config = Config::new().server("evolving", evolving).unwrap();
    let client = mcpbind::Client::connect(&config, "evolving").await.unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    let call = tools.call_value("evolving_greet", json!({"name": 7})).await;
    assert_eq!(call.attempts, 0, "the listed schema wants a string");

    let mut notices = mcpbind::subscribe_notices();
    let change = tools.call("evolving_change", "{}").await;
    assert!(change.outcome.is_ok(), "{:?}", change.outcome);
    loop {
        let notice = tokio::time::timeout(std::time::Duration::from_secs(30), notices.recv())
            .await
            .expect("a list_changed notice")
            .unwrap();
        if matches!(&*notice, mcpbind::Notice::ListChanged { server, list: mcpbind::ListKind::Tools } if server == "evolving")
        {
            break;
        }
    }
    // A call lists the tools again if the background listing is not back.
    let call = tools.call_value("evolving_greet", json!({"name": 7})).await;
    assert!(
        matches!(&call.outcome, Err(CallError::Stale { server, .. }) if server == "evolving"),
        "{:?}",
        call.outcome
    );
    assert_eq!(
        call.for_model().text,
        "tool `evolving_greet` is held back: the tools of server `evolving` changed since they were listed"
    );

    // Only the changed tool is held back.
    assert_eq!(tools.held_back(), ["evolving_greet"]);
    assert!(tools.names().contains(&"evolving_restore"));
    assert!(
        !definition_names(&tools.anthropic_tools().tools).contains(&"evolving_greet".to_owned())
    );
    tools.refresh_unlocked("evolving").await.unwrap();
    assert!(tools.held_back().is_empty());
    let call = tools.call_value("evolving_greet", json!({"name": 7})).await;
    assert_eq!(call.for_model().text, "hello 7");
    let call = tools
        .call_value("evolving_greet", json!({"name": "Ada"}))
        .await;
    assert_eq!(call.attempts, 0, "the new schema wants an integer");
    let err = tools.refresh_unlocked("nobody").await.unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `nobody`");
}

/// A toolbox subscribes to the resources it renders as context; an update
/// arrives as a notice, and the context rendered again has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribed_context_hears_its_updates() {
    let script = util::servers_dir().join("evolving.py");
    let evolving = ServerConfig::stdio("python3")
        .arg(script.display().to_string())
        .timeout(std::time::Duration::from_secs(60));
    let config = Config::new().server("evolving", evolving).unwrap();
    let client = mcpbind::Client::connect(&config, "evolving").await.unwrap();
    let mut tools = Toolbox::new();
    tools.add_unlocked(client).await.unwrap();
    let before = tools.resource_context(&["evolving"], 4096).await.unwrap();
    assert!(before.contains("first"), "{before}");
    let mut notices = mcpbind::subscribe_notices();
    assert_eq!(tools.subscribe_context(&["evolving"]).await.unwrap(), 2);
    let call = tools
        .call_value(
            "evolving_edit",
            json!({"uri": "note://1", "text": "rewritten"}),
        )
        .await;
    assert!(call.outcome.is_ok(), "{:?}", call.outcome);
    let uri = loop {
        let notice = tokio::time::timeout(std::time::Duration::from_secs(30), notices.recv())
            .await
            .expect("a resource update")
            .unwrap();
        if let mcpbind::Notice::ResourceUpdated { server, uri } = &*notice {
            if server == "evolving" {
                break uri.clone();
            }
        }
    };
    assert_eq!(uri, "note://1");
    let after = tools.resource_context(&["evolving"], 4096).await.unwrap();
    assert!(after.contains("rewritten"), "{after}");
    let err = tools
        .subscribe_resource("nobody", "note://1")
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `nobody`");
}
