//! The server configuration: `mcpbind.toml`, or an `mcpServers` JSON file.
//!
//! A config names each server once (`[servers.NAME]`) and says how to reach
//! it. Values may hold `${VAR}` (or `${VAR:-default}`) references; they stay
//! unresolved in this model and are only expanded by [`expand_vars`] when a
//! connection is made, so that no secret reaches a lockfile, generated code or
//! a log line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::sandbox::{RawSandbox, SandboxConfig};

/// The default per-call timeout when a server sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The default total limit of one call (`max_call_time`): however often the
/// server reports progress, a call ends after this long.
pub const DEFAULT_MAX_CALL_TIME: Duration = Duration::from_secs(600);

/// The default time allowed to start a server and finish the handshake.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(120);

/// The default bound on one message from a server (`max_response_bytes`).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;
/// The default number of extra attempts for a retry-safe call.
pub const DEFAULT_RETRIES: u32 = 2;

/// The default first delay between attempts (doubled each time, with jitter).
pub const DEFAULT_RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// The default longest delay between attempts.
pub const DEFAULT_RETRY_BACKOFF_MAX: Duration = Duration::from_secs(5);

/// The default number of consecutive connection failures that open a
/// server's circuit.
pub const DEFAULT_BREAKER_THRESHOLD: u32 = 5;

/// The default time an open circuit fails calls fast before a probe.
pub const DEFAULT_BREAKER_COOLDOWN: Duration = Duration::from_secs(30);

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

/// A parsed configuration: the servers, by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The servers, sorted by name.
    pub servers: BTreeMap<String, ServerConfig>,
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

