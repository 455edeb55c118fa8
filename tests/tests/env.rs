//! The environment every test of this binary sees, exported once before
//! `main`, while the process has a single thread.
//!
//! `cargo test` runs the tests as threads of one process: a `set_var` in a
//! test would race every other test that reads the environment (a spawned
//! server copies it; glibc's `getenv` is not safe against a concurrent
//! `setenv`). So no test sets a variable; the values they need are set here,
//! each under a name no other test uses, and are the same for every test.

/// Exported in the agent's environment; must not reach a server that does
/// not ask for it (privilege.rs).
pub const PRIVILEGE_CANARIES: [(&str, &str); 2] = [
    ("AWS_SECRET_ACCESS_KEY", "aws-canary-7f3a"),
    ("MCPBIND_PRIVILEGE_CANARY", "agent-canary-c41d"),
];

/// Every variable this binary's tests read, with its value.
const VARS: &[(&str, &str)] = &[
    // privilege.rs: granted to a server by its config's `env`.
    ("MCPBIND_PRIVILEGE_GIVEN", "given-value-9b2e"),
    // privilege.rs: a secret a server echoes into its error.
    ("MCPBIND_TEST_CANARY", "call-canary-5d1e"),
    // misbehave.rs: a secret in a misbehaving server's config.
    ("MCPBIND_MISBEHAVE_CANARY", "canary-53cr3t-9d1e"),
    // toolbox.rs: a secret in the config of a server the toolbox calls.
    ("MCPBIND_TOOLBOX_CANARY", "canary-7f3a9c2e-do-not-leak"),
    // testing.rs: a secret that must not reach a cassette.
    ("MCPBIND_CASSETTE_CANARY", "cassette-canary-4b7e"),
    // claims.rs: a header value read from the environment.
    ("MCPBIND_CLAIMS_HEADER", "from-the-environment"),
];

#[ctor::ctor]
fn export() {
    for (var, value) in PRIVILEGE_CANARIES.iter().chain(VARS) {
        std::env::set_var(var, value);
    }
    // Library clients of OAuth servers store their tokens here, never in
    // the HOME of the user running the tests (the CLI tests give each
    // `mcpbind` its own directory).
    let store = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("credentials-{}", std::process::id()));
    std::env::set_var("MCPBIND_CREDENTIALS_DIR", store);
}

/// The value this binary exported for `var`.
///
/// # Panics
///
/// When `var` is not one of the variables above.
pub fn value(var: &str) -> &'static str {
    PRIVILEGE_CANARIES
        .iter()
        .chain(VARS)
        .find(|(name, _)| *name == var)
        .map(|(_, value)| *value)
        .unwrap_or_else(|| panic!("tests/tests/env.rs exports no `{var}`"))
}
