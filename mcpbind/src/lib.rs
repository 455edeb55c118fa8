#![cfg_attr(docsrs, feature(doc_cfg))]
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
//! This crate is a facade: the code lives in `mcpbind-model` (config,
//! lockfile, hashing, the [`Tool`] trait), `mcpbind-client` (with a client
//! feature: connections and calls) and `mcpbind-macros`. They are separate crates because the
//! macro depends on the generator, which depends on the core: a cycle if the
//! core were this crate.
#![deny(missing_docs)]
// The `build.rs` example is a whole file, `fn main` included.
#![allow(clippy::needless_doctest_main)]

// The examples in these docs compile (`cargo test --doc`) against
// `mcpbind/mcpbind.lock`: a few servers and tools of `tests/mcpbind.lock`,
// copied verbatim (tests/tests/readme.rs checks that they are).

// The API, item by item: what is listed here is what `mcpbind` promises
// (semver); the rest of mcpbind-model, mcpbind-client, mcpbind-toolbox and
// mcpbind-server is their own business. tests/api/mcpbind.txt lists it
// (tests/tests/api.rs checks the listing).

// The config (`mcpbind.toml`, `.mcp.json`) and the lockfile.
/// What the generated bindings make of a server's tool annotations
/// (`annotations = "advise" | "enforce"`).
pub use mcpbind_model::config::Annotations;
/// Why a config's text could not be read ([`Config::from_toml_str`],
/// [`Config::from_json_str`]).
pub use mcpbind_model::config::ParseError as ConfigParseError;
pub use mcpbind_model::config::{
    AuthConfig, Config, ConfigError, ConfigWarning, Lifecycle, PinPolicy, SandboxBuilder,
    ServerBuilder, ServerConfig, TransportConfig,
};
pub use mcpbind_model::diff::ServerDiff;
pub use mcpbind_model::lock::{
    find_lockfile, EntryKind, LockError, LockedEntry, LockedPrompt, LockedResourceTemplate,
    LockedTool, Lockfile, ServerLock, StaleReason,
};
pub use mcpbind_model::sandbox::SandboxConfig;
/// A `[servers.NAME.sandbox]` setting that cannot be enforced
/// (`Error::Sandbox`).
pub use mcpbind_model::sandbox::SandboxError;
// Errors' help (`help:` lines): the trait each error type with a hint
// implements, and the function that finds one in a chain (one function,
// here: only the facade knows every error type of the build).
mod help;
pub use help::{help, help_with};
pub use mcpbind_model::{Help, Hinted};
// What changed on a server since it was locked (the pin check's answer,
// `Error::Drift`, `Notice::Drift`).
pub use mcpbind_model::{DefinitionPart, Drift, DriftChange};
// What generated code implements and describes itself with.
pub use mcpbind_model::uri_template::{UriTemplate, UriTemplateError, UriValue};
pub use mcpbind_model::{
    include_bindings, Prompt, PromptArgumentMeta, PromptMeta, ResourceTemplateMeta, TaskSupport,
    Tool, ToolMeta,
};
// Integers of any size: generated types' `integer`s whose schema's bounds
// or `format` reach past 64 bits.
pub use mcpbind_model::{BigInt, ParseBigIntError};
// Serving a generated `Handler` (test doubles, proxies).
pub use mcpbind_model::handler::{
    HandlerResult, Reply, ServeError, ServeResult, ToolFailure, ToolServer, UriVariables,
};
#[cfg(feature = "server")]
pub use mcpbind_server::{serve_io, serve_stdio};
// Namespaces whose items are used by path, each a named list (no module
// is re-exported whole). An item has one path here: the root, or the
// module that alone holds it.

/// The config (`mcpbind.toml`, `.mcp.json`): its defaults, and `${VAR}`
/// expansion ([`Config`] and its parts are at the root).
pub mod config {
    pub use mcpbind_model::config::{
        expand_vars, expand_vars_with, input_var, is_safe_env, is_valid_server_name, Assertion,
        SigningAlgorithm, DEFAULT_BREAKER_COOLDOWN, DEFAULT_BREAKER_THRESHOLD,
        DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_CALL_TIME, DEFAULT_MAX_RESPONSE_BYTES,
        DEFAULT_RETRIES, DEFAULT_RETRY_BACKOFF, DEFAULT_RETRY_BACKOFF_MAX, DEFAULT_TIMEOUT,
        SAFE_ENV,
    };
}

/// The diff of two snapshots of a server ([`ServerDiff`],
/// the pin check's, is at the root); the review half (`ServerReview`,
/// `Review`) with the `review` feature, as `mcpbind check` and `mcpbind
/// diff` report it.
pub mod diff {
    pub use mcpbind_model::diff::{Change, ToolDiff};
    #[cfg(feature = "review")]
    pub use mcpbind_review::{
        classify_prompt, classify_resource_template, classify_tool, terminal_safe, word_diff,
        Class, Entry, Finding, Message, MessagePart, Review, ServerReview, WordOp,
        REPORT_FORMAT_VERSION,
    };
}