/// OAuth for a Streamable HTTP server (the MCP authorization spec).
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum AuthConfig {
    /// `auth = "oauth"`: the authorization-code flow with PKCE, run once by
    /// `mcpbind login SERVER`; the tokens are stored per user, outside the
    /// project, and refreshed as they expire.
    OAuth {
        /// A client registered with the authorization server beforehand;
        /// without one, mcpbind registers itself (dynamic client
        /// registration) or uses `client_metadata_url`.
        client_id: Option<String>,
        /// The pre-registered client's secret (write it as `${VAR}`).
        client_secret: Option<String>,
        /// The scopes to ask for; empty: those the server's challenge or
        /// metadata names.
        scopes: Vec<String>,
        /// The loopback port of the redirect (`http://127.0.0.1:PORT/callback`);
        /// `None`: any free port (fine with dynamic registration).
        redirect_port: Option<u16>,
        /// An HTTPS URL of a client ID metadata document, used as the client
        /// ID where the authorization server supports them.
        client_metadata_url: Option<String>,
    },
    /// `auth = "client_credentials"`: a machine-to-machine token from the
    /// client-credentials grant, fetched at connect (for CI and services).
    ClientCredentials {
        /// The client's ID.
        client_id: String,
        /// The client's secret (write it as `${VAR}`).
        client_secret: String,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
    /// `auth = "client_credentials"` with `private_key` instead of
    /// `client_secret`: the client authenticates with a JWT assertion it
    /// signs with its key (`private_key_jwt`, RFC 7523).
    PrivateKeyJwt {
        /// The client's ID (the assertion's issuer and subject).
        client_id: String,
        /// The private key, PEM (PKCS#8, or PKCS#1 for RSA); write it as
        /// `${VAR}`.
        private_key: String,
        /// The algorithm the key signs with (`signing_algorithm`).
        signing_algorithm: SigningAlgorithm,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
    /// `auth = "jwt_bearer"`: a token for a JWT the workload already holds
    /// (workload identity federation: RFC 7523's JWT-bearer grant, SEP-1933),
    /// fetched at connect. A refused grant is not retried.
    JwtBearer {
        /// The client's ID, when the authorization server wants one.
        client_id: Option<String>,
        /// The JWT, or the file that holds it.
        assertion: Assertion,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
    /// `auth = "enterprise"`: enterprise-managed authorization (SEP-990):
    /// the user's ID token from the enterprise identity provider is
    /// exchanged there for an identity assertion grant (ID-JAG, RFC 8693
    /// token exchange), which the MCP server's authorization server
    /// exchanges for a token (JWT-bearer grant), fetched at connect.
    Enterprise {
        /// The client's ID at the MCP server's authorization server.
        client_id: String,
        /// Its secret there (write it as `${VAR}`).
        client_secret: String,
        /// The identity provider's token endpoint (`idp_token_endpoint`).
        idp_token_endpoint: String,
        /// The client's ID at the identity provider (`idp_client_id`).
        idp_client_id: String,
        /// The user's ID token from the identity provider (write it as
        /// `${VAR}`).
        id_token: String,
        /// The scopes to ask for.
        scopes: Vec<String>,
    },
}

/// Where a JWT-bearer grant's assertion comes from.
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum Assertion {
    /// `assertion`: the JWT itself (write it as `${VAR}`).
    Value(String),
    /// `assertion_file`: a file holding the JWT, read at each grant (a
    /// workload identity token that the platform rotates).
    File(PathBuf),
}

/// How a `private_key_jwt` assertion is signed (`signing_algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[allow(clippy::upper_case_acronyms)]
pub enum SigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// ECDSA on P-256 with SHA-256.
    ES256,
    /// ECDSA on P-384 with SHA-384.
    ES384,
}

impl SigningAlgorithm {
    fn parse(name: &str) -> Result<SigningAlgorithm, String> {
        Ok(match name {
            "RS256" => SigningAlgorithm::RS256,
            "RS384" => SigningAlgorithm::RS384,
            "RS512" => SigningAlgorithm::RS512,
            "ES256" => SigningAlgorithm::ES256,
            "ES384" => SigningAlgorithm::ES384,
            other => {
                return Err(format!(
                    "unknown signing_algorithm `{other}`, expected one of `RS256`, `RS384`, `RS512`, `ES256`, `ES384`"
                ))
            }
        })
    }
}

impl AuthConfig {
    /// The enterprise ID token as written (possibly a `${VAR}`).
    pub(crate) fn id_token(&self) -> Option<&str> {
        match self {
            AuthConfig::Enterprise { id_token, .. } => Some(id_token),
            _ => None,
        }
    }

    /// The client secret as written (possibly a `${VAR}`).
    pub(crate) fn secret(&self) -> Option<&str> {
        match self {
            AuthConfig::OAuth { client_secret, .. } => client_secret.as_deref(),
            AuthConfig::ClientCredentials { client_secret, .. } => Some(client_secret),
            AuthConfig::PrivateKeyJwt { private_key, .. } => Some(private_key),
            AuthConfig::JwtBearer {
                assertion: Assertion::Value(jwt),
                ..
            } => Some(jwt),
            AuthConfig::JwtBearer { .. } => None,
            AuthConfig::Enterprise { client_secret, .. } => Some(client_secret),
        }
    }

    /// The scopes to ask for.
    pub fn scopes(&self) -> &[String] {
        match self {
            AuthConfig::OAuth { scopes, .. }
            | AuthConfig::ClientCredentials { scopes, .. }
            | AuthConfig::PrivateKeyJwt { scopes, .. }
            | AuthConfig::JwtBearer { scopes, .. }
            | AuthConfig::Enterprise { scopes, .. } => scopes,
        }
    }
}

impl std::fmt::Debug for AuthConfig {
    // The secret is not shown, even unexpanded.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthConfig::OAuth {
                client_id, scopes, ..
            } => f
                .debug_struct("OAuth")
                .field("client_id", client_id)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
            AuthConfig::ClientCredentials {
                client_id, scopes, ..
            } => f
                .debug_struct("ClientCredentials")
                .field("client_id", client_id)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
            AuthConfig::PrivateKeyJwt {
                client_id,
                signing_algorithm,
                scopes,
                ..
            } => f
                .debug_struct("PrivateKeyJwt")
                .field("client_id", client_id)
                .field("signing_algorithm", signing_algorithm)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
            AuthConfig::JwtBearer {
                client_id,
                assertion,
                scopes,
            } => {
                let file = match assertion {
                    Assertion::File(path) => Some(path),
                    Assertion::Value(_) => None,
                };
                f.debug_struct("JwtBearer")
                    .field("client_id", client_id)
                    .field("assertion_file", &file)
                    .field("scopes", scopes)
                    .finish_non_exhaustive()
            }
            AuthConfig::Enterprise {
                client_id,
                idp_token_endpoint,
                idp_client_id,
                scopes,
                ..
            } => f
                .debug_struct("Enterprise")
                .field("client_id", client_id)
                .field("idp_token_endpoint", idp_token_endpoint)
                .field("idp_client_id", idp_client_id)
                .field("scopes", scopes)
                .finish_non_exhaustive(),
        }
    }
}

