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
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        server: &'static str,
        name: &'static str,
        title: Option<&'static str>,
        description: Option<&'static str>,
        input_schema: &'static str,
        output_schema: Option<&'static str>,
        hints: [bool; 4],
        sha256: &'static str,
        definition: &'static str,
    ) -> Self {
        ToolMeta {
            server,
            name,
            title,
            description,
            input_schema,
            output_schema,
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
