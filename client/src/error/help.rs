//! The `help:` line of each [`Error`] the user can act on: what to do,
//! kept apart from the message, which says what went wrong.

use super::{annotations_mismatch_help, Error};

impl mcpbind_model::Help for Error {
    fn help(&self) -> Option<String> {
        Error::help(self)
    }
}

impl Error {
    /// What the user can do about it, when that is known: the CLI, the
    /// macro and the build helper print it as a `help:` line. This error's
    /// own, as [`Help::help`](mcpbind_model::Help::help) gives it;
    /// `mcpbind::help` looks through its sources too.
    pub fn help(&self) -> Option<String> {
        match self {
            Error::Drift { server, .. } => Some(format!(
                "review with `mcpbind diff {server}`, then run `mcpbind lock {server}` and rebuild"
            )),
            Error::Http { .. } => self.http_help(),
            Error::Auth {
                server,
                login: true,
                ..
            } => Some(format!("run `mcpbind login {server}`")),
            Error::TooLarge {
                server,
                settable: true,
                ..
            } => Some(format!(
                "raise `max_response_bytes` for server `{server}` in mcpbind.toml (default {} bytes)",
                mcpbind_model::config::DEFAULT_MAX_RESPONSE_BYTES
            )),
            Error::TooLarge { server, .. } => Some(format!(
                "no setting raises this limit: ask for less from server `{server}` (page its results), or have it stream its answer as SSE events (which `max_response_bytes` bounds)"
            )),
            Error::TimeLimit { server, .. } => Some(format!(
                "raise `max_call_time` for server `{server}` in mcpbind.toml"
            )),
            Error::Pagination { server, .. } => Some(format!(
                "the pagination of server `{server}` is broken; report it to its authors"
            )),
            Error::ConnectTimeout { server, .. } => Some(format!(
                "raise `connect_timeout` for server `{server}` in mcpbind.toml if it is just slow to start"
            )),
            Error::BatchFileArguments { server, .. } => Some(format!(
                "remove the line break (or other character cmd.exe treats as syntax) from `args` of server `{server}`, or set its `command` to the program the batch file runs (`node` and the package's script, for `npx`)"
            )),
            Error::CommandNotAllowed { command, .. } => Some(format!(
                "add `{command}` to `allow_commands` in mcpbind.toml if this server is trusted"
            )),
            Error::Cwd {
                server,
                exists: false,
                ..
            } => Some(format!(
                "create the directory, or fix `cwd` of server `{server}` (a relative `cwd` is relative to the config file)"
            )),
            Error::Cwd { server, .. } => Some(format!(
                "fix `cwd` of server `{server}`: it must name a directory (a relative `cwd` is relative to the config file)"
            )),
            Error::Sandbox(e) => Some(format!(
                "to run the server with this setting not enforced (and a warning), set `required = false` in `[servers.{}.sandbox]`", e.server
            )),
            Error::Feature { feature, .. } => Some(format!(
                "enable it in Cargo.toml: `mcpbind = {{ version = \"…\", features = [\"{feature}\"] }}`"
            )),
            Error::AnnotationsMismatch { server, config, .. } => {
                Some(annotations_mismatch_help(server, *config))
            }
            Error::Config(e) => mcpbind_model::Help::help(e),
            Error::Lock(e) => e.help(),
            _ => None,
        }
    }

    /// [`help`](Self::help) of an HTTP status the user can act on.
    fn http_help(&self) -> Option<String> {
        match self {
            // The token sent (in `headers`) was taken, but lacks a scope.
            Error::Http {
                server,
                status: Some(403),
                insufficient_scope: Some(scope),
                ..
            } => Some(match scope.is_empty() {
                false => format!(
                    "the token server `{server}` was sent lacks scope `{scope}`: send one granted it in `headers` of server `{server}` in mcpbind.toml, or use `auth = \"oauth\"` with `scopes` listing it"
                ),
                true => format!(
                    "the token server `{server}` was sent lacks a scope it requires (its challenge names none): send one with more scopes in `headers` of server `{server}` in mcpbind.toml"
                ),
            }),
            Error::Http {
                server,
                status: Some(401 | 403),
                ..
            } => Some(format!(
                "the server refused the credentials: set them in `headers` of server `{server}` in mcpbind.toml (e.g. `Authorization = \"Bearer ${{TOKEN}}\"`) and export the variable"
            )),
            Error::Http {
                server,
                status: Some(404),
                ..
            } => Some(format!("check the `url` of server `{server}` in mcpbind.toml")),
            Error::Http {
                server,
                status: Some(429 | 503),
                ..
            } => Some(format!(
                "server `{server}` is busy: try again later; calls of read-only or idempotent tools wait as it asks (within `max_call_time`)"
            )),
            _ => None,
        }
    }
}
