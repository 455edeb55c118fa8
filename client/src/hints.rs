//! [`help`] knowing the client side's errors: the model's
//! ([`mcpbind_model::help`]) finds the config's and the lockfile's; this one
//! also finds [`Error`](crate::Error) (with `client`); the toolbox's
//! (`mcpbind_toolbox::help`) adds its `ToolboxError`.

use std::error::Error as StdError;

use mcpbind_model::Help;

/// The help of `error`, or of the first error in its source chain that has
/// one; `None` when none does. It knows every error type of mcpbind (and
/// [`Hinted`](mcpbind_model::Hinted)); [`help_with`] takes other crates' types too.
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
    mcpbind_model::help_with(error, |link| as_help(link).or_else(|| more(link)))
}

/// `error` as a [`Help`], when it is one of the client side's types.
#[cfg(feature = "any-transport")]
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
    find!(crate::error::Error);
    None
}

#[cfg(not(feature = "any-transport"))]
fn as_help<'a>(_: &'a (dyn StdError + 'static)) -> Option<&'a dyn Help> {
    None
}

#[cfg(feature = "any-transport")]
impl Help for crate::error::Error {
    fn help(&self) -> Option<String> {
        crate::error::Error::help(self)
    }
}

#[cfg(all(test, feature = "any-transport"))]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] Box<dyn StdError + 'static>);

    #[test]
    fn runtime_errors_have_their_help_through_a_chain() {
        let drift = crate::error::Error::Drift {
            server: "demo".into(),
            drift: Vec::new(),
        };
        let err = Outer(Box::new(crate::error::Error::Attempts {
            server: "demo".into(),
            tool: "add".into(),
            attempts: 2,
            last: Box::new(drift),
        }));
        assert_eq!(
            help(&err).as_deref(),
            Some("review with `mcpbind diff demo`, then run `mcpbind lock demo` and rebuild")
        );
    }
}
