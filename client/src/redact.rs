//! Secrets hidden in what mcpbind shows, in one place: every configured
//! secret (a `${VAR}`'s value, a URL's password; longest first, as
//! [`ServerSecrets::secrets`](crate::ServerSecrets::secrets) gives them)
//! replaced by `***` in errors, results, stderr tails and log lines, or by
//! its label (`${VAR}`) in events.

use rmcp::model::CallToolResult;

// What this file builds on: the one `redact` (the model's, which OAuth
// uses too), and the model's variants of it (text cut at its start, JSON
// values, labels in place of `***`).
#[cfg(feature = "stdio")]
pub(crate) use mcpbind_model::internal::redact::redact_cut;
pub(crate) use mcpbind_model::internal::redact::{
    redact_labelled, redact_labelled_value, redact_value,
};
pub(crate) use mcpbind_model::redact;

/// The text blocks and structured content of a result, redacted.
pub(crate) fn redact_result(result: &mut CallToolResult, secrets: &[String]) {
    for block in &mut result.content {
        if let rmcp::model::ContentBlock::Text(text) = block {
            text.text = redact(&text.text, secrets);
        }
    }
    if let Some(value) = &mut result.structured_content {
        redact_value(value, secrets);
    }
}