/// The lockfile's hashes: sha256 of RFC 8785 canonical JSON.
pub mod hash {
    pub use mcpbind_model::hash::{canonical_json, sha256_hex, sha256_hex_of_text};
}

/// JSON read as generated types read it.
pub mod json {
    pub use mcpbind_model::json::{from_value, normalize_numbers};
}

/// The lockfile (`mcpbind.lock`): where it is looked for, and its limits
/// ([`Lockfile`] and its parts are at the root).
pub mod lock {
    pub use mcpbind_model::lock::{
        lockfile_candidates, value_depth, workspace_root, Result, LOCKFILE_ENV, LOCKFILE_NAME,
        LOCKFILE_VERSION, MAX_DEPTH, MAX_LOCKFILE_BYTES,
    };
}

/// RFC 6570 URI templates (resource templates): a variable's spec
/// ([`UriTemplate`] is at the root).
pub mod uri_template {
    pub use mcpbind_model::uri_template::VarSpec;
}

// Connections and calls.
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::elicit::{AcceptDefaults, ClientHooks, Elicitation, Roots, Sampling};
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::{
    CallFuture, CallOptions, Client, Closed, Error, Health, PageProblem, Result, ServerSecrets,
    Servers, TaskHandle, TaskState, ToolResult,
};
// Secrets hidden in text (`***`), as errors and logs hide them.
#[cfg(feature = "__any-transport")]
pub use mcpbind_model::redact;
// Effects in the types (`annotations = "enforce"`): the approval policy
// (one for the toolbox and typed calls) and the approval a call takes.
// Approvals: one policy for typed calls of `annotations = "enforce"`
// tools and the toolbox's model calls.
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::{Approval, Approvals, Approved, CallRequest, Verdict};
// A value that breaks a locked schema, as data (in `CallError::Arguments`).
pub use mcpbind_model::Violation;
// The protocol types that cross the API, rmcp's own (re-exported rather
// than copied; `rmcp` itself is not part of the API).
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::protocol;
// Without a client feature, `server` has what a generated `Handler` needs.
#[cfg(all(feature = "server", not(feature = "__any-transport")))]
pub use mcpbind_server::protocol;
/// The protocol types' old path: [`protocol`].
#[cfg(any(feature = "__any-transport", feature = "server"))]
#[deprecated(
    note = "rmcp's protocol types are `mcpbind::protocol` (`mcpbind::model` is removed in the next release)"
)]
pub mod model {
    pub use super::protocol::*;
}
/// Live snapshots: connect to configured servers and lock what they list
/// (what `mcpbind lock`, `mcpbind check` and a `build.rs` refresh run).
#[cfg(feature = "__any-transport")]
pub mod snapshot {
    pub use mcpbind_client::snapshot::{refresh, snapshot_server, snapshot_servers, Refreshed};
}
// OAuth (`auth::login`), what the client answers (`elicit`), and skills
// (SEP-2640: `skills::LoadedSkill`).
#[cfg(feature = "auth")]
pub mod auth {
    //! OAuth: `mcpbind login`'s flow, stored credentials, the browser hook.
    pub use mcpbind_auth::{credentials_dir, Browser};
    pub use mcpbind_client::auth::{login, logout};
}
/// What the client answers a server's requests with: the hook's future,
/// and a schema's defaults ([`ClientHooks`] and the
/// answers are at the root).
#[cfg(feature = "__any-transport")]
pub mod elicit {
    pub use mcpbind_client::elicit::{schema_defaults, HookFuture};
}
/// Skills (SEP-2640): listed, loaded and verified against their entries
/// (feature `skills`).
#[cfg(feature = "skills")]
pub mod skills {
    pub use mcpbind_client::skills::{
        LoadedSkill, Skill, SkillFrontmatter, SkillResource, SkillResources, MAX_SKILL_BYTES,
        MAX_SKILL_FILES,
    };
}

