//! The documents whose examples are checked, read from the repository: one
//! listing for the rust and toml blocks (`tests/tests/readme.rs`) and the
//! command lines (the CLI's `cli/src/docs_tests.rs`, which includes this
//! file). Both crates sit one folder below the repository's root.

use std::path::Path;

/// `README.md`, then the manual's chapters (`docs/*.md`) by name: each as
/// (path from the repository's root, text).
pub fn manual() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut chapters: Vec<String> = std::fs::read_dir(root.join("docs"))
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
    read(std::iter::once("README.md".to_owned()).chain(chapters))
}

/// Each of `names` (paths from the repository's root) with its text.
pub fn read(names: impl IntoIterator<Item = String>) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name))
                .unwrap_or_else(|e| panic!("reading {name}: {e}"));
            (name, text)
        })
        .collect()
}
