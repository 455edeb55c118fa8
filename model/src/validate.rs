//! Validation of arguments and structured output against the locked
//! schemas, for what types can't say (`minimum`, `pattern`, `minItems`…).
//!
//! The validator is boon: it passes the JSON Schema Test Suite as
//! jsonschema did, with 12 crates instead of 41 (BENCHMARKS.md, "A lighter
//! validator?"). Its errors are a tree; [`Violation`]s are its leaves, in
//! our words (`words.rs`), so they read the same whichever validator finds
//! them.
//!
//! Each schema is compiled once per process, on first use, and cached by the
//! address of its `'static` text (generated code holds one per tool). A
//! schema that can't be compiled (an unknown draft, a `$ref` to another
//! document, which is never fetched, from the network or from disk)
//! disables validation for that schema only: the server still checks.
//!
//! The validator recurses over the instance as deep as the schema leads it,
//! and a recursive schema (`{"properties": {"child": {"$ref": "#"}}}`) leads
//! it all the way down. Schemas are at most 128 levels (serde_json's limit
//! when the text is parsed here, the generator's when it is written), but
//! an instance is whatever the caller built; so an instance nested deeper
//! than 128 levels is a violation at the pointer where it goes
//! too deep, checked without recursing, instead of a stack overflow.

mod words;

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::error::Error;
use std::sync::{OnceLock, RwLock};

use foldhash::fast::FixedState;
use serde_json::Value;

use crate::lock::{deeper_than, on_thread};
pub(crate) use crate::violation::{join, Violation};

/// The deepest instance validated, in JSON levels: as deep as serde_json
/// (and so rmcp, on either side) parses a message, envelope included, so a
/// deeper one could not reach a server anyway.
pub(crate) const MAX_INSTANCE_DEPTH: usize = 128;

/// Instances up to this deep are validated on the caller's stack. boon
/// recurses a few frames per level of the instance, and a debug build's
/// frames are large: up to ~60 KiB a level was measured (an `anyOf` over an
/// `allOf` over a `$ref`), so 8 levels fit with room in a 2 MiB tokio
/// worker's stack.
const SHALLOW: usize = 8;

/// The stack a deeper instance is validated on, on a thread of its own:
/// four times the most measured per level, for [`MAX_INSTANCE_DEPTH`]
/// levels (reserved, not committed: only what is used is paged in).
const DEEP_STACK: usize = 1024 * 1024 + MAX_INSTANCE_DEPTH * 256 * 1024;

/// The most violations reported for one value: enough to fix it, few
/// enough to read.
const MAX_VIOLATIONS: usize = 3;

/// Where a schema is said to live, so that its `$ref`s resolve: an address
/// that is nowhere. A `$ref` outside the schema resolves to another
/// document, which [`Nowhere`] refuses to load.
const BASE: &str = "https://schema.mcpbind.invalid/locked.json";

/// A schema, compiled.
pub struct Compiled {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compiled")
    }
}

/// The loader of every document a schema refers to: none is loaded. boon's
/// own would read `file://` ones from disk; the standard metaschemas are
/// built into boon and need no loader.
struct Nowhere;

impl boon::UrlLoader for Nowhere {
    fn load(&self, url: &str) -> Result<Value, Box<dyn Error>> {
        Err(format!("{url} is not loaded: a locked schema is checked on its own").into())
    }
}

/// `schema` compiled, or why it can't be.
///
/// A `pattern` the validator's regex engine can't run (a lookahead or a
/// backreference: ECMA-262 has them, Rust's `regex` does not) makes the
/// whole schema invalid to boon; such a schema is compiled again without
/// those patterns, so that the rest of it is still checked.
///
/// # Errors
///
/// The validator's message (as text) when `schema` is not a schema it can
/// compile, even with the patterns it can't run left out.
pub fn compile(schema: &Value) -> Result<Compiled, String> {
    compile_exact(schema).or_else(|error| {
        let mut lenient = schema.clone();
        if drop_unrunnable_patterns(&mut lenient) {
            compile_exact(&lenient).map_err(|_| error)
        } else {
            Err(error)
        }
    })
}

