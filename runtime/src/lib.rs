//! Typed, compile-time-checked bindings to the tools of MCP servers.
//!
//! mcpbind snapshots each server's `tools/list` into `mcpbind.lock`; the
//! generator (`mcpbind-codegen`, from a `build.rs` or the [`mcp_tools!`]
//! macro) turns that lockfile into Rust types and a typed client per server;
//! this crate runs the calls over [rmcp](https://docs.rs/rmcp).
//!
//! ```toml
//! # Cargo.toml
//! [dependencies]
//! mcpbind = "0.1"
//! tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
//! [build-dependencies]
//! mcpbind-codegen = "0.1"
//! ```
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     mcpbind_codegen::Builder::new().lockfile("mcpbind.lock").generate().unwrap();
//! }
//! ```
//!
//! and in the crate, `mcpbind::include_bindings!();` includes what it wrote.
//! Or, without a build script, the [`mcp_tools!`] macro generates the same
//! code at compile time:
//!
//! ```
//! // src/main.rs
//! mcpbind::mcp_tools!("mcpbind.lock");
//!
//! async fn run() -> Result<(), Box<dyn std::error::Error>> {
//!     let config = mcpbind::Config::load("mcpbind.toml")?;
//!     let demo = demo::Client::connect(&config).await?;
//!     let sum = demo.add(demo::types::AddInput { a: 2, b: 3 }).await?;
//!     println!("{}", sum.output.sum);
//!     Ok(())
//! }
//! # fn main() {}
//! ```
//!
//! This crate is a facade: the code lives in `mcpbind-core` (config, hashing,
//! the [`Tool`] trait, and, with the default `client` feature, connections
//! and calls) and `mcpbind-macros`. They are separate crates because the
//! macro depends on the generator, which depends on the core: a cycle if the
//! core were this crate.
#![deny(missing_docs)]
// The `build.rs` example is a whole file, `fn main` included.
#![allow(clippy::needless_doctest_main)]

// The examples in these docs compile (`cargo test --doc`) against
// `runtime/mcpbind.lock`: a few servers and tools of `tests/mcpbind.lock`,
// copied verbatim (tests/tests/readme.rs checks that they are).

// The API, item by item: what is listed here is what `mcpbind` promises
// (semver); the rest of `mcpbind-core` is its own business.

// The config (`mcpbind.toml`, `.mcp.json`) and the lockfile.
/// Why a config's text could not be read ([`Config::from_toml_str`],
/// [`Config::from_json_str`]).
pub use mcpbind_core::config::ParseError as ConfigParseError;
pub use mcpbind_core::{
    find_lockfile, AuthConfig, Config, ConfigError, ConfigWarning, EntryKind, Lifecycle, LockError,
    LockedEntry, LockedPrompt, LockedResourceTemplate, LockedTool, Lockfile, PinPolicy,
    SandboxBuilder, SandboxConfig, ServerBuilder, ServerConfig, ServerDiff, ServerLock,
    TransportConfig,
};
// Errors' help (`help:` lines): the trait each error type with a hint
// implements, and the function that finds one in a chain.
pub use mcpbind_core::{help, help_with, Help, Hinted};
// What changed on a server since it was locked (the pin check's answer,
// `Error::Drift`, `Notice::Drift`).
pub use mcpbind_core::{DefinitionPart, Drift, DriftChange};
// What generated code implements and describes itself with.
pub use mcpbind_core::{
    include_bindings, Prompt, PromptArgumentMeta, PromptMeta, ResourceTemplateMeta, TaskSupport,
    Tool, ToolMeta, UriTemplate, UriTemplateError, UriValue,
};
// Serving a generated `Handler` (test doubles, proxies).
#[cfg(feature = "server")]
pub use mcpbind_core::{serve_io, serve_stdio};
pub use mcpbind_core::{
    HandlerResult, Reply, ServeError, ServeResult, ToolFailure, ToolServer, UriVariables,
};
// Modules whose items are used by path: the lockfile's hashes
// (`hash::sha256_hex`), JSON read as generated types read it
// (`json::from_value`), the config (`config::is_safe_env`), the lockfile
// and its diff (`diff::ServerDiff`; the review half, `diff::ServerReview`
// and `diff::Review`, with the `review` feature).
pub use mcpbind_core::{config, diff, hash, json, lock, uri_template};

// Connections and calls.
#[cfg(feature = "client")]
pub use mcpbind_core::{
    redact, AcceptDefaults, CallFuture, CallOptions, Client, ClientHooks, Closed, Elicitation,
    Error, Health, PageProblem, Result, Roots, Sampling, Servers, TaskHandle, TaskState,
    ToolResult,
};
// A value that breaks a locked schema, as data (in `CallError::Arguments`).
#[cfg(feature = "client")]
pub use mcpbind_core::Violation;
// The protocol types that cross the API, rmcp's own (re-exported rather
// than copied; `rmcp` itself is not part of the API).
#[cfg(feature = "client")]
pub use mcpbind_core::model;
// OAuth (`auth::login`), what the client answers (`elicit`), and skills
// (SEP-2640: `skills::LoadedSkill`).
#[cfg(feature = "client")]
pub use mcpbind_core::{auth, elicit, skills};

/// What generated code uses. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use mcpbind_core::__private::*;
    /// The lean derives of generated structs and unit enums (serde's traits
    /// of the same names come with the glob), and unit enums' `Display` and
    /// `FromStr`.
    pub use mcpbind_derive::{
        constructors, skip_serializing_none, Deserialize, Serialize, WireStr,
    };
}

// Call events, and what servers say beside their answers.
#[cfg(feature = "client")]
pub use mcpbind_core::events::{self, subscribe as subscribe_events};
#[cfg(feature = "client")]
pub use mcpbind_core::notices::{self, subscribe as subscribe_notices};
#[cfg(feature = "client")]
pub use mcpbind_core::{CallSource, EventReceiver, Outcome, ToolInvoked};
#[cfg(feature = "client")]
pub use mcpbind_core::{ListKind, Notice, NoticeReceiver, Progress, ProgressSink};
// The agent toolbox.
/// rig-core, for the types of `Toolbox::rig_tools` (feature `rig`).
#[cfg(feature = "rig")]
pub use mcpbind_core::rig_core;
#[cfg(feature = "client")]
pub use mcpbind_core::toolbox::{
    self, Approval, BoundServer, CallError, CallRequest, ContentKind, ContentNote, ContentOptions,
    Definitions, DescriptionPolicy, HookCall, LimitExceeded, ModelResult, OpenAiShape, Placement,
    PromptRequest, Provider, ProviderResult, Refusal, RequestLimit, ServerInventory, ToolCall,
    ToolEntry, ToolFacts, ToolHook, ToolInventory, Toolbox, ToolboxError, Verdict,
};

/// Generates bindings from a lockfile at compile time (the same code the
/// `build.rs` helper writes).
///
/// ```
/// mod all {
///     mcpbind::mcp_tools!("mcpbind.lock");
/// }
/// mod some {
///     mcpbind::mcp_tools!(lockfile = "mcpbind.lock", servers = [everything, memory]);
/// }
/// # fn main() {}
/// ```
///
/// Paths are relative to the crate's `CARGO_MANIFEST_DIR`; editing the
/// lockfile recompiles the crate. Never touches the network.
#[cfg(feature = "macros")]
pub use mcpbind_macros::mcp_tools;
