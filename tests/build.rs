//! Generates the bindings of the committed test lockfile, so that compiling
//! this crate (with `#![deny(warnings)]`) proves the generated code builds.
fn main() {
    mcpbind_codegen::Builder::new()
        .lockfile("mcpbind.lock")
        .generate()
        .unwrap();
}
