#![cfg_attr(docsrs, feature(doc_cfg))]
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
    all(
        feature = "any-transport",
        not(any(feature = "stdio", feature = "http"))
    ),
    allow(dead_code, unused_variables)
)]

/// The sandbox's enforcement when a stdio server is spawned
/// (`mcpbind-sandbox`), or, without the `sandbox` feature, its refusal.
mod sandbox {
    #[cfg(feature = "sandbox")]
    use mcpbind_model::sandbox::SandboxError;

    #[cfg(all(feature = "stdio", not(feature = "sandbox")))]
    pub(crate) use crate::unconfined::{confine, Confined, Proxy, Scratch, Target};
    #[cfg(feature = "sandbox")]
    pub(crate) use mcpbind_sandbox::{confine, Confined, Proxy, Scratch, Target};

    #[cfg(feature = "sandbox")]
    impl From<SandboxError> for crate::connect::ConnectFailure {
        fn from(e: SandboxError) -> Self {
            crate::connect::ConnectFailure::Error(e.into())
        }
    }
}

#[cfg(test)]
mod test_env;
#[cfg(all(feature = "stdio", not(feature = "sandbox")))]
mod unconfined;

#[cfg(feature = "any-transport")]
mod approval;
#[cfg(feature = "auth")]
pub mod auth;
#[cfg(feature = "any-transport")]
mod breaker;
#[cfg(feature = "any-transport")]
mod call;
#[cfg(feature = "any-transport")]
mod client;
#[cfg(feature = "any-transport")]
mod clock;
#[cfg(feature = "any-transport")]
mod connect;
#[cfg(feature = "any-transport")]
pub mod elicit;
#[cfg(feature = "any-transport")]
mod error;
#[cfg(feature = "any-transport")]
pub mod events;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "any-transport")]
pub mod notices;
#[cfg(feature = "any-transport")]
mod paging;
#[cfg(feature = "any-transport")]
mod redact;
#[cfg(feature = "any-transport")]
mod servers;
/// Skills (SEP-2640): the entries, the spec's limits and [`skills::LoadedSkill`]
/// (`mcpbind-skills`; the `Client` methods list, load and read them).
#[cfg(feature = "skills")]
pub use mcpbind_skills as skills;
#[cfg(feature = "any-transport")]
pub mod snapshot;
#[cfg(feature = "otel")]
mod trace_context;
#[cfg(feature = "any-transport")]
mod validate {
    #[cfg(feature = "validate")]
    pub(crate) use mcpbind_model::internal::validate::violations_or;
    pub(crate) use mcpbind_model::internal::violation::join;
    #[cfg(not(feature = "validate"))]
    use mcpbind_model::Violation;

    /// Without the `validate` feature nothing is checked against a schema
    /// (a typed call's types checked its arguments), and nothing is said
    /// of it.
    #[cfg(not(feature = "validate"))]
    pub(crate) fn violations_or(
        _schema: &'static str,
        _instance: &serde_json::Value,
        _unchecked: impl FnOnce(&str),
    ) -> Vec<Violation> {
        Vec::new()
    }
}

#[cfg(feature = "any-transport")]
pub use approval::{Approval, Approvals, Approved, CallRequest, Verdict};
#[cfg(feature = "any-transport")]
pub use call::ToolResult;
#[cfg(feature = "any-transport")]
pub use client::{CallFuture, CallOptions, Client, Closed, TaskHandle, TaskState};
#[cfg(feature = "any-transport")]
pub use connect::secrets::ServerSecrets;
#[cfg(feature = "any-transport")]
pub use error::{Error, PageProblem, Result};
#[cfg(feature = "any-transport")]
pub use servers::{Health, Servers};

/// rmcp's protocol types, re-exported rather than copied.
#[cfg(feature = "any-transport")]
pub mod protocol {
    #[allow(deprecated)] // sampling and roots: SEP-2577 (see elicit.rs)
    pub use rmcp::model::{
        CallToolResult, CompletionInfo, ContentBlock, CreateMessageRequestParams,
        CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationAction,
        ElicitationSchema, GetPromptResult, Implementation, PromptMessage, ProtocolVersion,
        ReadResourceResult, Reference, Resource, ResourceContents, ResourceTemplate, Role, Root,
        ServerPeerInfo, TaskStatus, Tool as ToolDefinition,
    };
}

/// What the workspace's own crates use of this crate's insides. Not part
/// of the public API, and exempt from semver.
#[doc(hidden)]
#[cfg(feature = "any-transport")]
pub mod internal;
