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
//! bindings of `mcpbind/mcpbind.lock`.
#![deny(missing_docs)]
// Without a transport (`stdio`, `http`) nothing connects: the handshake
// and its errors go unused.
#![cfg_attr(
    all(feature = "client", not(any(feature = "stdio", feature = "http"))),
    allow(dead_code, unused_variables)
)]

// The model (always on), under the paths it had when it lived here:
// `crate::config::X` keeps working in this crate, and in its users.
pub use mcpbind_model::{config, diff, handler, hash, json, lock, uri_template, write};
pub use mcpbind_model::{
    find_lockfile, include_bindings, AuthConfig, Config, ConfigError, ConfigWarning,
    DefinitionPart, Drift, DriftChange, EntryKind, HandlerResult, Help, Hinted, Lifecycle,
    LockError, LockedEntry, LockedPrompt, LockedResourceTemplate, LockedTool, Lockfile, PinPolicy,
    Prompt, PromptArgumentMeta, PromptMeta, Reply, ResourceTemplateMeta, SandboxBuilder,
    SandboxConfig, ServeError, ServeResult, ServerBuilder, ServerConfig, ServerDiff, ServerLock,
    TaskSupport, Tool, ToolFailure, ToolMeta, ToolServer, TransportConfig, UriTemplate,
    UriTemplateError, UriValue, UriVariables,
};

/// What a stdio server's process may touch: the model's
/// `[servers.NAME.sandbox]`, and (with `sandbox`) its enforcement when a
/// server is spawned (`mcpbind-sandbox`).
pub mod sandbox {
    pub use mcpbind_model::sandbox::{
        FileAccess, HomePolicy, Limits, NetworkPolicy, SandboxConfig, SandboxError,
    };

    #[cfg(feature = "sandbox")]
    pub(crate) mod plan {
        pub(crate) use mcpbind_sandbox::plan::Target;
    }
    #[cfg(all(feature = "stdio", not(feature = "sandbox")))]
    pub(crate) mod plan {
        pub(crate) use crate::unconfined::Target;
    }
    #[cfg(all(feature = "stdio", not(feature = "sandbox")))]
    pub(crate) use crate::unconfined::{confine, Confined, Proxy, Scratch};
    #[cfg(feature = "sandbox")]
    pub(crate) use mcpbind_sandbox::{confine, Confined, Proxy, Scratch};

    #[cfg(feature = "sandbox")]
    impl From<SandboxError> for crate::connect::ConnectFailure {
        fn from(e: SandboxError) -> Self {
            crate::connect::ConnectFailure::Error(e.into())
        }
    }
}

// The model's items under the paths this crate's files name them by.
mod drift {
    pub(crate) use mcpbind_model::Drift;
}
mod prompt {
    pub(crate) use mcpbind_model::{Prompt, PromptMeta, ResourceTemplateMeta};
}
mod tool {
    pub(crate) use mcpbind_model::{TaskSupport, Tool, ToolMeta};
}

mod hints;
pub use hints::{help, help_with};

#[cfg(test)]
mod test_env;
#[cfg(all(feature = "stdio", not(feature = "sandbox")))]
mod unconfined;

#[cfg(feature = "client")]
pub mod approval;
#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "client")]
mod breaker;
#[cfg(feature = "client")]
mod call;
#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod clock;
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
mod redact;
#[cfg(feature = "client")]
mod servers;
/// Skills (SEP-2640): the entries, the spec's limits and [`skills::LoadedSkill`]
/// (`mcpbind-skills`; the `Client` methods list, load and read them).
#[cfg(feature = "skills")]
pub use mcpbind_skills as skills;
#[cfg(feature = "client")]
pub mod snapshot;
#[cfg(feature = "otel")]
mod trace_context;
#[cfg(feature = "client")]
mod validate {
    #[cfg(feature = "validate")]
    pub use mcpbind_model::validate::{compile, violations_of, violations_or, Compiled};
    pub use mcpbind_model::violation::{join, Violation};

    /// Without the `validate` feature nothing is checked against a schema
    /// (a typed call's types checked its arguments), and nothing is said
    /// of it.
    #[cfg(not(feature = "validate"))]
    pub fn violations_or(
        _schema: &'static str,
        _instance: &serde_json::Value,
        _unchecked: impl FnOnce(&str),
    ) -> Vec<Violation> {
        Vec::new()
    }
}

#[cfg(feature = "client")]
pub use approval::{Approval, Approvals, Approved, CallRequest, Verdict};
#[cfg(feature = "client")]
pub use call::ToolResult;
#[cfg(feature = "client")]
pub use client::{CallFuture, CallOptions, Client, Closed, TaskHandle, TaskState};
#[cfg(feature = "client")]
pub use connect::secrets::ServerSecrets;
#[cfg(feature = "client")]
pub use elicit::{AcceptDefaults, ClientHooks, Elicitation, Roots, Sampling};
#[cfg(feature = "client")]
pub use error::{Error, PageProblem, Result};
#[cfg(feature = "client")]
pub use events::{CallSource, EventReceiver, Outcome, ToolInvoked};
#[cfg(feature = "client")]
pub use notices::{ListKind, Notice, NoticeReceiver, Progress, ProgressSink};
#[cfg(feature = "client")]
#[cfg(feature = "client")]
pub use servers::{Health, Servers};
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

/// What `mcpbind-toolbox` uses of this crate's internals. Not part of the
/// public API.
#[doc(hidden)]
#[cfg(feature = "client")]
pub mod __toolbox {
    pub use crate::call::text_of;
    pub use crate::error::{annotations_mismatch, annotations_mismatch_help};
    pub use crate::events::{
        outcome_of, publish_rejected, publish_toolbox_call, with_scope, CallScope,
    };
    #[cfg(feature = "validate")]
    pub use crate::validate::{compile, violations_of, Compiled};
    pub use crate::validate::{join, violations_or};
    pub use mcpbind_model::may_modify;
}

/// What generated code uses. Not part of the public API.
#[doc(hidden)]
pub use mcpbind_model::__private;
