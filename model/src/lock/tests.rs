use std::path::Path;

use serde_json::{json, Value};

use super::*;

fn sample() -> Lockfile {
    let mut lock = Lockfile::new();
    let server = ServerLock::new(
        "demo",
        "2025-11-25".into(),
        json!({"name": "demo", "version": "1"}),
        vec![
            json!({"name": "zeta", "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}}}),
            json!({"name": "alpha", "inputSchema": {"type": "object"}, "execution": {"x": 1}}),
        ],
    )
    .unwrap();
    lock.servers.insert("demo".into(), server);
    lock
}

fn line_of_nth(text: &str, needle: &str, nth: usize) -> usize {
    let (at, _) = text.match_indices(needle).nth(nth).unwrap();
    text[..at].matches('\n').count() + 1
}

/// `{type: object, properties: {a: inner}}`, moving `inner` in (`json!`
/// would clone it, recursively).
fn object_schema(inner: Value) -> Value {
    let mut properties = serde_json::Map::new();
    properties.insert("a".into(), inner);
    let mut schema = serde_json::Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    Value::Object(schema)
}

/// An object schema nested `levels` deep: `{type, properties: {a: …}}`.
fn nested(levels: usize) -> Value {
    let mut v = json!({"type": "string"});
    for _ in 0..levels {
        v = object_schema(v);
    }
    v
}

/// A tool definition with this input schema (moved in, not cloned).
fn tool(name: &str, input_schema: Value) -> Value {
    let mut tool = serde_json::Map::new();
    tool.insert("name".into(), name.into());
    tool.insert("inputSchema".into(), input_schema);
    Value::Object(tool)
}

fn deep_lock(levels: usize) -> Lockfile {
    let mut lock = Lockfile::new();
    let tool = tool("deep", nested(levels));
    let server = ServerLock::new("demo", "2025-11-25".into(), json!({}), vec![tool]).unwrap();
    lock.servers.insert("demo".into(), server);
    lock
}

#[test]
fn round_trips_byte_identical() {
    let text = sample().to_json().unwrap();
    assert!(text.ends_with("}\n"));
    let back = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap();
    assert_eq!(back.to_json().unwrap(), text);
    // tools sorted, keys sorted, unknown fields kept
    assert!(text.find("\"alpha\"").unwrap() < text.find("\"zeta\"").unwrap());
    assert!(text.find("\"a\": {}").unwrap() < text.find("\"b\": {}").unwrap());
    assert!(text.contains("\"execution\""));
}

#[test]
fn rejects_edited_definition() {
    let text = sample().to_json().unwrap().replace("\"x\": 1", "\"x\": 2");
    let err = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "mcpbind.lock:{}: server `demo`, tool `alpha`: sha256 does not match the definition",
            line_of_nth(&text, "\"sha256\": \"", 0)
        )
    );
    assert_eq!(
        err.help().unwrap(),
        "run `mcpbind lock` to rewrite mcpbind.lock"
    );
}

/// A lockfile large enough to be checked on several threads reports the
/// same error as one checked in order: the first in the file.
#[test]
fn a_large_lockfile_reports_its_first_error() {
    let mut lock = Lockfile::new();
    for server in ["s1", "s2", "s3", "s4"] {
        let tools = (0..300)
            .map(|i| json!({"name": format!("t{i:03}"), "inputSchema": {"type": "object", "x": i}}))
            .collect();
        let entry = ServerLock::new(server, "2025-11-25".into(), json!({}), tools).unwrap();
        lock.servers.insert(server.into(), entry);
    }
    let text = lock.to_json().unwrap();
    assert!(Lockfile::parse(&text, Path::new("mcpbind.lock")).is_ok());
    // Edits in the second server's tool t007 and in the fourth server's t100.
    let edited = text
        .replacen("\"x\": 7\n", "\"x\": -7\n", 2)
        .replacen("\"x\": -7\n", "\"x\": 7\n", 1)
        .replacen("\"x\": 100\n", "\"x\": -100\n", 4)
        .replacen("\"x\": -100\n", "\"x\": 100\n", 3);
    assert_eq!(
        edited.matches("-7\n").count() + edited.matches("-100\n").count(),
        2
    );
    let err = Lockfile::parse(&edited, Path::new("mcpbind.lock")).unwrap_err();
    let s2 = text.find("\"s2\":").unwrap();
    let line = line_of_nth(&text[s2..], "\"sha256\": \"", 7) + text[..s2].matches('\n').count();
    assert_eq!(
        err.to_string(),
        format!(
            "mcpbind.lock:{line}: server `s2`, tool `t007`: sha256 does not match the definition"
        )
    );
}