/// Removes every `pattern` boon can't compile from `schema`, in every
/// subschema (not inside `enum`, `const`, `default` or `examples`, which
/// are values); whether it removed any.
fn drop_unrunnable_patterns(schema: &mut Value) -> bool {
    let Value::Object(map) = schema else {
        return match schema {
            Value::Array(items) => items.iter_mut().fold(false, |dropped, item| {
                drop_unrunnable_patterns(item) | dropped
            }),
            _ => false,
        };
    };
    let unrunnable = matches!(map.get("pattern"), Some(Value::String(pattern))
        if compile_exact(&serde_json::json!({ "pattern": pattern })).is_err());
    if unrunnable {
        map.remove("pattern");
    }
    let mut dropped = unrunnable;
    for (key, value) in map.iter_mut() {
        if !matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
            dropped |= drop_unrunnable_patterns(value);
        }
    }
    dropped
}

/// `schema` compiled as it is.
fn compile_exact(schema: &Value) -> Result<Compiled, String> {
    let mut compiler = boon::Compiler::new();
    compiler.use_loader(Box::new(Nowhere));
    let why = |e| unusable(e, schema);
    compiler.add_resource(BASE, schema.clone()).map_err(why)?;
    let mut schemas = boon::Schemas::new();
    let index = compiler.compile(BASE, &mut schemas).map_err(why)?;
    Ok(Compiled { schemas, index })
}

/// Why `schema` can't be compiled, in words that name where in it: a
/// metaschema's violations as [`Violation`]s of the schema (`/properties/
/// kind/enum: [] has less than 1 items`), and the schema itself as "the
/// schema" rather than the address it was given.
fn unusable(error: boon::CompileError, schema: &Value) -> String {
    match &error {
        boon::CompileError::ValidationError { src, .. } => {
            let mut found = Vec::new();
            words::leaves(src, schema, &mut found);
            if !found.is_empty() {
                return format!("it is not a valid JSON Schema: {}", join(&found));
            }
        }
        boon::CompileError::LoadUrlError { url, .. } => {
            return format!(
                "it refers to {url}, which is not loaded: a locked schema is checked on its own"
            );
        }
        _ => {}
    }
    error
        .to_string()
        .replace(&format!("{BASE}#"), "the schema")
        .replace(BASE, "the schema")
}

/// Compiled validators by the address and length of their schema's text.
/// They live as long as the process, as the `'static` texts do: the lookup
/// on every call is then a read lock and no reference count.
type Cache = RwLock<HashMap<(usize, usize), Option<&'static Compiled>, FixedState>>;

fn validator(schema: &'static str, unchecked: impl FnOnce(&str)) -> Option<&'static Compiled> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (schema.as_ptr() as usize, schema.len());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.read().ok()?.get(&key) {
        return *found;
    }
    let compiled = serde_json::from_str::<Value>(schema)
        .map_err(|e| format!("it is not JSON: {e}"))
        .and_then(|schema| compile(&schema));
    let mut cache = cache.write().ok()?;
    // Another thread may have compiled it meanwhile: keep the first (and
    // let the first tell why it can't be checked).
    match cache.entry(key) {
        Entry::Occupied(first) => *first.get(),
        Entry::Vacant(entry) => {
            if let Err(why) = &compiled {
                unchecked(why);
            }
            *entry.insert(compiled.ok().map(|v| &*Box::leak(Box::new(v))))
        }
    }
}

/// The first violations of `schema` by `instance`; empty when valid (or
/// not checkable).
pub fn violations(schema: &'static str, instance: &Value) -> Vec<Violation> {
    violations_or(schema, instance, |_| {})
}

/// [`violations`], and `unchecked` told why, once per process, if `schema`
/// can't be compiled (it is not valid JSON Schema, or refers to another
/// document): every value then passes unchecked.
pub fn violations_or(
    schema: &'static str,
    instance: &Value,
    unchecked: impl FnOnce(&str),
) -> Vec<Violation> {
    match validator(schema, unchecked) {
        Some(validator) => violations_of(validator, instance),
        None => Vec::new(),
    }
}

