#![cfg_attr(docsrs, feature(doc_cfg))]
//! Testing code that calls MCP tools: generated clients on in-process
//! doubles, and recorded sessions (cassettes) replayed as doubles, checked
//! against the lockfile. Use it through the `mcpbind` crate's `testing`
//! feature (`mcpbind::testing`).
//!
//! - [`InProcess`]: a generated client connects to a generated `Server`
//!   over a handler of the test's, in the same process
//!   (`demo::Client::in_process(demo::Server(MyDouble))`, generated with
//!   `mcpbind`'s `testing` feature). The handshake at
//!   the locked protocol version, the pins, validation, events, timeouts
//!   and approvals all run as against a real server; only the process and
//!   the network are gone. A `Toolbox` holds such a client as any other.
//! - [`InProcess::record`]: the double passes each call to a live server
//!   and a [`Recorder`] writes it to a [`Cassette`] (JSON written like the
//!   lockfile, secrets redacted, each tool's locked hash beside its calls).
//! - [`Cassette::load`] + [`InProcess::replay`]: the cassette, refused when
//!   the lockfile's hashes moved, answers as the double.
//! - [`ScriptedModel`]: a model API's raw responses (OpenAI Chat
//!   Completions, OpenAI Responses, Anthropic, Gemini), handed to the agent
//!   under test in order, and what it sends back recorded: the agent loop
//!   end to end with no model and (over replayed servers) no server.
#![deny(missing_docs)]

mod cassette;
#[cfg(feature = "record")]
mod from_env;
mod in_process;
mod listing;
mod record;
mod replay;
mod scripted;

pub use cassette::{
    canonical_arguments, Cassette, CassetteError, Exchange, ResourceTape, ServerTape, Tape,
    CASSETTE_VERSION,
};
pub use in_process::InProcess;
pub use record::{Recorder, Recording};
pub use replay::{json_diff, Replay, Unrecorded};
pub use scripted::{detect_provider, ScriptError, ScriptedModel, Sent, ToolUse, Turn};

/// What generated code and the `mcpbind` facade use. Not part of the
/// public API.
#[doc(hidden)]
pub mod internal {
    /// A generated client's `connect` under `MCPBIND_RECORD` (feature
    /// `record`).
    #[cfg(feature = "record")]
    pub use crate::from_env::recorded;
}
