//! One way to attach help to an error: what the user can do about it,
//! kept apart from the message (which says what went wrong) and shown as
//! its own `help:` line, cargo style.
//!
//! Each error type of mcpbind that can know a fix implements [`Help`]; the
//! message of an error never contains its help. [`help`] finds the help of
//! an error or of the first error in its source chain that has one (a
//! program's own context around an mcpbind error included): the CLI prints
//! it, and so can any program.
//!
//! ```
//! use mcpbind::{Help, Hinted, LockError, StaleReason};
//!
//! #[derive(Debug, thiserror::Error)]
//! #[error("failed to build the agent")]
//! struct AgentError(#[source] LockError);
//!
//! let stale = LockError::Stale {
//!     server: "demo".into(),
//!     path: "mcpbind.lock".into(),
//!     reason: StaleReason::NotLocked,
//! };
//! assert_eq!(
//!     stale.help().as_deref(),
//!     Some("run `mcpbind lock demo` and commit mcpbind.lock")
//! );
//! // Found through a chain of errors:
//! let err = AgentError(stale);
//! assert_eq!(
//!     mcpbind::help(&err).as_deref(),
//!     Some("run `mcpbind lock demo` and commit mcpbind.lock")
//! );
//! // A program's own error with a hint:
//! let err = Hinted::new("no agent is configured", "add one to agents.toml");
//! assert_eq!(mcpbind::help(&err).as_deref(), Some("add one to agents.toml"));
//! ```

use std::error::Error as StdError;

use crate::config::ConfigError;
use crate::lock::LockError;

/// An error that may know what the user can do about it.
///
/// Like miette's `Diagnostic::help`, the help is the error's own, not its
/// sources' (those have theirs): [`help`] walks the chain.
pub trait Help {
    /// What the user can do about this error, when that is known: one
    /// sentence, printed as a `help:` line (`run `mcpbind lock demo` and
    /// commit mcpbind.lock`).
    fn help(&self) -> Option<String>;
}

/// The help of `error`, or of the first error in its source chain that has
/// one; `None` when none does. It knows every error type of mcpbind (and
/// [`Hinted`]); [`help_with`] takes other crates' types too.
pub fn help(error: &(dyn StdError + 'static)) -> Option<String> {
    help_with(error, |_| None)
}

/// [`help`], knowing more error types: `more` gives an error of the chain as
/// a [`Help`] when it is one of them. (`mcpbind_codegen::help` passes its
/// own `Error` this way; Rust cannot ask a `dyn Error` for a trait it
/// implements, so each type is looked for by name.)
pub fn help_with(
    error: &(dyn StdError + 'static),
    more: impl for<'a> Fn(&'a (dyn StdError + 'static)) -> Option<&'a dyn Help>,
) -> Option<String> {
    let mut next = Some(error);
    while let Some(link) = next {
        if let Some(help) = as_help(link).or_else(|| more(link)).and_then(Help::help) {
            return Some(help);
        }
        next = link.source();
    }
    None
}

/// `error` as a [`Help`], when it is one of mcpbind's types.
fn as_help<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a dyn Help> {
    // A boxed source (`#[source] last: Box<Error>`) is in the chain as the
    // box: `Box<E>` is an error of its own type.
    macro_rules! find {
        ($($ty:ty),* $(,)?) => {
            $(if let Some(e) = error.downcast_ref::<$ty>() {
                return Some(e);
            }
            if let Some(e) = error.downcast_ref::<Box<$ty>>() {
                return Some(&**e);
            })*
        };
    }
    find!(Hinted, LockError, ConfigError);
    None
}

/// An error with a message and a hint, for a program's own errors (the
/// CLI's) that should carry a `help:` line the way mcpbind's do: it
/// displays as its message, and [`help`] finds its hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hinted {
    message: String,
    help: String,
}

impl Hinted {
    /// An error with a message and a hint.
    pub fn new(message: impl Into<String>, help: impl Into<String>) -> Hinted {
        Hinted {
            message: message.into(),
            help: help.into(),
        }
    }
}

impl std::fmt::Display for Hinted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl StdError for Hinted {}

impl Help for Hinted {
    fn help(&self) -> Option<String> {
        Some(self.help.clone())
    }
}

impl Help for LockError {
    fn help(&self) -> Option<String> {
        LockError::help(self)
    }
}

impl Help for ConfigError {
    fn help(&self) -> Option<String> {
        match self {
            ConfigError::MissingVar { var, .. } => {
                Some(format!("export `{var}`, or write `${{{var}:-default}}`"))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Box<dyn StdError + 'static>);

    #[derive(Debug, thiserror::Error)]
    #[error("plain")]
    struct Plain;

    #[test]
    fn help_is_found_through_a_chain() {
        let missing = ConfigError::MissingVar {
            server: "api".into(),
            var: "TOKEN".into(),
        };
        assert!(!missing.to_string().contains("help"));
        let err = Outer(Box::new(Outer(Box::new(missing))));
        assert_eq!(
            help(&err).as_deref(),
            Some("export `TOKEN`, or write `${TOKEN:-default}`")
        );
        assert_eq!(help(&Outer(Box::new(Plain))), None);
    }

    #[test]
    fn the_first_help_in_the_chain_wins() {
        let err = Outer(Box::new(Hinted::new("wrapped", "the outer hint")));
        assert_eq!(help(&err).as_deref(), Some("the outer hint"));
        // Another crate's type, through `help_with`.
        struct Fixed;
        impl Help for Fixed {
            fn help(&self) -> Option<String> {
                Some("fixed".into())
            }
        }
        let found = help_with(&Outer(Box::new(Plain)), |e| {
            e.downcast_ref::<Plain>().map(|_| &Fixed as &dyn Help)
        });
        assert_eq!(found.as_deref(), Some("fixed"));
    }
}
