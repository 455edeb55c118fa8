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
    /// The whole locked definition, as canonical JSON text.
    pub definition: &'static str,
    /// `execution.taskSupport`: whether the tool runs as a task.
    pub task_support: TaskSupport,
}

impl ToolMeta {
    /// Generated code's constructor. Everything but the hints is a slice of
    /// the definition (canonical JSON is compositional, so each schema's
    /// canonical text is part of the definition's), so every tool's JSON is
    /// stored once in the binary, and a marker's metadata is a few lines:
    /// `spans` are byte ranges into `definition` of the title's and the
    /// description's text (inside their quotes), the input schema and the
    /// output schema, `(0, 0)` for what the tool doesn't have; a title or
    /// description whose JSON text has escapes is passed as is, through
    /// [`ToolMeta::with_texts`]. `hints`: `readOnlyHint`,
    /// `destructiveHint`, `idempotentHint`, `openWorldHint`, defaults
    /// applied.
    #[doc(hidden)]
    pub const fn new(
        server: &'static str,
        name: &'static str,
        definition: &'static str,
        spans: [(usize, usize); 4],
        hints: [bool; 4],
    ) -> Self {
        let [title, description, _, _] = spans;
        Self::with_texts(
            server,
            name,
            definition,
            spans,
            hints,
            span(definition, title),
            span(definition, description),
        )
    }

    /// [`ToolMeta::new`], with the title and description given (the spans
    /// of theirs are not read).
    #[doc(hidden)]
    pub const fn with_texts(
        server: &'static str,
        name: &'static str,
        definition: &'static str,
        spans: [(usize, usize); 4],
        hints: [bool; 4],
        title: Option<&'static str>,
        description: Option<&'static str>,
    ) -> Self {
        let [_, _, input, output] = spans;
        ToolMeta {
            server,
            name,
            title,
            description,
            input_schema: match span(definition, input) {
                Some(schema) => schema,
                None => "{}",
            },
            output_schema: span(definition, output),
            read_only: hints[0],
            destructive: hints[1],
            idempotent: hints[2],
            open_world: hints[3],
            definition,
            task_support: task_support_in(definition, input.0),
        }
    }

    /// The sha256 of the tool's canonical definition, as locked (and as
    /// `mcpbind.lock` lists it).
    pub fn sha256(&self) -> String {
        crate::hash::sha256_hex_of_text(self.definition)
    }

    /// Whether the tool may change things, by the MCP defaults: it is not
    /// `readOnlyHint: true`, and not `destructiveHint: false`. Under
    /// `annotations = "enforce"` its generated method takes an approval.
    /// A hint of the server's, pinned by the lockfile: see
    /// [`Annotations`](crate::config::Annotations) for what it can be
    /// trusted for.
    pub fn may_modify(&self) -> bool {
        may_modify(self.read_only, self.destructive)
    }

    /// Whether calling the tool twice is harmless, so that a call may be
    /// retried after a lost connection: it is read-only or idempotent.
    pub fn is_retry_safe(&self) -> bool {
        self.read_only || self.idempotent
    }

    /// Whether the tool runs as a task (`execution.taskSupport`, MCP
    /// 2025-11-25): a `required` one is always called as a task.
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }
}

/// What `definition` (canonical JSON) says of `execution.taskSupport`,
/// read in a `const` context, so that a call need not look. Canonical JSON
/// sorts keys, so the tool's own `execution` comes before its
/// `inputSchema` (at `input_start`; 0: unknown, the whole text is looked
/// at), and a quote inside a string is escaped: the text
/// `"taskSupport":"required"` before the input schema is the tool's, or
/// a custom annotation of the same name, which is taken for the same.
const fn task_support_in(definition: &str, input_start: usize) -> TaskSupport {
    let text = definition.as_bytes();
    let end = if input_start == 0 || input_start > text.len() {
        text.len()
    } else {
        input_start
    };
    if contains(text, end, b"\"taskSupport\":\"required\"") {
        TaskSupport::Required
    } else if contains(text, end, b"\"taskSupport\":\"optional\"") {
        TaskSupport::Optional
    } else {
        TaskSupport::Forbidden
    }
}

/// Whether `needle` occurs in `text[..end]`.
const fn contains(text: &[u8], end: usize, needle: &[u8]) -> bool {
    let mut start = 0;
    while start + needle.len() <= end {
        let mut i = 0;
        while i < needle.len() && text[start + i] == needle[i] {
            i += 1;
        }
        if i == needle.len() {
            return true;
        }
        start += 1;
    }
    false
}

/// How a tool may run as a task (its `execution.taskSupport`): a task is
/// created by `tools/call`, polled (`tasks/get`) and its result fetched
/// (`tasks/result`), so that work longer than one request can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum TaskSupport {
    /// Never as a task (`forbidden`, or nothing said).
    #[default]
    Forbidden,
    /// As a task when the caller asks (`optional`).
    Optional,
    /// Only as a task (`required`): a plain call is refused by the server.
    Required,
}

