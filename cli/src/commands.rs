//! One module per subcommand, each with its `Args` and `run`.

pub mod call;
pub mod check;
pub mod diff;
pub mod generate;
pub mod list;
pub mod lock;
pub mod login;
