//! The server configuration: `mcpbind.toml`, or an `mcpServers` JSON file.
//!
//! A config names each server once (`[servers.NAME]`) and says how to reach
//! it. Values may hold `${VAR}` (or `${VAR:-default}`) references; they stay
//! unresolved in this model and are only expanded by [`expand_vars`] when a
//! connection is made, so that no secret reaches a lockfile, generated code or
//! a log line.

mod auth;
mod auth_keys;
mod build;
mod lifecycle;
mod names;
mod parse;
mod vars;
mod warnings;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::sandbox::SandboxConfig;

pub use auth::{Assertion, AuthConfig, SigningAlgorithm};
pub use build::{SandboxBuilder, ServerBuilder};
pub use lifecycle::{
    Lifecycle, PinPolicy, DEFAULT_BREAKER_COOLDOWN, DEFAULT_BREAKER_THRESHOLD,
    DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_CALL_TIME, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RETRIES,
    DEFAULT_RETRY_BACKOFF, DEFAULT_RETRY_BACKOFF_MAX, DEFAULT_TIMEOUT,
};
pub use vars::{expand_vars, expand_vars_with, input_var};
pub use warnings::ConfigWarning;

/// The variables a stdio server gets from the agent's environment unless
/// its config says `inherit_env = true` (besides its own `env`, and every
/// `LC_*`): those a program needs to find its files and speak the user's
/// language, and none that commonly hold credentials.
#[cfg(not(windows))]
pub const SAFE_ENV: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR",
];

/// The variables a stdio server gets from the agent's environment unless
/// its config says `inherit_env = true` (besides its own `env`): what
/// Windows programs need to start, as the TypeScript SDK passes them.
#[cfg(windows)]
pub const SAFE_ENV: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
    "COMSPEC",
];

/// Whether variable `name` of the agent's environment reaches a stdio
/// server that does not set `inherit_env = true`: it is in [`SAFE_ENV`], or
/// a locale category (`LC_*`).
pub fn is_safe_env(name: &str) -> bool {
    let name = if cfg!(windows) {
        name.to_ascii_uppercase()
    } else {
        name.to_owned()
    };
    SAFE_ENV.contains(&name.as_str()) || name.starts_with("LC_")
}

/// A parsed configuration: the servers, by name. Read from a file with
/// [`Config::load`], or built in code with [`Config::new`] and
/// [`Config::server`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The servers, sorted by name (those marked disabled left out).
    pub servers: BTreeMap<String, ServerConfig>,
    /// The servers marked disabled (`disabled = true`; in imported JSON
    /// `"disabled": true` or `"enabled": false`): left out of lock,
    /// generate and connect, and named so that `mcpbind lock` and `list`
    /// say they were skipped.
    pub disabled: BTreeSet<String>,
    /// Keys of an imported JSON entry that mcpbind does not read, by
    /// server (see [`Config::warnings`]).
    pub unknown_keys: BTreeMap<String, Vec<String>>,
}

/// One server of the configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// How to reach the server.
    pub transport: TransportConfig,
    /// A prefix for this server's tool names where tools of several servers
    /// share one namespace (the agent toolbox).
    pub tool_prefix: Option<String>,
    /// When set, only these tools are locked and bound.
    pub enabled_tools: Option<Vec<String>>,
    /// Tools never locked nor bound (applied after `enabled_tools`).
    pub disabled_tools: Vec<String>,
    /// When set, only these prompts are locked and bound.
    pub enabled_prompts: Option<Vec<String>>,
    /// Prompts never locked nor bound (applied after `enabled_prompts`).
    pub disabled_prompts: Vec<String>,
    /// When set, only these resource templates (by `name`) are locked and
    /// bound.
    pub enabled_resource_templates: Option<Vec<String>>,
    /// Resource templates never locked nor bound (applied after
    /// `enabled_resource_templates`).
    pub disabled_resource_templates: Vec<String>,
    /// How long a call waits without hearing from the server: each
    /// progress notification (and each answer to a task's poll) starts it
    /// again, up to `max_call_time`.
    pub timeout: Duration,
    /// The total limit of one call, progress or not (a task's polls
    /// included).
    pub max_call_time: Duration,
    /// How long starting the server and the MCP handshake may take (a first
    /// `npx -y` run downloads the package).
    pub connect_timeout: Duration,
    /// Validate arguments against the locked input schema before sending.
    pub validate_input: bool,
    /// Validate `structuredContent` against the locked output schema.
    pub validate_output: bool,
    /// What a typed client does at connect when a tool it was generated for
    /// changed on the server since it was locked.
    pub pin_policy: PinPolicy,
    /// Whether the generated bindings make the tool annotations binding
    /// (`annotations`): under [`Annotations::Enforce`], the generated
    /// method of every tool that may change things takes an approval.
    pub annotations: Annotations,
    /// The largest message (one JSON-RPC line, SSE event or HTTP body) the
    /// server may send; a larger one fails the request at once and closes
    /// the connection, instead of filling memory.
    pub max_response_bytes: usize,
    /// Retries, circuit breaker and connection lifecycle.
    pub lifecycle: Lifecycle,
    /// The executables a stdio server may run (the config's top-level
    /// `allow_commands`); any other `command` is refused before spawning.
    /// An entry with a `/` allows exactly that path, one without allows that
    /// bare name looked up on `PATH` (not `./npx` or `/tmp/x/npx`). `None`:
    /// any command.
    pub allow_commands: Option<Vec<String>>,
    /// How the client authorizes with a Streamable HTTP server, beyond
    /// static `headers` (the `auth` key). `None`: no OAuth.
    pub auth: Option<AuthConfig>,
}

