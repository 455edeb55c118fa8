//! The result of a typed call.

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::error::{Error, Result};
use mcpbind_model::ToolMeta;

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
    pub(crate) fn from_parts(
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
        meta: &mcpbind_model::ToolMeta,
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
            Err((reason, violations)) => {
                return Err(Error::Output {
                    server: server.to_owned(),
                    tool: meta.name.to_owned(),
                    reason,
                    violations,
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

/// Why an output does not parse: the message, and the violations that
/// say where (integers its types can't hold), when known.
type OutputError = (String, Vec<mcpbind_model::Violation>);

fn parse_output<O: serde::de::DeserializeOwned>(
    meta: &ToolMeta,
    result: &CallToolResult,
) -> std::result::Result<O, OutputError> {
    let Some(schema) = meta.output_schema else {
        // `O` is `()`, which deserializes from null.
        return serde_json::from_value(Value::Null).map_err(|e| (e.to_string(), Vec::new()));
    };
    let value = match &result.structured_content {
        Some(value) => value.clone(),
        // Servers SHOULD also send the structured output as JSON text; older
        // ones only do that.
        None => {
            let text = text_of(&result.content);
            serde_json::from_str(&text).map_err(|_| {
                (
                    "the tool declares an outputSchema but the result has no structuredContent"
                        .to_owned(),
                    Vec::new(),
                )
            })?
        }
    };
    mcpbind_model::json::from_value(value.clone()).map_err(|e| {
        // serde_json's error names the value, not where it is: an integer
        // the generated types can't hold is found again, by its pointer.
        let violations = serde_json::from_str(schema)
            .map(|schema| mcpbind_model::internal::integer::out_of_range(&schema, &value))
            .unwrap_or_default();
        if violations.is_empty() {
            let reason = format!("structuredContent does not match the locked outputSchema: {e}");
            return (reason, violations);
        }
        let shown: Vec<String> = violations.iter().map(ToString::to_string).collect();
        let reason = format!(
            "structuredContent does not fit its generated types: {}",
            shown.join("; ")
        );
        (reason, violations)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A tool whose output holds a count (`minimum: 0`: a `u64`), a delta
    /// (an `i64`) and rows of ids.
    const DEFINITION: &str = r#"{"name":"count","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"count":{"type":"integer","minimum":0},"delta":{"type":"integer"},"rows":{"type":"array","items":{"type":"integer","minimum":0}}},"required":["count","delta","rows"]}}"#;

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Output {
        count: u64,
        delta: i64,
        rows: Vec<u64>,
    }

    fn meta() -> ToolMeta {
        let span = |key: &str, to: usize| {
            let at = DEFINITION.find(key).unwrap() + key.len();
            (at, to.min(DEFINITION.len() - 1))
        };
        let input = span(
            r#""inputSchema":"#,
            DEFINITION.find(r#","outputSchema""#).unwrap(),
        );
        let output = span(r#""outputSchema":"#, DEFINITION.len() - 1);
        ToolMeta::new(
            "s",
            "count",
            DEFINITION,
            [(0, 0), (0, 0), input, output],
            [true; 4],
        )
    }

    fn result(structured: Value) -> CallToolResult {
        let mut result = CallToolResult::success(Vec::new());
        result.structured_content = Some(structured);
        result
    }

    #[test]
    fn an_integer_its_type_cannot_hold_is_an_error_naming_the_tool_and_pointer() {
        let meta = meta();
        let schema: Value = serde_json::from_str(meta.output_schema.unwrap()).unwrap();
        assert_eq!(schema["required"], json!(["count", "delta", "rows"]));
        let fits = json!({"count": u64::MAX, "delta": i64::MIN, "rows": [0, 3.0]});
        let ok = ToolResult::<Output>::from_result("s", &meta, result(fits)).unwrap();
        assert_eq!(ok.output.count, u64::MAX);
        for (given, pointer, rust) in [
            (
                json!({"count": -1, "delta": 0, "rows": []}),
                "/count",
                "u64",
            ),
            (
                json!({"count": 0, "delta": 1e20, "rows": []}),
                "/delta",
                "i64",
            ),
            (
                json!({"count": 0, "delta": u64::MAX, "rows": []}),
                "/delta",
                "i64",
            ),
            (
                json!({"count": 0, "delta": 0, "rows": [1, -2]}),
                "/rows/1",
                "u64",
            ),
        ] {
            let error =
                ToolResult::<Output>::from_result("s", &meta, result(given.clone())).unwrap_err();
            let Error::Output {
                server,
                tool,
                violations,
                ..
            } = &error
            else {
                panic!("{error:?}");
            };
            assert_eq!((server.as_str(), tool.as_str()), ("s", "count"));
            let pointers: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
            assert_eq!(pointers, [pointer], "{given}: {error}");
            assert_eq!(violations[0].keyword, "type");
            let text = error.to_string();
            assert!(text.contains("`s.count`"), "{text}");
            assert!(text.contains(&format!("{pointer}: ")), "{text}");
            assert!(text.contains(&format!("`{rust}`")), "{text}");
        }
        // Any other mismatch keeps serde's words, with no violations.
        let error = ToolResult::<Output>::from_result("s", &meta, result(json!({"count": "x"})))
            .unwrap_err();
        assert!(
            matches!(&error, Error::Output { violations, .. } if violations.is_empty()),
            "{error:?}"
        );
    }
}
