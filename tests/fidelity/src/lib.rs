//! Bindings for every case of `suite.json` (the JSON Schema Test Suite,
//! draft 2020-12) and `named.json` (the cases named in issue 8): one server
//! per case, one tool `t` whose params hold the case's schema under `value`.
//! The test in `tests/fidelity.rs` parses each case's instances with them.
#![deny(warnings)]

mcpbind::include_bindings!("fidelity.rs");
