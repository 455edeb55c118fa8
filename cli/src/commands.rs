//! One module per subcommand, each with its `Args` and `run`.

pub mod generate;
pub mod list;
pub mod lock;