/// What generated code uses. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    /// The lean derives of generated structs and unit enums (serde's traits
    /// of the same names come with the glob), and unit enums' `Display` and
    /// `FromStr`.
    pub use mcpbind_derive::{
        constructors, skip_serializing_none, Deserialize, Serialize, WireStr,
    };
    pub use mcpbind_model::__private::*;

    /// A generated client's calls, and its `connect`'s check of the
    /// annotations mode.
    #[cfg(feature = "__any-transport")]
    pub use mcpbind_client::internal::{call_approved, call_owned, check_bindings};

    /// On a generated item that needs the client side (`Client`, its
    /// methods): kept with a client feature (`stdio`, `http`…), dropped
    /// without one.
    #[cfg(feature = "__any-transport")]
    pub use mcpbind_derive::keep as client;
    /// On a generated item that needs the `toolbox` feature.
    #[cfg(feature = "toolbox")]
    pub use mcpbind_derive::keep as toolbox;
    /// On a generated item that needs the `testing` feature
    /// (`Client::in_process`).
    #[cfg(feature = "testing")]
    pub use mcpbind_derive::keep as testing;
    #[cfg(not(feature = "__any-transport"))]
    pub use mcpbind_derive::strip as client;
    #[cfg(not(feature = "toolbox"))]
    pub use mcpbind_derive::strip as toolbox;
    #[cfg(not(feature = "testing"))]
    pub use mcpbind_derive::strip as testing;

    /// A generated client's `connect` hands its connection to this: with
    /// the `record` feature, a recorder when `MCPBIND_RECORD` is set.
    #[cfg(feature = "record")]
    pub use mcpbind_testing::internal::recorded;
    /// Without the `record` feature: the connection as it is, whatever the
    /// environment says.
    #[cfg(all(feature = "__any-transport", not(feature = "record")))]
    pub async fn recorded(
        inner: mcpbind_client::Client,
        _protocol: &'static str,
        _tools: &'static [mcpbind_model::ToolMeta],
        _prompts: &'static [mcpbind_model::PromptMeta],
        _templates: &'static [mcpbind_model::ResourceTemplateMeta],
    ) -> mcpbind_client::Client {
        inner
    }
}

// Call events, and what servers say beside their answers.
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::events::subscribe as subscribe_events;
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::notices::subscribe as subscribe_notices;
/// What servers say beside their answers: the bound of a resource's URI
/// ([`Notice`] and [`subscribe_notices`]
/// are at the root).
#[cfg(feature = "__any-transport")]
pub mod notices {
    pub use mcpbind_client::notices::MAX_URI_BYTES;
}
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::events::{CallSource, EventReceiver, Outcome, ToolInvoked};
#[cfg(feature = "__any-transport")]
pub use mcpbind_client::notices::{ListKind, Notice, NoticeReceiver, Progress, ProgressSink};
// The agent toolbox.
/// rig-core's types in the toolbox's signatures (feature `rig`): what
/// [`Toolbox::rig_tools`] returns.
#[cfg(feature = "rig")]
pub mod rig {
    pub use mcpbind_toolbox::rig::DynamicTool;
}
#[cfg(feature = "toolbox")]
pub use mcpbind_toolbox::{
    BoundServer, CallError, ContentKind, ContentNote, ContentOptions, Definitions,
    DescriptionPolicy, HookCall, LimitExceeded, ModelResult, OpenAiShape, Placement, PromptRequest,
    Provider, ProviderResult, Refusal, RequestLimit, ServerInventory, ToolCall, ToolEntry,
    ToolFacts, ToolHook, ToolInventory, Toolbox, ToolboxError,
};
/// The agent toolbox's provider helpers, used by path (the toolbox's
/// items are at the root).
#[cfg(feature = "toolbox")]
pub mod toolbox {
    pub use mcpbind_toolbox::{is_legal_tool_name, model_name, MAX_NAME_LEN};
    // Skills as context (feature `skills`).
    #[cfg(feature = "skills")]
    pub use mcpbind_toolbox::{skill_catalog, SkillEntry};
}

/// Testing what calls MCP tools (feature `testing`): a generated client on
/// an in-process double, and cassettes recorded and replayed.
///
/// ```no_run
/// mcpbind::mcp_tools!(lockfile = "mcpbind.lock", servers = [demo]);
///
/// struct MyDouble;
/// impl demo::Handler for MyDouble {
///     async fn add(
///         &self,
///         input: demo::types::AddInput,
///     ) -> mcpbind::HandlerResult<demo::types::AddOutput> {
///         Ok(demo::types::AddOutput { sum: input.a + input.b }.into())
///     }
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let demo = demo::Client::in_process(demo::Server(MyDouble)).await?;
/// assert_eq!(demo.add(demo::types::AddInput::new(2, 40)).await?.output.sum, 42);
///
/// // The same client answered from a cassette, refused when the
/// // lockfile's hashes moved since it was recorded.
/// let lockfile = mcpbind::Lockfile::read("mcpbind.lock")?;
/// let cassette = mcpbind::testing::Cassette::load("session.cassette.json", &lockfile)?;
/// let demo = demo::Client::in_process(demo::Server(MyDouble))
///     .replay(&cassette)
///     .await?;
/// # let _ = demo;
/// # Ok(()) }
/// # fn main() {}
/// ```
#[cfg(feature = "testing")]
pub mod testing {
    pub use mcpbind_testing::{
        canonical_arguments, json_diff, Cassette, CassetteError, Exchange, InProcess, Recorder,
        Recording, Replay, ResourceTape, ServerTape, Tape, Unrecorded, CASSETTE_VERSION,
    };
    pub use mcpbind_testing::{detect_provider, ScriptError, ScriptedModel, Sent, ToolUse, Turn};
}

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
