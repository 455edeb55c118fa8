//! Checking values against schemas: the locked ones through the client
//! side, a live tool's as listed. Without the `validate` feature nothing is
//! checked against a schema (a locked tool's arguments are still parsed
//! into its params type, see `dispatch::call_typed`).

use serde_json::Value;

pub(crate) use mcpbind_client::__toolbox::{join, violations_or};
pub(crate) use mcpbind_client::Violation;

/// A listed schema, compiled.
#[cfg(feature = "validate")]
pub(crate) use mcpbind_client::__toolbox::Compiled;

/// A listed schema: without `validate`, nothing is compiled.
#[cfg(not(feature = "validate"))]
pub(crate) struct Compiled;

/// `schema` compiled, or why it can't be.
pub(crate) fn compile(schema: &Value) -> Result<Compiled, String> {
    #[cfg(feature = "validate")]
    return mcpbind_client::__toolbox::compile(schema);
    #[cfg(not(feature = "validate"))]
    {
        let _ = schema;
        Ok(Compiled)
    }
}

/// How `instance` breaks `schema` (none without `validate`).
pub(crate) fn violations_of(schema: &Compiled, instance: &Value) -> Vec<Violation> {
    #[cfg(feature = "validate")]
    return mcpbind_client::__toolbox::violations_of(schema, instance);
    #[cfg(not(feature = "validate"))]
    {
        let _ = (schema, instance);
        Vec::new()
    }
}
