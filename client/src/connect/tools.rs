//! Pages of `tools/list`, `prompts/list` and `resources/templates/list`,
//! read from the raw JSON the tap caught.
//!
//! rmcp parses a page into its typed model, which rejects the whole page
//! when one entry is malformed (a numeric `name`, no `inputSchema`): then the
//! page arrives as an untyped result. The raw JSON is authoritative either
//! way: each entry in it is checked here, a malformed one is skipped with a
//! line saying which one (by index when it has no name) and what is wrong,
//! and the rest are kept.

use rmcp::model::ServerResult;
use rmcp::ServiceError;
use serde_json::Value;

use crate::error::Error;
use mcpbind_model::lock::EntryKind;

/// One page of a list.
pub(crate) struct Page {
    /// The well-formed entries, as sent.
    pub(crate) tools: Vec<Value>,
    /// One line per skipped tool.
    pub(crate) skipped: Vec<String>,
    /// The cursor of the next page.
    pub(crate) next_cursor: Option<String>,
}

/// The key of a list's entries in its result.
fn list_key(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Tool => "tools",
        EntryKind::Prompt => "prompts",
        EntryKind::ResourceTemplate => "resourceTemplates",
    }
}

/// A page from rmcp's model (when the tap caught no raw result).
fn typed_page(kind: EntryKind, response: ServerResult) -> Option<Page> {
    fn values<T: serde::Serialize>(items: &[T]) -> Vec<Value> {
        items
            .iter()
            .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
            .collect()
    }
    let (tools, next_cursor) = match (kind, response) {
        (EntryKind::Tool, ServerResult::ListToolsResult(page)) => {
            (values(&page.tools), page.next_cursor)
        }
        (EntryKind::Prompt, ServerResult::ListPromptsResult(page)) => {
            (values(&page.prompts), page.next_cursor)
        }
        (EntryKind::ResourceTemplate, ServerResult::ListResourceTemplatesResult(page)) => {
            (values(&page.resource_templates), page.next_cursor)
        }
        _ => return None,
    };
    Some(Page {
        tools,
        skipped: Vec::new(),
        next_cursor,
    })
}

/// Reads a page from the raw `result` when there is one, else from rmcp's
/// model. `first` is the index of the page's first entry in the whole list.
pub(crate) fn read_page(
    server: &str,
    list: EntryKind,
    response: ServerResult,
    raw: Option<Value>,
    first: usize,
) -> Result<Page, Error> {
    let method = list.method();
    let invalid = |reason: String| Error::Invalid {
        server: server.to_owned(),
        method: method.to_owned(),
        reason,
    };
    let Some(raw) = raw else {
        return typed_page(list, response).ok_or_else(|| Error::Service {
            server: server.to_owned(),
            method: method.to_owned(),
            source: Box::new(ServiceError::UnexpectedResponse),
        });
    };
    let key = list_key(list);
    let kind_of_list = list;
    let Some(list) = raw.get(key).and_then(Value::as_array) else {
        return Err(invalid(format!("`{key}` is not an array")));
    };
    let next_cursor = match raw.get("nextCursor") {
        None | Some(Value::Null) => None,
        Some(Value::String(cursor)) => Some(cursor.clone()),
        Some(other) => {
            return Err(invalid(format!(
                "`nextCursor` is {}, not a string",
                kind(other)
            )))
        }
    };
    let mut page = Page {
        tools: Vec::new(),
        skipped: Vec::new(),
        next_cursor,
    };
    let noun = kind_of_list.noun();
    for (i, entry) in list.iter().enumerate() {
        let checked = match kind_of_list {
            EntryKind::Tool => check_tool(entry),
            EntryKind::Prompt => check_prompt(entry),
            EntryKind::ResourceTemplate => check_template(entry),
        };
        match checked {
            Ok(()) => page.tools.push(entry.clone()),
            Err(what) => {
                let index = first + i;
                page.skipped
                    .push(match entry.get("name").and_then(Value::as_str) {
                        Some(name) => format!("{noun} `{name}` (#{index} in {method}): {what}"),
                        None => format!("{noun} #{index} in {method}: {what}"),
                    })
            }
        }
    }
    Ok(page)
}

/// What is wrong with an entry's `name`, `title` and `description`.
fn check_named(entry: &Value) -> Result<&serde_json::Map<String, Value>, String> {
    let Value::Object(entry) = entry else {
        return Err(format!("is {}, not an object", kind(entry)));
    };
    match entry.get("name") {
        None => return Err("has no `name`".to_owned()),
        Some(Value::String(name)) if name.is_empty() => return Err("`name` is empty".to_owned()),
        Some(Value::String(_)) => {}
        Some(other) => return Err(format!("`name` is {}, not a string", kind(other))),
    }
    for field in ["title", "description"] {
        match entry.get(field) {
            None | Some(Value::String(_)) => {}
            Some(other) => return Err(format!("`{field}` is {}, not a string", kind(other))),
        }
    }
    Ok(entry)
}

