//! Generates the bindings of the committed test lockfile, so that compiling
//! this crate (with `#![deny(warnings)]`) proves the generated code builds;
//! and turns the `rust` blocks of the README and the manual (`docs/`) into Rust that the test binary
//! compiles (tests/tests/readme.rs).
use std::fmt::Write as _;
use std::path::Path;

// The listing of the documents, shared with the tests that read them.
#[path = "tests/util/documents.rs"]
#[allow(dead_code)] // the script lists the documents; the tests read them
mod documents;

fn main() {
    // No config goes with the test lockfile (the tests connect with their
    // own), and this directory holds the installed test servers, which
    // watching it for one to appear would walk on every build.
    mcpbind_codegen::Builder::new()
        .lockfile("mcpbind.lock")
        .config_beside_lockfile(false)
        .generate()
        .unwrap();
    readme_blocks();
}

/// Writes `$OUT_DIR/readme.rs`: each `rust` block of the README and of
/// the manual (`docs/*.md`) as a module named after its file and line. A
/// block that is a file of a user's crate (it has a `fn main`, or
/// generates the bindings) is the module's body as it is; any other is the
/// body of an async fn `block` whose parameters are what the prose gives it
/// (`config`, `tools`, the model's `name` and `arguments_json`…), with the
/// bindings and helpers of `readme::scope` in scope. Lines rustdoc hides
/// (`# `) count, without their mark, as in a doctest. `BLOCKS` lists each
/// block's file and first line.
fn readme_blocks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = String::new();
    let mut seen = Vec::new();
    for file in documents(&root) {
        let path = root.join(&file);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {file}: {e}"));
        for (start, code) in rust_blocks(&file, &text) {
            write_block(&mut out, &module_name(&file, start), &file, start, &code);
            seen.push((file.clone(), start));
        }
    }
    writeln!(out, "/// The file and first line of each `rust` block.").unwrap();
    writeln!(out, "pub const BLOCKS: &[(&str, usize)] = &{seen:?};").unwrap();
    let out_dir = std::env::var_os("OUT_DIR").expect("OUT_DIR is set for build scripts");
    let target = Path::new(&out_dir).join("readme.rs");
    if std::fs::read_to_string(&target).ok().as_deref() != Some(out.as_str()) {
        std::fs::write(&target, out).expect("write readme.rs");
    }
}

/// `README.md`, then the manual's chapters (`docs/*.md`) by name, as paths
/// relative to the repository's root: the tests' listing
/// (`tests/tests/util/documents.rs`). The folder itself is watched, so a
/// new chapter is picked up.
fn documents(root: &Path) -> Vec<String> {
    println!("cargo:rerun-if-changed={}", root.join("docs").display());
    documents::names()
}

/// Each `rust` block of `text`: its first line and its code, rustdoc's
/// hidden lines (`# `) shown.
fn rust_blocks(file: &str, text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut block: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        match block.as_mut() {
            None if line.starts_with("```rust") => block = Some((number, String::new())),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.push(block.take().unwrap()),
            Some((_, code)) => {
                let shown = match line.trim_start() {
                    "#" => "",
                    hidden if hidden.starts_with("# ") => &hidden[2..],
                    _ => line,
                };
                code.push_str(shown);
                code.push('\n');
            }
        }
    }
    assert!(block.is_none(), "{file}: a ```rust block is not closed");
    blocks
}

/// `readme_line_12`, `docs_toolbox_line_40`: a block's module.
fn module_name(file: &str, start: usize) -> String {
    let stem: String = file
        .trim_end_matches(".md")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("{stem}_line_{start}")
}

fn write_block(out: &mut String, module: &str, file: &str, start: usize, code: &str) {
    let is_file = code.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("fn main") || l.starts_with("async fn main")
    }) || code.contains("mcp_tools!(")
        || code.contains("include_bindings!(");
    writeln!(out, "/// {file}, the block at line {start}.").unwrap();
    writeln!(out, "#[rustfmt::skip]\npub mod {module} {{").unwrap();
    // Snippets leave things unused; and roots (the elicitation block) are
    // deprecated by SEP-2577, which the README says.
    writeln!(out, "#![allow(unused, deprecated, clippy::all)]").unwrap();
    if is_file {
        out.push_str(code);
    } else {
        writeln!(out, "use super::scope::*;").unwrap();
        writeln!(
            out,
            "pub async fn block(config: mcpbind::Config, mut tools: mcpbind::Toolbox, name: String, \
             arguments_json: String, tool_call_id: String, mut messages: Vec<serde_json::Value>, \
             mut pending_user_parts: Vec<serde_json::Value>) \
             -> Result<(), Box<dyn std::error::Error>> {{"
        )
        .unwrap();
        out.push_str(code);
        writeln!(out, "#[allow(unreachable_code)]\nOk(())\n}}").unwrap();
    }
    writeln!(out, "}}").unwrap();
}