/// How a long-running client treats a server: retries, the circuit breaker,
/// the concurrency limit and idle connections (the `retries`,
/// `retry_backoff`, `retry_backoff_max`, `breaker_threshold`,
/// `breaker_cooldown`, `max_concurrent_calls` and `idle_timeout` keys).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Lifecycle {
    /// Extra attempts for a retry-safe call (a failure before the request
    /// was sent, or a read-only or idempotent tool whose connection was
    /// lost).
    pub retries: u32,
    /// The delay before the first retry; doubled for each next one, capped
    /// by `retry_backoff_max`, with random jitter (half to all of it).
    pub retry_backoff: Duration,
    /// The longest delay between two attempts.
    pub retry_backoff_max: Duration,
    /// Consecutive connection failures that open the circuit: calls then
    /// fail fast ("circuit open") until `breaker_cooldown` has passed, then
    /// one probe call is let through. `0` disables the breaker.
    pub breaker_threshold: u32,
    /// How long an open circuit fails calls fast.
    pub breaker_cooldown: Duration,
    /// At most this many calls in flight to the server; calls beyond it wait,
    /// in order. `None`: no limit.
    pub max_concurrent_calls: Option<usize>,
    /// Close the connection (and end the server's process) after it has been
    /// idle this long; the next call reopens it. `None`: keep it open.
    pub idle_timeout: Option<Duration>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            retries: DEFAULT_RETRIES,
            retry_backoff: DEFAULT_RETRY_BACKOFF,
            retry_backoff_max: DEFAULT_RETRY_BACKOFF_MAX,
            breaker_threshold: DEFAULT_BREAKER_THRESHOLD,
            breaker_cooldown: DEFAULT_BREAKER_COOLDOWN,
            max_concurrent_calls: None,
            idle_timeout: None,
        }
    }
}

/// What to do when a live tool no longer matches its locked hash.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PinPolicy {
    /// Don't compare (no extra `tools/list` at connect).
    Ignore,
    /// Report the drift with `tracing::warn!` and go on.
    #[default]
    Warn,
    /// Fail the connect.
    Refuse,
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
    /// A `${` without its closing `}`.
    #[error("server `{server}`: unterminated `${{` in config value")]
    BadReference {
        /// The server whose config holds it.
        server: String,
    },
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

    /// Parses `mcpbind.toml` text.
    ///
    /// # Errors
    ///
    /// [`ParseError::Toml`] (with the line and column) for text that is not
    /// a valid `mcpbind.toml`, [`ParseError::EmptyAllowedCommand`].
    pub fn from_toml_str(text: &str) -> Result<Config, ParseError> {
        let file: TomlFile = toml::from_str(text).map_err(|e| ParseError::Toml {
            message: e.to_string().trim_end().to_owned(),
            span: e.span(),
        })?;
        if let Some(list) = &file.allow_commands {
            if let Some(bad) = list.iter().find(|c| c.trim().is_empty()) {
                return Err(ParseError::EmptyAllowedCommand {
                    command: bad.clone(),
                });
            }
        }
        let servers = file
            .servers
            .into_iter()
            .map(|(name, raw)| {
                let mut server = raw.0;
                server.allow_commands.clone_from(&file.allow_commands);
                (name.0, server)
            })
            .collect();
        Ok(Config { servers })
    }

    /// Parses the `mcpServers` (or VS Code `servers`) JSON that MCP hosts keep.
    ///
    /// Values may hold `${VAR}` and `${VAR:-default}` (read from the
    /// environment when connecting), VS Code's `${env:VAR}`, and
    /// `${input:ID}` for an input the file declares under `inputs`: mcpbind
    /// can't prompt, so its value comes from the environment variable
    /// [`input_var`] names (`MCPBIND_INPUT_` and the id in capitals), and a
    /// missing one is an error that says which variable to set.
    ///
    /// # Errors
    ///
    /// [`ParseError::Json`] for text that is not such a file, and the
    /// other [`ParseError`]s of an `mcpServers` file.
    pub fn from_json_str(text: &str) -> Result<Config, ParseError> {
        let file: JsonFile = serde_json::from_str(text).map_err(|e| ParseError::Json {
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })?;
        let inputs: Vec<String> = file.inputs.iter().map(|i| i.id.clone()).collect();
        let entries = match (file.mcp_servers, file.servers) {
            (Some(s), None) | (None, Some(s)) => s,
            (Some(_), Some(_)) => return Err(ParseError::BothServerLists),
            (None, None) => return Err(ParseError::NoServerList),
        };
        let mut servers = BTreeMap::new();
        for (name, entry) in entries {
            if !is_valid_server_name(&name) {
                return Err(ParseError::ServerName { name });
            }
            if entry.env_file.is_some() {
                return Err(ParseError::EnvFile { server: name });
            }
            let server = entry.into_server().map_err(|reason| ParseError::Server {
                server: name.clone(),
                reason,
            })?;
            if let Some(input) = server
                .values()
                .into_iter()
                .find_map(|v| undeclared_input(v, &inputs))
            {
                return Err(ParseError::UndeclaredInput {
                    server: name,
                    input,
                });
            }
            servers.insert(name, server);
        }
        Ok(Config { servers })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TomlFile {
    /// See [`ServerConfig::allow_commands`].
    allow_commands: Option<Vec<String>>,
    #[serde(default)]
    servers: BTreeMap<ServerName, TomlServer>,
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct ServerName(String);

impl<'de> Deserialize<'de> for ServerName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        if is_valid_server_name(&name) {
            Ok(ServerName(name))
        } else {
            Err(serde::de::Error::custom(format!(
                "invalid server name `{name}`: names match ^[a-z][a-z0-9_-]{{0,31}}$"
            )))
        }
    }
}

