//! The documents whose examples are checked, read from the repository: one
//! listing for the build script that compiles the rust blocks
//! (`tests/build.rs`), the tests of the rust and toml blocks
//! (`tests/tests/readme.rs`) and of the command lines (the CLI's
//! `cli/src/docs_tests.rs`); each includes this file. Both crates sit one
//! folder below the repository's root.

use std::path::{Path, PathBuf};

/// `README.md`, then the manual's chapters (`docs/*.md`) by name: each as
/// (path from the repository's root, text).
pub fn manual() -> Vec<(String, String)> {
    read(names())
}

/// `README.md`, then the manual's chapters (`docs/*.md`) by name, as paths
/// from the repository's root: the one listing of the documents whose
/// blocks are checked (`tests/build.rs` includes this file too).
pub fn names() -> Vec<String> {
    let mut chapters: Vec<String> = std::fs::read_dir(root().join("docs"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|name| name.ends_with(".md"))
                .map(|name| format!("docs/{name}"))
                .collect()
        })
        .unwrap_or_default();
    chapters.sort();
    std::iter::once("README.md".to_owned())
        .chain(chapters)
        .collect()
}

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Each of `names` (paths from the repository's root) with its text.
pub fn read(names: impl IntoIterator<Item = String>) -> Vec<(String, String)> {
    let root = root();
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name))
                .unwrap_or_else(|e| panic!("reading {name}: {e}"));
            (name, text)
        })
        .collect()
}
