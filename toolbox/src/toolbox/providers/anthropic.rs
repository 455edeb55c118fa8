//! Anthropic tool definitions: `{"name", "description", "input_schema"}`
//! (Messages API `tools[]`, <https://docs.anthropic.com/en/api/messages>;
//! "Tool use", <https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>).
//!
//! Rules from that documentation:
//! - A1 `name` "must match the regex `^[a-zA-Z0-9_-]{1,64}$`" (the toolbox's
//!   names always do, see `names`);
//! - A2 `input_schema` is "a JSON Schema object" whose root has
//!   `"type": "object"`; the rest of JSON Schema is accepted as is.

use serde_json::{json, Map, Value};

use super::{is_dropped_everywhere, ToolView};

/// A2's root type.
pub(crate) const ROOT_TYPE: &str = "object";

/// The definition of one tool.
pub(crate) fn definition(tool: &ToolView<'_>) -> Value {
    let mut schema = match tool.schema {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    schema.retain(|k, _| !is_dropped_everywhere(k));
    // A2: MCP already requires `"type": "object"` at the root of an
    // inputSchema; a server that left it out still gets a valid definition.
    schema.insert("type".into(), json!(ROOT_TYPE));
    let mut out = Map::new();
    out.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        out.insert("description".into(), json!(tool.description));
    }
    out.insert("input_schema".into(), Value::Object(schema));
    Value::Object(out)
}
