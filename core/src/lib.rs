//! The engine of mcpbind. Use it through the `mcpbind` crate, which re-exports
//! its API item by item.
//!
//! mcpbind snapshots each server's `tools/list` into `mcpbind.lock`; the
//! generator (`mcpbind-codegen`, from a `build.rs` or the `mcp_tools!` macro)
//! turns that lockfile into Rust types and a typed client per server; this
//! crate runs the calls over [rmcp](https://docs.rs/rmcp).
//!
//! How to add it to a crate (`build.rs` or the `mcp_tools!` macro) and
//! make the first typed call is in the `mcpbind` crate's docs, whose
//! examples compile against a checked-in lockfile.
//!
//! The examples in these docs use the crate as users do, through `mcpbind`
//! (a path-only dev-dependency, which `cargo package` leaves out), and
//! bindings of `runtime/mcpbind.lock`.
#![deny(missing_docs)]

pub mod config;
mod de;
pub mod diff;
mod drift;
pub mod handler;
pub mod hash;
mod help;
pub mod json;
pub mod lock;
mod prompt;
pub mod sandbox;
mod ser;
#[cfg(test)]
mod test_env;
mod tool;
pub mod uri_template;
pub mod write;

pub use config::{
    AuthConfig, Config, ConfigError, ConfigWarning, Lifecycle, PinPolicy, SandboxBuilder,
    ServerBuilder, ServerConfig, TransportConfig,
};
pub use diff::ServerDiff;
pub use drift::{DefinitionPart, Drift, DriftChange};
pub use handler::{
    HandlerResult, Reply, ServeError, ServeResult, ToolFailure, ToolServer, UriVariables,
};
pub use help::{help, help_with, Help, Hinted};
pub use lock::{
    find_lockfile, EntryKind, LockError, LockedEntry, LockedPrompt, LockedResourceTemplate,
    LockedTool, Lockfile, ServerLock,
};
pub use prompt::{Prompt, PromptArgumentMeta, PromptMeta, ResourceTemplateMeta};
pub use sandbox::SandboxConfig;
pub use tool::{TaskSupport, Tool, ToolMeta};
pub use uri_template::{UriTemplate, UriTemplateError, UriValue};

#[cfg(feature = "server")]
mod serve;
#[cfg(feature = "server")]
pub use serve::{serve_io, serve_stdio};

#[cfg(feature = "client")]
pub mod auth;
#[cfg(feature = "client")]
mod breaker;
#[cfg(feature = "client")]
mod call;
#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod connect;
#[cfg(feature = "client")]
pub mod elicit;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
pub mod events;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "client")]
pub mod notices;
#[cfg(feature = "client")]
mod paging;
#[cfg(feature = "client")]
mod servers;
#[cfg(feature = "client")]
pub mod skills;
#[cfg(feature = "client")]
pub mod toolbox;
#[cfg(feature = "otel")]
mod trace_context;
#[cfg(feature = "client")]
mod validate;

#[cfg(feature = "client")]
pub use call::ToolResult;
#[cfg(feature = "client")]
pub use client::{CallFuture, CallOptions, Client, Closed, TaskHandle, TaskState};
#[cfg(feature = "client")]
pub use elicit::{AcceptDefaults, ClientHooks, Elicitation, Roots, Sampling};
#[cfg(feature = "client")]
pub use error::{redact, Error, PageProblem, Result};
#[cfg(feature = "client")]
pub use events::{CallSource, EventReceiver, Outcome, ToolInvoked};
#[cfg(feature = "client")]
pub use notices::{ListKind, Notice, NoticeReceiver, Progress, ProgressSink};
#[cfg(feature = "client")]
pub use servers::{Health, Servers};
#[cfg(feature = "client")]
pub use toolbox::{
    Approval, BoundServer, CallError, CallRequest, ContentKind, ContentNote, ContentOptions,
    Definitions, DescriptionPolicy, HookCall, LimitExceeded, ModelResult, OpenAiShape, Placement,
    PromptRequest, Provider, ProviderResult, Refusal, RequestLimit, ServerInventory, ToolCall,
    ToolEntry, ToolFacts, ToolHook, ToolInventory, Toolbox, ToolboxError, Verdict,
};
#[cfg(feature = "client")]
pub use validate::Violation;

/// rmcp's protocol types, re-exported rather than copied.
#[cfg(feature = "client")]
pub mod model {
    #[allow(deprecated)] // sampling and roots: SEP-2577 (see elicit.rs)
    pub use rmcp::model::{
        CallToolResult, CompletionInfo, ContentBlock, CreateMessageRequestParams,
        CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
        ElicitationSchema, GetPromptResult, Implementation, PromptMessage, ProtocolVersion,
        ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate, Role, Root,
        ServerPeerInfo, TaskStatus, Tool as ToolDefinition,
    };
}

#[cfg(feature = "client")]
pub use rmcp;

/// rig-core, for the types of `Toolbox::rig_tools` (feature `rig`).
#[cfg(feature = "rig")]
pub use rig_core;

/// Includes the bindings a `build.rs` wrote with `mcpbind_codegen::Builder`
/// (`$OUT_DIR/mcpbind.rs`, or the given file name).
#[macro_export]
macro_rules! include_bindings {
    () => {
        include!(concat!(env!("OUT_DIR"), "/mcpbind.rs"));
    };
    ($file:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $file));
    };
}

/// What generated code uses. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::{
        dispatch, dispatch_prompt, dispatch_template, no_such_tool, prompt_unimplemented, serve,
        template_unimplemented, unimplemented, BoxFuture, ServeResult,
    };
    pub use crate::json::from_value;
    pub use serde;
    pub use serde_json;

    /// serde's `Deserialize` trait; `mcpbind`'s `__private` adds, under the
    /// same name in the macro namespace, the lean derive generated structs
    /// and unit enums use (`mcpbind-derive`).
    pub use serde::de::Deserialize;

    /// What that derive expands to calls.
    pub mod de {
        pub use crate::de::{variant, Object};
    }

    /// serde's `Serialize` trait (the facade adds the lean derive of the
    /// same name).
    pub use serde::ser::Serialize;

    /// What the `Serialize` derive expands to calls.
    pub mod ser {
        pub use crate::ser::Object;
    }

    /// The error of generated types' conversions (`types::error`).
    pub use crate::de::ConversionError;
}