impl TaskSupport {
    /// What a tool's definition (as listed) says.
    pub fn of(definition: &serde_json::Value) -> TaskSupport {
        match definition
            .pointer("/execution/taskSupport")
            .and_then(serde_json::Value::as_str)
        {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// Whether a tool whose annotations (MCP defaults applied) say `read_only`
/// and `destructive` may change things: not `readOnlyHint: true`, and not
/// `destructiveHint: false`. The one rule behind [`ToolMeta::may_modify`],
/// the generator's `annotations = "enforce"` and the toolbox's approvals
/// of unlocked tools.
#[doc(hidden)]
pub const fn may_modify(read_only: bool, destructive: bool) -> bool {
    !read_only && destructive
}

/// A tool with typed input and output. Generated code implements it for one
/// marker type per tool.
pub trait Tool {
    /// The arguments (`inputSchema`).
    type Input: serde::Serialize + serde::de::DeserializeOwned + Send + Sync;
    /// The structured output (`outputSchema`), or `()` when the tool has none.
    type Output: serde::Serialize + serde::de::DeserializeOwned + Send;
    /// The tool's locked metadata.
    const META: ToolMeta;
    /// Whether a call needs an approval (`mcpbind::Approved`): set by
    /// bindings generated with `annotations = "enforce"` for a tool that
    /// [may modify](ToolMeta::may_modify) things. A typed call without one
    /// (`Client::call::<T>`) is refused before it is sent.
    const NEEDS_APPROVAL: bool = false;
    /// Whether `Input` can hold only values its locked input schema
    /// accepts: set by generated code when every keyword of the schema is
    /// one the generated types keep (named properties, strings, numbers,
    /// integers, booleans, arrays, string enums, annotations; no bound,
    /// pattern or union). A typed call's arguments are then not checked
    /// against the schema again, unless they hold a `null` (what a NaN or
    /// infinite float serializes as) or nest deeper than 64 levels;
    /// arguments from elsewhere (an approval's amend, a model's through
    /// the toolbox) still are.
    const INPUT_ENFORCES_SCHEMA: bool = false;
}

/// `&text[start..end]`, `None` for `(0, 0)`, in a `const` context (a bad
/// range is a compile error in the generated code, never a run-time panic).
const fn span(text: &'static str, (start, end): (usize, usize)) -> Option<&'static str> {
    if start == 0 && end == 0 {
        None
    } else {
        Some(text.split_at(end).0.split_at(start).1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_slices_of_the_definition() {
        const DEF: &str = r#"{"description":"Adds.","inputSchema":{"type":"object"},"name":"t","outputSchema":{}}"#;
        const SPANS: [(usize, usize); 4] = [(0, 0), (16, 21), (37, 54), (81, 83)];
        const META: ToolMeta = ToolMeta::new("s", "t", DEF, SPANS, [false, true, false, true]);
        assert_eq!(META.title, None);
        assert_eq!(META.description, Some("Adds."));
        assert_eq!(META.input_schema, r#"{"type":"object"}"#);
        assert_eq!(META.output_schema, Some("{}"));
        let hash = crate::hash::sha256_hex(&serde_json::from_str(DEF).unwrap());
        assert_eq!(META.sha256(), hash);

        const BARE: ToolMeta = ToolMeta::with_texts(
            "s",
            "t",
            r#"{"name":"t"}"#,
            [(0, 0); 4],
            [false; 4],
            Some("T"),
            Some("a \"quoted\" word"),
        );
        assert_eq!(BARE.input_schema, "{}");
        assert_eq!(BARE.output_schema, None);
        assert_eq!(BARE.description, Some("a \"quoted\" word"));
        assert_eq!(BARE.task_support(), TaskSupport::Forbidden);
    }

    #[test]
    fn task_support_is_read_from_the_definition() {
        let meta = |definition: &'static str| {
            let input = definition.find("{\"properties").unwrap_or(0);
            let spans = [(0, 0), (0, 0), (input, definition.len() - 8), (0, 0)];
            ToolMeta::new("s", "t", definition, spans, [false; 4])
        };
        let required = r#"{"execution":{"taskSupport":"required"},"name":"t"}"#;
        assert_eq!(meta(required).task_support(), TaskSupport::Required);
        let optional = r#"{"execution":{"taskSupport":"optional"},"name":"t"}"#;
        assert_eq!(meta(optional).task_support(), TaskSupport::Optional);
        // A property that happens to be called so is not the tool's.
        let property =
            r#"{"inputSchema":{"properties":{"taskSupport":{"const":"required"}}},"name":"t"}"#;
        assert_eq!(meta(property).task_support(), TaskSupport::Forbidden);
    }
}