/// [`violations`] of a compiled schema (an unlocked tool's, compiled when
/// it was listed).
#[inline]
pub fn violations_of(compiled: &Compiled, instance: &Value) -> Vec<Violation> {
    // One walk for the common, shallow value; a second only for a deep one.
    let deep = deeper_than(instance, SHALLOW);
    if deep && deeper_than(instance, MAX_INSTANCE_DEPTH) {
        let at = too_deep_at(instance, MAX_INSTANCE_DEPTH);
        return vec![Violation::new(
            at,
            "depth",
            format!(
                "nested deeper than {MAX_INSTANCE_DEPTH} levels, more than is validated or sent"
            ),
        )];
    }
    let check = || match compiled.schemas.validate(instance, compiled.index) {
        Ok(()) => Vec::new(),
        Err(error) => {
            let mut found = Vec::new();
            words::leaves(&error, instance, &mut found);
            found.truncate(MAX_VIOLATIONS);
            found
        }
    };
    if deep {
        on_thread(DEEP_STACK, check)
    } else {
        check()
    }
}

/// The JSON pointer of the first object or array nested deeper than
/// `limit` (iterative: any depth is safe).
fn too_deep_at(instance: &Value, limit: usize) -> String {
    let mut stack = vec![(instance, 1usize, String::new())];
    while let Some((value, depth, pointer)) = stack.pop() {
        let children: Vec<(String, &Value)> = match value {
            Value::Object(map) => map
                .iter()
                .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
                .collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            _ => continue,
        };
        if depth > limit {
            return if pointer.is_empty() {
                "/".into()
            } else {
                pointer
            };
        }
        for (token, child) in children {
            stack.push((child, depth + 1, format!("{pointer}/{token}")));
        }
    }
    "/".into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SCHEMA: &str = r#"{"type":"object","properties":{"count":{"type":"number","minimum":1,"maximum":10}},"required":["count"]}"#;

    #[test]
    fn reports_pointer_and_rule() {
        assert!(violations(SCHEMA, &json!({"count": 3})).is_empty());
        let v = violations(SCHEMA, &json!({"count": 30}));
        assert_eq!(
            (v[0].pointer.as_str(), v[0].keyword.as_str()),
            ("/count", "maximum")
        );
        assert_eq!(
            v[0].to_string(),
            "/count: 30 is greater than the maximum of 10"
        );
        assert_eq!(v[0].given, Some(json!(30)));
        let v = violations(SCHEMA, &json!({}));
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].pointer.as_str(), v[0].keyword.as_str()),
            ("/", "required")
        );
        assert!(v[0].to_string().starts_with("/: "), "{v:?}");
        assert_eq!(v[0].given, Some(json!({})));
        // A value too large to carry is left out (the message names it).
        let big = "x".repeat(crate::violation::MAX_GIVEN_BYTES);
        let v = violations(SCHEMA, &json!({"count": big}));
        assert_eq!((v[0].keyword.as_str(), &v[0].given), ("type", &None));
        let v = violations(
            r#"{"properties":{"unit":{"enum":["c","f"]}}}"#,
            &json!({"unit": "k"}),
        );
        assert_eq!(
            (v[0].pointer.as_str(), v[0].keyword.as_str()),
            ("/unit", "enum")
        );
    }

    #[test]
    fn deep_instances_are_violations_not_overflows() {
        const TREE: &str =
            r##"{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"integer"}}}"##;
        // Built by moving each level in (`json!` would copy it, recursively).
        let nest = |levels: usize| {
            let mut v = json!({"n": 1});
            for _ in 1..levels {
                let mut parent = serde_json::Map::new();
                parent.insert("child".into(), v);
                v = Value::Object(parent);
            }
            v
        };
        // As deep as may be: validated (and wrong where it is wrong).
        let ok = nest(MAX_INSTANCE_DEPTH);
        assert!(violations(TREE, &ok).is_empty());
        let mut bad = nest(MAX_INSTANCE_DEPTH - 1);
        bad["n"] = json!("one");
        let v = violations(TREE, &bad);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].to_string(), r#"/n: "one" is not of type "integer""#);
        assert_eq!(v[0].keyword, "type");
        // Far deeper: the validator would recurse 100,000 levels.
        let deep = nest(100_000);
        let v = violations(TREE, &deep);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].pointer, "/child".repeat(MAX_INSTANCE_DEPTH));
        assert_eq!(v[0].keyword, "depth");
        assert_eq!(
            v[0].message,
            "nested deeper than 128 levels, more than is validated or sent"
        );
        crate::lock::depth::drop_deep(deep);
    }

    #[test]
    fn uncompilable_schema_checks_nothing_and_says_why_once() {
        const BAD: &str = r#"{"$ref": "https://example.com/never-fetched.json"}"#;
        let mut told = Vec::new();
        for _ in 0..3 {
            let found = violations_or(BAD, &json!({"anything": 1}), |why| {
                told.push(why.to_owned())
            });
            assert!(found.is_empty());
        }
        assert_eq!(
            told,
            ["it refers to https://example.com/never-fetched.json, which is not loaded: a locked schema is checked on its own"]
        );
        // A schema that compiles says nothing.
        const GOOD: &str = r#"{"type": "integer"}"#;
        let found = violations_or(GOOD, &json!("x"), |why| panic!("{why}"));
        assert_eq!(found[0].keyword, "type");
        // Nor does one that is not JSON more than once.
        const TORN: &str = r#"{"type": "#;
        let mut told = 0;
        for _ in 0..2 {
            violations_or(TORN, &json!(1), |why| {
                assert!(why.starts_with("it is not JSON: "), "{why}");
                told += 1;
            });
        }
        assert_eq!(told, 1);
    }

    #[test]
    fn documents_on_disk_are_never_read() {
        // A schema on disk that refuses everything: were it read, 1 would
        // break it.
        let dir = std::env::temp_dir().join(format!("mcpbind-validate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("refuse.json");
        std::fs::write(&file, "false").unwrap();
        let absolute = json!({"$ref": format!("file://{}", file.display())});
        let relative = json!({"$id": format!("file://{}/", dir.display()), "$ref": "refuse.json"});
        for schema in [absolute, relative] {
            let error = compile(&schema).unwrap_err();
            assert!(
                error.contains("refuse.json") && error.contains("is not loaded"),
                "{error}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
        // A schema's own `$ref`s resolve, with or without an `$id`.
        for schema in [
            json!({"$defs": {"n": {"minimum": 2}}, "$ref": "#/$defs/n"}),
            json!({"$id": "https://example.com/s", "$defs": {"n": {"minimum": 2}}, "$ref": "#/$defs/n"}),
        ] {
            let compiled = compile(&schema).unwrap();
            let v = violations_of(&compiled, &json!(1));
            assert_eq!((v.len(), v[0].keyword.as_str()), (1, "minimum"), "{schema}");
        }
    }

    #[test]
    fn a_pattern_the_engine_cant_run_is_dropped_and_the_rest_checked() {
        // A lookahead (ECMA-262 has it; Rust's regex does not), beside a
        // pattern that runs and a value that only looks like a schema.
        let schema = json!({"properties": {
            "name": {"type": "string", "maxLength": 5, "pattern": "^(?!.*linear).*$"},
            "url": {"pattern": "^https://"},
            "tag": {"const": {"pattern": "(?!x)"}}}});
        let compiled = compile(&schema).unwrap();
        let check = |v: Value| -> Vec<String> {
            violations_of(&compiled, &v)
                .into_iter()
                .map(|v| v.keyword)
                .collect()
        };
        assert_eq!(check(json!({"name": "linear"})), ["maxLength"]);
        assert!(check(json!({"name": "linea"})).is_empty());
        assert_eq!(check(json!({"url": "http://x"})), ["pattern"]);
        assert!(check(json!({"tag": {"pattern": "(?!x)"}})).is_empty());
        assert_eq!(check(json!({"tag": {}})), ["const"]);
        // A schema wrong for another reason stays uncompiled.
        assert!(compile(&json!({"pattern": "(?!x)", "minLength": "two"})).is_err());
    }

    fn one(schema: Value, instance: Value) -> Vec<(String, String, String)> {
        let compiled = compile(&schema).unwrap();
        violations_of(&compiled, &instance)
            .into_iter()
            .map(|v| (v.pointer, v.keyword, v.message))
            .collect()
    }

    #[test]
    fn each_violation_says_where_which_keyword_and_what() {
        let v = |p: &str, k: &str, m: &str| vec![(p.to_owned(), k.to_owned(), m.to_owned())];
        let object =
            json!({"type": "object", "required": ["a", "b"], "properties": {"a": {}, "b": {}}});
        assert_eq!(
            one(object, json!({})),
            [
                v("/", "required", r#""a" is a required property"#),
                v("/", "required", r#""b" is a required property"#)
            ]
            .concat()
        );
        let closed = json!({"properties": {"a": {}}, "additionalProperties": false});
        assert_eq!(
            one(closed, json!({"a": 1, "x": 2})),
            v(
                "/",
                "additionalProperties",
                r#"additional properties are not allowed ("x" was unexpected)"#
            )
        );
        let union =
            json!({"properties": {"u": {"anyOf": [{"enum": ["c", "f"]}, {"type": "null"}]}}});
        assert_eq!(
            one(union, json!({"u": "k"})),
            v(
                "/u",
                "anyOf",
                r#""k" is not valid under any of the schemas listed in the 'anyOf' keyword"#
            )
        );
        assert_eq!(
            one(json!({"items": {"pattern": "^a"}}), json!(["ab", "b/c"])),
            v("/1", "pattern", r#""b/c" does not match "^a""#)
        );
        assert_eq!(
            one(
                json!({"properties": {"a/b": {"minItems": 2}}}),
                json!({"a/b": [1]})
            ),
            v("/a~1b", "minItems", "[1] has less than 2 items")
        );
        assert_eq!(
            one(
                json!({"allOf": [{"minimum": 5}, {"multipleOf": 2}]}),
                json!(3)
            ),
            [
                v("/", "minimum", "3 is less than the minimum of 5"),
                v("/", "multipleOf", "3 is not a multiple of 2")
            ]
            .concat()
        );
        assert_eq!(
            one(json!({"enum": ["c", "f"]}), json!("k")),
            v("/", "enum", r#""k" is not one of ["c","f"]"#)
        );
        // At most three, and a long value is cut in the message (whole in
        // `given`, up to its own limit).
        let many = json!({"required": ["a", "b", "c", "d"]});
        assert_eq!(one(many, json!({})).len(), MAX_VIOLATIONS);
        let long = "é".repeat(100);
        let found = violations_of(&compile(&json!({"maxLength": 3})).unwrap(), &json!(long));
        let quoted = found[0]
            .message
            .strip_suffix(" is longer than 3 characters")
            .unwrap();
        assert!(
            quoted.ends_with('…') && quoted.len() <= 80 + '…'.len_utf8(),
            "{quoted}"
        );
        assert_eq!(found[0].given, Some(json!(long)));
    }

    #[test]
    fn deep_instances_of_stack_hungry_schemas_are_validated() {
        // Each level goes through `anyOf`, `allOf` and `$ref`: the most
        // stack per level measured (see `SHALLOW`).
        let schema = json!({"type": "object", "properties": {
            "child": {"anyOf": [{"type": "string"}, {"allOf": [{"$ref": "#"}]}]},
            "n": {"type": "integer"}}});
        let compiled = compile(&schema).unwrap();
        let mut value = json!({"n": "one"});
        for _ in 1..MAX_INSTANCE_DEPTH {
            let mut parent = serde_json::Map::new();
            parent.insert("child".into(), value);
            value = Value::Object(parent);
        }
        let found = violations_of(&compiled, &value);
        assert_eq!(found.len(), 1);
        // The outermost `anyOf` fails: no branch took the value all the
        // way down.
        assert_eq!(
            (found[0].pointer.as_str(), found[0].keyword.as_str()),
            ("/child", "anyOf")
        );
        // With the deepest value right, all of it is valid.
        let mut inner = &mut value;
        while inner.get("child").is_some() {
            inner = &mut inner["child"];
        }
        inner["n"] = json!(1);
        assert!(violations_of(&compiled, &value).is_empty());
    }

    #[test]
    fn every_schema_of_the_real_world_corpus_compiles() {
        // The tools/list of 66 public MCP servers (the generator's corpus):
        // a schema that did not compile would go unchecked, silently.
        let lockfile = crate::lock::corpus();
        let mut schemas = 0;
        let mut failed = Vec::new();
        for (server, lock) in &lockfile.servers {
            for tool in &lock.tools {
                for key in ["inputSchema", "outputSchema"] {
                    let Some(schema) = tool.definition.get(key) else {
                        continue;
                    };
                    schemas += 1;
                    if let Err(e) = compile(schema) {
                        failed.push(format!("{server}.{}: {key}: {e}", tool.definition["name"]));
                    }
                }
            }
        }
        assert!(schemas > 1_776, "{schemas}");
        // `"enum": []` accepts nothing, and draft-07 says an enum has at
        // least one value: the server refuses every call anyway.
        let known = r#"netlify."netlify-coding-rules": inputSchema: it is not a valid JSON Schema: /properties/creationType/enum: [] has less than 1 items"#;
        assert_eq!(failed, [known], "{} of {schemas}", failed.len());
    }
}