#[test]
fn rejects_newer_version_and_bad_json() {
    let err = Lockfile::parse(
        r#"{"lockfile_version": 2, "servers": {}}"#,
        Path::new("x.lock"),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "x.lock has lockfile_version 2, but this mcpbind reads version 1"
    );
    assert_eq!(
        err.help().unwrap(),
        "upgrade mcpbind (and mcpbind-codegen) to a version that reads it"
    );
    let err = Lockfile::parse(
        "{\n\"lockfile_version\": 1,\n\"servers\": {]\n}",
        Path::new("x.lock"),
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("x.lock:3: invalid lockfile: "),
        "{err}"
    );
}

/// A hand-edited lockfile listing one tool twice (both digests valid) would
/// generate two items of one name: it is refused, at the second entry.
#[test]
fn rejects_a_tool_listed_twice() {
    let text = sample().to_json().unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    let tools = value["servers"]["demo"]["tools"].as_array_mut().unwrap();
    tools.push(tools[0].clone());
    let mut lock: Lockfile = serde_json::from_value(value).unwrap();
    // Written as the writer would, so the reader sees well-formed text.
    lock.servers
        .get_mut("demo")
        .unwrap()
        .tools
        .sort_by(|a, b| a.name.cmp(&b.name));
    let text = lock.to_json().unwrap();
    let err = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap_err();
    let sha = &lock.servers["demo"].tools[0].sha256;
    assert_eq!(
        err.to_string(),
        format!(
            "mcpbind.lock:{}: server `demo` lists tool `alpha` twice",
            line_of_nth(&text, sha, 1)
        )
    );
    assert!(matches!(err, LockError::DuplicateTool { .. }));
    assert_eq!(
        err.help().unwrap(),
        "remove one of the two entries, or run `mcpbind lock` to rewrite mcpbind.lock"
    );
}

/// 60 levels of object schema already pass serde_json's recursion limit of
/// 128 once inside a lockfile; 500 levels are far past it. Both are locked,
/// written, read back to the same bytes, and hashed the same.
#[test]
fn reads_back_schemas_nested_past_serde_json_limit() {
    for levels in [60, 500] {
        let lock = deep_lock(levels);
        let text = lock.to_json().unwrap();
        let back = Lockfile::parse(&text, Path::new("mcpbind.lock"))
            .unwrap_or_else(|e| panic!("{levels} levels: {e}"));
        assert_eq!(
            back.servers["demo"].tools[0].sha256,
            lock.servers["demo"].tools[0].sha256
        );
        assert_eq!(back.to_json().unwrap(), text, "{levels} levels");
    }
}

/// Past [`MAX_DEPTH`] the writer refuses with an error instead of
/// overflowing the stack, and so does the reader (here with 100k levels,
/// where a recursive pass would crash the process).
#[test]
fn absurd_depth_is_an_error_not_a_crash() {
    let tool = tool("abyss", nested(50_000));
    let err = ServerLock::new("demo", "2025-11-25".into(), json!({}), vec![tool]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "server `demo`: tool `abyss` is nested deeper than a lockfile may be (1024 levels)"
    );

    // A lockfile built by hand, past the checks of `ServerLock::new`.
    let mut lock = deep_lock(1);
    lock.servers.get_mut("demo").unwrap().tools[0].definition = nested(50_000);
    let err = lock
        .write(std::env::temp_dir().join("mcpbind-never-written.lock"))
        .unwrap_err();
    assert!(matches!(err, LockError::TooDeep { .. }), "{err}");
    let definition = std::mem::take(&mut lock.servers.get_mut("demo").unwrap().tools[0].definition);
    depth::drop_deep(definition);

    let text = format!(
        "{{\"lockfile_version\": 1,\n\"servers\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let err = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mcpbind.lock:2: invalid lockfile: JSON nested deeper than 1024 levels"
    );
}