/// What the generated bindings make of a server's tool annotations (the
/// `annotations` key).
///
/// Annotations (`readOnlyHint`, `destructiveHint`…) are hints the server
/// gives about its own tools, pinned by the lockfile: a changed hint is a
/// changed tool, which `mcpbind check` reports and the runtime's pin check
/// catches. They say what the server's authors meant, not what the tool
/// does: a hostile or buggy server can call a tool that deletes files
/// read-only. Enforcing them makes the decision to call a tool that says it
/// may change things visible in the code; it does not make a tool that says
/// it is read-only safe to call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Annotations {
    /// The annotations are documentation: they show in the generated docs,
    /// and decide which calls are retried (today's behaviour).
    #[default]
    Advise,
    /// The generated method of every tool that may change things (not
    /// `readOnlyHint: true`, and not `destructiveHint: false`) takes an
    /// `mcpbind::Approved` as well as its input, which only an approval
    /// policy gives out; a toolbox with no approval refuses the model's
    /// calls to those tools. A server the toolbox adds unlocked
    /// (`Toolbox::add_unlocked`, no bindings) is held to the same by its
    /// live annotations, which nobody reviewed.
    Enforce,
}

impl Annotations {
    /// The value as the config writes it: `advise` or `enforce`.
    pub fn name(self) -> &'static str {
        match self {
            Annotations::Advise => "advise",
            Annotations::Enforce => "enforce",
        }
    }
}

/// An allowlist (when set) then a blocklist.
fn allows(enabled: &Option<Vec<String>>, disabled: &[String], name: &str) -> bool {
    let on = match enabled {
        Some(list) => list.iter().any(|t| t == name),
        None => true,
    };
    on && !disabled.iter().any(|t| t == name)
}

impl ServerConfig {
    /// Whether a tool passes `enabled_tools` and `disabled_tools`.
    pub fn allows_tool(&self, name: &str) -> bool {
        allows(&self.enabled_tools, &self.disabled_tools, name)
    }

    /// Whether a prompt passes `enabled_prompts` and `disabled_prompts`.
    pub fn allows_prompt(&self, name: &str) -> bool {
        allows(&self.enabled_prompts, &self.disabled_prompts, name)
    }

