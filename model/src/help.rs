//! One way to attach help to an error: what the user can do about it,
//! kept apart from the message (which says what went wrong) and shown as
//! its own `help:` line, cargo style.
//!
//! Each error type of mcpbind that can know a fix implements [`Help`]; the
//! message of an error never contains its help. `mcpbind::help` finds the
//! help of an error or of the first error in its source chain that has one
//! (a program's own context around an mcpbind error included): the CLI
//! prints it, and so can any program. It is one function, in the facade,
//! because only the facade knows every error type a build has; the chain
//! walk it uses is this module's [`find`] (`mcpbind_model::internal::help`).
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
/// sources' (those have theirs): `mcpbind::help` walks the chain.
pub trait Help {
    /// What the user can do about this error, when that is known: one
    /// sentence, printed as a `help:` line (`run `mcpbind lock demo` and
    /// commit mcpbind.lock`).
    fn help(&self) -> Option<String>;
}

/// The help of `error`, or of the first error in its source chain that
/// has one, each link of the chain given as a [`Help`] by `known` (which
/// knows the types it looks for: Rust cannot ask a `dyn Error` for a trait
/// it implements, so each type is looked for by name). `mcpbind::help` and
/// `mcpbind_codegen::help` call it with the types their builds know.
pub fn find(
    error: &(dyn StdError + 'static),
    known: impl for<'a> Fn(&'a (dyn StdError + 'static)) -> Option<&'a dyn Help>,
) -> Option<String> {
    let mut next = Some(error);
    while let Some(link) = next {
        if let Some(help) = known(link).and_then(Help::help) {
            return Some(help);
        }
        next = link.source();
    }
    None
}

/// `error` as a [`Help`] when it is a `T`, or a boxed one (a boxed source,
/// `#[source] last: Box<Error>`, is in the chain as the box: `Box<T>` is an
/// error of its own type).
pub fn downcast<'a, T: Help + StdError + 'static>(
    error: &'a (dyn StdError + 'static),
) -> Option<&'a dyn Help> {
    match error.downcast_ref::<T>() {
        Some(e) => Some(e),
        None => error.downcast_ref::<Box<T>>().map(|e| &**e as &dyn Help),
    }
}

/// `error` as a [`Help`], when it is one of this crate's types.
pub fn known<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a dyn Help> {
    downcast::<Hinted>(error)
        .or_else(|| downcast::<LockError>(error))
        .or_else(|| downcast::<ConfigError>(error))
}

/// An error with a message and a hint, for a program's own errors (the
/// CLI's) that should carry a `help:` line the way mcpbind's do: it
/// displays as its message, and `mcpbind::help` finds its hint.
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

    fn help(error: &(dyn StdError + 'static)) -> Option<String> {
        find(error, known)
    }

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
        // Another crate's type, through what `known` is given.
        struct Fixed;
        impl Help for Fixed {
            fn help(&self) -> Option<String> {
                Some("fixed".into())
            }
        }
        let found = find(&Outer(Box::new(Plain)), |e| {
            known(e).or_else(|| e.downcast_ref::<Plain>().map(|_| &Fixed as &dyn Help))
        });
        assert_eq!(found.as_deref(), Some("fixed"));
    }
}
