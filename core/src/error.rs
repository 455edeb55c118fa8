//! Errors of connections and calls. Every error names its server, and the
//! tool when there is one.

use std::time::Duration;

use crate::config::ConfigError;
use crate::model::CallToolResult;

/// A runtime error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration is invalid, or a `${VAR}` in it is not set.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The config has no server of this name.
    #[error("server `{server}` is not in the config")]
    UnknownServer {
        /// The server name asked for.
        server: String,
    },
    /// The server's process could not be started.
    #[error("failed to start server `{server}`: cannot run `{command}`")]
    Spawn {
        /// The server.
        server: String,
        /// The program.
        command: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The MCP handshake with the server failed.
    #[error("failed to connect to server `{server}`: {reason}{}", tail(stderr))]
    Connect {
        /// The server.
        server: String,
        /// What went wrong.
        reason: String,
        /// The last lines the server wrote to stderr, if it is a process.
        stderr: Option<String>,
    },
    /// The connection closed (for a process: it exited) during a request.
    #[error("server `{server}` closed the connection{}{}", exit.as_deref().map(|e| format!(" ({e})")).unwrap_or_default(), tail(stderr))]
    Closed {
        /// The server.
        server: String,
        /// How the process ended, when known (`exit status: 3`).
        exit: Option<String>,
        /// The last lines the server wrote to stderr, if it is a process.
        stderr: Option<String>,
    },
    /// The call did not complete in time; it was cancelled on the wire.
    #[error("call to `{server}.{tool}` timed out after {}", humantime(*timeout))]
    Timeout {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The timeout that expired.
        timeout: Duration,
    },
    /// The server answered a request with a JSON-RPC error, or the request
    /// failed in rmcp.
    #[error("request `{method}` to server `{server}` failed")]
    Service {
        /// The server.
        server: String,
        /// The request (`tools/call echo`, `tools/list`).
        method: String,
        /// rmcp's error.
        #[source]
        source: Box<rmcp::ServiceError>,
    },
    /// The tool ran and reported failure (`isError: true`).
    #[error("tool `{server}.{tool}` returned an error: {message}")]
    Tool {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The text content of the result.
        message: String,
        /// The whole result.
        result: Box<CallToolResult>,
    },
    /// The typed arguments did not serialize to a JSON object.
    #[error("invalid arguments for `{server}.{tool}`: {reason}")]
    Arguments {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// Tools changed on the server since they were locked, and the server's
    /// `pin_policy` is `refuse`.
    #[error("server `{server}` changed since it was locked: {}\nhelp: review with `mcpbind diff {server}`, then run `mcpbind lock {server}` and rebuild", drift.join("; "))]
    Drift {
        /// The server.
        server: String,
        /// What changed, one entry per tool.
        drift: Vec<String>,
    },
    /// The result does not match the tool's locked output schema.
    #[error("unexpected result from `{server}.{tool}`: {reason}")]
    Output {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
        /// The whole result.
        result: Box<CallToolResult>,
    },
    // Lifecycle errors (retries, circuit breaker, shutdown).
    /// The server's circuit is open after repeated connection failures: the
    /// call was not sent. One probe call goes through after the cool-down.
    #[error("circuit open for server `{server}` after {failures} connection failures in a row (the call was not sent; next probe in {})", humantime(*retry_in))]
    CircuitOpen {
        /// The server.
        server: String,
        /// Consecutive connection failures.
        failures: u32,
        /// When the next probe call is let through.
        retry_in: Duration,
    },
    /// A retry-safe call failed on every attempt; the source is the last
    /// failure.
    #[error("call to `{server}.{tool}` failed after {attempts} attempts")]
    Attempts {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// How many times the call was tried.
        attempts: u32,
        /// The last attempt's error.
        #[source]
        last: Box<Error>,
    },
    /// The client was shut down ([`crate::Servers::shutdown`] or
    /// [`crate::Client::shutdown`]).
    #[error("server `{server}` was shut down")]
    Shutdown {
        /// The server.
        server: String,
    },
}

impl Error {
    /// What the user can do about it, when that is known: the CLI, the
    /// macro and the build helper print it as a `help:` line.
    pub fn help(&self) -> Option<String> {
        match self {
            Error::Drift { server, .. } => Some(format!(
                "review with `mcpbind diff {server}`, then run `mcpbind lock {server}` and rebuild"
            )),
            _ => None,
        }
    }
}

/// `Result` with the runtime's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn tail(stderr: &Option<String>) -> String {
    match stderr.as_deref().map(str::trim_end) {
        Some(s) if !s.is_empty() => format!("\nserver stderr (last lines):\n{s}"),
        _ => String::new(),
    }
}

fn humantime(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        let e = Error::Timeout {
            server: "demo".into(),
            tool: "sleep".into(),
            timeout: Duration::from_millis(1500),
        };
        assert_eq!(e.to_string(), "call to `demo.sleep` timed out after 1500ms");
        let e = Error::Closed {
            server: "demo".into(),
            exit: Some("exit status: 3".into()),
            stderr: Some("boom\n".into()),
        };
        assert_eq!(
            e.to_string(),
            "server `demo` closed the connection (exit status: 3)\nserver stderr (last lines):\nboom"
        );
        let e = Error::UnknownServer { server: "x".into() };
        assert_eq!(e.to_string(), "server `x` is not in the config");
        let e = Error::CircuitOpen {
            server: "demo".into(),
            failures: 5,
            retry_in: Duration::from_millis(2500),
        };
        assert_eq!(
            e.to_string(),
            "circuit open for server `demo` after 5 connection failures in a row (the call was not sent; next probe in 2500ms)"
        );
        let e = Error::Attempts {
            server: "demo".into(),
            tool: "add".into(),
            attempts: 3,
            last: Box::new(Error::Shutdown {
                server: "demo".into(),
            }),
        };
        assert_eq!(e.to_string(), "call to `demo.add` failed after 3 attempts");
        assert_eq!(
            std::error::Error::source(&e).unwrap().to_string(),
            "server `demo` was shut down"
        );
    }
}