    /// Whether a resource template (by `name`) passes
    /// `enabled_resource_templates` and `disabled_resource_templates`.
    pub fn allows_resource_template(&self, name: &str) -> bool {
        allows(
            &self.enabled_resource_templates,
            &self.disabled_resource_templates,
            name,
        )
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TransportConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its working directory. A config loaded from a file defaults it
        /// to the file's directory, and resolves a relative one against it.
        cwd: Option<PathBuf>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
        /// Pass the agent's whole environment on (`inherit_env = true`).
        /// Off by default: the server gets `env` plus [`SAFE_ENV`].
        inherit_env: bool,
        /// What the server's process may touch (`[servers.NAME.sandbox]`);
        /// `None`: no confinement beyond the environment.
        sandbox: Option<SandboxConfig>,
    },
    /// Streamable HTTP (MCP 2025-03-26 and later).
    StreamableHttp {
        /// The endpoint, e.g. `http://127.0.0.1:3001/mcp`.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport (MCP 2024-11-05).
    Sse {
        /// The SSE endpoint, e.g. `http://127.0.0.1:3001/sse`.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
}

impl TransportConfig {
    /// The transport's name as written in the config.
    pub fn kind(&self) -> &'static str {
        match self {
            TransportConfig::Stdio { .. } => "stdio",
            TransportConfig::StreamableHttp { .. } => "streamable-http",
            TransportConfig::Sse { .. } => "sse",
        }
    }
}

/// An error in a configuration file, or in a value resolved from it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("failed to read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid configuration (what is wrong is `error`,
    /// which names the line and column for TOML).
    #[error("invalid config {}: {error}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong and where. (Not the `source`: the message already
        /// says it, and a report of the chain would say it twice.)
        error: ParseError,
    },
    /// A `${VAR}` reference names a variable that is not set.
    #[error("server `{server}`: environment variable `{var}` is not set (referenced as `${{{var}}}` in the config)")]
    MissingVar {
        /// The server whose config refers to it.
        server: String,
        /// The variable.
        var: String,
    },
    /// A `${input:ID}` reference (a VS Code input, which mcpbind cannot
    /// prompt for) whose environment variable is not set.
    #[error("server `{server}`: VS Code input `{input}` has no value here: set the environment variable `{var}` to it")]
    MissingInput {
        /// The server whose config refers to it.
        server: String,
        /// The input's `id`.
        input: String,
        /// The environment variable that stands for it.
        var: String,
    },
    /// A server built in code ([`Config::server`]) is not valid: what is
    /// wrong names the key, as for a config file.
    #[error("server `{server}`: {reason}")]
    Server {
        /// The server.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// A `${` without its closing `}`.
    #[error("server `{server}`: unterminated `${{` in config value")]
    BadReference {
        /// The server whose config holds it.
        server: String,
    },
}

impl ConfigError {
    /// The server this error is about, when it is about one (not a file
    /// that cannot be read or parsed).
    pub fn server(&self) -> Option<&str> {
        match self {
            ConfigError::MissingVar { server, .. }
            | ConfigError::MissingInput { server, .. }
            | ConfigError::Server { server, .. }
            | ConfigError::BadReference { server } => Some(server),
            ConfigError::Read { .. } | ConfigError::Invalid { .. } => None,
        }
    }
}

/// Why the text of a config was refused ([`Config::from_toml_str`],
/// [`Config::from_json_str`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Not TOML, or not the shape of an `mcpbind.toml`: a syntax error, an
    /// unknown key, a value of the wrong type, or a server table that is
    /// not a valid server (both `command` and `url`, neither…), checked
    /// as it is read so that the position is the table's.
    #[error("{message}")]
    Toml {
        /// What is wrong, with the line and column and the line itself.
        message: String,
        /// The byte range in the text, when the TOML parser knows it.
        span: Option<std::ops::Range<usize>>,
    },
    /// Not JSON, or not the shape of an `mcpServers` file.
    #[error("{message}")]
    Json {
        /// What is wrong, with the line and column.
        message: String,
        /// The line (1-based; 0 when the parser has no position).
        line: usize,
        /// The column (1-based).
        column: usize,
    },
    /// `allow_commands` holds an empty (or blank) command.
    #[error("`allow_commands` holds an empty command: {command:?}")]
    EmptyAllowedCommand {
        /// The entry as written.
        command: String,
    },
    /// A JSON file has both `mcpServers` and VS Code's `servers`.
    #[error("both `mcpServers` and `servers` are present")]
    BothServerLists,
    /// A JSON file has neither `mcpServers` nor `servers`.
    #[error("no `mcpServers` object")]
    NoServerList,
    /// A JSON file names a server outside `^[a-z][a-z0-9_-]{0,31}$`.
    #[error("server name `{name}` must match ^[a-z][a-z0-9_-]{{0,31}}$ (rename it in the file, or write an mcpbind.toml)")]
    ServerName {
        /// The name as written.
        name: String,
    },
    /// A JSON server entry has `envFile`, which mcpbind does not read.
    #[error("server `{server}`: `envFile` is not supported: list its variables under `env` as `\"NAME\": \"${{NAME}}\"`, and export them")]
    EnvFile {
        /// The server.
        server: String,
    },
    /// A JSON server entry is not a valid server (both `command` and
    /// `url`, an unknown transport…).
    #[error("server `{server}`: {reason}")]
    Server {
        /// The server.
        server: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `${input:ID}` names an input the file's `inputs` do not declare.
    #[error(
        "server `{server}`: `${{input:{input}}}` names an input that `inputs` does not declare"
    )]
    UndeclaredInput {
        /// The server.
        server: String,
        /// The input's id.
        input: String,
    },
}

/// Whether `name` is a valid server name: `^[a-z][a-z0-9_-]{0,31}$`.
pub fn is_valid_server_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 32
        && bytes[0].is_ascii_lowercase()
        && bytes[1..]
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_' || *b == b'-')
}

