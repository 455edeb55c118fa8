//! Checking values against schemas (the model's validator): the locked
//! ones, and a live tool's as listed. Without the `validate` feature nothing is
//! checked against a schema (a locked tool's arguments are still parsed
//! into its params type, see `dispatch::call_typed`).

use serde_json::Value;

pub(crate) use mcpbind_model::internal::violation::join;
pub(crate) use mcpbind_model::Violation;

/// A listed schema, compiled.
#[cfg(feature = "validate")]
pub(crate) use mcpbind_model::internal::validate::Compiled;

/// A listed schema: without `validate`, nothing is compiled.
#[cfg(not(feature = "validate"))]
pub(crate) struct Compiled;

/// `schema` compiled, or why it can't be.
pub(crate) fn compile(schema: &Value) -> Result<Compiled, String> {
    #[cfg(feature = "validate")]
    return mcpbind_model::internal::validate::compile(schema);
    #[cfg(not(feature = "validate"))]
    {
        let _ = schema;
        Ok(Compiled)
    }
}

/// How `instance` breaks `schema` (none without `validate`).
pub(crate) fn violations_of(schema: &Compiled, instance: &Value) -> Vec<Violation> {
    #[cfg(feature = "validate")]
    return mcpbind_model::internal::validate::violations_of(schema, instance);
    #[cfg(not(feature = "validate"))]
    {
        let _ = (schema, instance);
        Vec::new()
    }
}

/// How `instance` breaks the locked `schema`, `unchecked` told why if it
/// can't be compiled (none without `validate`: a locked tool's arguments
/// are parsed into its params type).
pub(crate) fn violations_or(
    schema: &'static str,
    instance: &Value,
    unchecked: impl FnOnce(&str),
) -> Vec<Violation> {
    #[cfg(feature = "validate")]
    return mcpbind_model::internal::validate::violations_or(schema, instance, unchecked);
    #[cfg(not(feature = "validate"))]
    {
        let _ = (schema, instance, unchecked);
        Vec::new()
    }
}
