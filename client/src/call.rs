//! The result of a typed call.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::tool::ToolMeta;

/// The result of a successful call: the typed output, when the tool declares
/// an `outputSchema`, and the content blocks the server sent.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolResult<O> {
    /// The structured output, parsed (`()` for a tool without `outputSchema`).
    pub output: O,
    /// The content blocks (text, images, resources…).
    pub content: Vec<ContentBlock>,
    /// The raw `structuredContent`, if any.
    pub structured_content: Option<Value>,
}

impl<O> ToolResult<O> {
    /// A result of its parts (the toolbox's, which lives in another crate).
    #[doc(hidden)]
    pub fn from_parts(
        output: O,
        content: Vec<ContentBlock>,
        structured_content: Option<Value>,
    ) -> Self {
        ToolResult {
            output,
            content,
            structured_content,
        }
    }

    /// The text blocks of the content, joined by newlines.
    pub fn text(&self) -> String {
        text_of(&self.content)
    }
}

/// The text blocks of content, joined by newlines.
pub fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

impl<O: serde::de::DeserializeOwned> ToolResult<O> {
    /// Checks a raw result against the tool's metadata and parses its output.
    ///
    /// # Errors
    ///
    /// [`Error::Tool`] for a result marked `isError`, [`Error::Output`] for
    /// `structuredContent` that does not parse into `T` (or is missing where
    /// the tool has an output schema).
    pub fn from_result(
        server: &str,
        meta: &crate::ToolMeta,
        result: CallToolResult,
    ) -> Result<Self> {
        if result.is_error == Some(true) {
            return Err(Error::Tool {
                server: server.to_owned(),
                tool: meta.name.to_owned(),
                message: text_of(&result.content),
                result: Box::new(result),
            });
        }
        let output = match parse_output::<O>(meta, &result) {
            Ok(output) => output,
            Err(reason) => {
                return Err(Error::Output {
                    server: server.to_owned(),
                    tool: meta.name.to_owned(),
                    reason,
                    violations: Vec::new(),
                    result: Box::new(result),
                })
            }
        };
        Ok(ToolResult {
            output,
            content: result.content,
            structured_content: result.structured_content,
        })
    }
}

fn parse_output<O: serde::de::DeserializeOwned>(
    meta: &ToolMeta,
    result: &CallToolResult,
) -> std::result::Result<O, String> {
    if meta.output_schema.is_none() {
        // `O` is `()`, which deserializes from null.
        return serde_json::from_value(Value::Null).map_err(|e| e.to_string());
    }
    let value = match &result.structured_content {
        Some(value) => value.clone(),
        // Servers SHOULD also send the structured output as JSON text; older
        // ones only do that.
        None => {
            let text = text_of(&result.content);
            serde_json::from_str(&text).map_err(|_| {
                "the tool declares an outputSchema but the result has no structuredContent"
                    .to_owned()
            })?
        }
    };
    crate::json::from_value(value)
        .map_err(|e| format!("structuredContent does not match the locked outputSchema: {e}"))
}