impl Config {
    /// Reads a config file: TOML (`mcpbind.toml`), or an `mcpServers` JSON
    /// file (`.mcp.json`, Claude Desktop, Cursor, VS Code) when the name ends
    /// in `.json`.
    ///
    /// # Errors
    ///
    /// [`ConfigError::Read`] when the file cannot be read (or is not a regular
    /// file, or is over 16 MiB), [`ConfigError::Invalid`] when it is not a
    /// valid config (with the line and column).
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        // A FIFO or a device is refused unread, and no config is 16 MiB.
        let text = crate::write::read_regular(path, 16 << 20)
            .and_then(|bytes| {
                String::from_utf8(bytes)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
            })
            .map_err(|source| ConfigError::Read {
                path: path.to_owned(),
                source,
            })?;
        let json = path.extension().is_some_and(|e| e == "json");
        let mut config = if json {
            Config::from_json_str(&text)
        } else {
            Config::from_toml_str(&text)
        }
        .map_err(|error| ConfigError::Invalid {
            path: path.to_owned(),
            error,
        })?;
        // A server runs in the config file's directory unless it says
        // otherwise; relative working directories are relative to it too.
        // For VS Code's `.vscode/mcp.json` that is the workspace folder, as
        // in VS Code, and `${workspaceFolder}` names it.
        let mut base = path.parent().filter(|d| !d.as_os_str().is_empty());
        if json && base.is_some_and(|d| d.file_name().is_some_and(|n| n == ".vscode")) {
            base = base.and_then(Path::parent);
        }
        if json {
            let folder = match base {
                Some(dir) => dir.to_owned(),
                None => PathBuf::from("."),
            };
            config.replace_workspace_folder(&folder.display().to_string());
        }
        if let Some(dir) = base.filter(|d| !d.as_os_str().is_empty()) {
            for server in config.servers.values_mut() {
                if let TransportConfig::Stdio { cwd, sandbox, .. } = &mut server.transport {
                    *cwd = Some(match cwd.take() {
                        Some(c) if c.is_relative() => dir.join(c),
                        Some(c) => c,
                        None => dir.to_owned(),
                    });
                    // `read` and `write` are relative to the config file
                    // (not to `cwd`).
                    if let Some(sandbox) = sandbox {
                        sandbox.resolve_paths(dir);
                    }
                }
            }
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_auth_and_refuses_what_cannot_work() {
        let config = Config::from_toml_str(
            r#"
[servers.gh]
url = "https://example.com/mcp"
auth = "oauth"
client_id = "app"
client_secret = "${APP_SECRET}"
scopes = ["repo"]
redirect_port = 8765

[servers.ci]
url = "https://example.com/mcp"
auth = "client_credentials"
client_id = "bot"
client_secret = "${BOT_SECRET}"
"#,
        )
        .unwrap();
        let Some(AuthConfig::OAuth {
            client_id,
            scopes,
            redirect_port,
            ..
        }) = &config.servers["gh"].auth
        else {
            panic!("{:?}", config.servers["gh"].auth)
        };
        assert_eq!(client_id.as_deref(), Some("app"));
        assert_eq!(scopes, &["repo"]);
        assert_eq!(*redirect_port, Some(8765));
        assert!(matches!(
            config.servers["ci"].auth,
            Some(AuthConfig::ClientCredentials { .. })
        ));
        // The secret (here still a reference) is never shown.
        assert!(!format!("{:?}", config.servers["ci"]).contains("BOT_SECRET"));

        for (server, wanted) in [
            ("command = \"x\"\nauth = \"oauth\"", "not valid for a stdio server"),
            ("url = \"http://h/sse\"\ntransport = \"sse\"\nauth = \"oauth\"", "not the legacy `sse`"),
            ("url = \"http://h/mcp\"\nclient_id = \"a\"", "`client_id` is only valid with `auth"),
            ("url = \"http://h/mcp\"\nauth = \"oauth\"\nclient_secret = \"s\"", "needs the `client_id`"),
            ("url = \"http://h/mcp\"\nauth = \"client_credentials\"\nclient_id = \"a\"", "needs `client_id` and `client_secret`"),
            ("url = \"http://h/mcp\"\nauth = \"basic\"", "unknown auth `basic`"),
            (
                "url = \"http://h/mcp\"\nauth = \"oauth\"\nheaders = { Authorization = \"Bearer x\" }",
                "both set",
            ),
        ] {
            let error = Config::from_toml_str(&format!("[servers.s]\n{server}\n")).unwrap_err().to_string();
            assert!(error.contains(wanted), "{server}: {error}");
        }
    }

    /// `private_key` with `signing_algorithm` is a private-key JWT client
    /// (its key never shown), and `jwt_bearer` reads its assertion.
    #[test]
    fn parses_private_key_jwt_and_jwt_bearer() {
        let config = Config::from_toml_str(
            r#"
[servers.signed]
url = "https://example.com/mcp"
auth = "client_credentials"
client_id = "bot"
private_key = "${BOT_KEY}"
signing_algorithm = "ES256"

[servers.workload]
url = "https://example.com/mcp"
auth = "jwt_bearer"
assertion_file = "/var/run/secrets/token"
scopes = ["mcp"]
"#,
        )
        .unwrap();
        assert!(matches!(
            &config.servers["signed"].auth,
            Some(AuthConfig::PrivateKeyJwt { signing_algorithm: SigningAlgorithm::ES256, client_id, .. }) if client_id == "bot"
        ));
        let Some(AuthConfig::JwtBearer {
            assertion: Assertion::File(path),
            scopes,
            ..
        }) = &config.servers["workload"].auth
        else {
            panic!("{:?}", config.servers["workload"].auth)
        };
        assert_eq!(path, std::path::Path::new("/var/run/secrets/token"));
        assert_eq!(scopes, &["mcp"]);
        assert!(!format!("{:?}", config.servers["signed"]).contains("BOT_KEY"));
    }

    /// A key of one grant with another's, or a value a grant does not
    /// know, is refused, saying which.
    #[test]
    fn refuses_mixtures_of_the_grants_keys() {
        let cc = "url = \"http://h/mcp\"\nauth = \"client_credentials\"\nclient_id = \"a\"\n";
        let jwt = "url = \"http://h/mcp\"\nauth = \"jwt_bearer\"\n";
        for (server, wanted) in [
            (
                format!("{cc}private_key = \"k\""),
                "needs `signing_algorithm`",
            ),
            (
                format!("{cc}private_key = \"k\"\nsigning_algorithm = \"HS256\""),
                "unknown signing_algorithm `HS256`",
            ),
            (
                format!(
                    "{cc}private_key = \"k\"\nclient_secret = \"s\"\nsigning_algorithm = \"ES256\""
                ),
                "both set",
            ),
            (
                format!("{cc}client_secret = \"s\"\nsigning_algorithm = \"ES256\""),
                "goes with `private_key`",
            ),
            (
                format!("{cc}client_secret = \"s\"\nassertion = \"j\""),
                "`assertion` is only valid with `auth = \"jwt_bearer\"`",
            ),
            (jwt.to_owned(), "needs `assertion`"),
            (
                format!("{jwt}assertion = \"j\"\nassertion_file = \"f\""),
                "keep one of them",
            ),
            (
                format!("{jwt}assertion = \"j\"\nclient_secret = \"s\""),
                "`client_secret` is not valid with `auth = \"jwt_bearer\"`",
            ),
            (
                format!("{jwt}assertion = \"j\"\nredirect_port = 1"),
                "`redirect_port` is only valid with `auth = \"oauth\"` (only the browser flow has a redirect)",
            ),
            (
                "url = \"http://h/mcp\"\nauth = \"none\"\nclient_id = \"a\"".to_owned(),
                "`client_id` is only valid with `auth` (`oauth`, `client_credentials`, `jwt_bearer`, `enterprise`)",
            ),
            (
                "url = \"http://h/mcp\"\nauth = \"basic\"".to_owned(),
                "unknown auth `basic`, expected one of `oauth`, `client_credentials`, `jwt_bearer`, `enterprise`, `none`",
            ),
            (
                "url = \"http://h/mcp\"\nauth = \"oauth\"\nprivate_key = \"k\"".to_owned(),
                "`private_key` is only valid with `auth = \"client_credentials\"`",
            ),
            (
                "url = \"http://h/mcp\"\nassertion = \"j\"".to_owned(),
                "`assertion` is only valid with `auth = \"jwt_bearer\"`",
            ),
        ] {
            let error = Config::from_toml_str(&format!("[servers.s]\n{server}\n"))
                .unwrap_err()
                .to_string();
            assert!(error.contains(wanted), "{server}: {error}");
        }
    }

    #[test]
    fn imports_auth_keys_from_mcp_json() {
        let config = Config::from_json_str(
            r#"{"mcpServers": {
                "remote": {"type": "http", "url": "https://example.com/mcp", "auth": "oauth", "clientId": "app", "scopes": ["repo"], "redirectPort": 8765},
                "ci": {"type": "http", "url": "https://example.com/mcp", "auth": "client_credentials", "client_id": "bot", "client_secret": "${BOT_SECRET}"}
            }}"#,
        )
        .unwrap();
        let Some(AuthConfig::OAuth {
            client_id,
            scopes,
            redirect_port,
            ..
        }) = &config.servers["remote"].auth
        else {
            panic!("{:?}", config.servers["remote"].auth)
        };
        assert_eq!(client_id.as_deref(), Some("app"));
        assert_eq!(scopes, &["repo"]);
        assert_eq!(*redirect_port, Some(8765));
        assert!(matches!(
            config.servers["ci"].auth,
            Some(AuthConfig::ClientCredentials { .. })
        ));
        let error = Config::from_json_str(
            r#"{"mcpServers": {"local": {"command": "x", "auth": "oauth"}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("not valid for a stdio server"), "{error}");
    }

