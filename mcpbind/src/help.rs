//! Errors' help: [`help`] finds the `help:` line of an error or of the
//! first error in its source chain that has one. It is here, in the facade,
//! because only the facade knows every error type the build has: the
//! model's (config, lockfile, [`Hinted`](crate::Hinted)) always, the
//! client's `Error` with a transport, the toolbox's `ToolboxError` with
//! `toolbox`. Each type's own help is its [`Help`] implementation, in its
//! home crate.

use std::error::Error as StdError;

use crate::Help;

/// The help of `error`, or of the first error in its source chain that has
/// one; `None` when none does. It knows every error type of mcpbind (and
/// [`Hinted`](crate::Hinted)); [`help_with`] takes other crates' types too.
pub fn help(error: &(dyn StdError + 'static)) -> Option<String> {
    help_with(error, |_| None)
}

/// [`help`], knowing more error types: `more` gives an error of the chain as
/// a [`Help`] when it is one of them. (`mcpbind_codegen::help` knows its
/// own `Error` this way; Rust cannot ask a `dyn Error` for a trait it
/// implements, so each type is looked for by name.)
pub fn help_with(
    error: &(dyn StdError + 'static),
    more: impl for<'a> Fn(&'a (dyn StdError + 'static)) -> Option<&'a dyn Help>,
) -> Option<String> {
    mcpbind_model::internal::help::find(error, |link| known(link).or_else(|| more(link)))
}

/// `error` as a [`Help`], when it is one of the types this build has.
fn known<'a>(error: &'a (dyn StdError + 'static)) -> Option<&'a dyn Help> {
    use mcpbind_model::internal::help as chain;
    let found = chain::known(error);
    #[cfg(feature = "__any-transport")]
    let found = found.or_else(|| chain::downcast::<mcpbind_client::Error>(error));
    #[cfg(feature = "toolbox")]
    let found = found.or_else(|| chain::downcast::<mcpbind_toolbox::ToolboxError>(error));
    found
}

#[cfg(all(test, feature = "__any-transport"))]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(Box<dyn StdError + 'static>);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("outer")
        }
    }

    impl StdError for Outer {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(&*self.0)
        }
    }

    /// The client's error, boxed in another of its errors, through a
    /// program's own error.
    #[test]
    fn client_errors_have_their_help_through_a_chain() {
        let drift = mcpbind_client::Error::Drift {
            server: "demo".into(),
            drift: Vec::new(),
        };
        let err = Outer(Box::new(mcpbind_client::Error::Attempts {
            server: "demo".into(),
            tool: "add".into(),
            attempts: 2,
            last: Box::new(drift),
        }));
        assert_eq!(
            help(&err).as_deref(),
            Some("review with `mcpbind diff demo`, then run `mcpbind lock demo` and rebuild")
        );
        let missing = mcpbind_model::config::ConfigError::MissingVar {
            server: "api".into(),
            var: "TOKEN".into(),
        };
        assert_eq!(
            help(&Outer(Box::new(missing))).as_deref(),
            Some("export `TOKEN`, or write `${TOKEN:-default}`")
        );
    }
}
