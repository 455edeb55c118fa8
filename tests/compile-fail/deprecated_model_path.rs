// `mcpbind::model` (rmcp's protocol types) is `mcpbind::protocol`; the old
// path is kept for one release, and warns (here denied, so that trybuild
// sees it).
#![deny(deprecated)]

use mcpbind::model::CallToolResult;

fn _text(result: &CallToolResult) -> usize {
    result.content.len()
}

fn main() {}
