//! For every tool of the test servers: arguments the server accepts (a
//! sample built from the locked schema, with every property present, and
//! checked valid against that schema) deserialize into the generated params
//! type and serialize back to the same JSON. A type stricter than its schema,
//! or one that renames or drops a field, fails here.

use mcpbind::Tool;
use serde_json::{json, Map, Value};

fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => r
            .strip_prefix('#')
            .and_then(|p| root.pointer(p))
            .map(|s| resolve(root, s))
            .unwrap_or(schema),
        None => schema,
    }
}

/// A value the schema accepts, with every property filled in.
fn sample(root: &Value, schema: &Value) -> Value {
    let schema = resolve(root, schema);
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let branch = branches
                .iter()
                .find(|b| resolve(root, b).get("type") != Some(&json!("null")))
                .unwrap_or(&branches[0]);
            return sample(root, branch);
        }
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    let number = |default: f64| {
        let min = schema.get("minimum").and_then(Value::as_f64);
        let max = schema.get("maximum").and_then(Value::as_f64);
        match (min, max) {
            (Some(min), _) if min > default => min,
            (_, Some(max)) if max < default => max,
            _ => default,
        }
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    out.insert(name.clone(), sample(root, prop));
                }
            }
            if let Some(extra) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                if out.is_empty() {
                    out.insert("key".into(), sample(root, extra));
                }
            }
            Value::Object(out)
        }
        "array" => json!([sample(
            root,
            schema.get("items").unwrap_or(&json!({"type": "string"}))
        )]),
        "integer" => json!(number(2.0) as i64),
        "number" => json!(number(1.5)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => match schema.get("format").and_then(Value::as_str) {
            Some("uri") => json!("https://example.com/a"),
            _ => json!("text"),
        },
    }
}

fn roundtrip<T: Tool>() {
    let meta = T::META;
    let schema: Value = serde_json::from_str(meta.input_schema).unwrap();
    let args = sample(&schema, &schema);
    let errors = crate::util::schema_errors(&schema, &args);
    assert!(
        errors.is_empty(),
        "{}.{}: the sample {args} is invalid: {errors:?}",
        meta.server,
        meta.name
    );
    let typed: T::Input = serde_json::from_value(args.clone()).unwrap_or_else(|e| {
        panic!(
            "{}.{}: {args} does not deserialize: {e}",
            meta.server, meta.name
        )
    });
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(
        back, args,
        "{}.{} does not round-trip",
        meta.server, meta.name
    );
}

macro_rules! roundtrip_all {
    ($($server:ident: [$($tool:ident),* $(,)?]),* $(,)?) => {
        #[test]
        fn every_tool_input_round_trips() {
            $($(roundtrip::<mcpbind_tests::$server::tools::$tool>();)*)*
            // Every locked tool is listed above.
            $(assert_eq!(
                mcpbind_tests::$server::TOOLS.len(),
                [$(stringify!($tool)),*].len(),
                "a tool of `{}` is missing from this test", stringify!($server)
            );)*
        }
    };
}

roundtrip_all! {
    demo: [Add, Crash, CreateOrder, DeleteItem, DrawShape, Echo, Fail, GetWeather, Search, SetMode, Sleep, TagCounts],
    everything: [
        Echo, GetAnnotatedMessage, GetEnv, GetResourceLinks, GetResourceReference, GetStructuredContent,
        GetSum, GetTinyImage, GzipFileAsResource, SimulateResearchQuery, ToggleSimulatedLogging,
        ToggleSubscriberUpdates, TriggerElicitationRequest, TriggerLongRunningOperation,
    ],
    filesystem: [
        CreateDirectory, DirectoryTree, EditFile, GetFileInfo, ListAllowedDirectories, ListDirectory,
        ListDirectoryWithSizes, MoveFile, ReadFile, ReadMediaFile, ReadMultipleFiles, ReadTextFile,
        SearchFiles, WriteFile,
    ],
    memory: [
        AddObservations, CreateEntities, CreateRelations, DeleteEntities, DeleteObservations,
        DeleteRelations, OpenNodes, ReadGraph, SearchNodes,
    ],
    time: [ConvertTime, GetCurrentTime],
}

/// The metadata the generated markers carry (title, description and schemas
/// as slices of the definition, the hash computed from it) is the locked
/// tool's, for every tool of the test servers.
#[test]
fn generated_metadata_is_the_locked_tools() {
    let lock = mcpbind::Lockfile::read(crate::util::tests_dir().join("mcpbind.lock")).unwrap();
    let servers: [&[mcpbind::ToolMeta]; 5] = [
        mcpbind_tests::demo::TOOLS,
        mcpbind_tests::everything::TOOLS,
        mcpbind_tests::filesystem::TOOLS,
        mcpbind_tests::memory::TOOLS,
        mcpbind_tests::time::TOOLS,
    ];
    let mut checked = 0;
    for meta in servers.into_iter().flatten() {
        let locked = lock.servers[meta.server]
            .tools
            .iter()
            .find(|t| t.name == meta.name)
            .unwrap_or_else(|| panic!("{}.{} is not locked", meta.server, meta.name));
        let at = format!("{}.{}", meta.server, meta.name);
        assert_eq!(meta.sha256(), locked.sha256, "{at}");
        assert_eq!(meta.title, locked.title(), "{at}");
        assert_eq!(meta.description, locked.description(), "{at}");
        let schema: Value = serde_json::from_str(meta.input_schema).unwrap();
        assert_eq!(Some(&schema), locked.input_schema(), "{at}");
        let output: Option<Value> = meta.output_schema.map(|s| serde_json::from_str(s).unwrap());
        assert_eq!(output.as_ref(), locked.output_schema(), "{at}");
        let retry_safe = locked.hint("readOnlyHint") == Some(true)
            || locked.hint("idempotentHint") == Some(true);
        assert_eq!(meta.is_retry_safe(), retry_safe, "{at}");
        checked += 1;
    }
    assert_eq!(
        checked,
        lock.servers.values().map(|s| s.tools.len()).sum::<usize>()
    );
}
