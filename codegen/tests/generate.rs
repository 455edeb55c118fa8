//! Golden tests of the generator over a corpus of schemas that real (and
//! hostile) servers send.
//!
//! Each `tests/fixtures/<stem>.json` is `{"server", "server_info"?, "tools":
//! [raw tool objects], "prompts"?, "resource_templates"?, "completions"?}`; the test locks it with [`ServerLock::new`] (so the
//! hashes are right by construction), generates, and checks that generation
//! succeeds, parses, is deterministic, names every loosened spot by JSON
//! pointer, and matches `tests/output/<stem>.rs`. That the same code compiles,
//! warning-free and clippy-clean, with `mcpbind` as the only dependency is
//! proven by building `tests/only-mcpbind`, which binds every fixture (in
//! the workspace's own build and clippy run, with no second target dir).
//!
//! To accept changed output: `MCPBIND_BLESS=1 cargo test -p
//! mcpbind-codegen --test generate`, then review `git diff`.

#[path = "support/golden.rs"]
mod golden;

use std::path::{Path, PathBuf};

use golden::assert_golden;
use mcpbind_codegen::{GenerationSettings, Generator, Warning};
use mcpbind_model::config::Annotations;
use mcpbind_model::lock::{Lockfile, ServerLock};
use serde_json::Value;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Builds a lockfile from a fixture: `{"server", "server_info"?, "tools"}`.
fn lockfile_from_fixture(fixture: &Value) -> Lockfile {
    let server = fixture["server"].as_str().expect("fixture has a `server`");
    let info = fixture
        .get("server_info")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({"name": server, "version": "0.0.0"}));
    let tools = fixture["tools"].as_array().expect("fixture has `tools`");
    let list = |key: &str| fixture.get(key).and_then(Value::as_array).cloned();
    let mut lock = ServerLock::new(server, "2025-06-18".to_owned(), info, tools.clone())
        .expect("fixture tools lock")
        .with_prompts(server, list("prompts").unwrap_or_default())
        .expect("fixture prompts lock")
        .with_resource_templates(server, list("resource_templates").unwrap_or_default())
        .expect("fixture templates lock");
    lock.completions = fixture.get("completions") == Some(&Value::Bool(true));
    let mut lockfile = Lockfile::new();
    lockfile.servers.insert(server.to_owned(), lock);
    lockfile
}

/// The settings a fixture asks for: `"annotations": "enforce"` binds its
/// server with the tools' annotations enforced.
fn settings_from_fixture(fixture: &Value) -> GenerationSettings {
    let mut settings = GenerationSettings::new();
    match fixture.get("annotations").and_then(Value::as_str) {
        None => {}
        Some("enforce") => {
            let server = fixture["server"].as_str().expect("fixture has a `server`");
            settings.with_annotations(server, Annotations::Enforce);
        }
        Some(other) => panic!("fixture annotations `{other}`: only `enforce` is known"),
    }
    settings
}

