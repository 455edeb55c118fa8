//! Errors of connections and calls. Every error names its server, and the
//! tool when there is one.

use std::time::Duration;

use crate::protocol::CallToolResult;
use crate::redact::{redact, redact_result, redact_value};
use mcpbind_model::config::ConfigError;
use mcpbind_model::Drift;
use mcpbind_model::Violation;

mod help;

/// A runtime error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The configuration is invalid, or a `${VAR}` in it is not set.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A server's listing could not be locked (a live snapshot: an entry
    /// listed twice, one nested deeper than a lockfile may be).
    #[error(transparent)]
    Lock(#[from] mcpbind_model::lock::LockError),
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
    /// The server's command is a batch file (on Windows `npx` is
    /// `npx.cmd`), and one of its arguments is one that Rust refuses to pass
    /// to a batch file, because `cmd.exe` could not be kept from reading
    /// it as commands (CVE-2024-24576).
    #[error("failed to start server `{server}`: `{command}` is a batch file, and Rust refuses an argument that cmd.exe could not be kept from reading as commands")]
    BatchFileArguments {
        /// The server.
        server: String,
        /// The batch file (secrets redacted).
        command: String,
        /// std's refusal.
        #[source]
        source: std::io::Error,
    },
    /// The server's working directory (`cwd`) is missing or not a directory.
    #[error("failed to start server `{server}`: working directory {} {}", cwd.display(), if *exists { "is not a directory" } else { "does not exist" })]
    Cwd {
        /// The server.
        server: String,
        /// The directory.
        cwd: std::path::PathBuf,
        /// Whether something else (a file) is there.
        exists: bool,
    },
    /// The server's `command` is not in the config's `allow_commands`.
    #[error(
        "server `{server}`: command `{command}` is not allowed (allow_commands = {allowed:?})"
    )]
    CommandNotAllowed {
        /// The server.
        server: String,
        /// The command, as it would have been run (secrets redacted).
        command: String,
        /// The allowed commands.
        allowed: Vec<String>,
    },
    /// A `[servers.NAME.sandbox]` setting cannot be enforced here (and the
    /// sandbox's `required` is not false), or preparing it failed: the
    /// sandbox's error, as it is (its server, setting and reason).
    #[error(transparent)]
    Sandbox(#[from] mcpbind_model::sandbox::SandboxError),
    /// The server's config needs a cargo feature of `mcpbind` this build
    /// was compiled without (a `url` without `http`, `auth` without `auth`,
    /// a `[sandbox]` without `sandbox`).
    #[error("server `{server}` needs mcpbind's `{feature}` feature (for its `{setting}`), which this build was compiled without")]
    Feature {
        /// The server.
        server: String,
        /// The setting that needs it, as in mcpbind.toml.
        setting: String,
        /// The cargo feature of `mcpbind` that adds it.
        feature: &'static str,
    },
    /// The MCP handshake with the server failed.
    #[error(
        "failed to connect to server `{server}`: {reason}{}",
        after_reason(cause, stderr)
    )]
    Connect {
        /// The server.
        server: String,
        /// What went wrong.
        reason: String,
        /// The last lines the server wrote to stderr, if it is a process.
        stderr: Option<String>,
        /// rmcp's error, when rmcp reported one: shown after `reason`, on
        /// a line of its own when the server's stderr follows. (Not the
        /// error's `source`, which a chain would print after the stderr.)
        cause: Option<Redacted>,
    },
    /// The server answered an HTTP request with an error status, or with
    /// something that is not MCP (an HTML page).
    #[error("server `{server}` answered `{method}` with {answer}{}", retry_after.map(|d| format!(" (retry after {})", humantime(d))).unwrap_or_default())]
    Http {
        /// The server.
        server: String,
        /// The request (`initialize`, `tools/list`, `tools/call echo`).
        method: String,
        /// What came back: `HTTP 401 Unauthorized`, `a text/html page`.
        answer: String,
        /// The HTTP status, when there was one.
        status: Option<u16>,
        /// How long the server asked to wait before trying again
        /// (`Retry-After`, with a 429 or 503).
        retry_after: Option<Duration>,
        /// A 403 whose challenge says `error="insufficient_scope"`: the
        /// scopes it names, space-separated (empty: none named).
        insufficient_scope: Option<String>,
    },
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
    /// A message from the server exceeded the server's `max_response_bytes`,
    /// or rmcp's own limit on a Streamable HTTP JSON answer.
    #[error("server `{server}` sent a message larger than {limit} bytes ({}); the connection was closed", if *settable { "`max_response_bytes`" } else { "rmcp's limit on a Streamable HTTP JSON answer" })]
    TooLarge {
        /// The server.
        server: String,
        /// The limit in bytes.
        limit: usize,
        /// Whether `max_response_bytes` sets the limit (`false`: rmcp's
        /// own 16 MiB limit on a Streamable HTTP JSON answer, which no
        /// setting raises).
        settable: bool,
    },
    /// The server answered with something mcpbind can't use (a `tools/list`
    /// without a `tools` array, a message nested too deeply to parse).
    #[error("server `{server}` sent an invalid `{method}` response: {reason}")]
    Invalid {
        /// The server.
        server: String,
        /// The request.
        method: String,
        /// What is wrong.
        reason: String,
    },
    /// A paginated list that would not end: a cursor given twice, or more
    /// pages or bytes than mcpbind reads.
    #[error("server `{server}`: `{method}` {problem}")]
    Pagination {
        /// The server.
        server: String,
        /// The list: `tools/list`, `resources/list`…
        method: String,
        /// What went wrong.
        problem: PageProblem,
    },
    /// The transport refused what the server did: a legacy SSE endpoint or
    /// an HTTP redirect to another origin (where configured headers would
    /// go).
    #[error("server `{server}`: {reason}")]
    Refused {
        /// The server.
        server: String,
        /// What was refused, and why.
        reason: String,
    },
    /// The server did not finish the MCP handshake within `connect_timeout`.
    #[error("failed to connect to server `{server}`: no answer to the MCP handshake within {}", humantime(*timeout))]
    ConnectTimeout {
        /// The server.
        server: String,
        /// The `connect_timeout` that expired.
        timeout: Duration,
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
    /// The request did not complete in time; it was cancelled on the wire.
    #[error("{} timed out after {}", match tool { Some(tool) => format!("call to `{server}.{tool}`"), None => format!("request `{method}` to server `{server}`") }, humantime(*timeout))]
    Timeout {
        /// The server.
        server: String,
        /// The request (`tools/call echo`, `tools/list`).
        method: String,
        /// The tool, for a `tools/call`.
        tool: Option<String>,
        /// The timeout that expired.
        timeout: Duration,
    },
    /// The call went on past its total limit (`max_call_time`) while the
    /// server kept reporting progress; it was cancelled on the wire.
    #[error("{} ran past its max_call_time of {}", match tool { Some(tool) => format!("call to `{server}.{tool}`"), None => format!("request `{method}` to server `{server}`") }, humantime(*limit))]
    TimeLimit {
        /// The server.
        server: String,
        /// The request (`tools/call echo`).
        method: String,
        /// The tool, for a `tools/call`.
        tool: Option<String>,
        /// The `max_call_time` that passed.
        limit: Duration,
    },
    /// A task ended without a result: it failed, or was cancelled.
    #[error("task `{task}` of `{server}.{tool}` ended {}{}", status_name(*status), message.as_deref().map(|m| format!(": {m}")).unwrap_or_default())]
    Task {
        /// The server.
        server: String,
        /// The tool the task runs.
        tool: String,
        /// The task's id.
        task: String,
        /// How it ended (`failed` or `cancelled`).
        status: crate::protocol::TaskStatus,
        /// What the server said of it (its `statusMessage` or error).
        message: Option<String>,
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
    /// A call of a tool that needs approval (`annotations = "enforce"`)
    /// was not approved: the approval policy refused it (or has no
    /// approval), the approval was given for other arguments, or the call
    /// was made without one (`Client::call::<T>`). Nothing was sent.
    #[error("call to `{server}.{tool}` was not approved: {reason}")]
    Unapproved {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// Why: the refusing approval's reason, or what was missing.
        reason: String,
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
        /// The arguments' violations of the locked input schema, as data
        /// (empty when they did not serialize to an object).
        violations: Vec<Violation>,
    },
    /// Tools (prompts, resource templates) changed on the server since
    /// they were locked, and the server's `pin_policy` is `refuse`.
    #[error("server `{server}` changed since it was locked: {}", join(drift))]
    Drift {
        /// The server.
        server: String,
        /// What changed, one entry per tool (prompt, resource template).
        drift: Vec<Drift>,
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
        /// The structured content's violations of the output schema, as
        /// data: also each integer its generated type can't hold (keyword
        /// `type`), when that is why it does not parse; empty when it is
        /// missing or does not parse otherwise.
        violations: Vec<Violation>,
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
    /// Bindings generated under one `annotations` mode, connected with a
    /// config whose server says another: under `enforce` the tools that
    /// may modify things would go without the approval the config asks
    /// for (or the reverse). Nothing was started.
    #[error("{}", annotations_mismatch(server, *bindings, *config))]
    AnnotationsMismatch {
        /// The server.
        server: String,
        /// The mode the bindings were generated under.
        bindings: mcpbind_model::config::Annotations,
        /// The mode the config connecting them says.
        config: mcpbind_model::config::Annotations,
    },
}

/// The message of a mismatched `annotations` mode ([`Error::AnnotationsMismatch`],
/// and the toolbox's error of the same name).
#[doc(hidden)]
pub fn annotations_mismatch(
    server: &str,
    bindings: mcpbind_model::config::Annotations,
    config: mcpbind_model::config::Annotations,
) -> String {
    format!(
        "server `{server}`: the bindings were generated with `annotations = \"{}\"`, but the config connecting them says `annotations = \"{}\"`",
        bindings.name(),
        config.name()
    )
}

/// The help of a mismatched `annotations` mode: regenerate with the config.
#[doc(hidden)]
pub fn annotations_mismatch_help(
    server: &str,
    config: mcpbind_model::config::Annotations,
) -> String {
    format!(
        "regenerate the bindings with this config (`annotations = \"{}\"` for server `{server}`): rebuild, as a build.rs and `mcp_tools!` read the mcpbind.toml beside the lockfile (or name it: `Builder::config`, `mcp_tools!(config = \"…\")`); checked-in bindings: `mcpbind generate --config <this config> --out <the file>`",
        config.name()
    )
}

/// Why a paginated list was given up on ([`Error::Pagination`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PageProblem {
    /// Page `page` (1-based) gave a cursor an earlier page gave: paging
    /// on would never end, stopping would silently drop the rest.
    RepeatedCursor {
        /// The page that repeated it.
        page: usize,
    },
    /// More than `limit` pages.
    TooManyPages {
        /// The most pages read.
        limit: usize,
    },
    /// More than `limit` bytes over all pages.
    TooManyBytes {
        /// The most bytes read.
        limit: usize,
    },
}

impl std::fmt::Display for PageProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageProblem::RepeatedCursor { page } => write!(
                f,
                "page {page} repeats the cursor of an earlier page (the list would never end)"
            ),
            PageProblem::TooManyPages { limit } => {
                write!(f, "did not end after {limit} pages")
            }
            PageProblem::TooManyBytes { limit } => {
                write!(f, "did not end within {} MiB", limit >> 20)
            }
        }
    }
}

