#![cfg_attr(docsrs, feature(doc_cfg))]
//! The model of mcpbind: the config (`mcpbind.toml`, `.mcp.json`), the
//! lockfile (read, write, canonical hashes), the diff of two snapshots, URI
//! templates, atomic writes, and what generated code implements (`Tool`,
//! the `Handler` dispatch). Use it through the `mcpbind` crate, which
//! re-exports its API item by item.
//!
//! It depends on neither rmcp nor tokio, under any feature: it compiles
//! beside rmcp, and the generator (`mcpbind-codegen`, the `mcp_tools!`
//! macro) depends on it alone. The client side (connections, calls, auth,
//! the sandbox's enforcement) is `mcpbind-client`.
//!
//! The examples in these docs use the crate as users do, through `mcpbind`
//! (a path-only dev-dependency, which `cargo package` leaves out), and
//! bindings of `mcpbind/mcpbind.lock`.
#![deny(missing_docs)]
// `pub(crate)` by default: `pub` only for what the facade or another crate
// uses (ARCHITECTURE.md).
#![warn(unreachable_pub)]

mod bigint;
mod command;
pub mod config;
mod de;
pub mod diff;
mod drift;
pub mod handler;
pub mod hash;
mod help;
mod integer;
pub mod json;
pub mod lock;
mod param_headers;
mod prompt;
mod redact;
pub mod sandbox;
mod ser;
mod tool;
pub mod uri_template;
#[cfg(feature = "validate")]
mod validate;
mod violation;
pub mod write;

pub use bigint::{BigInt, ParseBigIntError};
// The items of the private modules; a public module's items are named by
// their module (`mcpbind_model::lock::Lockfile`).
pub use drift::{DefinitionPart, Drift, DriftChange};
pub use help::{Help, Hinted};
pub use prompt::{Prompt, PromptArgumentMeta, PromptMeta, ResourceTemplateMeta};
pub use redact::redact;
pub use tool::{may_modify, TaskSupport, Tool, ToolMeta};
pub use violation::Violation;

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

/// What the workspace's own crates use of this crate's insides
/// (`mcpbind-review`, `mcpbind-client`, `mcpbind-auth`; ARCHITECTURE.md lists each crate's). Not part of the
/// public API, and exempt from semver.
#[doc(hidden)]
pub mod internal {
    pub use crate::diff::{diff_values, escape};
    pub use crate::lock::depth::on_deep_stack;

    /// A stdio server's `command` found as the platform's shell would, and
    /// `allow_commands` matched against it (`mcpbind-client`'s stdio).
    pub mod command {
        pub use crate::command::{allowed, is_batch_file, launched};
    }

    /// `x-mcp-header` mappings (SEP-2243): checked when a tool is listed,
    /// and the values of its `Mcp-Param-*` headers (`mcpbind-client`).
    pub mod param_headers {
        pub use crate::param_headers::{check, mirrors, values};
    }

    /// Secrets hidden in text cut at its start and in JSON values, or
    /// replaced by their labels (`mcpbind-client`'s errors, events and
    /// notices).
    pub mod redact {
        pub use crate::redact::{redact_cut, redact_labelled, redact_labelled_value, redact_value};
    }

    /// An `integer` schema's Rust type, and values out of its range (the
    /// generator, the client's output checks).
    pub mod integer {
        pub use crate::integer::{holds, integer_type, narrow, out_of_range, IntegerType};
    }

    /// JSON Schema validation (feature `validate`): the client's, the
    /// toolbox's, the CLI's and the cassettes' checks.
    #[cfg(feature = "validate")]
    pub mod validate {
        pub use crate::validate::{compile, violations, violations_of, violations_or, Compiled};
    }

    /// Violations joined into one line (the client's and the toolbox's
    /// errors).
    pub mod violation {
        pub use crate::violation::join;
    }

    /// An error's help found in its chain (`mcpbind::help`,
    /// `mcpbind_codegen::help`).
    pub mod help {
        pub use crate::help::{downcast, find, known};
    }

    /// `WWW-Authenticate` challenges read as data (`mcpbind-client`'s
    /// HTTP errors, `mcpbind-auth`).
    pub mod challenge;

    /// An error's message and its sources', joined with `: ` (a source
    /// whose message its parent already shows is skipped).
    pub fn chain(error: &(dyn std::error::Error + 'static)) -> String {
        let mut text = error.to_string();
        let mut cause = error.source();
        while let Some(c) = cause {
            let line = c.to_string();
            if !text.contains(&line) {
                text = format!("{text}: {line}");
            }
            cause = c.source();
        }
        text
    }
}

/// What generated code uses. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::{
        dispatch, dispatch_prompt, dispatch_template, no_such_tool, prompt_unimplemented, serve,
        template_unimplemented, unimplemented, BoxFuture, ServeResult,
    };
    pub use crate::json::from_value;
    /// The type of integers whose schema reaches past 64 bits.
    pub use crate::BigInt;
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
