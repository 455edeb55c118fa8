//! Blessing goldens: the one place that reads `MCPBIND_BLESS`.
//!
//! Shared by every test crate that compares output with a committed file
//! (this crate's `generate` test, `mcpbind-tests` and
//! `mcpbind-fidelity-test` include it with `#[path]`), so that "bless" means
//! the same everywhere: `MCPBIND_BLESS=1` and nothing else rewrites a file,
//! and a run that rewrote one leaves the tree dirty, which `.ci/run` refuses.

// Each including crate uses part of it.
#![allow(dead_code)]

use std::path::Path;

/// The variable that accepts changed output.
pub const BLESS_ENV: &str = "MCPBIND_BLESS";

/// Whether this run rewrites goldens: `MCPBIND_BLESS=1` exactly. Any other
/// value (`0`, `true`, empty) compares, as when it is unset: a run that
/// was not clearly asked to bless checks.
pub fn bless() -> bool {
    bless_from(std::env::var_os(BLESS_ENV).as_deref())
}

/// [`bless`] for a given value of the variable.
pub fn bless_from(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| v == "1")
}

/// Compares `actual` (line endings normalized) with the committed file at
/// `path`. Under [`bless`] it writes `actual` there instead, and only when
/// it differs, so an unchanged golden keeps its mtime.
///
/// # Panics
///
/// When the file is missing or differs, naming the first differing line
/// and how to accept the change.
pub fn assert_golden(path: &Path, actual: &str) {
    let actual = actual.replace("\r\n", "\n");
    let expected = std::fs::read_to_string(path)
        .ok()
        .map(|text| text.replace("\r\n", "\n"));
    if bless() {
        if expected.as_deref() != Some(actual.as_str()) {
            std::fs::write(path, &actual)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        return;
    }
    let Some(expected) = expected else {
        panic!(
            "{} is missing; run with {BLESS_ENV}=1 to create it, then review git diff",
            path.display()
        )
    };
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the actual output (first at line {}):\n  expected: {:?}\n  actual:   {:?}\nrun with {BLESS_ENV}=1 to accept, then review git diff",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first),
        );
    }
}