fn fixtures() -> Vec<(String, Lockfile, GenerationSettings)> {
    let dir = manifest_dir().join("tests/fixtures");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures dir") {
        let path = entry.expect("dir entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).expect("read fixture");
        let value: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()));
        out.push((
            stem,
            lockfile_from_fixture(&value),
            settings_from_fixture(&value),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no fixtures in {}", dir.display());
    out
}

fn generate(lockfile: &Lockfile) -> (String, Vec<Warning>) {
    generate_with(lockfile, &GenerationSettings::new())
}

fn generate_with(lockfile: &Lockfile, settings: &GenerationSettings) -> (String, Vec<Warning>) {
    let mut generator = Generator::new(settings);
    let text = generator
        .generate_text(lockfile, Path::new("mcpbind.lock"))
        .expect("generation succeeds");
    (text, generator.warnings().to_vec())
}

fn check_warnings(stem: &str, lockfile: &Lockfile, warnings: &[Warning]) {
    for w in warnings {
        let server = lockfile
            .servers
            .get(&w.server)
            .unwrap_or_else(|| panic!("{stem}: warning names unknown server: {w}"));
        assert!(
            server.tools.iter().any(|t| t.name == w.tool),
            "{stem}: warning names unknown tool: {w}"
        );
        assert!(
            w.pointer.starts_with("/inputSchema") || w.pointer.starts_with("/outputSchema"),
            "{stem}: warning pointer is not into a schema: {w}"
        );
        assert!(!w.message.is_empty(), "{stem}: empty warning message");
    }
}

/// The golden: the generated text, with the warnings listed on top as
/// comments so that a reviewer sees what was loosened.
fn golden_text(text: &str, warnings: &[Warning]) -> String {
    let mut out = String::new();
    for w in warnings {
        let line = w.to_string().replace(['\n', '\r'], " ");
        out.push_str(&format!("// warning: {}\n", line.escape_default()));
    }
    if !warnings.is_empty() {
        out.push('\n');
    }
    out.push_str(text);
    out
}

/// `MCPBIND_BLESS=1` and only `1` rewrites goldens: `0` or any other value
/// compares, as when the variable is unset.
#[test]
fn only_bless_1_rewrites() {
    use std::ffi::OsStr;
    assert!(golden::bless_from(Some(OsStr::new("1"))));
    for value in ["0", "", "true", "yes", " 1"] {
        assert!(!golden::bless_from(Some(OsStr::new(value))), "{value:?}");
    }
    assert!(!golden::bless_from(None));
}

#[test]
fn fixtures_generate_and_match_goldens() {
    let out_dir = manifest_dir().join("tests/output");
    std::fs::create_dir_all(&out_dir).expect("output dir");
    for (stem, lockfile, settings) in fixtures() {
        let (text, warnings) = generate_with(&lockfile, &settings);
        let file = syn::parse_file(&text).unwrap_or_else(|e| {
            let dump = std::env::temp_dir().join(format!("mcpbind-{stem}.rs"));
            std::fs::write(&dump, &text).ok();
            panic!(
                "{stem}: output does not parse: {e} (see {})",
                dump.display()
            );
        });
        // The per-tool code is written as text (`splice.rs`): the file is
        // still what prettyplease makes of it, and the same code as the
        // tokens `mcp_tools!` expands to.
        let header = format!("{}\n\n", mcpbind_codegen::GENERATED_HEADER);
        assert!(
            format!("{header}{}", prettyplease::unparse(&file)) == text,
            "{stem}: output is not as prettyplease formats it"
        );
        let (again, warnings_again) = generate_with(&lockfile, &settings);
        assert_eq!(text, again, "{stem}: generation is not deterministic");
        assert_eq!(warnings, warnings_again, "{stem}: warnings differ");
        // Tokens too: the three front ends use them directly.
        let mut generator = Generator::new(&settings);
        let a = generator
            .generate_tokens(&lockfile, Path::new("mcpbind.lock"))
            .unwrap()
            .to_string();
        let b = generator
            .generate_tokens(&lockfile, Path::new("mcpbind.lock"))
            .unwrap()
            .to_string();
        assert_eq!(a, b, "{stem}: tokens are not deterministic");
        let tokens = generator
            .generate_tokens(&lockfile, Path::new("mcpbind.lock"))
            .unwrap();
        assert!(
            mcpbind_codegen::format_tokens(tokens, &stem).unwrap() == text,
            "{stem}: tokens and text are not the same code"
        );
        check_warnings(&stem, &lockfile, &warnings);
        assert_golden(
            &out_dir.join(format!("{stem}.rs")),
            &golden_text(&text, &warnings),
        );
    }
}

/// A 1 MB description is carried into the docs without trouble (not a
/// golden: it would be a megabyte of diff).
#[test]
fn huge_description() {
    let description = "```rust\nlorem ipsum */ \"# #[\n```\n".repeat(1 << 15) + "end";
    assert!(description.len() >= 1 << 20);
    let fixture = serde_json::json!({
        "server": "huge",
        "tools": [{
            "name": "big",
            "description": description,
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string", "description": description}}}
        }]
    });
    let lockfile = lockfile_from_fixture(&fixture);
    let (text, _) = generate(&lockfile);
    let mut file = syn::parse_file(&text).expect("parses");
    let docs = doc_strings(&mut file);
    assert!(docs.iter().any(|d| d.contains("lorem ipsum")));
    assert!(
        !docs.iter().any(|d| d.contains("```rust")),
        "a fence stayed rust"
    );
}

/// Every `#[doc]` string of a file.
fn doc_strings(file: &mut syn::File) -> Vec<String> {
    use syn::visit_mut::VisitMut;
    struct Docs(Vec<String>);
    impl VisitMut for Docs {
        fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
            if let syn::Meta::NameValue(nv) = &attr.meta {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    if nv.path.is_ident("doc") {
                        self.0.push(s.value());
                    }
                }
            }
        }
    }
    let mut docs = Docs(Vec::new());
    docs.visit_file_mut(file);
    docs.0
}

