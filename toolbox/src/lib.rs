//! The agent toolbox of mcpbind: the locked tools of connected servers,
//! offered to a model in each provider's shape (Anthropic, OpenAI, Gemini,
//! rig), checked against their locked schemas and called. Use it through
//! the `mcpbind` crate (`mcpbind::Toolbox`, `mcpbind::toolbox::...`).
//!
//! It sits on the client side (`mcpbind-core`): every call goes through a
//! `Client`, with its events, hooks and pins.
#![deny(missing_docs)]

pub mod toolbox;

pub use toolbox::{
    Approval, Approvals, BoundServer, CallError, CallRequest, ContentKind, ContentNote,
    ContentOptions, Definitions, DescriptionPolicy, HookCall, LimitExceeded, ModelResult,
    OpenAiShape, Placement, PromptRequest, Provider, ProviderResult, Refusal, RequestLimit,
    ServerInventory, ToolCall, ToolEntry, ToolFacts, ToolHook, ToolInventory, Toolbox,
    ToolboxError, Verdict,
};

mod hints;
pub use hints::{help, help_with};

/// rig-core's types that appear in the toolbox's signatures (feature
/// `rig`): what [`Toolbox::rig_tools`] returns.
#[cfg(feature = "rig")]
pub mod rig {
    pub use rig_core::tool::DynamicTool;
}

// The client side's items, under the paths the toolbox's files name them by
// (they were written inside `mcpbind-core`).
#[cfg(feature = "skills")]
use mcpbind_core::skills;
use mcpbind_core::LockedEntry;
use mcpbind_core::{handler, json, notices, uri_template};
mod call {
    pub(crate) use mcpbind_core::__toolbox::text_of;
    pub(crate) use mcpbind_core::ToolResult;
}
mod client {
    pub(crate) use mcpbind_core::{CallOptions, Client};
}
mod connect {
    pub(crate) mod secrets {
        pub(crate) use mcpbind_core::ServerSecrets;
    }
}
mod error {
    pub(crate) use mcpbind_core::Error;
}
mod events {
    pub(crate) use mcpbind_core::__toolbox::{
        outcome_of, publish_rejected, publish_toolbox_call, with_scope, CallScope,
    };
    pub(crate) use mcpbind_core::events::{Outcome, ToolInvoked};
}
mod prompt {
    pub(crate) use mcpbind_core::{Prompt, ResourceTemplateMeta};
}
mod tool {
    pub(crate) use mcpbind_core::{TaskSupport, Tool, ToolMeta};
}
mod validate;