/// A server table, validated as it is deserialized so that the TOML error
/// carries the table's line and column.
struct TomlServer(ServerConfig);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    transport: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    cwd: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    inherit_env: Option<bool>,
    sandbox: Option<RawSandbox>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    tool_prefix: Option<String>,
    enabled_tools: Option<Vec<String>>,
    #[serde(default)]
    disabled_tools: Vec<String>,
    enabled_prompts: Option<Vec<String>>,
    #[serde(default)]
    disabled_prompts: Vec<String>,
    enabled_resource_templates: Option<Vec<String>>,
    #[serde(default)]
    disabled_resource_templates: Vec<String>,
    timeout: Option<f64>,
    max_call_time: Option<f64>,
    connect_timeout: Option<f64>,
    validate_input: Option<bool>,
    validate_output: Option<bool>,
    pin_policy: Option<String>,
    max_response_bytes: Option<u64>,
    // Lifecycle (see [`Lifecycle`]).
    retries: Option<u32>,
    retry_backoff: Option<f64>,
    retry_backoff_max: Option<f64>,
    breaker_threshold: Option<u32>,
    breaker_cooldown: Option<f64>,
    max_concurrent_calls: Option<usize>,
    idle_timeout: Option<f64>,
    // OAuth (see [`AuthConfig`]).
    auth: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    redirect_port: Option<u16>,
    client_metadata_url: Option<String>,
    private_key: Option<String>,
    signing_algorithm: Option<String>,
    assertion: Option<String>,
    assertion_file: Option<PathBuf>,
    id_token: Option<String>,
    idp_token_endpoint: Option<String>,
    idp_client_id: Option<String>,
}

impl<'de> Deserialize<'de> for TomlServer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawServer::deserialize(d)?;
        raw.into_server()
            .map(TomlServer)
            .map_err(serde::de::Error::custom)
    }
}

