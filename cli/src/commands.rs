//! One module per subcommand, each with its `Args` and `run`.

pub mod call;
pub mod check;
pub mod diff;
pub mod generate;
pub mod list;
pub mod lock;
pub mod login;

/// `1 tool`, `12 tools`.
fn tools(n: usize) -> String {
    if n == 1 {
        "1 tool".to_owned()
    } else {
        format!("{n} tools")
    }
}
