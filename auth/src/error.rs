//! OAuth's errors: what the client (`mcpbind-client`) shows as its own
//! `Error::Auth` and `Error::Config`, field for field.

use mcpbind_model::config::ConfigError;

/// Why OAuth failed.
/// (Exhaustive: the client maps each variant to its own.)
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `${VAR}` in the server's config is not set.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// OAuth failed, or the server needs a login first.
    #[error("server `{server}`{}: {reason}", if *login { " needs authorization" } else { "" })]
    Auth {
        /// The server.
        server: String,
        /// What went wrong (secrets redacted; tokens are never shown).
        reason: String,
        /// Whether `mcpbind login SERVER` is the fix.
        login: bool,
    },
}

impl Error {
    /// This error with every secret in its text replaced by `***` (as the
    /// client's `Error::redacted` does).
    pub fn redacted(mut self, secrets: &[String]) -> Error {
        if let Error::Auth { reason, .. } = &mut self {
            if secrets
                .iter()
                .any(|s| !s.is_empty() && reason.contains(s.as_str()))
            {
                *reason = mcpbind_model::redact(reason, secrets);
            }
        }
        self
    }
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
