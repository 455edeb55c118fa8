//! The variables the unit tests read, exported once before `main`, while
//! the process has a single thread: a `set_var` inside a test would race
//! the other tests' threads (`cargo test` runs them in one process).

/// Each variable, with its value.
pub(crate) const VARS: &[(&str, &str)] = &[
    // connect/secrets.rs
    ("MCPBIND_SECRETS_TEST_KEY", "k3y with space"),
    ("MCPBIND_SECRETS_TEST_QUOTED", "pa\"ss\\word"),
    // events.rs
    ("MCPBIND_EVENTS_TEST_TOKEN", "tok/en+value"),
];

#[ctor::ctor]
fn export() {
    for (var, value) in VARS {
        std::env::set_var(var, value);
    }
}