/// What is wrong with a prompt's JSON: its `arguments` must be objects
/// with distinct, non-empty string names (they become struct fields).
fn check_prompt(prompt: &Value) -> Result<(), String> {
    let prompt = check_named(prompt)?;
    let arguments = match prompt.get("arguments") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(arguments)) => arguments,
        Some(other) => return Err(format!("`arguments` is {}, not an array", kind(other))),
    };
    let mut seen = std::collections::BTreeSet::new();
    for (i, argument) in arguments.iter().enumerate() {
        let name = match argument.get("name") {
            Some(Value::String(name)) if !name.is_empty() => name,
            _ => return Err(format!("argument #{i} has no string `name`")),
        };
        if !seen.insert(name) {
            return Err(format!("argument `{name}` is listed twice"));
        }
        match argument.get("required") {
            None | Some(Value::Bool(_)) => {}
            Some(other) => {
                return Err(format!(
                    "`required` of argument `{name}` is {}, not a boolean",
                    kind(other)
                ))
            }
        }
    }
    Ok(())
}

/// What is wrong with a resource template's JSON: its `uriTemplate` must
/// be an RFC 6570 template.
fn check_template(template: &Value) -> Result<(), String> {
    let template = check_named(template)?;
    match template.get("uriTemplate") {
        None => Err("has no `uriTemplate`".to_owned()),
        Some(Value::String(t)) => mcpbind_model::uri_template::UriTemplate::parse(t)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Some(other) => Err(format!("`uriTemplate` is {}, not a string", kind(other))),
    }
}

/// What is wrong with a tool's JSON, if anything that binding it needs.
fn check_tool(tool: &Value) -> Result<(), String> {
    let tool = check_named(tool)?;
    match tool.get("inputSchema") {
        None => return Err("has no `inputSchema`".to_owned()),
        Some(Value::Object(schema)) => mcpbind_model::internal::param_headers::check(schema)?,
        Some(other) => return Err(format!("`inputSchema` is {}, not an object", kind(other))),
    }
    for field in ["outputSchema", "annotations"] {
        match tool.get(field) {
            None | Some(Value::Object(_)) => {}
            Some(other) => return Err(format!("`{field}` is {}, not an object", kind(other))),
        }
    }
    Ok(())
}

/// A JSON value's kind, with a short value where it helps (`the number 42`).
fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn skips_malformed_tools_and_names_them() {
        let raw = json!({"tools": [
            {"name": "ok", "inputSchema": {"type": "object"}},
            {"name": 42, "inputSchema": {"type": "object"}},
            {"name": "noschema"},
            "junk",
        ], "nextCursor": "2"});
        let response = ServerResult::CustomResult(rmcp::model::CustomResult(raw.clone()));
        let page = read_page("s", EntryKind::Tool, response, Some(raw), 10).unwrap();
        assert_eq!(page.tools.len(), 1);
        assert_eq!(
            page.skipped,
            [
                "tool #11 in tools/list: `name` is the number 42, not a string",
                "tool `noschema` (#12 in tools/list): has no `inputSchema`",
                "tool #13 in tools/list: is a string, not an object",
            ]
        );
        assert_eq!(page.next_cursor.as_deref(), Some("2"));
    }

    #[test]
    fn skips_malformed_prompts_and_templates() {
        let raw = json!({"prompts": [
            {"name": "ok", "arguments": [{"name": "a", "required": true}, {"name": "b"}]},
            {"name": "dup", "arguments": [{"name": "a"}, {"name": "a"}]},
            {"name": "bad", "arguments": [{"name": "a", "required": "yes"}]},
        ]});
        let response = ServerResult::CustomResult(rmcp::model::CustomResult(raw.clone()));
        let page = read_page("s", EntryKind::Prompt, response, Some(raw), 0).unwrap();
        assert_eq!(page.tools.len(), 1);
        assert_eq!(
            page.skipped,
            [
                "prompt `dup` (#1 in prompts/list): argument `a` is listed twice",
                "prompt `bad` (#2 in prompts/list): `required` of argument `a` is a string, not a boolean",
            ]
        );
        let raw = json!({"resourceTemplates": [
            {"name": "ok", "uriTemplate": "file:///{+path}"},
            {"name": "open", "uriTemplate": "file:///{path"},
        ]});
        let response = ServerResult::CustomResult(rmcp::model::CustomResult(raw.clone()));
        let page = read_page("s", EntryKind::ResourceTemplate, response, Some(raw), 0).unwrap();
        assert_eq!(page.tools.len(), 1);
        assert_eq!(
            page.skipped,
            ["resource template `open` (#1 in resources/templates/list): invalid URI template `file:///{path` at byte 8: the expression is not closed"]
        );
    }
}
