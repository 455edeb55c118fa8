//! The lean path (issue 35): a crate with `mcpbind = { default-features =
//! false, features = ["stdio"] }` and bindings checked in with `mcpbind
//! generate --out src/mcp.rs` (tests/lean). Its bindings are what the
//! lockfile generates, its dependency tree has no HTTP stack, OAuth client
//! or validator, and it calls the demo server; a URL server is refused
//! with an error that names the missing feature.

use std::process::Command;

use crate::util;

/// `cargo` at the workspace root.
fn cargo() -> Command {
    let mut command = util::cargo();
    command.current_dir(util::root());
    command
}

#[test]
fn the_checked_in_bindings_are_what_the_lockfile_generates() {
    let lean = util::root().join("tests/lean");
    let out = util::mcpbind(
        &lean,
        &[
            "generate",
            "--check",
            "--out",
            "src/mcp.rs",
            "--lockfile",
            "mcpbind.lock",
        ],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
}

#[test]
fn a_stdio_only_build_has_no_http_stack_and_no_validator() {
    let out = cargo()
        .args([
            "tree",
            "-p",
            "mcpbind-lean-test",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(crates.contains(&"rmcp"), "{tree}");
    for absent in [
        "reqwest",
        "rustls",
        "hyper",
        "oauth2",
        "jsonschema",
        "mcpbind-toolbox",
        "mcpbind-sandbox",
    ] {
        assert!(
            !crates.contains(&absent),
            "`{absent}` is in the lean build:\n{tree}"
        );
    }
}

#[test]
fn a_stdio_only_build_calls_the_demo_server_and_names_what_it_lacks() {
    let demo = util::bin("mcpbind-demo-server");
    let out = cargo()
        .args(["run", "--quiet", "-p", "mcpbind-lean-test", "--"])
        .arg(&demo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout,
        "sum = 42\nremote: server `remote` needs mcpbind's `http` feature (for its `url`), which this build was compiled without\n"
    );
}

/// Generated code compiles under every feature set of `mcpbind`: with none
/// (types and `Handler`s only: the client items drop out, an
/// `annotations = "enforce"` server's included) and with `server` alone (a
/// server with prompts and resource templates, whose `Handler` answers with
/// rmcp's types).
#[test]
fn generated_code_compiles_without_client_features() {
    let golden = |name: &str| util::root().join(format!("codegen/tests/output/{name}.rs"));
    let without_client = vec![golden("combinators"), golden("effects"), golden("refs")];
    for (features, files) in [
        ("[]", without_client),
        (r#"["server"]"#, vec![golden("prompts")]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let manifest = format!(
            "[package]\nname = \"features-check\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dependencies]\nmcpbind = {{ path = {}, default-features = false, features = {features} }}\n\n\
             [workspace]\n",
            util::toml_str(&util::root().join("runtime").display().to_string())
        );
        std::fs::write(dir.path().join("Cargo.toml"), manifest).unwrap();
        std::fs::copy(
            util::root().join("Cargo.lock"),
            dir.path().join("Cargo.lock"),
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let includes: String = files
            .iter()
            .map(|f| format!("include!({:?});\n", f.display().to_string()))
            .collect();
        std::fs::write(
            dir.path().join("src/main.rs"),
            format!("#![deny(warnings)]\n#![allow(dead_code, unused_imports)]\n{includes}fn main() {{}}\n"),
        )
        .unwrap();
        let out = cargo()
            .current_dir(dir.path())
            .args(["check", "--quiet", "--offline"])
            .env(
                "CARGO_TARGET_DIR",
                util::root().join("target/tests/features"),
            )
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "features {features}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
