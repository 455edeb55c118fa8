//! The JSON Schema Test Suite (non-optional files of one draft) through two
//! validators, each used as mcpbind would use it: the default options of the
//! draft (format an annotation in 2020-12, an assertion in draft-07: both
//! crates' defaults, and what `jsonschema::validator_for` does in
//! mcpbind-model), no network.
//!
//!   validator-suite SUITE/json/tests/draft2020-12 [--remotes SUITE/json/remotes] [--draft7]
//!
//! Without `--remotes`, `refRemote.json` and every group whose schema names
//! `http://localhost:1234` (the suite's stand-in remote server) are skipped
//! and counted. With it, those resources are served from the suite's
//! `remotes/` folder in memory (no fetch) and nothing is skipped.
//! Prints one line per candidate; failures go to stderr.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::Value;

const REMOTE: &str = "http://localhost:1234/";

#[derive(Default)]
struct Tally {
    pass: usize,
    fail: usize,
    compile_fail_groups: usize,
    compile_fail_tests: usize,
    panics: usize,
}

/// What one candidate says of one group: `Err` if the schema did not
/// compile, else the validity of each test's data.
type Outcome = Result<Vec<bool>, String>;

fn load(remotes: &Option<PathBuf>, uri: &str) -> Option<Value> {
    let rel = uri.strip_prefix(REMOTE)?;
    let rel = rel.split('#').next()?;
    let text = std::fs::read_to_string(remotes.as_ref()?.join(rel)).ok()?;
    serde_json::from_str(&text).ok()
}

struct Remotes(Option<PathBuf>);

impl jsonschema::Retrieve for Remotes {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        load(&self.0, uri.as_str()).ok_or_else(|| format!("not served: {uri}").into())
    }
}

impl boon::UrlLoader for Remotes {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        load(&self.0, url).ok_or_else(|| format!("not served: {url}").into())
    }
}

fn with_jsonschema(
    schema: &Value,
    data: &[&Value],
    draft7: bool,
    remotes: &Option<PathBuf>,
) -> Outcome {
    // mcpbind: `jsonschema::validator_for(&schema)` (the draft from `$schema`,
    // else 2020-12). A draft-07 tool schema names its draft; the suite's
    // draft7 cases mostly don't, so the draft is given here.
    let mut options = jsonschema::options();
    if draft7 {
        options = options.with_draft(jsonschema::Draft::Draft7);
    }
    if remotes.is_some() {
        options = options.with_retriever(Remotes(remotes.clone()));
    }
    let v = options.build(schema).map_err(|e| e.to_string())?;
    Ok(data.iter().map(|d| v.is_valid(d)).collect())
}

const ROOT: &str = "http://mcpbind.invalid/root.json";

fn with_boon(schema: &Value, data: &[&Value], draft7: bool, remotes: &Option<PathBuf>) -> Outcome {
    let mut schemas = boon::Schemas::new();
    let mut c = boon::Compiler::new();
    c.set_default_draft(if draft7 {
        boon::Draft::V7
    } else {
        boon::Draft::V2020_12
    });
    c.use_loader(Box::new(Remotes(remotes.clone())));
    c.add_resource(ROOT, schema.clone())
        .map_err(|e| e.to_string())?;
    let idx = c
        .compile(ROOT, &mut schemas)
        .map_err(|e| format!("{e:#}"))?;
    Ok(data
        .iter()
        .map(|d| schemas.validate(d, idx).is_ok())
        .collect())
}

type Candidate = fn(&Value, &[&Value], bool, &Option<PathBuf>) -> Outcome;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(args.first().expect("the suite's draft folder"));
    let draft7 = args.iter().any(|a| a == "--draft7");
    let remotes = args
        .iter()
        .position(|a| a == "--remotes")
        .map(|i| PathBuf::from(&args[i + 1]));
    // Deep recursion in some cases: a big stack, as mcpbind's deep passes have.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(&dir, draft7, remotes))
        .unwrap()
        .join()
        .unwrap();
}

