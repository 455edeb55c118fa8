#![cfg_attr(docsrs, feature(doc_cfg))]
//! The review of a diff between two snapshots of a server, as
//! `mcpbind check` and `mcpbind diff` report it. Use it through the
//! `mcpbind` crate (feature `review`: `mcpbind::diff`).
//!
//! The model's `ServerDiff` lists what differs, by tool and JSON pointer:
//! all the runtime's pin check needs. On top of it, [`ServerReview`]
//! classifies each change as breaking, review or compatible by a named rule
//! (`classify.rs` for entries, `prompts.rs` for prompts and resource
//! templates, `schema.rs` for the JSON Schema rules, `shared.rs` for the
//! rules every entry shares; the findings in `finding.rs`), and [`Review`]
//! renders the result as text, JSON or Markdown (`report.rs`, with word
//! diffs from `words.rs`).
//!
//! Like the model, it depends on neither rmcp nor tokio.
#![deny(missing_docs)]

mod classify;
#[cfg(test)]
mod classify_tests;
#[cfg(test)]
mod depth_tests;
mod finding;
#[cfg(test)]
mod fuzz_tests;
mod prompts;
mod report;
mod schema;
mod shared;
mod words;

pub use classify::{classify_tool, ServerReview};
pub use finding::{Class, Entry, Finding, Message, MessagePart};
pub use prompts::{classify_prompt, classify_resource_template};
pub use report::{terminal_safe, Review, REPORT_FORMAT_VERSION};
pub use words::{word_diff, WordOp};

// What the rules build on: the model's diff, by JSON pointer.
use mcpbind_model::diff::{Change, ServerDiff};
use mcpbind_model::internal::{diff_values, escape};

/// The generator's real-world corpus: the `tools/list` of 66 public MCP
/// servers, locked (`codegen/tests/corpus/servers.lock`), for tests that
/// run over real schemas.
#[cfg(test)]
fn corpus() -> mcpbind_model::lock::Lockfile {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../codegen/tests/corpus/servers.lock"
    );
    mcpbind_model::lock::Lockfile::read(path).unwrap()
}
