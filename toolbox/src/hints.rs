//! [`help`] knowing the toolbox's errors too: the client side's
//! (`mcpbind_client::help`) finds the model's and the runtime's; this one also
//! finds [`ToolboxError`](crate::ToolboxError).

use std::error::Error as StdError;

use mcpbind_model::Help;

use crate::ToolboxError;

/// The help of `error`, or of the first error in its source chain that has
/// one; `None` when none does. It knows every error type of mcpbind (and
/// [`Hinted`](mcpbind_model::Hinted)); [`help_with`] takes other crates'
/// types too.
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
    mcpbind_client::help_with(error, |link| {
        (link.downcast_ref::<ToolboxError>())
            .or_else(|| link.downcast_ref::<Box<ToolboxError>>().map(|e| &**e))
            .map(|e| e as &dyn Help)
            .or_else(|| more(link))
    })
}

impl Help for ToolboxError {
    fn help(&self) -> Option<String> {
        ToolboxError::help(self)
    }
}
