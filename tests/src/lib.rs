//! Bindings generated at build time from `tests/mcpbind.lock`: the bundled
//! demo server and the pinned npm servers. Compiling this crate is the test
//! that the generated code builds without warnings.
#![deny(warnings)]
#![deny(missing_docs)]

mcpbind::include_bindings!();
