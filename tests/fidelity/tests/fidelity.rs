//! Schema fidelity: each case's valid instances, as `{"value": instance}`,
//! parse into the case's generated params type and serialize back to the
//! same JSON (numbers compared by value: `1.0 == 1`); for the cases named in
//! issue 8 (`named.json`), each invalid instance is refused by the type.
//!
//! The pairs that fail today are listed in `known_failures.txt`, which the
//! test checks exactly: a failure not listed fails the test, and so does a
//! listed pair that now passes (shrink the list). To rewrite the list:
//! `MCPBIND_BLESS=1 cargo test -p mcpbind-fidelity-test`, then review
//! `git diff`.

// The one bless helper (`MCPBIND_BLESS=1` only), shared with the other
// golden tests.
#[path = "../../../codegen/tests/support/golden.rs"]
mod golden;

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;

include!(concat!(env!("OUT_DIR"), "/dispatch.rs"));

/// How arguments become a params type: the one place to point at the
/// runtime's own parse function.
fn parse<T: DeserializeOwned>(v: Value) -> Result<T, String> {
    // The runtime's own parse (arguments from a model, structured outputs).
    mcpbind::json::from_value(v).map_err(|e| e.to_string())
}

/// Parses `arguments` into `T` and serializes it back.
fn roundtrip<T: DeserializeOwned + serde::Serialize>(arguments: Value) -> Result<Value, String> {
    let parsed: T = parse(arguments)?;
    serde_json::to_value(&parsed).map_err(|e| format!("cannot serialize: {e}"))
}

/// JSON equality with numbers compared by value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || (x.as_f64().is_some() && x.as_f64() == y.as_f64())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(dir().join(file)).expect("read cases");
    let value: Value = serde_json::from_str(&text).expect("cases are JSON");
    value["cases"].as_array().expect("cases").clone()
}

/// One checked pair: `<case>/<valid|invalid>/<index>`, a readable note, and
/// whether it passed.
struct Outcome {
    key: String,
    note: String,
    passed: bool,
}

fn run_case(case: &Value, check_invalid: bool, out: &mut Vec<Outcome>) {
    let id = case["id"].as_str().expect("id");
    let note = format!(
        "{} {}",
        case["file"].as_str().unwrap_or("named"),
        case["description"].as_str().unwrap_or("")
    );
    let mut arguments: Vec<(&str, Value)> = Vec::new();
    for v in case["valid"].as_array().expect("valid") {
        arguments.push(("valid", serde_json::json!({ "value": v })));
    }
    for v in case["valid_arguments"].as_array().into_iter().flatten() {
        arguments.push(("valid", v.clone()));
    }
    let mut index = [0usize; 2];
    for (kind, args) in arguments {
        let result = dispatch(id, args.clone()).expect("every case has a dispatch arm");
        let passed = matches!(&result, Ok(back) if same(back, &args));
        out.push(Outcome {
            key: format!("{id}/{kind}/{}", index[0]),
            note: format!("{note}: {args} -> {result:?}"),
            passed,
        });
        index[0] += 1;
    }
    if !check_invalid {
        return;
    }
    for v in case["invalid"].as_array().expect("invalid") {
        let args = serde_json::json!({ "value": v });
        let result = dispatch(id, args.clone()).expect("every case has a dispatch arm");
        out.push(Outcome {
            key: format!("{id}/invalid/{}", index[1]),
            note: format!("{note}: {args} accepted as {result:?}"),
            passed: result.is_err(),
        });
        index[1] += 1;
    }
}

fn summary(what: &str, outcomes: &[Outcome]) {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    println!(
        "{what}: {passed}/{} pass ({:.1}%)",
        outcomes.len(),
        100.0 * passed as f64 / outcomes.len().max(1) as f64
    );
}

/// The listed pairs; `<id>/compile` lines (cases left out of the bindings by
/// build.rs) are returned apart.
fn known_failures() -> (BTreeSet<String>, Vec<String>) {
    let text = std::fs::read_to_string(dir().join("known_failures.txt")).unwrap_or_default();
    let lines = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned);
    let (compile, pairs): (Vec<String>, Vec<String>) = lines.partition(|l| l.ends_with("/compile"));
    (pairs.into_iter().collect(), compile)
}

fn bless(outcomes: &[Outcome], compile: &[String]) {
    let mut text = String::from(
        "# (case, instance) pairs the generated types get wrong today; checked exactly by\n\
         # tests/fidelity.rs. Remove a line once it passes. Regenerate: MCPBIND_BLESS=1.\n\
         # `<case>/compile`: the case's bindings do not compile; build.rs leaves it out.\n",
    );
    for c in compile {
        text.push_str(&format!("{c}\n"));
    }
    for o in outcomes.iter().filter(|o| !o.passed) {
        let note: String = o.note.chars().take(160).collect();
        text.push_str(&format!("{}  # {}\n", o.key, note.replace('\n', " ")));
    }
    std::fs::write(dir().join("known_failures.txt"), text).expect("write known_failures.txt");
}

#[test]
fn instances_roundtrip() {
    let mut suite = Vec::new();
    for case in cases("suite.json") {
        run_case(&case, false, &mut suite);
    }
    let mut named = Vec::new();
    for case in cases("named.json") {
        run_case(&case, true, &mut named);
    }
    summary("JSON Schema Test Suite (valid instances)", &suite);
    summary("issue 8 cases (valid and invalid instances)", &named);
    let all: Vec<Outcome> = suite.into_iter().chain(named).collect();
    let (known, compile) = known_failures();
    if golden::bless() {
        bless(&all, &compile);
        return;
    }
    let new: Vec<_> = all
        .iter()
        .filter(|o| !o.passed && !known.contains(&o.key))
        .map(|o| format!("  {}  {}", o.key, o.note))
        .collect();
    let fixed: Vec<_> = all
        .iter()
        .filter(|o| o.passed && known.contains(&o.key))
        .map(|o| format!("  {}", o.key))
        .collect();
    let unknown: Vec<_> = known
        .iter()
        .filter(|k| !all.iter().any(|o| &o.key == *k))
        .map(|k| format!("  {k}"))
        .collect();
    assert!(
        new.is_empty() && fixed.is_empty() && unknown.is_empty(),
        "known_failures.txt is out of date\nnew failures:\n{}\nnow passing (remove from the list):\n{}\nno such pair:\n{}",
        new.join("\n"),
        fixed.join("\n"),
        unknown.join("\n")
    );
}
