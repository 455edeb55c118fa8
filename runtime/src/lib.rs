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
//! ```ignore
//! // build.rs
//! fn main() {
//!     mcpbind_codegen::Builder::new().lockfile("mcpbind.lock").generate().unwrap();
//! }
//! ```
//!
//! ```ignore
//! // src/main.rs
//! mcpbind::include_bindings!();
//!
//! let config = mcpbind::Config::load("mcpbind.toml")?;
//! let demo = demo::Client::connect(&config).await?;
//! let sum = demo.add(demo::types::AddInput { a: 2, b: 3 }).await?;
//! println!("{}", sum.output.sum);
//! ```
//!
//! Or, without a build script: `mcpbind::mcp_tools!("mcpbind.lock");`.
//!
//! This crate is a facade: the code lives in `mcpbind-core` (config, hashing,
//! the [`Tool`] trait, and, with the default `client` feature, connections
//! and calls) and `mcpbind-macros`. They are separate crates because the
//! macro depends on the generator, which depends on the core: a cycle if the
//! core were this crate.
#![deny(missing_docs)]

pub use mcpbind_core::*;

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

// The agent toolbox and call events (explicit: this list is the API).
#[cfg(feature = "client")]
pub use mcpbind_core::events::{self, subscribe as subscribe_events};
#[cfg(feature = "client")]
pub use mcpbind_core::notices::{self, subscribe as subscribe_notices};
#[cfg(feature = "client")]
pub use mcpbind_core::toolbox::{
    self, Approval, BoundServer, CallError, CallRequest, ContentKind, ContentNote, ContentOptions,
    Definitions, DescriptionPolicy, HookCall, LimitExceeded, ModelResult, OpenAiShape, Placement,
    PromptRequest, Provider, ProviderResult, Refusal, RequestLimit, ServerInventory, ToolCall,
    ToolEntry, ToolFacts, ToolHook, ToolInventory, Toolbox, ToolboxError, Verdict,
};
#[cfg(feature = "client")]
pub use mcpbind_core::{CallSource, EventReceiver, Outcome, ToolInvoked};

/// Generates bindings from a lockfile at compile time (the same code the
/// `build.rs` helper writes).
///
/// ```ignore
/// mcpbind::mcp_tools!("mcpbind.lock");
/// mcpbind::mcp_tools!(lockfile = "mcpbind.lock", servers = [everything, memory]);
/// ```
///
/// Paths are relative to the crate's `CARGO_MANIFEST_DIR`; editing the
/// lockfile recompiles the crate. Never touches the network.
#[cfg(feature = "macros")]
pub use mcpbind_macros::mcp_tools;