impl Error {
    /// How long the server asked to wait before this call is tried again
    /// (an HTTP 429 or 503 with `Retry-After`), after any retries.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::Http { retry_after, .. } => *retry_after,
            Error::Attempts { last, .. } => last.retry_after(),
            _ => None,
        }
    }

    /// Whether trying again may succeed: the server could not be reached
    /// or started, the connection closed, or the server was busy (HTTP 429
    /// or 503); for [`Error::Attempts`], whether its last error is. A
    /// call's own retries follow this rule: always before the request was
    /// sent, after it only for a retry-safe call (a read-only or idempotent
    /// tool). Any other error is the answer, and would be again.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Connect { .. } | Error::Spawn { .. } | Error::Closed { .. } => true,
            Error::Http { status, .. } => matches!(status, Some(429 | 503)),
            Error::Attempts { last, .. } => last.is_retryable(),
            _ => false,
        }
    }

    /// The server this error is about: each error of a connection or a
    /// call names one; a config or lockfile error names one when it is
    /// about a server (not a file that does not parse).
    pub fn server(&self) -> Option<&str> {
        let server = match self {
            Error::Config(e) => return e.server(),
            Error::Lock(e) => return e.server(),
            Error::Sandbox(e) => &e.server,
            Error::UnknownServer { server }
            | Error::Spawn { server, .. }
            | Error::BatchFileArguments { server, .. }
            | Error::Cwd { server, .. }
            | Error::CommandNotAllowed { server, .. }
            | Error::Feature { server, .. }
            | Error::Connect { server, .. }
            | Error::Http { server, .. }
            | Error::Auth { server, .. }
            | Error::TooLarge { server, .. }
            | Error::Invalid { server, .. }
            | Error::Pagination { server, .. }
            | Error::Refused { server, .. }
            | Error::ConnectTimeout { server, .. }
            | Error::Closed { server, .. }
            | Error::Timeout { server, .. }
            | Error::TimeLimit { server, .. }
            | Error::Task { server, .. }
            | Error::Service { server, .. }
            | Error::Tool { server, .. }
            | Error::Unapproved { server, .. }
            | Error::Arguments { server, .. }
            | Error::Drift { server, .. }
            | Error::Output { server, .. }
            | Error::CircuitOpen { server, .. }
            | Error::Attempts { server, .. }
            | Error::Shutdown { server }
            | Error::AnnotationsMismatch { server, .. } => server,
        };
        Some(server)
    }

    /// The tool this error is about, when it is a call's (or a lockfile
    /// entry's): the tool called, as the server names it.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Error::Task { tool, .. }
            | Error::Tool { tool, .. }
            | Error::Unapproved { tool, .. }
            | Error::Arguments { tool, .. }
            | Error::Output { tool, .. }
            | Error::Attempts { tool, .. } => Some(tool),
            Error::Timeout { tool, method, .. } | Error::TimeLimit { tool, method, .. } => {
                tool.as_deref().or_else(|| called(method))
            }
            Error::Http { method, .. }
            | Error::Invalid { method, .. }
            | Error::Service { method, .. } => called(method),
            Error::Lock(e) => e.tool(),
            _ => None,
        }
    }
}

