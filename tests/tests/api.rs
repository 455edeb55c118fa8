//! The public API of every published library crate, listed with its
//! signatures (`tests/api/<crate>.txt`), and compared with the committed
//! listing: a changed signature, field, variant, method or trait impl that
//! was not blessed fails here, so every change of what mcpbind promises
//! shows in review. `MCPBIND_BLESS=1` rewrites the listings (then read
//! `git diff tests/api`).
//!
//! The listing is read from rustdoc's JSON (`render.rs`), written by the
//! toolchain that builds the tests, all features on, into `target/doc`.
//! That JSON is unstable in rustdoc: it is asked for with
//! `RUSTC_BOOTSTRAP=1` given to rustdoc alone (`scripts/rustdoc-unstable`;
//! no other toolchain needed), and its format
//! version is pinned by the `rustdoc-types` version in tests/Cargo.toml; a
//! toolchain writing another version is refused, saying so.
//!
//! rustdoc does not inline a re-export of another crate's item: the facade
//! (`mcpbind`) lists those by path, and each item's signature is in the
//! listing of the crate that defines it. rmcp's types are listed by path
//! too, under the rmcp version the header names (from Cargo.lock).

mod render;

use std::path::Path;

use crate::util::{self, assert_golden};

#[test]
fn the_api_listings_are_current() {
    let root = util::root();
    let crates = published_libraries(&root);
    let target = root.join("target");
    rustdoc_json(&crates, &target);
    let rmcp = locked_version(&root, "rmcp");
    let mut failures = Vec::new();
    for (package, name) in &crates {
        let krate = read(&target.join("doc").join(format!("{name}.json")));
        let lines = render::listing(&krate, name);
        let listing = format!(
            "# The public API of `{package}` (all features), one item a line with its\n\
             # signature; other crates' items (rmcp {rmcp}) by path. Written by\n\
             # tests/tests/api.rs (`MCPBIND_BLESS=1` rewrites it): review a change\n\
             # here as an API change.\n{}\n",
            lines.join("\n")
        );
        let golden = root.join("tests/api").join(format!("{package}.txt"));
        // Every listing is compared (and, blessing, written) before one
        // failure is reported.
        let result = std::panic::catch_unwind(|| assert_golden(&golden, &listing));
        if let Err(panic) = result {
            failures.push(panic_text(&*panic));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The workspace's published crates with a library target, as (package,
/// crate name): `publish` not `false`, from `cargo metadata`.
fn published_libraries(root: &Path) -> Vec<(String, String)> {
    let out = util::cargo()
        .current_dir(root)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut crates = Vec::new();
    for package in meta["packages"].as_array().unwrap() {
        if package["publish"] == serde_json::json!([]) {
            continue;
        }
        let lib = package["targets"].as_array().unwrap().iter().find(|t| {
            t["kind"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k == "lib" || k == "proc-macro")
        });
        if let Some(lib) = lib {
            let name = lib["name"].as_str().unwrap().replace('-', "_");
            crates.push((package["name"].as_str().unwrap().to_owned(), name));
        }
    }
    crates.sort();
    crates
}

/// rustdoc's JSON of `crates`, all features on, into `target/doc`: one
/// `cargo doc` for all, so dependencies are checked once, in the
/// workspace's target dir (the checked dependencies of .ci/run's clippy
/// and docs.rs steps are reused; `cargo test` holds no lock while tests
/// run).
fn rustdoc_json(crates: &[(String, String)], target: &Path) {
    let mut cargo = util::cargo();
    cargo
        .current_dir(util::root())
        .args(["doc", "--lib", "--no-deps", "--all-features", "--quiet"])
        .env("CARGO_TARGET_DIR", target)
        // rustdoc's JSON output is unstable: this lets the toolchain that
        // builds the tests write it (rustdoc alone: see the script).
        .env("RUSTDOC", util::root().join("scripts/rustdoc-unstable"))
        // Hidden items too: an item of a hidden module re-exported under a
        // public name is public (render.rs leaves the hidden ones out).
        .env(
            "RUSTDOCFLAGS",
            "-Z unstable-options --output-format json --document-hidden-items",
        );
    for (package, _) in crates {
        cargo.args(["-p", package]);
    }
    let out = cargo.output().unwrap();
    assert!(
        out.status.success(),
        "cargo doc (rustdoc JSON) failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One crate's rustdoc JSON, refused (saying what to do) when its format
/// is not the one `rustdoc-types` reads.
fn read(path: &Path) -> rustdoc_types::Crate {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    check_format(path, &text).unwrap_or_else(|message| panic!("{message}"));
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{}: not rustdoc JSON as rustdoc-types reads it: {e}",
            path.display()
        )
    })
}

/// `Err` with the fix when `text` is not rustdoc JSON of the pinned format.
fn check_format(path: &Path, text: &str) -> Result<(), String> {
    #[derive(serde::Deserialize)]
    struct Head {
        format_version: u32,
    }
    let head: Head = serde_json::from_str(text)
        .map_err(|e| format!("{}: no rustdoc JSON `format_version`: {e}", path.display()))?;
    let pinned = rustdoc_types::FORMAT_VERSION;
    match head.format_version == pinned {
        true => Ok(()),
        false => Err(format!(
            "{}: rustdoc wrote JSON format version {}, and the API listing reads version {pinned} only\n  \
             help: the toolchain changed: set tests/Cargo.toml's `rustdoc-types` to the release for format {} \
             (its FORMAT_VERSION), then rerun with MCPBIND_BLESS=1 and review git diff tests/api",
            path.display(),
            head.format_version,
            head.format_version
        )),
    }
}

/// The version of `package` in the workspace's Cargo.lock.
fn locked_version(root: &Path, package: &str) -> String {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
    let lock: toml::Table = lock.parse().unwrap();
    let found = lock["package"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"].as_str() == Some(package));
    found
        .and_then(|p| p["version"].as_str())
        .unwrap()
        .to_owned()
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<String>(), panic.downcast_ref::<&str>()) {
        (Some(s), _) => s.clone(),
        (None, Some(s)) => (*s).to_owned(),
        (None, None) => "(a panic without a message)".to_owned(),
    }
}

#[test]
fn another_format_version_is_refused_with_the_fix() {
    let pinned = rustdoc_types::FORMAT_VERSION;
    let other = pinned + 1;
    let text = format!("{{\"format_version\": {other}, \"root\": 0}}");
    let error = check_format(Path::new("x.json"), &text).unwrap_err();
    assert!(
        error.starts_with(&format!(
            "x.json: rustdoc wrote JSON format version {other}, and the API listing reads version {pinned} only\n  help: "
        )),
        "{error}"
    );
    let text = format!("{{\"format_version\": {pinned}}}");
    assert_eq!(check_format(Path::new("x.json"), &text), Ok(()));
}

/// The reader on a crate of its own, before and after the change this
/// listing was made for (`problems: Vec<String>` → `Vec<Violation>`): the
/// field, the method returning it and the enum variant holding it each show
/// as a changed line; private and hidden items, auto-trait and blanket
/// impls never show.
#[test]
fn a_changed_signature_changes_the_listing() {
    let before = sample_listing("String");
    let expected = [
        "pub struct sample::Report { .. } (private fields)",
        "pub sample::Report::problems: alloc::vec::Vec<alloc::string::String>",
        "pub fn sample::Report::problems(&self) -> &[alloc::string::String]",
        "#[non_exhaustive] pub enum sample::Outcome",
        "pub sample::Outcome::Passed",
        "pub sample::Outcome::Failed { problems: alloc::vec::Vec<alloc::string::String> }",
        "pub trait sample::Check",
        "fn sample::Check::check(&self, input: &str) -> core::result::Result<(), sample::Report>",
        "fn sample::Check::name(&self) -> &str (provided)",
        "pub struct sample::Violation { .. } (private fields)",
        "impl core::clone::Clone for sample::Violation",
        "pub struct sample::Reexported;",
        "pub fn sample::Reexported::new() -> Self",
        "pub mod sample::nested",
        "pub const sample::nested::LIMIT: usize = 3",
        "pub use sample::Map = std::collections::hash::map::HashMap",
        "pub fn sample::gated<T: core::clone::Clone>(x: impl core::convert::AsRef<str>, t: T) -> core::option::Option<T> [cfg(not(feature = \"never\"))]",
        "pub use sample::Arc = alloc::sync::Arc [cfg(any(unix, feature = \"y\"))]",
        // Defined in a hidden module, public by its re-export.
        "pub struct sample::Shown",
        "pub sample::Shown::a: u8",
    ];
    for line in expected {
        assert!(
            before.iter().any(|l| l == line),
            "no line {line:?} in:\n{}",
            before.join("\n")
        );
    }
    let left_out = [
        "private_",
        "Send",
        "Sync",
        "Unpin",
        "From<T>",
        "Any",
        "inner",
        "secret",
        "gone",
        "hidden_method",
    ];
    for word in left_out {
        assert!(
            !before.iter().any(|l| l.contains(word)),
            "{word:?} listed:\n{}",
            before.join("\n")
        );
    }
    let after = sample_listing("Violation");
    let gone: Vec<&String> = before.iter().filter(|l| !after.contains(l)).collect();
    let new: Vec<&String> = after.iter().filter(|l| !before.contains(l)).collect();
    assert_eq!(
        gone,
        [
            "pub fn sample::Report::problems(&self) -> &[alloc::string::String]",
            "pub sample::Outcome::Failed { problems: alloc::vec::Vec<alloc::string::String> }",
            "pub sample::Report::problems: alloc::vec::Vec<alloc::string::String>",
        ]
    );
    assert_eq!(
        new,
        [
            "pub fn sample::Report::problems(&self) -> &[sample::Violation]",
            "pub sample::Outcome::Failed { problems: alloc::vec::Vec<sample::Violation> }",
            "pub sample::Report::problems: alloc::vec::Vec<sample::Violation>",
        ]
    );
}

/// The listing of a small crate whose problems are `Vec<{problem}>`.
fn sample_listing(problem: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let source = r#"
pub struct Report { pub problems: Vec<PROBLEM>, count: usize }
impl Report {
    pub fn problems(&self) -> &[PROBLEM] { &self.problems }
    fn private_count(&self) -> usize { self.count }
}
#[non_exhaustive]
pub enum Outcome { Passed, Failed { problems: Vec<PROBLEM> } }
pub trait Check {
    fn check(&self, input: &str) -> Result<(), Report>;
    fn name(&self) -> &str { "check" }
}
#[derive(Clone)]
pub struct Violation { pointer: String }
mod inner {
    pub struct Hidden;
    impl Hidden { pub fn new() -> Self { Hidden } }
}
pub use inner::Hidden as Reexported;
pub mod nested { pub const LIMIT: usize = 3; }
pub use std::collections::HashMap as Map;
fn private_helper(_: &Violation) {}
#[cfg(not(feature = "never"))]
pub fn gated<T: Clone>(x: impl AsRef<str>, t: T) -> Option<T> { None }
#[cfg(any(unix, feature = "y"))]
pub use std::sync::Arc;
#[doc(hidden)]
pub mod secret { pub struct Shown { pub a: u8 } #[doc(hidden)] pub fn gone() {} }
pub use secret::Shown;
impl Report { #[doc(hidden)] pub fn hidden_method(&self) {} }
"#;
    std::fs::write(
        dir.path().join("src/lib.rs"),
        source.replace("PROBLEM", problem),
    )
    .unwrap();
    let target = util::root().join("target");
    let out = util::cargo()
        .current_dir(dir.path())
        .args(["doc", "--no-deps", "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTDOC", util::root().join("scripts/rustdoc-unstable"))
        .env(
            "RUSTDOCFLAGS",
            "-Z unstable-options --output-format json --document-hidden-items",
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    render::listing(&read(&target.join("doc/sample.json")), "sample")
}
