//! Generates one server module per fidelity case (`suite.json`,
//! `named.json`) into `OUT_DIR/fidelity.rs`, and `OUT_DIR/dispatch.rs`: a
//! function that round-trips arguments through a case's params type with the
//! test's own `roundtrip` function, and one that gives a case's locked input
//! schema (for `validate_input`).
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcpbind_codegen::{GenerationSettings, Generator};
use mcpbind_model::lock::{Lockfile, ServerLock};
use serde_json::{json, Value};

fn read_cases(path: &Path) -> Vec<Value> {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let value: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()));
    value["cases"].as_array().expect("a `cases` array").clone()
}

/// Cases whose bindings do not compile today: `<id>/compile` lines of
/// `known_failures.txt`. They are left out of the bindings, and their
/// dispatch arm answers an error (so their instances count as failures).
fn compile_failures(path: &Path) -> Vec<String> {
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split('#').next()?.trim().strip_suffix("/compile"))
        .map(str::to_owned)
        .collect()
}

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let mut cases = read_cases(&dir.join("suite.json"));
    cases.extend(read_cases(&dir.join("named.json")));

    let broken = compile_failures(&dir.join("known_failures.txt"));
    let mut lockfile = Lockfile::new();
    let mut dispatch = String::from(
        "/// Round-trips `arguments` through case `id`'s params type; `None` for an\n\
         /// unknown case.\n\
         fn dispatch(id: &str, arguments: Value) -> Option<Result<Value, String>> {\n\
         \x20   Some(match id {\n",
    );
    let mut schemas = String::from(
        "/// Case `id`'s locked input schema (what `validate_input` checks a call\n\
         /// against); `None` for an unknown case or one left out.\n\
         fn locked_schema(id: &str) -> Option<&'static str> {\n\
         \x20   Some(match id {\n",
    );
    for case in &cases {
        let id = case["id"].as_str().expect("case id");
        if broken.iter().any(|b| b == id) {
            writeln!(
                dispatch,
                "        {id:?} => Err(\"left out: its bindings do not compile\".to_owned()),"
            )
            .unwrap();
            continue;
        }
        let tool = json!({"name": "t", "inputSchema": case["input_schema"]});
        let info = json!({"name": id, "version": "0.0.0"});
        let lock = ServerLock::new(id, "2025-06-18".to_owned(), info, vec![tool])
            .unwrap_or_else(|e| panic!("case {id}: {e}"));
        lockfile.servers.insert(id.to_owned(), lock);
        writeln!(
            dispatch,
            "        {id:?} => roundtrip::<<::mcpbind_fidelity_test::{id}::tools::T as ::mcpbind::Tool>::Input>(arguments),"
        )
        .unwrap();
        writeln!(
            schemas,
            "        {id:?} => <::mcpbind_fidelity_test::{id}::tools::T as ::mcpbind::Tool>::META.input_schema,"
        )
        .unwrap();
    }
    dispatch.push_str("        _ => return None,\n    })\n}\n");
    schemas.push_str("        _ => return None,\n    })\n}\n");
    dispatch.push_str(&schemas);

    let mut generator = Generator::new(&GenerationSettings::new());
    let text = generator
        .generate_text(&lockfile, Path::new("fidelity.lock"))
        .expect("generation succeeds");
    std::fs::write(out.join("fidelity.rs"), text).expect("write fidelity.rs");
    std::fs::write(out.join("dispatch.rs"), dispatch).expect("write dispatch.rs");
}