impl Error {
    /// This error with each of `secrets` replaced by `***` in the text a
    /// server wrote: a stderr tail, an `isError` text (and the result's
    /// text blocks), a JSON-RPC error message and its data, and the reasons
    /// built from what a server sent; through [`Error::Attempts`] too.
    /// Pass a server's [`ServerSecrets::secrets`](crate::ServerSecrets::secrets).
    pub fn redacted(mut self, secrets: &[String]) -> Error {
        if !secrets.is_empty() {
            self.redact_in_place(secrets);
        }
        self
    }

    fn redact_in_place(&mut self, secrets: &[String]) {
        let hide = |text: &mut String| {
            if secrets
                .iter()
                .any(|s| !s.is_empty() && text.contains(s.as_str()))
            {
                *text = redact(text, secrets);
            }
        };
        match self {
            Error::Connect { reason, stderr, .. } => {
                hide(reason);
                stderr.iter_mut().for_each(hide);
            }
            Error::Closed { stderr, .. } => stderr.iter_mut().for_each(hide),
            Error::Tool {
                message, result, ..
            } => {
                hide(message);
                redact_result(result, secrets);
            }
            Error::Output {
                reason,
                result,
                violations,
                ..
            } => {
                hide(reason);
                redact_result(result, secrets);
                for violation in violations {
                    hide(&mut violation.message);
                    violation.expected.iter_mut().for_each(hide);
                    if let Some(given) = &mut violation.given {
                        redact_value(given, secrets);
                    }
                }
            }
            Error::Invalid { reason, .. } | Error::Refused { reason, .. } => hide(reason),
            Error::Service { source, .. } => {
                if let rmcp::ServiceError::McpError(data) = &mut **source {
                    let mut message = data.message.to_string();
                    hide(&mut message);
                    data.message = message.into();
                    if let Some(value) = &mut data.data {
                        redact_value(value, secrets);
                    }
                }
            }
            Error::Attempts { last, .. } => last.redact_in_place(secrets),
            Error::Drift { drift, .. } => {
                for entry in drift {
                    entry.for_each_text(&mut |text| hide(text));
                }
            }
            _ => {}
        }
    }
}

