//! Building this crate is the test: the bindings of the real-world corpus
//! (`codegen/tests/corpus/servers.lock`) and of every generator fixture
//! (`codegen/tests/fixtures/*.json`) compile, warning-free, in a crate whose
//! only dependency is `mcpbind`. The corpus is bound with feature `corpus`
//! only (`cargo check -p mcpbind-only-test --features corpus`: minutes).
#![deny(warnings)]

/// The corpus servers, one module each.
pub mod corpus {
    mcpbind::include_bindings!("corpus.rs");
}

/// The generator's fixtures, one module each.
pub mod fixtures {
    mcpbind::include_bindings!("fixtures.rs");
}
