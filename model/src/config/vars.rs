//! `${VAR}` references in config values, expanded when connecting, and
//! `${input:ID}` ones, read from `MCPBIND_INPUT_*`.

use super::{AuthConfig, ConfigError, ServerConfig, TransportConfig};

/// Expands `${VAR}` and `${VAR:-default}` in `value` from the environment.
///
/// `$$` stays a single `$` escape-free: only `${` starts a reference.
///
/// # Errors
///
/// Those of [`expand_vars_with`].
pub fn expand_vars(server: &str, value: &str) -> Result<String, ConfigError> {
    expand_vars_with(server, value, |var| std::env::var(var).ok())
}

/// [`expand_vars`] with a custom lookup (used by tests).
///
/// # Errors
///
/// [`ConfigError::MissingVar`] for a variable `lookup` does not know and that
/// has no default, [`ConfigError::MissingInput`] for such a VS Code input,
/// [`ConfigError::BadReference`] for a `${` without its `}`.
pub fn expand_vars_with(
    server: &str,
    value: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}').ok_or_else(|| ConfigError::BadReference {
            server: server.to_owned(),
        })?;
        let reference = &after[..end];
        let (var, default) = match reference.split_once(":-") {
            Some((var, default)) => (var, Some(default)),
            None => (reference, None),
        };
        if let Some(input) = var.strip_prefix("input:") {
            let var = input_var(input);
            match lookup(&var) {
                Some(v) => out.push_str(&v),
                None => {
                    return Err(ConfigError::MissingInput {
                        server: server.to_owned(),
                        input: input.to_owned(),
                        var,
                    })
                }
            }
            rest = &after[end + 1..];
            continue;
        }
        // VS Code's spelling of an environment variable.
        let var = var.strip_prefix("env:").unwrap_or(var);
        match (lookup(var), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                return Err(ConfigError::MissingVar {
                    server: server.to_owned(),
                    var: var.to_owned(),
                })
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The environment variable that gives the value of VS Code input `id`:
/// `MCPBIND_INPUT_` and the id in capitals, every other character `_`
/// (`github-token` → `MCPBIND_INPUT_GITHUB_TOKEN`).
pub fn input_var(id: &str) -> String {
    let id: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("MCPBIND_INPUT_{id}")
}

/// The first `${input:ID}` in `value` whose ID is not in `declared`.
pub(super) fn undeclared_input(value: &str, declared: &[String]) -> Option<String> {
    let mut rest = value;
    while let Some(start) = rest.find("${input:") {
        let after = &rest[start + 8..];
        let end = after.find('}')?;
        let id = &after[..end];
        if !declared.iter().any(|d| d == id) {
            return Some(id.to_owned());
        }
        rest = &after[end + 1..];
    }
    None
}

impl ServerConfig {
    /// Every string value a connection expands (command, args, env, url,
    /// headers).
    pub(super) fn values(&self) -> Vec<&str> {
        match &self.transport {
            TransportConfig::Stdio {
                command, args, env, ..
            } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .chain(env.values().map(String::as_str))
                .collect(),
            TransportConfig::StreamableHttp { url, headers }
            | TransportConfig::Sse { url, headers } => std::iter::once(url.as_str())
                .chain(headers.values().map(String::as_str))
                .chain(self.auth.as_ref().and_then(AuthConfig::secret))
                .chain(self.auth.as_ref().and_then(AuthConfig::id_token))
                .collect(),
        }
    }
}