impl RawServer {
    fn into_server(mut self) -> Result<ServerConfig, String> {
        let lifecycle = self.lifecycle()?;
        let auth = self.auth()?;
        let kind = match (&self.transport, &self.command, &self.url) {
            (Some(t), _, _) => t.as_str(),
            (None, Some(_), None) => "stdio",
            (None, None, Some(_)) => "streamable-http",
            (None, Some(_), Some(_)) => {
                return Err("both `command` and `url` are set: say which with `transport`".into())
            }
            (None, None, None) => {
                return Err(
                    "missing `command` (for a stdio server) or `url` (for an HTTP server)".into(),
                )
            }
        };
        let http_only = |field: &str, set: bool| {
            if set {
                Err(format!("`{field}` is only valid for stdio servers"))
            } else {
                Ok(())
            }
        };
        let transport = match kind {
            "stdio" => {
                let command = self.command.ok_or("missing `command` for a stdio server")?;
                if self.url.is_some() {
                    return Err("`url` is not valid for a stdio server".into());
                }
                if !self.headers.is_empty() {
                    return Err("`headers` are not valid for a stdio server".into());
                }
                if auth.is_some() {
                    return Err("`auth` is not valid for a stdio server".into());
                }
                TransportConfig::Stdio {
                    command,
                    args: self.args,
                    cwd: self.cwd,
                    env: self.env,
                    inherit_env: self.inherit_env.unwrap_or(false),
                    sandbox: self.sandbox.map(RawSandbox::into_sandbox).transpose()?,
                }
            }
            "streamable-http" | "http" | "sse" => {
                let url = self
                    .url
                    .ok_or_else(|| format!("missing `url` for a {kind} server"))?;
                http_only("command", self.command.is_some())?;
                http_only("args", !self.args.is_empty())?;
                http_only("cwd", self.cwd.is_some())?;
                http_only("env", !self.env.is_empty())?;
                http_only("inherit_env", self.inherit_env.is_some())?;
                http_only("sandbox", self.sandbox.is_some())?;
                let authorization = self
                    .headers
                    .keys()
                    .any(|h| h.eq_ignore_ascii_case("authorization"));
                if auth.is_some() && authorization {
                    return Err("`auth` and an `Authorization` header are both set: OAuth sends its own token (keep one of them)".into());
                }
                if kind == "sse" && auth.is_some() {
                    return Err("`auth` is supported for Streamable HTTP servers, not the legacy `sse` transport".into());
                }
                if kind == "sse" {
                    TransportConfig::Sse {
                        url,
                        headers: self.headers,
                    }
                } else {
                    TransportConfig::StreamableHttp {
                        url,
                        headers: self.headers,
                    }
                }
            }
            other => {
                return Err(format!(
                    "unknown transport `{other}`, expected one of `stdio`, `streamable-http`, `sse`"
                ))
            }
        };
        let timeout = seconds("timeout", self.timeout, DEFAULT_TIMEOUT)?;
        let max_call_time = seconds("max_call_time", self.max_call_time, DEFAULT_MAX_CALL_TIME)?;
        let connect_timeout = seconds(
            "connect_timeout",
            self.connect_timeout,
            DEFAULT_CONNECT_TIMEOUT,
        )?;
        let max_response_bytes = match self.max_response_bytes {
            None => DEFAULT_MAX_RESPONSE_BYTES,
            Some(n) if n >= 1024 => usize::try_from(n).unwrap_or(usize::MAX),
            Some(n) => {
                return Err(format!(
                    "`max_response_bytes` must be at least 1024, not {n}"
                ))
            }
        };
        Ok(ServerConfig {
            allow_commands: None,
            auth,
            max_response_bytes,
            transport,
            tool_prefix: self.tool_prefix,
            enabled_tools: self.enabled_tools,
            disabled_tools: self.disabled_tools,
            enabled_prompts: self.enabled_prompts,
            disabled_prompts: self.disabled_prompts,
            enabled_resource_templates: self.enabled_resource_templates,
            disabled_resource_templates: self.disabled_resource_templates,
            timeout,
            max_call_time,
            connect_timeout,
            validate_input: self.validate_input.unwrap_or(true),
            validate_output: self.validate_output.unwrap_or(true),
            pin_policy: match self.pin_policy.as_deref() {
                None | Some("warn") => PinPolicy::Warn,
                Some("ignore") => PinPolicy::Ignore,
                Some("refuse") => PinPolicy::Refuse,
                Some(other) => {
                    return Err(format!(
                        "unknown pin_policy `{other}`, expected one of `warn`, `refuse`, `ignore`"
                    ))
                }
            },
            lifecycle,
        })
    }

