#![cfg_attr(docsrs, feature(doc_cfg))]
//! The agent toolbox of mcpbind: the locked tools of connected servers,
//! offered to a model in each provider's shape (Anthropic, OpenAI, Gemini,
//! rig), checked against their locked schemas and called. Use it through
//! the `mcpbind` crate (`mcpbind::Toolbox`, `mcpbind::toolbox::...`).
//!
//! It sits on the client side (`mcpbind-client`): every call goes through a
//! `Client`, with its events, hooks and pins.
#![deny(missing_docs)]

mod toolbox;

pub use toolbox::{
    BoundServer, CallError, ContentKind, ContentNote, ContentOptions, Definitions,
    DescriptionPolicy, HookCall, LimitExceeded, ModelResult, OpenAiShape, Placement, PromptRequest,
    Provider, ProviderResult, Refusal, RequestLimit, ServerInventory, ToolCall, ToolEntry,
    ToolFacts, ToolHook, ToolInventory, Toolbox, ToolboxError,
};
// The provider helpers, used by path in the facade (`mcpbind::toolbox`).
pub use toolbox::{is_legal_tool_name, model_name, MAX_NAME_LEN};
#[cfg(feature = "skills")]
pub use toolbox::{skill_catalog, SkillEntry};

/// rig-core's types that appear in the toolbox's signatures (feature
/// `rig`): what [`Toolbox::rig_tools`] returns.
#[cfg(feature = "rig")]
pub mod rig {
    pub use rig_core::tool::DynamicTool;
}

mod validate;