#[test]
fn stale_config_is_named() {
    let lock = sample();
    let config = Config::from_toml_str(
        "[servers.demo]\ncommand = \"x\"\n[servers.weather]\ncommand = \"y\"\n",
    )
    .unwrap();
    let err = lock
        .check_config(&config, None, Path::new("mcpbind.lock"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server `weather` in mcpbind.lock is out of date (the server is configured but not locked)"
    );
    assert_eq!(
        err.help().unwrap(),
        "run `mcpbind lock weather` and commit mcpbind.lock"
    );
}

fn with_prompts() -> Lockfile {
    let mut lock = sample();
    let server = lock.servers.remove("demo").unwrap();
    let server = server
        .with_prompts(
            "demo",
            vec![
                json!({"name": "review", "arguments": [{"name": "code", "required": true}]}),
                json!({"name": "greet", "x-vendor": 1}),
            ],
        )
        .unwrap()
        .with_resource_templates(
            "demo",
            vec![json!({"name": "File", "uriTemplate": "file:///{+path}"})],
        )
        .unwrap();
    lock.servers.insert("demo".into(), server);
    lock
}

/// A lockfile without prompts keeps its exact bytes (the new keys are left
/// out when empty), and one with them round-trips byte for byte, sorted.
#[test]
fn prompts_and_templates_are_optional_keys_that_round_trip() {
    let text = sample().to_json().unwrap();
    assert!(!text.contains("prompts"));
    assert!(!text.contains("resource_templates"));
    assert!(!text.contains("completions"));

    let text = with_prompts().to_json().unwrap();
    let back = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap();
    assert_eq!(back.to_json().unwrap(), text);
    let demo = &back.servers["demo"];
    let names: Vec<&str> = demo.prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["greet", "review"]);
    assert_eq!(demo.prompts[0].definition["x-vendor"], 1);
    assert_eq!(
        demo.prompts[1].sha256,
        sha256_hex(&demo.prompts[1].definition)
    );
    assert_eq!(
        demo.resource_templates[0].uri_template(),
        Some("file:///{+path}")
    );
    assert_eq!(demo.prompts[1].prompt_arguments().len(), 1);
    assert_eq!(demo.entries(EntryKind::Prompt).len(), 2);
}

#[test]
fn edited_or_duplicate_prompts_are_rejected_with_their_line() {
    let text = with_prompts().to_json().unwrap();
    let edited = text.replace("\"greet\",\n", "\"greet\",\n        \"title\": \"Hi\",\n");
    assert_ne!(edited, text);
    let err = Lockfile::parse(&edited, Path::new("mcpbind.lock")).unwrap_err();
    let sha = &with_prompts().servers["demo"].prompts[0].sha256;
    assert_eq!(
        err.to_string(),
        format!(
            "mcpbind.lock:{}: invalid lockfile: server `demo`, prompt `greet`: sha256 does not match the definition",
            line_of_nth(&edited, sha, 0)
        )
    );

    let mut lock = with_prompts();
    let demo = lock.servers.get_mut("demo").unwrap();
    demo.resource_templates
        .push(demo.resource_templates[0].clone());
    let sha = demo.resource_templates[0].sha256.clone();
    let text = lock.to_json().unwrap();
    let err = Lockfile::parse(&text, Path::new("mcpbind.lock")).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "mcpbind.lock:{}: invalid lockfile: server `demo` lists resource template `File` twice",
            line_of_nth(&text, &sha, 1)
        )
    );

    let err = ServerLock::new("demo", "2025-11-25".into(), json!({}), Vec::new())
        .unwrap()
        .with_prompts(
            "demo",
            vec![json!({"name": "a"}), json!({"title": "no name"})],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server `demo`: prompt #1 of prompts/list has no string `name`"
    );
}

#[test]
fn a_changed_prompt_filter_makes_the_lock_stale() {
    let lock = with_prompts();
    let config = crate::config::Config::from_toml_str(
        "[servers.demo]\ncommand = \"x\"\ndisabled_prompts = [\"greet\"]\n",
    )
    .unwrap();
    let err = lock
        .check_config(&config, None, Path::new("mcpbind.lock"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server `demo` in mcpbind.lock is out of date (its enabled_prompts/disabled_prompts changed)"
    );
    // The reason is data, not only words.
    assert!(matches!(
        &err,
        LockError::Stale {
            reason: crate::lock::StaleReason::FiltersChanged {
                kind: EntryKind::Prompt
            },
            ..
        }
    ));
    let mut relocked = lock.clone();
    let demo = relocked.servers.remove("demo").unwrap();
    relocked
        .servers
        .insert("demo".into(), demo.with_filters(&config.servers["demo"]));
    let err = relocked
        .check_config(&config, None, Path::new("mcpbind.lock"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server `demo` in mcpbind.lock is out of date (prompt `greet` is filtered out by the config)"
    );
    assert!(matches!(
        &err,
        LockError::Stale {
            reason: crate::lock::StaleReason::FilteredOut { kind: EntryKind::Prompt, name },
            ..
        } if name == "greet"
    ));
}