    /// The OAuth keys, checked: `client_id` and the rest only with `auth`.
    fn auth(&mut self) -> Result<Option<AuthConfig>, String> {
        let client_id = self.client_id.take();
        let client_secret = self.client_secret.take();
        let scopes = std::mem::take(&mut self.scopes);
        let enterprise = (
            self.id_token.take(),
            self.idp_token_endpoint.take(),
            self.idp_client_id.take(),
        );
        let enterprise_key = [
            ("id_token", enterprise.0.is_some()),
            ("idp_token_endpoint", enterprise.1.is_some()),
            ("idp_client_id", enterprise.2.is_some()),
        ]
        .into_iter()
        .find(|(_, set)| *set)
        .map(|(key, _)| key);
        if let (Some(key), false) = (enterprise_key, self.auth.as_deref() == Some("enterprise")) {
            return Err(format!(
                "`{key}` is only valid with `auth = \"enterprise\"`"
            ));
        }
        let Some(kind) = self.auth.as_deref() else {
            let stray = [
                ("client_id", client_id.is_some()),
                ("client_secret", client_secret.is_some()),
                ("scopes", !scopes.is_empty()),
                ("redirect_port", self.redirect_port.is_some()),
                ("client_metadata_url", self.client_metadata_url.is_some()),
                ("private_key", self.private_key.is_some()),
                ("signing_algorithm", self.signing_algorithm.is_some()),
                ("assertion", self.assertion.is_some()),
                ("assertion_file", self.assertion_file.is_some()),
            ];
            return match stray.iter().find(|(_, set)| *set) {
                Some((key, _)) => Err(format!(
                    "`{key}` is only valid with `auth` (`oauth`, `client_credentials` or `jwt_bearer`)"
                )),
                None => Ok(None),
            };
        };
        match kind {
            "oauth" => {
                let only_jwt = [
                    ("private_key", self.private_key.is_some()),
                    ("signing_algorithm", self.signing_algorithm.is_some()),
                ];
                if let Some(key) = self.assertion_key() {
                    return Err(key);
                }
                if let Some((key, _)) = only_jwt.iter().find(|(_, set)| *set) {
                    return Err(format!(
                        "`{key}` is only valid with `auth = \"client_credentials\"` (private_key_jwt)"
                    ));
                }
                if client_secret.is_some() && client_id.is_none() {
                    return Err("`client_secret` needs the `client_id` it belongs to".into());
                }
                Ok(Some(AuthConfig::OAuth {
                    client_id,
                    client_secret,
                    scopes,
                    redirect_port: self.redirect_port,
                    client_metadata_url: self.client_metadata_url.take(),
                }))
            }
            "client_credentials" => {
                let only_oauth = [
                    ("redirect_port", self.redirect_port.is_some()),
                    ("client_metadata_url", self.client_metadata_url.is_some()),
                ];
                if let Some((key, _)) = only_oauth.iter().find(|(_, set)| *set) {
                    return Err(format!(
                        "`{key}` is only valid with `auth = \"oauth\"` (client credentials need no browser)"
                    ));
                }
                if let Some(key) = self.assertion_key() {
                    return Err(key);
                }
                let private_key = self.private_key.take();
                let signing_algorithm = self.signing_algorithm.take();
                match (client_id, client_secret, private_key) {
                    (Some(_), Some(_), Some(_)) => Err("`client_secret` and `private_key` are both set: the client authenticates with one of them".into()),
                    (Some(client_id), Some(client_secret), None) => {
                        if signing_algorithm.is_some() {
                            return Err("`signing_algorithm` goes with `private_key`, not `client_secret`".into());
                        }
                        Ok(Some(AuthConfig::ClientCredentials {
                            client_id,
                            client_secret,
                            scopes,
                        }))
                    }
                    (Some(client_id), None, Some(private_key)) => {
                        let signing_algorithm = signing_algorithm
                            .ok_or("`private_key` needs `signing_algorithm` (`RS256`, `RS384`, `RS512`, `ES256` or `ES384`)")?;
                        Ok(Some(AuthConfig::PrivateKeyJwt {
                            client_id,
                            private_key,
                            signing_algorithm: SigningAlgorithm::parse(&signing_algorithm)?,
                            scopes,
                        }))
                    }
                    _ => Err("`auth = \"client_credentials\"` needs `client_id` and `client_secret` or `private_key` (write the secret as `${VAR}`)".into()),
                }
            }
            "jwt_bearer" => {
                let not_here = [
                    ("client_secret", client_secret.is_some()),
                    ("private_key", self.private_key.is_some()),
                    ("signing_algorithm", self.signing_algorithm.is_some()),
                    ("redirect_port", self.redirect_port.is_some()),
                    ("client_metadata_url", self.client_metadata_url.is_some()),
                ];
                if let Some((key, _)) = not_here.iter().find(|(_, set)| *set) {
                    return Err(format!(
                        "`{key}` is not valid with `auth = \"jwt_bearer\"` (the workload's JWT is the credential)"
                    ));
                }
                let assertion = match (self.assertion.take(), self.assertion_file.take()) {
                    (Some(jwt), None) => Assertion::Value(jwt),
                    (None, Some(path)) => Assertion::File(path),
                    (Some(_), Some(_)) => return Err("`assertion` and `assertion_file` are both set: keep one of them".into()),
                    (None, None) => return Err("`auth = \"jwt_bearer\"` needs `assertion` (write it as `${VAR}`) or `assertion_file`".into()),
                };
                Ok(Some(AuthConfig::JwtBearer {
                    client_id,
                    assertion,
                    scopes,
                }))
            }
            "enterprise" => {
                if let Some(key) = self.assertion_key() {
                    return Err(key);
                }
                let not_here = [
                    ("private_key", self.private_key.is_some()),
                    ("signing_algorithm", self.signing_algorithm.is_some()),
                    ("redirect_port", self.redirect_port.is_some()),
                    ("client_metadata_url", self.client_metadata_url.is_some()),
                ];
                if let Some((key, _)) = not_here.iter().find(|(_, set)| *set) {
                    return Err(format!(
                        "`{key}` is not valid with `auth = \"enterprise\"`"
                    ));
                }
                match (client_id, client_secret, enterprise) {
                    (Some(client_id), Some(client_secret), (Some(id_token), Some(idp_token_endpoint), Some(idp_client_id))) => {
                        Ok(Some(AuthConfig::Enterprise {
                            client_id,
                            client_secret,
                            idp_token_endpoint,
                            idp_client_id,
                            id_token,
                            scopes,
                        }))
                    }
                    _ => Err("`auth = \"enterprise\"` needs `client_id`, `client_secret`, `idp_token_endpoint`, `idp_client_id` and `id_token` (write secrets as `${VAR}`)".into()),
                }
            }
            "none" => Ok(None),
            other => Err(format!(
                "unknown auth `{other}`, expected one of `oauth`, `client_credentials`, `jwt_bearer`, `enterprise`, `none` (a static token goes in `headers`)"
            )),
        }
    }