fn run(dir: &Path, draft7: bool, remotes: Option<PathBuf>) {
    let candidates: [(&str, Candidate); 2] = [
        (
            "jsonschema 0.61 (default-features = false)",
            with_jsonschema,
        ),
        ("boon 0.6", with_boon),
    ];
    let mut tallies: Vec<Tally> = candidates.iter().map(|_| Tally::default()).collect();
    let (mut total, mut skipped_tests, mut skipped_groups) = (0, 0, 0);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    std::panic::set_hook(Box::new(|_| {}));
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let groups: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for group in groups.as_array().unwrap() {
            let schema = &group["schema"];
            let tests = group["tests"].as_array().unwrap();
            let needs_remote =
                name == "refRemote.json" || schema.to_string().contains("localhost:1234");
            if remotes.is_none() && needs_remote {
                skipped_groups += 1;
                skipped_tests += tests.len();
                continue;
            }
            total += tests.len();
            let data: Vec<&Value> = tests.iter().map(|t| &t["data"]).collect();
            let expected: Vec<bool> = tests
                .iter()
                .map(|t| t["valid"].as_bool().unwrap())
                .collect();
            for ((cand, f), tally) in candidates.iter().zip(tallies.iter_mut()) {
                let gd = group["description"].as_str().unwrap_or("");
                match catch_unwind(AssertUnwindSafe(|| f(schema, &data, draft7, &remotes))) {
                    Err(_) => {
                        tally.panics += 1;
                        tally.fail += tests.len();
                        eprintln!("{cand}\t{name}\t{gd}\tPANIC");
                    }
                    Ok(Err(e)) => {
                        tally.compile_fail_groups += 1;
                        tally.compile_fail_tests += tests.len();
                        tally.fail += tests.len();
                        eprintln!("{cand}\t{name}\t{gd}\tCOMPILE: {}", e.replace('\n', " "));
                    }
                    Ok(Ok(got)) => {
                        for ((g, want), t) in got.iter().zip(&expected).zip(tests) {
                            if g == want {
                                tally.pass += 1;
                            } else {
                                tally.fail += 1;
                                eprintln!(
                                    "{cand}\t{name}\t{gd}\t{}\texpected valid={want}",
                                    t["description"].as_str().unwrap_or("")
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    println!(
        "{}: {} tests run, {} skipped in {} groups (remote refs){}",
        dir.display(),
        total,
        skipped_tests,
        skipped_groups,
        if remotes.is_some() {
            ", remotes served from the suite in memory"
        } else {
            ""
        }
    );
    for ((cand, _), t) in candidates.iter().zip(&tallies) {
        println!(
            "{cand}: {} passed, {} failed ({:.1}%); schemas not compiled: {} groups ({} tests); panics: {}",
            t.pass,
            t.fail,
            100.0 * t.pass as f64 / total as f64,
            t.compile_fail_groups,
            t.compile_fail_tests,
            t.panics
        );
    }
    errors_demo();
}

/// What each gives for a failing instance: the instance pointer and a message.
fn errors_demo() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1}}, "required": ["n"]}}},
        "additionalProperties": false
    });
    let bad = serde_json::json!({"items": [{"n": 1}, {"n": 0}, {}], "extra": true});
    println!("\nerrors for {bad}:");
    let v = jsonschema::validator_for(&schema).unwrap();
    for e in v.iter_errors(&bad) {
        println!(
            "  jsonschema: pointer {:?} keyword {} message {}",
            e.instance_path().to_string(),
            e.kind().keyword(),
            e
        );
    }
    let mut schemas = boon::Schemas::new();
    let mut c = boon::Compiler::new();
    c.add_resource(ROOT, schema).unwrap();
    let idx = c.compile(ROOT, &mut schemas).unwrap();
    let e = schemas.validate(&bad, idx).unwrap_err();
    fn leaves(e: &boon::ValidationError, depth: usize) {
        if e.causes.is_empty() {
            println!(
                "  boon: pointer {:?} keyword-location {} message {}",
                e.instance_location.to_string(),
                e.schema_url,
                e.kind
            );
        }
        for c in &e.causes {
            leaves(c, depth + 1);
        }
    }
    leaves(&e, 0);
    println!(
        "  boon (top-level Display): {}",
        e.to_string().replace('\n', " | ")
    );
}