/// An error from a lower layer (rmcp, reqwest) whose text may hold a
/// configured secret (a URL with `?api_key=`): it displays and debugs with
/// every secret replaced by `***`, and hides its own sources, which would
/// print them unredacted. [`Redacted::get_ref`] gives the typed error.
pub struct Redacted(Box<RedactedParts>);

/// Boxed, so that errors holding a [`Redacted`] stay small.
struct RedactedParts {
    inner: Box<dyn std::error::Error + Send + Sync>,
    /// The text shown, redacted.
    text: String,
    secrets: std::sync::Arc<[String]>,
}

impl Redacted {
    /// Wraps `inner`, shown as `text` (rmcp's own messages name its
    /// internal types).
    pub(crate) fn described(
        inner: impl Into<Box<dyn std::error::Error + Send + Sync>>,
        text: &str,
        secrets: std::sync::Arc<[String]>,
    ) -> Redacted {
        Redacted(Box::new(RedactedParts {
            inner: inner.into(),
            text: redact(text, &secrets),
            secrets,
        }))
    }

    /// The wrapped error (e.g. rmcp's `ClientInitializeError`, through
    /// `downcast_ref`). Its text is not redacted.
    pub fn get_ref(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0.inner
    }
}

pub(crate) use mcpbind_model::internal::chain;