/// `annotations = "enforce"` changes the methods of exactly the tools that
/// may modify things (not read-only, not `destructiveHint: false`), and
/// nothing when it is not set: the same fixture without it is generated as
/// every other server is.
#[test]
fn enforce_changes_only_tools_that_may_modify() {
    let (_, lockfile, settings) = fixtures()
        .into_iter()
        .find(|(stem, _, _)| stem == "effects")
        .expect("the effects fixture");
    let (enforced, _) = generate_with(&lockfile, &settings);
    let (advised, _) = generate(&lockfile);
    let mut advise = GenerationSettings::new();
    advise.with_annotations("effects", Annotations::Advise);
    assert_eq!(generate_with(&lockfile, &advise).0, advised);
    let approved = |text: &str, method: &str| {
        let file = syn::parse_file(text).expect("parses");
        let text = prettyplease::unparse(&file);
        let start = text
            .find(&format!("pub fn {method}("))
            .unwrap_or_else(|| panic!("no method {method}"));
        let signature = &text[start..start + text[start..].find('{').unwrap()];
        signature.contains("approved: ::mcpbind::Approved<")
    };
    for (method, needs) in [
        ("read_file", false),
        ("stat", false),
        ("append_line", false),
        ("delete_file", true),
        ("run_command", true),
    ] {
        assert_eq!(approved(&enforced, method), needs, "{method}");
        assert!(!approved(&advised, method), "{method}");
    }
    assert_eq!(
        enforced
            .matches("const NEEDS_APPROVAL: bool = true;")
            .count(),
        2
    );
    assert!(!advised.contains("NEEDS_APPROVAL"));
}

/// Server text never becomes a doctest: no doc comment of any golden opens a
/// fence that rustdoc would compile.
#[test]
fn no_doctests_from_server_text() {
    for (stem, lockfile, settings) in fixtures() {
        let (text, _) = generate_with(&lockfile, &settings);
        let mut file = syn::parse_file(&text).expect("parses");
        // The open fence, if any: (its character, its length).
        let mut open: Option<(char, usize)> = None;
        for doc in doc_strings(&mut file).join("\n").lines() {
            let line = doc.trim_start();
            let Some(c) = line.chars().next().filter(|c| *c == '`' || *c == '~') else {
                continue;
            };
            let len = line.chars().take_while(|x| *x == c).count();
            if len < 3 {
                continue;
            }
            let info = line[len..].trim();
            match open {
                None => {
                    assert!(
                        info == "text",
                        "{stem}: a doc fence opens as {line:?}, which rustdoc may compile"
                    );
                    open = Some((c, len));
                }
                Some((oc, olen)) if oc == c && len >= olen && info.is_empty() => open = None,
                Some(_) => {}
            }
        }
    }
}

/// Found by the fuzzer (`codegen/fuzz`): a lone CR in a tool's name or
/// description reaches a doc comment, where rustc and syn reject a bare CR,
/// so the output must not keep it (`util::doc_text` turns it into a line
/// break, and titles are joined onto one line).
#[test]
fn lone_cr_in_tool_docs_parses() {
    for (field, text) in [
        ("description", "line one\rline two"),
        ("title", "a title\r\nwith CRLF"),
        ("name", "t\r+:z"),
    ] {
        let mut tool = serde_json::json!({"name": "t", "inputSchema": {"type": "object"}});
        tool[field] = Value::String(text.to_owned());
        let lockfile = lockfile_from_fixture(&serde_json::json!({"server": "cr", "tools": [tool]}));
        let (text, _) = generate(&lockfile);
        syn::parse_file(&text).unwrap_or_else(|e| panic!("{field}: does not parse: {e}"));
    }
}
