//! One module per subcommand, each with its `Args` and `run`; `review`
//! holds what `check` and `diff` share.

pub mod call;
pub mod check;
pub mod diff;
pub mod generate;
pub mod list;
pub mod lock;
pub mod login;
mod review;

/// Text from a server on one line of a terminal: line breaks as spaces,
/// escapes and bidirectional controls shown as `\u{..}` (as `diff` does).
fn one_line(text: &str) -> String {
    mcpbind::diff::terminal_safe(&text.replace(['\n', '\r', '\t'], " "))
}

/// `1 tool`, `12 tools`.
fn tools(n: usize) -> String {
    if n == 1 {
        "1 tool".to_owned()
    } else {
        format!("{n} tools")
    }
}
