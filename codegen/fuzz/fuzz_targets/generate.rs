//! Arbitrary JSON → the generator: it never panics, and what it emits
//! always parses.
//!
//! The bytes are read as JSON, and the value is used three ways: as a tool's
//! `inputSchema`, as its `outputSchema`, and (when it is an array) as a whole
//! `tools/list`. Bytes that aren't JSON are used as a tool name and
//! description.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcpbind_codegen::{GenerationSettings, Generator};
use mcpbind_model::lock::{Lockfile, ServerLock};
use serde_json::{json, Value};

fn check(tools: Vec<Value>) {
    // A tools/list that can't be locked (no name, a name twice) is an error,
    // not a generation input.
    let Ok(server) = ServerLock::new("fuzz", "2025-06-18".into(), json!({}), tools) else {
        return;
    };
    let mut lockfile = Lockfile::new();
    lockfile.servers.insert("fuzz".into(), server);
    let mut generator = Generator::new(&GenerationSettings::new());
    let text = generator
        .generate_text(&lockfile, Path::new("mcpbind.lock"))
        .expect("generation succeeds");
    if let Err(e) = syn::parse_file(&text) {
        panic!("generated code does not parse: {e}\n{text}");
    }
}

fuzz_target!(|data: &[u8]| {
    match serde_json::from_slice::<Value>(data) {
        Ok(value) => {
            check(vec![json!({"name": "t", "inputSchema": value})]);
            check(vec![json!({
                "name": "t",
                "inputSchema": {"type": "object", "properties": {"p": value}},
                "outputSchema": value,
            })]);
            if let Value::Array(tools) = value {
                check(tools);
            }
        }
        Err(_) => {
            let text = String::from_utf8_lossy(data);
            check(vec![json!({
                "name": text,
                "title": text,
                "description": text,
                "inputSchema": {"type": "object", "properties": {text.as_ref(): {"description": text}}},
            })]);
        }
    }
});