/// OAuth's errors (`mcpbind-auth`), as this crate's.
#[cfg(feature = "auth")]
impl From<mcpbind_auth::Error> for Error {
    fn from(e: mcpbind_auth::Error) -> Self {
        match e {
            mcpbind_auth::Error::Auth {
                server,
                reason,
                login,
            } => Error::Auth {
                server,
                reason,
                login,
            },
            mcpbind_auth::Error::Config(e) => Error::Config(e),
        }
    }
}

impl std::fmt::Display for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.text)
    }
}

impl std::fmt::Debug for Redacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&redact(&format!("{:?}", self.0.inner), &self.0.secrets))
    }
}

impl std::error::Error for Redacted {}

/// The tool of a request named `tools/call NAME`.
fn called(method: &str) -> Option<&str> {
    method.strip_prefix("tools/call ")
}

/// `Result` with the runtime's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Each drifted entry's line, joined with `; `.
fn join(drift: &[Drift]) -> String {
    let lines: Vec<String> = drift.iter().map(Drift::to_string).collect();
    lines.join("; ")
}

/// What follows a connect error's reason: rmcp's error (on the same line,
/// or on a line of its own when the server's stderr follows), then the
/// stderr, so that each text keeps its own lines.
fn after_reason(cause: &Option<Redacted>, stderr: &Option<String>) -> String {
    let tail = tail(stderr);
    match cause {
        None => tail,
        Some(cause) if tail.is_empty() => format!(": {cause}"),
        Some(cause) => format!("\n{cause}{tail}"),
    }
}