    /// The error for an `assertion` key outside `auth = "jwt_bearer"`.
    fn assertion_key(&self) -> Option<String> {
        let key = if self.assertion.is_some() {
            "assertion"
        } else if self.assertion_file.is_some() {
            "assertion_file"
        } else {
            return None;
        };
        Some(format!(
            "`{key}` is only valid with `auth = \"jwt_bearer\"`"
        ))
    }

    /// The [`Lifecycle`] keys, checked.
    fn lifecycle(&self) -> Result<Lifecycle, String> {
        let defaults = Lifecycle::default();
        let retry_backoff = match self.retry_backoff {
            Some(0.0) => Duration::ZERO,
            other => seconds("retry_backoff", other, defaults.retry_backoff)?,
        };
        let retry_backoff_max = seconds(
            "retry_backoff_max",
            self.retry_backoff_max,
            defaults.retry_backoff_max,
        )?;
        if retry_backoff > retry_backoff_max {
            return Err(format!(
                "`retry_backoff` ({}s) is longer than `retry_backoff_max` ({}s)",
                retry_backoff.as_secs_f64(),
                retry_backoff_max.as_secs_f64()
            ));
        }
        if self.max_concurrent_calls == Some(0) {
            return Err(
                "`max_concurrent_calls` must be at least 1 (leave it out for no limit)".into(),
            );
        }
        Ok(Lifecycle {
            retries: self.retries.unwrap_or(defaults.retries),
            retry_backoff,
            retry_backoff_max,
            breaker_threshold: self.breaker_threshold.unwrap_or(defaults.breaker_threshold),
            breaker_cooldown: seconds(
                "breaker_cooldown",
                self.breaker_cooldown,
                defaults.breaker_cooldown,
            )?,
            max_concurrent_calls: self.max_concurrent_calls,
            idle_timeout: self
                .idle_timeout
                .map(|t| seconds("idle_timeout", Some(t), Duration::ZERO))
                .transpose()?,
        })
    }
}

/// A duration key in seconds: positive and finite, or `default` when unset.
fn seconds(key: &str, value: Option<f64>, default: Duration) -> Result<Duration, String> {
    match value {
        None => Ok(default),
        Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => Ok(Duration::from_secs_f64(t)),
        Some(t) => Err(format!(
            "`{key}` must be a positive number of seconds, not {t}"
        )),
    }
}

#[derive(Deserialize)]
struct JsonFile {
    #[serde(rename = "mcpServers")]
    mcp_servers: Option<BTreeMap<String, JsonServer>>,
    servers: Option<BTreeMap<String, JsonServer>>,
    /// VS Code: values to prompt for, referred to as `${input:ID}`.
    #[serde(default)]
    inputs: Vec<JsonInput>,
}

#[derive(Deserialize)]
struct JsonInput {
    id: String,
}

