//! Generates `OUT_DIR/corpus.rs` (the whole corpus lockfile)
//! and `OUT_DIR/fixtures.rs` (every `codegen/tests/fixtures/*.json`), and
//! records the generation time and size in `OUT_DIR/stats.txt`.
use std::path::{Path, PathBuf};
use std::time::Instant;

use mcpbind_codegen::{GenerationSettings, Generator};
use mcpbind_model::config::Annotations;
use mcpbind_model::lock::{Lockfile, ServerLock};
use serde_json::Value;

fn repo_path(relative: &str) -> PathBuf {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("manifest dir"));
    dir.join("../..").join(relative)
}

/// A fixture `{server, server_info?, tools, prompts?, resource_templates?}` as a one-server lockfile entry
/// (as `codegen/tests/generate.rs` does).
/// `"annotations": "enforce"` in a fixture binds its server so.
fn fixture_lock(path: &Path) -> (String, ServerLock, bool) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let fixture: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()));
    let server = fixture["server"].as_str().expect("fixture has a `server`");
    let info = fixture
        .get("server_info")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"name": server, "version": "0.0.0"}));
    let tools = fixture["tools"]
        .as_array()
        .expect("fixture has `tools`")
        .clone();
    let list = |key: &str| {
        fixture
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut lock = ServerLock::new(server, "2025-06-18".to_owned(), info, tools)
        .and_then(|l| l.with_prompts(server, list("prompts")))
        .and_then(|l| l.with_resource_templates(server, list("resource_templates")))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    lock.completions = fixture.get("completions") == Some(&Value::Bool(true));
    let enforce = fixture.get("annotations").and_then(Value::as_str) == Some("enforce");
    (server.to_owned(), lock, enforce)
}

fn fixtures() -> (Lockfile, GenerationSettings) {
    let dir = repo_path("codegen/tests/fixtures");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut lockfile = Lockfile::new();
    let mut settings = GenerationSettings::new();
    for path in paths {
        println!("cargo:rerun-if-changed={}", path.display());
        let (name, lock, enforce) = fixture_lock(&path);
        if enforce {
            settings.with_annotations(name.clone(), Annotations::Enforce);
        }
        lockfile.servers.insert(name, lock);
    }
    (lockfile, settings)
}

fn corpus() -> Lockfile {
    let path = repo_path("codegen/tests/corpus/servers.lock");
    println!("cargo:rerun-if-changed={}", path.display());
    Lockfile::read(&path).expect("the corpus lockfile reads")
}

/// Generates `lockfile` into `OUT_DIR/<file>`; returns a line of statistics.
fn generate(lockfile: &Lockfile, settings: &GenerationSettings, file: &str) -> String {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    let start = Instant::now();
    let mut generator = Generator::new(settings);
    let text = generator
        .generate_text(lockfile, Path::new(file))
        .unwrap_or_else(|e| panic!("generating {file}: {e}"));
    let elapsed = start.elapsed();
    std::fs::write(out.join(file), &text).expect("write bindings");
    let tools: usize = lockfile.servers.values().map(|s| s.tools.len()).sum();
    format!(
        "{file}: {} servers, {tools} tools, {} lines, {:.1} MB, generated in {:.2} s, {} warnings\n",
        lockfile.servers.len(),
        text.lines().count(),
        text.len() as f64 / 1e6,
        elapsed.as_secs_f64(),
        generator.warnings().len()
    )
}

fn main() {
    // The whole corpus is ~290k lines: `cargo check` of it takes minutes and
    // GBs, so it is bound only with feature `corpus` (CI runs that as a step
    // of its own); the fixtures always are.
    let corpus = if std::env::var_os("CARGO_FEATURE_CORPUS").is_some() {
        corpus()
    } else {
        Lockfile::new()
    };
    let mut stats = generate(&corpus, &GenerationSettings::new(), "corpus.rs");
    let (fixtures, settings) = fixtures();
    stats += &generate(&fixtures, &settings, "fixtures.rs");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("stats.txt"), stats).expect("write stats");
}
