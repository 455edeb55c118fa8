//! Picking the subset of tools a request holds: hold back (or enable) every
//! tool a predicate selects, by server, annotation or name. A provider's
//! per-request limit ([`Definitions::exceeded`](super::Definitions::exceeded))
//! is met this way.

use super::{SlotKind, ToolSlot, Toolbox};

/// What a selection predicate knows of one tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolFacts<'a> {
    /// The model-facing name.
    pub name: &'a str,
    /// The server's name in the config.
    pub server: &'a str,
    /// The wire name (a resource template's name for a read tool).
    pub tool: &'a str,
    /// `annotations.readOnlyHint` (a resource template's read tool: `true`).
    pub read_only: bool,
    /// `annotations.destructiveHint`, MCP default `true`, for a tool that is
    /// not read-only (the hint means nothing otherwise; a read tool: `false`).
    pub destructive: bool,
    /// `annotations.idempotentHint` (a read tool: `true`).
    pub idempotent: bool,
    /// `annotations.openWorldHint`, MCP default `true` (a read tool: `false`).
    pub open_world: bool,
    /// Whether it is a resource template's read tool.
    pub is_template: bool,
    /// Whether it is unlocked: listed live, not in `mcpbind.lock`
    /// ([`Toolbox::add_unlocked`]); its annotations are the server's word
    /// at run time.
    pub unlocked: bool,
}

pub(super) fn facts<'a>(server: &'a str, tool: &'a ToolSlot) -> ToolFacts<'a> {
    match &tool.kind {
        SlotKind::Tool(entry) => ToolFacts {
            name: &tool.model_name,
            server,
            tool: entry.meta.name,
            read_only: entry.meta.read_only,
            // "meaningful only when readOnlyHint == false" (MCP `ToolAnnotations`).
            destructive: entry.meta.destructive && !entry.meta.read_only,
            idempotent: entry.meta.idempotent,
            open_world: entry.meta.open_world,
            is_template: false,
            unlocked: false,
        },
        SlotKind::Template(template) => ToolFacts {
            name: &tool.model_name,
            server,
            tool: template.meta.name,
            read_only: true,
            destructive: false,
            idempotent: true,
            open_world: false,
            is_template: true,
            unlocked: false,
        },
        SlotKind::Live(live) => ToolFacts {
            name: &tool.model_name,
            server,
            tool: live.name,
            read_only: live.read_only,
            destructive: live.destructive && !live.read_only,
            idempotent: live.idempotent,
            open_world: live.open_world,
            is_template: false,
            unlocked: true,
        },
    }
}

impl Toolbox {
    /// Holds back every tool `select` picks; returns how many it picked.
    ///
    /// ```
    /// # let mut tools = mcpbind::Toolbox::new();
    /// tools.hold_back_where(|t| t.destructive);              // by annotation
    /// tools.hold_back_where(|t| t.server == "github" && !t.read_only);
    /// tools.hold_back_where(|t| t.tool.starts_with("admin_")); // by name
    /// ```
    pub fn hold_back_where(&mut self, select: impl Fn(&ToolFacts<'_>) -> bool) -> usize {
        self.set_held_back_where(select, true)
    }

    /// Makes every held-back tool `select` picks available again (a held-back
    /// server stays held back); returns how many it picked.
    pub fn enable_where(&mut self, select: impl Fn(&ToolFacts<'_>) -> bool) -> usize {
        self.set_held_back_where(select, false)
    }

    fn set_held_back_where(
        &mut self,
        select: impl Fn(&ToolFacts<'_>) -> bool,
        held_back: bool,
    ) -> usize {
        let mut picked = 0;
        for server in &mut self.servers {
            for tool in &mut server.tools {
                if select(&facts(&server.name, tool)) {
                    tool.held_back = held_back;
                    picked += 1;
                }
            }
        }
        picked
    }

    /// What a predicate knows of each tool, held back or not, in toolbox
    /// order.
    pub fn tool_facts(&self) -> Vec<ToolFacts<'_>> {
        self.servers
            .iter()
            .flat_map(|s| s.tools.iter().map(|t| facts(&s.name, t)))
            .collect()
    }
}