    #[test]
    fn parses_stdio_and_http() {
        let config = Config::from_toml_str(
            r#"
[servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
env = { API_TOKEN = "${API_TOKEN}" }
timeout = 2.5

[servers.remote]
transport = "streamable-http"
url = "http://127.0.0.1:3001/mcp"
headers = { Authorization = "Bearer ${REMOTE_TOKEN}" }
enabled_tools = ["a", "b"]
disabled_tools = ["b"]
enabled_prompts = ["p", "q"]
disabled_prompts = ["q"]
disabled_resource_templates = ["Logs"]
"#,
        )
        .unwrap();
        let everything = &config.servers["everything"];
        assert_eq!(everything.timeout, Duration::from_millis(2500));
        assert!(
            matches!(&everything.transport, TransportConfig::Stdio { command, .. } if command == "npx")
        );
        let remote = &config.servers["remote"];
        assert_eq!(remote.timeout, DEFAULT_TIMEOUT);
        assert!(remote.allows_tool("a"));
        assert!(!remote.allows_tool("b"));
        assert!(!remote.allows_tool("c"));
        assert!(remote.allows_prompt("p"));
        assert!(!remote.allows_prompt("q"));
        assert!(!remote.allows_prompt("a"));
        assert!(remote.allows_resource_template("Files"));
        assert!(!remote.allows_resource_template("Logs"));
        assert!(everything.allows_prompt("anything"));
    }

    #[test]
    fn parses_least_privilege_keys() {
        let config = Config::from_toml_str(
            "[servers.a]\ncommand = \"x\"\ninherit_env = true\n\n[servers.b]\ncommand = \"y\"\n\n[servers.b.sandbox]\nnetwork = false\nread = [\"data\"]\n",
        )
        .unwrap();
        let TransportConfig::Stdio {
            inherit_env,
            sandbox,
            ..
        } = &config.servers["a"].transport
        else {
            panic!("stdio expected")
        };
        assert!(*inherit_env);
        assert_eq!(*sandbox, None);
        let TransportConfig::Stdio {
            inherit_env,
            sandbox,
            ..
        } = &config.servers["b"].transport
        else {
            panic!("stdio expected")
        };
        assert!(!*inherit_env);
        let sandbox = sandbox.as_ref().unwrap();
        assert_eq!(sandbox.network, crate::sandbox::NetworkPolicy::Deny);
        for key in ["inherit_env = false", "sandbox = { network = false }"] {
            let err =
                Config::from_toml_str(&format!("[servers.a]\nurl = \"http://h/mcp\"\n{key}\n"))
                    .unwrap_err()
                    .to_string();
            assert!(err.contains("only valid for stdio servers"), "{err}");
        }
        let err =
            Config::from_toml_str("[servers.a]\ncommand = \"x\"\nsandbox = { home = \"tmp\" }\n")
                .unwrap_err()
                .to_string();
        assert!(err.contains("unknown sandbox home `tmp`"), "{err}");
        assert!(is_safe_env("PATH") && is_safe_env("LC_ALL"));
        assert!(!is_safe_env("AWS_SECRET_ACCESS_KEY") && !is_safe_env("LD_PRELOAD"));
    }

    /// `read` and `write` are relative to the config file, like `cwd`.
    #[test]
    fn sandbox_paths_are_relative_to_the_config_file() {
        let dir = tempfile_dir("sandbox-paths");
        let file = dir.join("mcpbind.toml");
        std::fs::write(
            &file,
            "[servers.a]\ncommand = \"x\"\ncwd = \"sub\"\n[servers.a.sandbox]\nread = [\"data\", \"/abs\"]\nwrite = [\"out\"]\n",
        )
        .unwrap();
        let config = Config::load(&file).unwrap();
        let TransportConfig::Stdio { sandbox, .. } = &config.servers["a"].transport else {
            panic!("stdio expected")
        };
        let files = sandbox.as_ref().unwrap().files.as_ref().unwrap();
        assert_eq!(files.read, [dir.join("data"), PathBuf::from("/abs")]);
        assert_eq!(files.write, [dir.join("out")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcpbind-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn errors_name_line_and_column() {
        let err = Config::from_toml_str(
            "[servers.ok]\ncommand = \"x\"\n\n[servers.Bad]\ncommand = \"y\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("line 4"), "{err}");
        assert!(err.contains("invalid server name `Bad`"), "{err}");

        let typed =
            Config::from_toml_str("[servers.a]\ncommand = \"x\"\ncomand = \"y\"\n").unwrap_err();
        let ParseError::Toml { span, .. } = &typed else {
            panic!("{typed:?}")
        };
        assert_eq!(span.clone(), Some(26..32), "the span of `comand`");
        let err = typed.to_string();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("unknown field `comand`"), "{err}");

        let err = Config::from_toml_str("[servers.a]\nargs = []\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing `command`"), "{err}");
        assert!(err.contains("line 1"), "{err}");

        let err = Config::from_toml_str("[servers.a]\ntransport = \"grpc\"\nurl = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown transport `grpc`"), "{err}");

        let err = Config::from_toml_str("[servers.a]\ncommand = \"x\"\nannotations = \"strict\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown annotations `strict`, expected one of `advise`, `enforce`"),
            "{err}"
        );
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn annotations_default_to_advise() {
        let config = Config::from_toml_str(
            "[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"y\"\nannotations = \"enforce\"\n",
        )
        .unwrap();
        assert_eq!(config.servers["a"].annotations, Annotations::Advise);
        assert_eq!(config.servers["b"].annotations, Annotations::Enforce);
        let json = Config::from_json_str(r#"{"mcpServers": {"c": {"command": "z"}}}"#).unwrap();
        assert_eq!(json.servers["c"].annotations, Annotations::Advise);
    }

    #[test]
    fn parses_lifecycle_keys() {
        let config = Config::from_toml_str(
            "[servers.a]\ncommand = \"x\"\nretries = 4\nretry_backoff = 0.25\nretry_backoff_max = 2\nbreaker_threshold = 3\nbreaker_cooldown = 1.5\nmax_concurrent_calls = 2\nidle_timeout = 60\n\n[servers.b]\ncommand = \"y\"\n",
        )
        .unwrap();
        let a = &config.servers["a"].lifecycle;
        assert_eq!(a.retries, 4);
        assert_eq!(a.retry_backoff, Duration::from_millis(250));
        assert_eq!(a.retry_backoff_max, Duration::from_secs(2));
        assert_eq!(a.breaker_threshold, 3);
        assert_eq!(a.breaker_cooldown, Duration::from_millis(1500));
        assert_eq!(a.max_concurrent_calls, Some(2));
        assert_eq!(a.idle_timeout, Some(Duration::from_secs(60)));
        assert_eq!(config.servers["b"].lifecycle, Lifecycle::default());

        let bad = |body: &str| {
            Config::from_toml_str(&format!("[servers.a]\ncommand = \"x\"\n{body}\n"))
                .unwrap_err()
                .to_string()
        };
        let err = bad("max_concurrent_calls = 0");
        assert!(
            err.contains("`max_concurrent_calls` must be at least 1"),
            "{err}"
        );
        assert!(err.contains("line 1"), "{err}");
        let err = bad("retry_backoff = 3\nretry_backoff_max = 1");
        assert!(
            err.contains("`retry_backoff` (3s) is longer than `retry_backoff_max` (1s)"),
            "{err}"
        );
        let err = bad("idle_timeout = -1");
        assert!(
            err.contains("`idle_timeout` must be a positive number of seconds, not -1"),
            "{err}"
        );
        let err = bad("retries = -1");
        assert!(err.contains("retries"), "{err}");
    }

    #[test]
    fn server_names() {
        assert!(is_valid_server_name("a"));
        assert!(is_valid_server_name("my-server_2"));
        assert!(!is_valid_server_name(""));
        assert!(!is_valid_server_name("2a"));
        assert!(!is_valid_server_name("A"));
        assert!(!is_valid_server_name(&"a".repeat(33)));
        assert!(is_valid_server_name(&"a".repeat(32)));
    }

    #[test]
    fn expands_vars() {
        let lookup = |v: &str| (v == "TOKEN").then(|| "s3cret".to_owned());
        assert_eq!(
            expand_vars_with("s", "Bearer ${TOKEN}", lookup).unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(
            expand_vars_with("s", "${NOPE:-dflt}/x", lookup).unwrap(),
            "dflt/x"
        );
        assert_eq!(
            expand_vars_with("s", "no refs $HOME", lookup).unwrap(),
            "no refs $HOME"
        );
        let err = expand_vars_with("s", "${NOPE}", lookup).unwrap_err();
        assert_eq!(
            err.to_string(),
            "server `s`: environment variable `NOPE` is not set (referenced as `${NOPE}` in the config)"
        );
        assert!(expand_vars_with("s", "${OPEN", lookup).is_err());
    }

    #[test]
    fn imports_mcp_servers_json() {
        let config = Config::from_json_str(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "1"}},
                "web": {"type": "http", "url": "https://example.com/mcp", "headers": {"X": "y"}},
                "old": {"type": "sse", "url": "https://example.com/sse"}
            }}"#,
        )
        .unwrap();
        assert_eq!(config.servers["fs"].transport.kind(), "stdio");
        assert_eq!(config.servers["web"].transport.kind(), "streamable-http");
        assert_eq!(config.servers["old"].transport.kind(), "sse");
        assert!(
            Config::from_json_str(r#"{"mcpServers": {"Bad Name": {"command": "x"}}}"#).is_err()
        );
    }

    #[test]
    fn imports_vscode_mcp_json_with_inputs() {
        let text = r#"{
            "inputs": [{"type": "promptString", "id": "github-token", "description": "GitHub token", "password": true}],
            "servers": {
                "github": {"type": "stdio", "command": "npx", "args": ["-y", "server-github", "${workspaceFolder}/data"],
                           "env": {"GITHUB_TOKEN": "${input:github-token}", "HOME_DIR": "${env:HOME}"}},
                "remote": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${input:github-token}"}}
            }
        }"#;
        let config = Config::from_json_str(text).unwrap();
        assert_eq!(config.servers["remote"].transport.kind(), "streamable-http");
        let TransportConfig::Stdio { env, .. } = &config.servers["github"].transport else {
            panic!("stdio expected");
        };
        // The input is set from its environment variable, or named in the error.
        let lookup = |v: &str| (v == "MCPBIND_INPUT_GITHUB_TOKEN").then(|| "t0ken".to_owned());
        assert_eq!(
            expand_vars_with("github", &env["GITHUB_TOKEN"], lookup).unwrap(),
            "t0ken"
        );
        let err = expand_vars_with("github", &env["GITHUB_TOKEN"], |_| None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "server `github`: VS Code input `github-token` has no value here: set the environment variable `MCPBIND_INPUT_GITHUB_TOKEN` to it"
        );
        // `${env:VAR}` is VS Code's `${VAR}`.
        let home = |v: &str| (v == "HOME").then(|| "/home/me".to_owned());
        assert_eq!(
            expand_vars_with("github", &env["HOME_DIR"], home).unwrap(),
            "/home/me"
        );

        let err = Config::from_json_str(
            r#"{"servers": {"a": {"command": "x", "env": {"T": "${input:nope}"}}}}"#,
        )
        .unwrap_err();
        assert_eq!(
            err,
            ParseError::UndeclaredInput {
                server: "a".into(),
                input: "nope".into()
            }
        );
        assert_eq!(
            err.to_string(),
            "server `a`: `${input:nope}` names an input that `inputs` does not declare"
        );
        let err = Config::from_json_str(
            r#"{"servers": {"a": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("server `a`: `envFile` is not supported"),
            "{err}"
        );
        assert_eq!(input_var("my.key-2"), "MCPBIND_INPUT_MY_KEY_2");
    }

    /// `.vscode/mcp.json`: servers run in the workspace folder, which
    /// `${workspaceFolder}` names; other JSON files keep their own folder.
    #[test]
    fn vscode_file_runs_servers_in_the_workspace_folder() {
        let ws = std::env::temp_dir().join(format!("mcpbind-vscode-{}", std::process::id()));
        std::fs::create_dir_all(ws.join(".vscode")).unwrap();
        let file = ws.join(".vscode/mcp.json");
        std::fs::write(
            &file,
            r#"{"servers": {"a": {"command": "x", "args": ["${workspaceFolder}/db", "${DB:-dev}"]}}}"#,
        )
        .unwrap();
        let config = Config::load(&file).unwrap();
        let TransportConfig::Stdio { args, cwd, .. } = &config.servers["a"].transport else {
            panic!("stdio expected");
        };
        assert_eq!(cwd.as_deref(), Some(ws.as_path()));
        assert_eq!(args[0], format!("{}/db", ws.display()));
        // `${VAR:-default}` stays for the connection to expand.
        assert_eq!(args[1], "${DB:-dev}");
        assert_eq!(expand_vars_with("a", &args[1], |_| None).unwrap(), "dev");
        std::fs::remove_dir_all(&ws).unwrap();
    }
}
