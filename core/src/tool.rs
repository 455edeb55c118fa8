//! The typed-tool contract between generated code and the runtime.

/// Static facts about one locked tool, generated from `mcpbind.lock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolMeta {
    /// The server's name in the config (`[servers.NAME]`).
    pub server: &'static str,
    /// The tool's name on the wire, exactly as the server lists it.
    pub name: &'static str,
    /// The tool's `title`, if it has one.
    pub title: Option<&'static str>,
    /// The tool's `description`, if it has one.
    pub description: Option<&'static str>,
    /// The tool's locked input schema, as JSON text.
    pub input_schema: &'static str,
    /// The tool's locked output schema, as JSON text, if it has one.
    pub output_schema: Option<&'static str>,
    /// `annotations.readOnlyHint`.
    pub read_only: bool,
    /// `annotations.destructiveHint` (the MCP default is `true`).
    pub destructive: bool,
    /// `annotations.idempotentHint`.
    pub idempotent: bool,
    /// `annotations.openWorldHint` (the MCP default is `true`).
    pub open_world: bool,
    /// The sha256 of the tool's canonical definition, as locked.
    pub sha256: &'static str,
    /// The whole locked definition, as canonical JSON text.
    pub definition: &'static str,
}

impl ToolMeta {
    /// Generated code's constructor. The schemas are slices of the
    /// definition (canonical JSON is compositional, so each schema's canonical
    /// text is part of the definition's), so every tool's JSON is stored once
    /// in the binary: `input` and `output` are byte ranges into `definition`.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        server: &'static str,
        name: &'static str,
        title: Option<&'static str>,
        description: Option<&'static str>,
        definition: &'static str,
        input: Option<(usize, usize)>,
        output: Option<(usize, usize)>,
        hints: [bool; 4],
        sha256: &'static str,
    ) -> Self {
        ToolMeta {
            server,
            name,
            title,
            description,
            input_schema: match input {
                Some((start, end)) => slice(definition, start, end),
                None => "{}",
            },
            output_schema: match output {
                Some((start, end)) => Some(slice(definition, start, end)),
                None => None,
            },
            read_only: hints[0],
            destructive: hints[1],
            idempotent: hints[2],
            open_world: hints[3],
            sha256,
            definition,
        }
    }

    /// Whether calling the tool twice is harmless, so that a call may be
    /// retried after a lost connection: it is read-only or idempotent.
    pub fn is_retry_safe(&self) -> bool {
        self.read_only || self.idempotent
    }
}

/// A tool with typed input and output. Generated code implements it for one
/// marker type per tool.
pub trait Tool {
    /// The arguments (`inputSchema`).
    type Input: serde::Serialize + serde::de::DeserializeOwned + Send;
    /// The structured output (`outputSchema`), or `()` when the tool has none.
    type Output: serde::Serialize + serde::de::DeserializeOwned + Send;
    /// The tool's locked metadata.
    const META: ToolMeta;
}

/// `&text[start..end]`, in a `const` context (a bad range is a compile
/// error in the generated code, never a run-time panic).
const fn slice(text: &'static str, start: usize, end: usize) -> &'static str {
    text.split_at(end).0.split_at(start).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_slices_of_the_definition() {
        const DEF: &str = r#"{"inputSchema":{"type":"object"},"name":"t","outputSchema":{}}"#;
        const META: ToolMeta = ToolMeta::new(
            "s",
            "t",
            None,
            None,
            DEF,
            Some((15, 32)),
            Some((59, 61)),
            [false, true, false, true],
            "00",
        );
        assert_eq!(META.input_schema, r#"{"type":"object"}"#);
        assert_eq!(META.output_schema, Some("{}"));
    }
}