fn tail(stderr: &Option<String>) -> String {
    match stderr.as_deref().map(str::trim_end) {
        Some(s) if !s.is_empty() => format!("\nserver stderr (last lines):\n{s}"),
        _ => String::new(),
    }
}

fn status_name(status: crate::protocol::TaskStatus) -> &'static str {
    use crate::protocol::TaskStatus;
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "waiting for input",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "in an unknown state",
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
    fn time_limit_and_task_messages() {
        let e = Error::TimeLimit {
            server: "s".into(),
            method: "tools/call long".into(),
            tool: Some("long".into()),
            limit: Duration::from_secs(600),
        };
        assert_eq!(
            e.to_string(),
            "call to `s.long` ran past its max_call_time of 600s"
        );
        let e = Error::Task {
            server: "s".into(),
            tool: "research".into(),
            task: "t1".into(),
            status: crate::protocol::TaskStatus::Cancelled,
            message: Some("stopped".into()),
        };
        assert_eq!(
            e.to_string(),
            "task `t1` of `s.research` ended cancelled: stopped"
        );
    }

    #[test]
    fn messages() {
        let e = Error::Timeout {
            server: "demo".into(),
            method: "tools/call sleep".into(),
            tool: Some("sleep".into()),
            timeout: Duration::from_millis(1500),
        };
        assert_eq!(e.to_string(), "call to `demo.sleep` timed out after 1500ms");
        let e = Error::Timeout {
            server: "demo".into(),
            method: "tools/list".into(),
            tool: None,
            timeout: Duration::from_secs(30),
        };
        assert_eq!(
            e.to_string(),
            "request `tools/list` to server `demo` timed out after 30s"
        );
        let e = Error::Closed {
            server: "demo".into(),
            exit: Some("exit status: 3".into()),
            stderr: Some("boom\n".into()),
        };
        assert_eq!(
            e.to_string(),
            "server `demo` closed the connection (exit status: 3)\nserver stderr (last lines):\nboom"
        );
        let e = Error::Http {
            server: "api".into(),
            method: "tools/call echo".into(),
            answer: "HTTP 401 Unauthorized".into(),
            status: Some(401),
            retry_after: None,
            insufficient_scope: None,
        };
        assert_eq!(
            e.to_string(),
            "server `api` answered `tools/call echo` with HTTP 401 Unauthorized"
        );
        assert!(e.help().unwrap().contains("headers"));
        // A 403 `insufficient_scope` to a token already sent names the
        // scope, and does not ask for credentials in `headers` again.
        let scoped = |scope: &str| Error::Http {
            server: "api".into(),
            method: "tools/call echo".into(),
            answer: "HTTP 403 Forbidden".into(),
            status: Some(403),
            retry_after: None,
            insufficient_scope: Some(scope.into()),
        };
        assert_eq!(
            scoped("repo admin").help().unwrap(),
            "the token server `api` was sent lacks scope `repo admin`: send one granted it in `headers` of server `api` in mcpbind.toml, or use `auth = \"oauth\"` with `scopes` listing it"
        );
        assert!(scoped("")
            .help()
            .unwrap()
            .contains("lacks a scope it requires"));
        let mismatch = Error::AnnotationsMismatch {
            server: "demo".into(),
            bindings: mcpbind_model::config::Annotations::Advise,
            config: mcpbind_model::config::Annotations::Enforce,
        };
        assert_eq!(
            mismatch.to_string(),
            "server `demo`: the bindings were generated with `annotations = \"advise\"`, but the config connecting them says `annotations = \"enforce\"`"
        );
        assert!(mismatch
            .help()
            .unwrap()
            .starts_with("regenerate the bindings with this config (`annotations = \"enforce\"` for server `demo`)"));
        let e = Error::Http {
            server: "api".into(),
            method: "tools/call echo".into(),
            answer: "HTTP 429 Too Many Requests".into(),
            status: Some(429),
            retry_after: Some(Duration::from_secs(7)),
            insufficient_scope: None,
        };
        assert_eq!(
            e.to_string(),
            "server `api` answered `tools/call echo` with HTTP 429 Too Many Requests (retry after 7s)"
        );
        assert_eq!(e.retry_after(), Some(Duration::from_secs(7)));
        let e = Error::Sandbox(mcpbind_model::sandbox::SandboxError::new(
            "files",
            "network",
            "user namespaces are disabled (user.max_user_namespaces = 0)",
        ));
        assert_eq!(
            e.to_string(),
            "cannot sandbox server `files`: `network` cannot be enforced here: user namespaces are disabled (user.max_user_namespaces = 0)"
        );
        assert!(e
            .help()
            .unwrap()
            .contains("`required = false` in `[servers.files.sandbox]`"));
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

#[cfg(test)]
mod accessors {
    use super::*;
    use mcpbind_model::lock::LockError;

    fn http(status: u16) -> Error {
        Error::Http {
            server: "api".into(),
            method: "tools/call echo".into(),
            answer: format!("HTTP {status}"),
            status: Some(status),
            retry_after: None,
            insufficient_scope: None,
        }
    }

    fn closed() -> Error {
        Error::Closed {
            server: "demo".into(),
            exit: None,
            stderr: None,
        }
    }

    fn attempts(last: Error) -> Error {
        Error::Attempts {
            server: "demo".into(),
            tool: "add".into(),
            attempts: 3,
            last: Box::new(last),
        }
    }

    #[test]
    fn the_server_of_each_kind_of_error() {
        assert_eq!(http(404).server(), Some("api"));
        assert_eq!(closed().server(), Some("demo"));
        assert_eq!(
            Error::UnknownServer { server: "x".into() }.server(),
            Some("x")
        );
        let sandbox = Error::Sandbox(mcpbind_model::sandbox::SandboxError::new(
            "files", "read", "why",
        ));
        assert_eq!(sandbox.server(), Some("files"));
        let missing = Error::Config(ConfigError::MissingVar {
            server: "gh".into(),
            var: "TOKEN".into(),
        });
        assert_eq!(missing.server(), Some("gh"));
        let unreadable = Error::Lock(LockError::Conflict {
            path: "mcpbind.lock".into(),
            line: 3,
        });
        assert_eq!(unreadable.server(), None);
        let stale = Error::Lock(LockError::TooDeep {
            server: "deep".into(),
            what: "server_info".into(),
        });
        assert_eq!(stale.server(), Some("deep"));
    }

    #[test]
    fn the_tool_of_a_call_and_none_for_a_connection() {
        assert_eq!(attempts(closed()).tool(), Some("add"));
        // From the request's method, as a call's errors name it.
        assert_eq!(http(429).tool(), Some("echo"));
        let listing = Error::Timeout {
            server: "demo".into(),
            method: "tools/list".into(),
            tool: None,
            timeout: Duration::from_secs(1),
        };
        assert_eq!(listing.tool(), None);
        let call = Error::Timeout {
            server: "demo".into(),
            method: "tools/call sleep".into(),
            tool: Some("sleep".into()),
            timeout: Duration::from_secs(1),
        };
        assert_eq!(call.tool(), Some("sleep"));
        let arguments = Error::Arguments {
            server: "demo".into(),
            tool: "echo".into(),
            reason: "not an object".into(),
            violations: Vec::new(),
        };
        assert_eq!(arguments.tool(), Some("echo"));
        assert_eq!(closed().tool(), None);
        let hash = Error::Lock(LockError::Hash {
            path: "mcpbind.lock".into(),
            line: 9,
            server: "demo".into(),
            tool: "add".into(),
        });
        assert_eq!((hash.server(), hash.tool()), (Some("demo"), Some("add")));
    }

    #[test]
    fn what_the_retries_try_again_is_retryable() {
        assert!(closed().is_retryable());
        assert!(http(429).is_retryable());
        assert!(http(503).is_retryable());
        assert!(!http(401).is_retryable());
        assert!(!http(500).is_retryable());
        let refused = Error::Connect {
            server: "demo".into(),
            reason: "handshake failed".into(),
            stderr: None,
            cause: None,
        };
        assert!(refused.is_retryable());
        // After the retries: as its last attempt.
        assert!(attempts(closed()).is_retryable());
        assert!(!attempts(Error::Shutdown {
            server: "demo".into()
        })
        .is_retryable());
        // An answer: trying again gets it again.
        let tool = Error::Tool {
            server: "demo".into(),
            tool: "add".into(),
            message: "no".into(),
            result: Box::new(CallToolResult::error(Vec::new())),
        };
        assert!(!tool.is_retryable());
        let timeout = Error::Timeout {
            server: "demo".into(),
            method: "tools/call sleep".into(),
            tool: Some("sleep".into()),
            timeout: Duration::from_secs(1),
        };
        assert!(!timeout.is_retryable());
    }

    #[test]
    fn retry_after_is_the_servers_through_attempts() {
        let busy = Error::Http {
            server: "api".into(),
            method: "tools/call echo".into(),
            answer: "HTTP 429".into(),
            status: Some(429),
            retry_after: Some(Duration::from_secs(7)),
            insufficient_scope: None,
        };
        assert_eq!(attempts(busy).retry_after(), Some(Duration::from_secs(7)));
        assert_eq!(http(429).retry_after(), None);
        assert_eq!(closed().retry_after(), None);
    }
}

#[cfg(test)]
mod redaction {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("GET http://h/?key=s3cr3t failed")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn hides_secrets_in_display_debug_and_sources() {
        let secrets: std::sync::Arc<[String]> = vec!["s3cr3t".to_owned()].into();
        let outer = Outer(std::io::Error::other("token s3cr3t refused"));
        let text = chain(&outer);
        let e = Redacted::described(outer, &text, secrets);
        assert_eq!(
            e.to_string(),
            "GET http://h/?key=*** failed: token *** refused"
        );
        assert!(!format!("{e:?}").contains("s3cr3t"));
        assert!(std::error::Error::source(&e).is_none());
        assert!(e.get_ref().downcast_ref::<Outer>().is_some());
    }

    #[test]
    fn server_texts_are_redacted() {
        let secrets = vec!["s3cr3t-tok".to_owned()];
        let mut result = CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            "bad token s3cr3t-tok",
        )]);
        result.structured_content = Some(serde_json::json!({"echo": ["s3cr3t-tok"]}));
        let tool = Error::Tool {
            server: "s".into(),
            tool: "t".into(),
            message: "bad token s3cr3t-tok".into(),
            result: Box::new(result),
        };
        let rpc = Error::Service {
            server: "s".into(),
            method: "tools/call t".into(),
            source: Box::new(rmcp::ServiceError::McpError(
                rmcp::ErrorData::invalid_params(
                    "no user for s3cr3t-tok",
                    Some(serde_json::json!({"token": "s3cr3t-tok"})),
                ),
            )),
        };
        let closed = Error::Attempts {
            server: "s".into(),
            tool: "t".into(),
            attempts: 2,
            last: Box::new(Error::Closed {
                server: "s".into(),
                exit: None,
                stderr: Some("argv: --token s3cr3t-tok".into()),
            }),
        };
        let mut violation = mcpbind_model::Violation::new("/echo", "maxItems", "too long");
        violation.given = Some(serde_json::json!(["s3cr3t-tok"]));
        let output = Error::Output {
            server: "s".into(),
            tool: "t".into(),
            reason: "the output breaks its schema".into(),
            violations: vec![violation],
            result: Box::new(CallToolResult::success(Vec::new())),
        };
        for error in [tool, rpc, closed, output] {
            let error = error.redacted(&secrets);
            let shown = format!("{:#} {error:?}", anyhow_like(&error));
            assert!(!shown.contains("s3cr3t-tok"), "{shown}");
            assert!(shown.contains("***"), "{shown}");
        }
    }

    /// The message and its sources, as the CLI prints them.
    fn anyhow_like(error: &Error) -> String {
        chain(error)
    }
}
