//! The toolbox's tool inventory: the data a system prompt lists, and a
//! Markdown rendering of it.

use std::fmt::Write;

use serde::Serialize;

/// One server's part of the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ServerInventory {
    /// The server's name in the config.
    pub server: String,
    /// Whether the whole server is held back.
    pub held_back: bool,
    /// Whether its tools are unlocked: listed live, not in `mcpbind.lock`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unlocked: bool,
    /// Its tools the model can call now, in lockfile order.
    pub tools: Vec<ToolInventory>,
    /// Its tools held back (model-facing names), in lockfile order.
    pub held_back_tools: Vec<String>,
}

/// One tool in the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ToolInventory {
    /// The model-facing name.
    pub name: String,
    /// The tool's wire name.
    pub tool: String,
    /// The first line of its description (empty when it has none).
    pub summary: String,
    /// Whether it is unlocked: listed live, not in `mcpbind.lock`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unlocked: bool,
}

/// The first line (or sentence) of a description, for a one-line listing.
pub(crate) fn summary_of(description: Option<&str>) -> String {
    let text = description.unwrap_or_default().trim();
    let line = text.lines().next().unwrap_or_default().trim();
    match line.find(". ") {
        Some(end) => line[..=end].to_owned(),
        None => line.to_owned(),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Renders the inventory as Markdown, for a system prompt.
pub(crate) fn render_markdown(servers: &[ServerInventory]) -> String {
    let mut out = String::from("# Tools\n");
    for server in servers {
        let count = server.tools.len();
        let unlocked = if server.unlocked {
            ", unlocked: listed live, not reviewed"
        } else {
            ""
        };
        if server.held_back {
            let _ = write!(
                out,
                "\n## {} (held back)\n\nIts {} tool{} can be enabled on request.\n",
                server.server,
                server.held_back_tools.len(),
                plural(server.held_back_tools.len())
            );
            continue;
        }
        let _ = write!(
            out,
            "\n## {} ({count} tool{}{unlocked})\n\n",
            server.server,
            plural(count)
        );
        for tool in &server.tools {
            if tool.summary.is_empty() {
                let _ = writeln!(out, "- `{}`", tool.name);
            } else {
                let _ = writeln!(out, "- `{}`: {}", tool.name, tool.summary);
            }
        }
        if !server.held_back_tools.is_empty() {
            let names: Vec<String> = server
                .held_back_tools
                .iter()
                .map(|n| format!("`{n}`"))
                .collect();
            let _ = writeln!(out, "\nHeld back: {}", names.join(", "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_first_sentence_of_first_line() {
        assert_eq!(
            summary_of(Some("Read a file. Then more.\nx")),
            "Read a file."
        );
        assert_eq!(summary_of(Some("  one line  ")), "one line");
        assert_eq!(summary_of(None), "");
    }
}
