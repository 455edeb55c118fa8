//! The secrets of one server's config: every value a `${VAR}` expanded to,
//! and a password written into a URL. Errors built from text that may hold
//! them (a URL, a command line, rmcp's and reqwest's messages) go through
//! [`redact`](crate::redact::redact), which replaces each with `***`; events
//! and notices replace each with its label (`crate::redact::redact_labelled`).

use std::cell::RefCell;
use std::sync::Arc;

use mcpbind_model::config::{expand_vars_with, ConfigError};

/// `Result` with the `ConfigError` of a `${VAR}` that cannot be expanded.
type Result<T> = std::result::Result<T, ConfigError>;

/// Values shorter than this are not treated as secrets: they would mangle
/// every message (`DEBUG=1`) and are too short to be credentials.
const MIN_SECRET_LEN: usize = 4;

/// Expands a server's config values, remembering what came from the
/// environment.
pub(crate) struct Expander<'a> {
    server: &'a str,
    /// Each secret, with what stands for it in an event: `${VAR}` for a
    /// variable's value, `***` for a URL's password.
    secrets: Vec<(String, String)>,
}

impl<'a> Expander<'a> {
    pub(crate) fn new(server: &'a str) -> Self {
        Expander {
            server,
            secrets: Vec::new(),
        }
    }

    /// Expands `${VAR}` references in `value`.
    pub(crate) fn expand(&mut self, value: &str) -> Result<String> {
        let found = RefCell::new(Vec::new());
        let expanded = expand_vars_with(self.server, value, |var| {
            let value = std::env::var(var).ok();
            if let Some(v) = &value {
                found.borrow_mut().push((v.clone(), format!("${{{var}}}")));
            }
            value
        })?;
        self.secrets.extend(found.into_inner());
        Ok(expanded)
    }

    /// Expands a URL; its password (`user:password@`), if any, is a secret
    /// whether or not it came from a variable.
    pub(crate) fn expand_url(&mut self, value: &str) -> Result<String> {
        let url = self.expand(value)?;
        // Without `http` no URL is connected to.
        #[cfg(feature = "http")]
        if let Ok(parsed) = reqwest::Url::parse(&url) {
            if let Some(password) = parsed.password() {
                self.secrets.push((password.to_owned(), "***".to_owned()));
            }
        }
        Ok(url)
    }

    /// The secrets, each also percent-encoded (as a URL prints it) and
    /// JSON-escaped, longest first.
    pub(crate) fn finish(self) -> Arc<[String]> {
        self.labelled()
            .into_iter()
            .map(|(secret, _)| secret)
            .collect()
    }

    /// [`Expander::finish`], each secret with what stands for it in an
    /// event.
    fn labelled(self) -> Vec<(String, String)> {
        let mut all = Vec::new();
        for (secret, label) in self.secrets {
            if secret.len() < MIN_SECRET_LEN {
                continue;
            }
            let encoded = percent_encode(&secret);
            if encoded != secret {
                all.push((encoded, label.clone()));
            }
            // As a JSON string shows it (a server's error data, a JSON
            // log line): `"` and `\` escaped.
            let quoted = serde_json::to_string(&secret).unwrap_or_default();
            let escaped = quoted
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .unwrap_or(&secret);
            if escaped != secret {
                all.push((escaped.to_owned(), label.clone()));
            }
            all.push((secret, label));
        }
        all.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        all.dedup_by(|a, b| a.0 == b.0);
        all
    }
}

/// OAuth's tokens come from the config values this expands
/// (`mcpbind-auth`).
#[cfg(feature = "auth")]
impl mcpbind_auth::Expand for Expander<'_> {
    fn expand(&mut self, value: &str) -> Result<String> {
        Expander::expand(self, value)
    }

    fn expand_url(&mut self, value: &str) -> Result<String> {
        Expander::expand_url(self, value)
    }

    fn finish(self: Box<Self>) -> Arc<[String]> {
        Expander::finish(*self)
    }
}

/// The secrets of a server's config (`mcpbind::ServerConfig` is the
/// model's; resolving its `${VAR}`s is the client side's).
pub trait ServerSecrets {
    /// The secrets this server's config resolves to now: the value of every
    /// `${VAR}` it refers to (in `command`, `args`, `env`, `url`, `headers`,
    /// `auth`) and a URL password, each also percent-encoded, longest first.
    /// What prints a log line that a lower layer (rmcp, reqwest) may have
    /// filled with them replaces them with `***` (the CLI's `-v` output
    /// does).
    fn secrets(&self) -> Vec<String>;

    /// [`ServerSecrets::secrets`], each with what stands for it in an
    /// event: `${VAR}` for a variable's value, `***` for a URL's password.
    #[doc(hidden)]
    fn labelled_secrets(&self) -> Vec<(String, String)>;
}

impl ServerSecrets for mcpbind_model::config::ServerConfig {
    fn secrets(&self) -> Vec<String> {
        expander(self).finish().to_vec()
    }

    fn labelled_secrets(&self) -> Vec<(String, String)> {
        expander(self).labelled()
    }
}

/// An expander that has expanded every value of a server's config.
fn expander(config: &mcpbind_model::config::ServerConfig) -> Expander<'static> {
    use mcpbind_model::config::TransportConfig;
    let mut expander = Expander::new("");
    match &config.transport {
        TransportConfig::Stdio {
            command, args, env, ..
        } => {
            for text in std::iter::once(command).chain(args).chain(env.values()) {
                let _ = expander.expand(text);
            }
        }
        TransportConfig::StreamableHttp { url, headers }
        | TransportConfig::Sse { url, headers } => {
            let _ = expander.expand_url(url);
            for value in headers.values() {
                let _ = expander.expand(value);
            }
        }
        // A transport this version does not know holds no value it expands.
        _ => {}
    }
    if let Some(secret) = config.auth.as_ref().and_then(|a| a.secret()) {
        let _ = expander.expand(secret);
    }
    expander
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::redact;

    #[test]
    fn url_values_and_passwords_are_secrets() {
        let mut expander = Expander::new("s");
        let url = expander
            .expand_url("http://user:pa55word@h/mcp?api_key=${MCPBIND_SECRETS_TEST_KEY}")
            .unwrap();
        let secrets = expander.finish();
        let shown = reqwest::Url::parse(&url).unwrap().to_string();
        assert_eq!(
            redact(&shown, &secrets),
            "http://user:***@h/mcp?api_key=***"
        );
        assert_eq!(redact("k3y with space", &secrets), "***");
    }

    #[test]
    fn json_escaped_values_are_secrets() {
        let mut expander = Expander::new("s");
        expander.expand("${MCPBIND_SECRETS_TEST_QUOTED}").unwrap();
        let secrets = expander.finish();
        let json = serde_json::json!({"echo": "pa\"ss\\word"}).to_string();
        assert_eq!(redact(&json, &secrets), r#"{"echo":"***"}"#);
    }
}
