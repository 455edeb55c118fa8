#![cfg_attr(docsrs, feature(doc_cfg))]
//! The agent toolbox of mcpbind: the locked tools of connected servers,
//! offered to a model in each provider's shape (Anthropic, OpenAI, Gemini,
//! rig), checked against their locked schemas and called. Use it through
//! the `mcpbind` crate (`mcpbind::Toolbox`, `mcpbind::toolbox::...`).
//!
//! It sits on the client side (`mcpbind-client`): every call goes through a
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
// (they were written inside `mcpbind-client`).
#[cfg(feature = "skills")]
use mcpbind_client::skills;
use mcpbind_client::LockedEntry;
use mcpbind_client::{handler, json, notices, uri_template};
mod call {
    pub(crate) use mcpbind_client::__toolbox::text_of;
    pub(crate) use mcpbind_client::ToolResult;
}
mod client {
    pub(crate) use mcpbind_client::{CallOptions, Client};
}
mod connect {
    pub(crate) mod secrets {
        pub(crate) use mcpbind_client::ServerSecrets;
    }
}
mod error {
    pub(crate) use mcpbind_client::Error;
}
mod events {
    pub(crate) use mcpbind_client::__toolbox::{
        outcome_of, publish_rejected, publish_toolbox_call, with_scope, CallScope,
    };
    pub(crate) use mcpbind_client::events::{Outcome, ToolInvoked};
}
mod prompt {
    pub(crate) use mcpbind_client::{Prompt, ResourceTemplateMeta};
}
mod tool {
    pub(crate) use mcpbind_client::{TaskSupport, Tool, ToolMeta};
}
mod validate;
