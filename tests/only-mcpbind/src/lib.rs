//! Building this crate is the test: the bindings of the real-world corpus
//! (`codegen/tests/corpus/servers.lock`) and of every generator fixture
//! (`codegen/tests/fixtures/*.json`) compile, warning-free, in a crate whose
//! only dependency is `mcpbind`; under clippy, with the published crates'
//! lints (`[lints]` in Cargo.toml: every public function that returns a
//! `Result` has its `# Errors` section). The corpus is bound with feature `corpus`
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

/// The call sites of a server bound with `annotations = "enforce"`
/// type-check: a tool that may modify things takes the approval of its
/// input, from the policy; a read-only one takes its input alone. (Never
/// run: there is no server.)
#[allow(dead_code)]
async fn _enforced_calls(
    client: fixtures::effects::Client,
    policy: mcpbind::Approvals,
) -> mcpbind::Result<()> {
    use fixtures::effects::{tools, types};
    let input = types::DeleteFileInput {
        path: "/tmp/x".into(),
    };
    let ok = policy.approve(tools::DeleteFile, &input).await?;
    let deleted = client.delete_file(input, ok).await?;
    let _: bool = deleted.output.deleted;
    let read = types::ReadFileInput {
        path: "/tmp/y".into(),
    };
    client.read_file(read).await?;
    Ok(())
}
