//! Pages of `tools/list`, read from the raw JSON the tap caught.
//!
//! rmcp parses a page into its typed model, which rejects the whole page
//! when one tool is malformed (a numeric `name`, no `inputSchema`): then the
//! page arrives as an untyped result. The raw JSON is authoritative either
//! way: each tool in it is checked here, a malformed one is skipped with a
//! line saying which tool (by index when it has no name) and what is wrong,
//! and the rest are kept.

use rmcp::model::ServerResult;
use rmcp::ServiceError;
use serde_json::Value;

use crate::error::Error;

/// One page of `tools/list`.
pub(crate) struct Page {
    /// The well-formed tools, as sent.
    pub(crate) tools: Vec<Value>,
    /// One line per skipped tool.
    pub(crate) skipped: Vec<String>,
    /// The cursor of the next page.
    pub(crate) next_cursor: Option<String>,
}

/// Reads a page from the raw `result` when there is one, else from rmcp's
/// model. `first` is the index of the page's first tool in the whole list.
pub(crate) fn read_page(
    server: &str,
    response: ServerResult,
    raw: Option<Value>,
    first: usize,
) -> Result<Page, Error> {
    let invalid = |reason: String| Error::Invalid {
        server: server.to_owned(),
        method: "tools/list".to_owned(),
        reason,
    };
    let Some(raw) = raw else {
        let ServerResult::ListToolsResult(page) = response else {
            return Err(Error::Service {
                server: server.to_owned(),
                method: "tools/list".to_owned(),
                source: Box::new(ServiceError::UnexpectedResponse),
            });
        };
        return Ok(Page {
            tools: page
                .tools
                .iter()
                .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
                .collect(),
            skipped: Vec::new(),
            next_cursor: page.next_cursor,
        });
    };
    let Some(list) = raw.get("tools").and_then(Value::as_array) else {
        return Err(invalid("`tools` is not an array".to_owned()));
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
    for (i, tool) in list.iter().enumerate() {
        match check_tool(tool) {
            Ok(()) => page.tools.push(tool.clone()),
            Err(what) => {
                let index = first + i;
                page.skipped
                    .push(match tool.get("name").and_then(Value::as_str) {
                        Some(name) => format!("tool `{name}` (#{index} in tools/list): {what}"),
                        None => format!("tool #{index} in tools/list: {what}"),
                    })
            }
        }
    }
    Ok(page)
}

/// What is wrong with a tool's JSON, if anything that binding it needs.
fn check_tool(tool: &Value) -> Result<(), String> {
    let Value::Object(tool) = tool else {
        return Err(format!("is {}, not an object", kind(tool)));
    };
    match tool.get("name") {
        None => return Err("has no `name`".to_owned()),
        Some(Value::String(name)) if name.is_empty() => return Err("`name` is empty".to_owned()),
        Some(Value::String(_)) => {}
        Some(other) => return Err(format!("`name` is {}, not a string", kind(other))),
    }
    match tool.get("inputSchema") {
        None => return Err("has no `inputSchema`".to_owned()),
        Some(Value::Object(_)) => {}
        Some(other) => return Err(format!("`inputSchema` is {}, not an object", kind(other))),
    }
    for field in ["outputSchema", "annotations"] {
        match tool.get(field) {
            None | Some(Value::Object(_)) => {}
            Some(other) => return Err(format!("`{field}` is {}, not an object", kind(other))),
        }
    }
    for field in ["title", "description"] {
        match tool.get(field) {
            None | Some(Value::String(_)) => {}
            Some(other) => return Err(format!("`{field}` is {}, not a string", kind(other))),
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
        let page = read_page("s", response, Some(raw), 10).unwrap();
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
}