#[derive(Deserialize)]
struct JsonServer {
    #[serde(rename = "type", alias = "transport")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    cwd: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    timeout: Option<f64>,
    #[serde(rename = "envFile")]
    env_file: Option<String>,
    // OAuth: the keys of a TOML server table (see [`AuthConfig`]), with
    // camelCase spellings as JSON configs write them.
    auth: Option<String>,
    #[serde(alias = "clientId")]
    client_id: Option<String>,
    #[serde(alias = "clientSecret")]
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(alias = "redirectPort")]
    redirect_port: Option<u16>,
    #[serde(alias = "clientMetadataUrl")]
    client_metadata_url: Option<String>,
    #[serde(alias = "privateKey")]
    private_key: Option<String>,
    #[serde(alias = "signingAlgorithm")]
    signing_algorithm: Option<String>,
    assertion: Option<String>,
    #[serde(alias = "assertionFile")]
    assertion_file: Option<PathBuf>,
    #[serde(alias = "idToken")]
    id_token: Option<String>,
    #[serde(alias = "idpTokenEndpoint")]
    idp_token_endpoint: Option<String>,
    #[serde(alias = "idpClientId")]
    idp_client_id: Option<String>,
}

impl JsonServer {
    fn into_server(self) -> Result<ServerConfig, String> {
        let transport = self.kind.map(|k| match k.as_str() {
            "streamableHttp" | "streamable_http" => "streamable-http".to_owned(),
            _ => k,
        });
        RawServer {
            transport,
            command: self.command,
            args: self.args,
            cwd: self.cwd,
            env: self.env,
            // Imported servers get the same filtered environment (hosts
            // have no key for it).
            inherit_env: None,
            sandbox: None,
            url: self.url,
            headers: self.headers,
            tool_prefix: None,
            enabled_tools: None,
            disabled_tools: Vec::new(),
            enabled_prompts: None,
            disabled_prompts: Vec::new(),
            enabled_resource_templates: None,
            disabled_resource_templates: Vec::new(),
            // Hosts write milliseconds (Claude Code's `timeout`); ours are seconds.
            timeout: self.timeout.map(|ms| ms / 1000.0),
            max_call_time: None,
            connect_timeout: None,
            validate_input: None,
            validate_output: None,
            pin_policy: None,
            max_response_bytes: None,
            retries: None,
            retry_backoff: None,
            retry_backoff_max: None,
            breaker_threshold: None,
            breaker_cooldown: None,
            max_concurrent_calls: None,
            idle_timeout: None,
            auth: self.auth,
            client_id: self.client_id,
            client_secret: self.client_secret,
            scopes: self.scopes,
            redirect_port: self.redirect_port,
            client_metadata_url: self.client_metadata_url,
            private_key: self.private_key,
            signing_algorithm: self.signing_algorithm,
            assertion: self.assertion,
            assertion_file: self.assertion_file,
            id_token: self.id_token,
            idp_token_endpoint: self.idp_token_endpoint,
            idp_client_id: self.idp_client_id,
        }
        .into_server()
    }
}

/// Expands `${VAR}` and `${VAR:-default}` in `value` from the environment.
///
/// `$$` stays a single `$` escape-free: only `${` starts a reference.
pub fn expand_vars(server: &str, value: &str) -> Result<String, ConfigError> {
    expand_vars_with(server, value, |var| std::env::var(var).ok())
}

/// [`expand_vars`] with a custom lookup (used by tests).
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
fn undeclared_input(value: &str, declared: &[String]) -> Option<String> {
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
    fn values(&self) -> Vec<&str> {
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

impl Config {
    /// Replaces VS Code's `${workspaceFolder}` in every value (and `cwd`).
    fn replace_workspace_folder(&mut self, folder: &str) {
        const NAME: &str = "${workspaceFolder}";
        let fix = |v: &mut String| {
            if v.contains(NAME) {
                *v = v.replace(NAME, folder);
            }
        };
        for server in self.servers.values_mut() {
            match &mut server.transport {
                TransportConfig::Stdio {
                    command,
                    args,
                    cwd,
                    env,
                    ..
                } => {
                    fix(command);
                    args.iter_mut().for_each(fix);
                    env.values_mut().for_each(fix);
                    if let Some(dir) = cwd {
                        let mut text = dir.display().to_string();
                        if text.contains(NAME) {
                            fix(&mut text);
                            *dir = PathBuf::from(text);
                        }
                    }
                }
                TransportConfig::StreamableHttp { url, headers }
                | TransportConfig::Sse { url, headers } => {
                    fix(url);
                    headers.values_mut().for_each(fix);
                }
            }
        }
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

    #[test]
    fn parses_private_key_jwt_and_jwt_bearer_and_refuses_mixtures() {
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
                "url = \"http://h/mcp\"\nauth = \"oauth\"\nprivate_key = \"k\"".to_owned(),
                "`private_key` is only valid with `auth = \"client_credentials\"`",
            ),
            (
                "url = \"http://h/mcp\"\nassertion = \"j\"".to_owned(),
                "`assertion` is only valid with `auth`",
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
