//! A config built in code: [`Config::new`], [`ServerConfig::stdio`],
//! [`ServerConfig::http`], [`ServerConfig::sse`].
//!
//! A [`ServerBuilder`] holds the keys of one `[servers.NAME]` table, each
//! set by a method of the key's name, and [`Config::server`] checks them
//! by the very code that reads `mcpbind.toml` (the same keys, defaults,
//! ranges and combinations, and the same messages, naming the key). So a
//! program that builds its servers at run time never formats TOML, and a
//! config built in code is exactly its TOML twin.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize as _;
use serde_json::{Map, Value};

use super::parse::TomlServer;
use super::{is_valid_server_name, Annotations, Config, ConfigError, PinPolicy, ServerConfig};

/// One server of a [`Config`] built in code: the keys of its
/// `[servers.NAME]` table. Start with [`ServerConfig::stdio`],
/// [`ServerConfig::http`] or [`ServerConfig::sse`]; add it with
/// [`Config::server`], which checks it.
///
/// ```
/// use mcpbind::{Config, ServerConfig};
///
/// let config = Config::new()
///     .server(
///         "github",
///         ServerConfig::stdio("npx")
///             .args(["-y", "@modelcontextprotocol/server-github"])
///             .env("GITHUB_PERSONAL_ACCESS_TOKEN", "${GITHUB_TOKEN}")
///             .enabled_tools(["search_repositories"]),
///     )?
///     .server(
///         "search",
///         ServerConfig::http("https://mcp.example.com/mcp")
///             .header("Authorization", "Bearer ${SEARCH_TOKEN}")
///             .timeout(std::time::Duration::from_secs(30)),
///     )?;
/// assert_eq!(config.servers.len(), 2);
/// # Ok::<(), mcpbind::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use = "a ServerBuilder does nothing until it is added with `Config::server`"]
pub struct ServerBuilder {
    keys: Map<String, Value>,
    allow_commands: Option<Vec<String>>,
}

impl ServerConfig {
    /// A stdio server: `command = "…"` (a program on `PATH`, or a path).
    pub fn stdio(command: impl Into<String>) -> ServerBuilder {
        ServerBuilder::default().set("command", command.into())
    }

    /// A Streamable HTTP server: `url = "…"`.
    pub fn http(url: impl Into<String>) -> ServerBuilder {
        ServerBuilder::default().set("url", url.into())
    }

    /// A server on the legacy HTTP+SSE transport: `transport = "sse"`,
    /// `url = "…"`.
    pub fn sse(url: impl Into<String>) -> ServerBuilder {
        ServerBuilder::default()
            .set("transport", "sse")
            .set("url", url.into())
    }
}

/// A list of strings as a JSON array.
fn strings<I, S>(items: I) -> Value
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    Value::Array(items.into_iter().map(|s| Value::String(s.into())).collect())
}

/// A duration in seconds, as the config writes it.
fn secs(duration: Duration) -> Value {
    Value::from(duration.as_secs_f64())
}

impl ServerBuilder {
    /// Sets `key` to `value`, as `key = value` in the server's table. The
    /// typed methods below cover every key; this one is for a key written
    /// as data. An unknown key, or a value of the wrong type, is an error
    /// of [`Config::server`] that names the key.
    pub fn set(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.keys.insert(key.into(), value.into());
        self
    }

    /// Adds `name = value` to a table key (`env`, `headers`).
    fn insert(mut self, table: &str, name: String, value: String) -> Self {
        let entry = self
            .keys
            .entry(table)
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(map) = entry {
            map.insert(name, Value::String(value));
        }
        self
    }

    /// `transport`: `stdio`, `streamable-http` or `sse` (the constructors
    /// set it; needed only to override).
    pub fn transport(self, transport: impl Into<String>) -> Self {
        self.set("transport", transport.into())
    }

    /// Appends one argument to `args`.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        let entry = self
            .keys
            .entry("args")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(args) = entry {
            args.push(Value::String(arg.into()));
        }
        self
    }

    /// Appends arguments to `args`. A `${VAR}` here is visible to other
    /// local users in the process table: pass secrets with [`env`](Self::env).
    pub fn args<I, S>(self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        args.into_iter().fold(self, Self::arg)
    }

    /// `cwd`: the server's working directory.
    pub fn cwd(self, dir: impl Into<PathBuf>) -> Self {
        self.set("cwd", dir.into().to_string_lossy().into_owned())
    }

    /// Adds a variable to `env` (`${VAR}` is read when connecting).
    pub fn env(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.insert("env", name.into(), value.into())
    }

    /// `inherit_env`: pass the agent's whole environment on.
    pub fn inherit_env(self, yes: bool) -> Self {
        self.set("inherit_env", yes)
    }

    /// `[servers.NAME.sandbox]`.
    pub fn sandbox(self, sandbox: SandboxBuilder) -> Self {
        self.set("sandbox", Value::Object(sandbox.keys))
    }

    /// Adds a request header to `headers` (`${VAR}` is read when
    /// connecting).
    pub fn header(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.insert("headers", name.into(), value.into())
    }

    /// `disabled = true`: the server is left out of lock, generate and
    /// connect ([`Config::disabled`]).
    pub fn disabled(self, yes: bool) -> Self {
        self.set("disabled", yes)
    }

    /// The top-level `allow_commands`, for this server: the executables it
    /// may run (see [`ServerConfig::allow_commands`]).
    pub fn allow_commands<I, S>(mut self, commands: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allow_commands = Some(commands.into_iter().map(Into::into).collect());
        self
    }

    /// `tool_prefix`.
    pub fn tool_prefix(self, prefix: impl Into<String>) -> Self {
        self.set("tool_prefix", prefix.into())
    }

    /// `timeout`: how long a call waits without hearing from the server.
    pub fn timeout(self, timeout: Duration) -> Self {
        self.set("timeout", secs(timeout))
    }

    /// `max_call_time`: the total limit of one call.
    pub fn max_call_time(self, limit: Duration) -> Self {
        self.set("max_call_time", secs(limit))
    }

    /// `connect_timeout`: how long starting and the handshake may take.
    pub fn connect_timeout(self, timeout: Duration) -> Self {
        self.set("connect_timeout", secs(timeout))
    }

    /// `validate_input`.
    pub fn validate_input(self, yes: bool) -> Self {
        self.set("validate_input", yes)
    }

    /// `validate_output`.
    pub fn validate_output(self, yes: bool) -> Self {
        self.set("validate_output", yes)
    }

    /// `pin_policy`.
    pub fn pin_policy(self, policy: PinPolicy) -> Self {
        let name = match policy {
            PinPolicy::Ignore => "ignore",
            PinPolicy::Warn => "warn",
            PinPolicy::Refuse => "refuse",
        };
        self.set("pin_policy", name)
    }

    /// `annotations`: whether the generated bindings make the tools'
    /// annotations binding ([`Annotations::Enforce`]: a tool that may
    /// change things needs an approval at the call).
    pub fn annotations(self, annotations: Annotations) -> Self {
        let name = match annotations {
            Annotations::Advise => "advise",
            Annotations::Enforce => "enforce",
        };
        self.set("annotations", name)
    }

    /// `max_response_bytes` (at least 1024).
    pub fn max_response_bytes(self, bytes: u64) -> Self {
        self.set("max_response_bytes", bytes)
    }

    /// `retries`.
    pub fn retries(self, retries: u32) -> Self {
        self.set("retries", retries)
    }

    /// `retry_backoff`.
    pub fn retry_backoff(self, backoff: Duration) -> Self {
        self.set("retry_backoff", secs(backoff))
    }

    /// `retry_backoff_max`.
    pub fn retry_backoff_max(self, backoff: Duration) -> Self {
        self.set("retry_backoff_max", secs(backoff))
    }

    /// `breaker_threshold`.
    pub fn breaker_threshold(self, failures: u32) -> Self {
        self.set("breaker_threshold", failures)
    }

    /// `breaker_cooldown`.
    pub fn breaker_cooldown(self, cooldown: Duration) -> Self {
        self.set("breaker_cooldown", secs(cooldown))
    }

    /// `max_concurrent_calls` (at least 1).
    pub fn max_concurrent_calls(self, calls: usize) -> Self {
        self.set("max_concurrent_calls", calls)
    }

    /// `idle_timeout`.
    pub fn idle_timeout(self, idle: Duration) -> Self {
        self.set("idle_timeout", secs(idle))
    }
}

/// The name lists: `enabled_tools`, `disabled_tools` and their prompt and
/// resource-template twins.
macro_rules! name_lists {
    ($($key:ident),* $(,)?) => {
        impl ServerBuilder {
            $(
                #[doc = concat!("`", stringify!($key), "`.")]
                pub fn $key<I, S>(self, names: I) -> Self
                where
                    I: IntoIterator<Item = S>,
                    S: Into<String>,
                {
                    self.set(stringify!($key), strings(names))
                }
            )*
        }
    };
}

name_lists!(
    enabled_tools,
    disabled_tools,
    enabled_prompts,
    disabled_prompts,
    enabled_resource_templates,
    disabled_resource_templates,
    scopes,
);

/// The OAuth keys that take a string (see the README's "Authorization").
macro_rules! string_keys {
    ($($key:ident),* $(,)?) => {
        impl ServerBuilder {
            $(
                #[doc = concat!("`", stringify!($key), "` (`${VAR}` is read when connecting).")]
                pub fn $key(self, value: impl Into<String>) -> Self {
                    self.set(stringify!($key), value.into())
                }
            )*
        }
    };
}

string_keys!(
    auth,
    client_id,
    client_secret,
    client_metadata_url,
    private_key,
    signing_algorithm,
    assertion,
    id_token,
    idp_token_endpoint,
    idp_client_id,
);

impl ServerBuilder {
    /// `redirect_port`: the loopback port of the OAuth redirect.
    pub fn redirect_port(self, port: u16) -> Self {
        self.set("redirect_port", port)
    }

    /// `assertion_file`: a file holding the workload's JWT.
    pub fn assertion_file(self, path: impl Into<PathBuf>) -> Self {
        self.set("assertion_file", path.into().to_string_lossy().into_owned())
    }
}

/// `[servers.NAME.sandbox]` built in code, for
/// [`ServerBuilder::sandbox`].
///
/// ```
/// use mcpbind::{Config, SandboxBuilder, ServerConfig};
///
/// let server = ServerConfig::stdio("python3")
///     .arg("server.py")
///     .sandbox(SandboxBuilder::new().network(false).read(["data"]).memory("512M"));
/// let config = Config::new().server("files", server)?;
/// # Ok::<(), mcpbind::ConfigError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use]
pub struct SandboxBuilder {
    keys: Map<String, Value>,
}

impl SandboxBuilder {
    /// An empty sandbox table: every setting at its default.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` to `value` in the sandbox table.
    pub fn set(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.keys.insert(key.into(), value.into());
        self
    }

    /// `network = true | false`.
    pub fn network(self, allowed: bool) -> Self {
        self.set("network", allowed)
    }

    /// `network = ["host:port", …]`.
    pub fn network_hosts<I, S>(self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.set("network", strings(hosts))
    }

    /// `read`: paths it may read.
    pub fn read<I, P>(self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.set("read", paths_value(paths))
    }

    /// `write`: paths it may read and write.
    pub fn write<I, P>(self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.set("write", paths_value(paths))
    }

    /// `home`: `inherit` or `isolated`.
    pub fn home(self, home: impl Into<String>) -> Self {
        self.set("home", home.into())
    }

    /// `memory`: bytes, or a size such as `"512M"`.
    pub fn memory(self, size: impl Into<Value>) -> Self {
        self.set("memory", size)
    }

    /// `cpu`: seconds of CPU time.
    pub fn cpu(self, seconds: u64) -> Self {
        self.set("cpu", seconds)
    }

    /// `open_files`.
    pub fn open_files(self, files: u64) -> Self {
        self.set("open_files", files)
    }

    /// `processes`.
    pub fn processes(self, processes: u64) -> Self {
        self.set("processes", processes)
    }

    /// `file_size`: bytes of any one file the server writes, or a size
    /// such as `"1M"`.
    pub fn file_size(self, size: impl Into<Value>) -> Self {
        self.set("file_size", size)
    }

    /// `required`: whether a setting the platform cannot enforce fails the
    /// connection (default) or is a warning.
    pub fn required(self, yes: bool) -> Self {
        self.set("required", yes)
    }
}

fn paths_value<I, P>(paths: I) -> Value
where
    I: IntoIterator<Item = P>,
    P: Into<PathBuf>,
{
    strings(
        paths
            .into_iter()
            .map(|p| p.into().to_string_lossy().into_owned()),
    )
}

impl Config {
    /// An empty config, to add servers to with [`server`](Self::server).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds server `name`, checked as `mcpbind.toml`'s `[servers.NAME]`
    /// table is. A server built with `.disabled(true)` goes to
    /// [`Config::disabled`], not [`Config::servers`].
    ///
    /// # Errors
    ///
    /// [`ConfigError::Server`] naming the server and what is wrong: a name
    /// outside `^[a-z][a-z0-9_-]{0,31}$`, a name already added, an unknown
    /// key, a value of the wrong type or out of range, keys that do not go
    /// together, an empty entry in `allow_commands`.
    pub fn server(
        mut self,
        name: impl Into<String>,
        server: ServerBuilder,
    ) -> Result<Self, ConfigError> {
        let name = name.into();
        let invalid = |reason: String| ConfigError::Server {
            server: name.clone(),
            reason,
        };
        if !is_valid_server_name(&name) {
            return Err(invalid(
                "invalid server name: names match ^[a-z][a-z0-9_-]{0,31}$".into(),
            ));
        }
        if self.servers.contains_key(&name) || self.disabled.contains(&name) {
            return Err(invalid("added twice".into()));
        }
        if let Some(bad) = server
            .allow_commands
            .iter()
            .flatten()
            .find(|c| c.trim().is_empty())
        {
            return Err(invalid(format!(
                "`allow_commands` holds an empty command: {bad:?}"
            )));
        }
        let parsed = TomlServer::deserialize(Value::Object(server.keys))
            .map_err(|e| invalid(e.to_string()))?;
        if parsed.disabled {
            self.disabled.insert(name);
            return Ok(self);
        }
        let mut config = parsed.server;
        config.allow_commands = server.allow_commands;
        self.servers.insert(name, config);
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TransportConfig;

    /// Every key of a server table, as TOML: the twin of what
    /// [`a_built_config_is_its_toml_twin`] builds in code.
    const TWIN_TOML: &str = r#"
            allow_commands = ["npx"]
            [servers.gh]
            command = "npx"
            args = ["-y", "server-github"]
            cwd = "/srv"
            env = { TOKEN = "${GH_TOKEN}", MODE = "ro" }
            inherit_env = false
            tool_prefix = "gh_"
            enabled_tools = ["search"]
            disabled_tools = ["delete"]
            enabled_prompts = ["p"]
            disabled_prompts = ["q"]
            enabled_resource_templates = ["t"]
            disabled_resource_templates = ["u"]
            timeout = 12.5
            max_call_time = 600
            connect_timeout = 90
            validate_input = false
            validate_output = false
            pin_policy = "refuse"
            annotations = "enforce"
            max_response_bytes = 4096
            retries = 5
            retry_backoff = 0.25
            retry_backoff_max = 8
            breaker_threshold = 3
            breaker_cooldown = 20
            max_concurrent_calls = 4
            idle_timeout = 300
            [servers.gh.sandbox]
            network = ["api.github.com:443"]
            read = ["/data"]
            write = ["/out"]
            home = "isolated"
            memory = "512M"
            cpu = 60
            open_files = 256
            processes = 32
            file_size = "1M"
            required = false
            [servers.web]
            url = "https://example.com/mcp"
            headers = { X-Team = "core" }
            auth = "oauth"
            client_id = "app"
            client_secret = "${APP_SECRET}"
            scopes = ["repo", "read:org"]
            redirect_port = 8765
            [servers.old]
            transport = "sse"
            url = "https://example.com/sse"
            [servers.off]
            command = "never"
            disabled = true
            "#;

    /// Server `gh` of [`TWIN_TOML`], built in code: every key of a stdio
    /// server and of its sandbox.
    fn gh_built() -> ServerBuilder {
        let sandbox = SandboxBuilder::new()
            .network_hosts(["api.github.com:443"])
            .read(["/data"])
            .write(["/out"])
            .home("isolated")
            .memory("512M")
            .cpu(60)
            .open_files(256)
            .processes(32)
            .file_size("1M")
            .required(false);
        ServerConfig::stdio("npx")
            .args(["-y", "server-github"])
            .cwd("/srv")
            .env("TOKEN", "${GH_TOKEN}")
            .env("MODE", "ro")
            .inherit_env(false)
            .allow_commands(["npx"])
            .tool_prefix("gh_")
            .enabled_tools(["search"])
            .disabled_tools(["delete"])
            .enabled_prompts(["p"])
            .disabled_prompts(["q"])
            .enabled_resource_templates(["t"])
            .disabled_resource_templates(["u"])
            .timeout(Duration::from_secs_f64(12.5))
            .max_call_time(Duration::from_secs(600))
            .connect_timeout(Duration::from_secs(90))
            .validate_input(false)
            .validate_output(false)
            .pin_policy(PinPolicy::Refuse)
            .annotations(Annotations::Enforce)
            .max_response_bytes(4096)
            .retries(5)
            .retry_backoff(Duration::from_millis(250))
            .retry_backoff_max(Duration::from_secs(8))
            .breaker_threshold(3)
            .breaker_cooldown(Duration::from_secs(20))
            .max_concurrent_calls(4)
            .idle_timeout(Duration::from_secs(300))
            .sandbox(sandbox)
    }

    /// Every key of a server table, built in code, gives what the same
    /// table gives from TOML.
    #[test]
    fn a_built_config_is_its_toml_twin() {
        let toml = Config::from_toml_str(TWIN_TOML).unwrap();
        let gh = gh_built();
        let web = ServerConfig::http("https://example.com/mcp")
            .header("X-Team", "core")
            .auth("oauth")
            .client_id("app")
            .client_secret("${APP_SECRET}")
            .scopes(["repo", "read:org"])
            .redirect_port(8765)
            .allow_commands(["npx"]);
        let built = Config::new()
            .server("gh", gh)
            .and_then(|c| c.server("web", web))
            .and_then(|c| {
                c.server(
                    "old",
                    ServerConfig::sse("https://example.com/sse").allow_commands(["npx"]),
                )
            })
            .and_then(|c| c.server("off", ServerConfig::stdio("never").disabled(true)))
            .unwrap();
        assert_eq!(built, toml);
        assert_eq!(built.servers["gh"].annotations, Annotations::Enforce);
        assert_eq!(built.servers["web"].annotations, Annotations::Advise);
        assert!(built.disabled.contains("off"));
        assert!(matches!(
            built.servers["old"].transport,
            TransportConfig::Sse { .. }
        ));
    }

    fn refused(server: ServerBuilder) -> String {
        Config::new().server("s", server).unwrap_err().to_string()
    }

    /// A bad key, value or combination is refused with the message a config
    /// file gets, naming the server and the key.
    #[test]
    fn bad_keys_and_values_are_named() {
        assert_eq!(
            refused(ServerConfig::stdio("x").set("tiemout", 3)),
            "server `s`: unknown field `tiemout`, expected one of `disabled`, `transport`, `command`, `args`, `cwd`, `env`, `inherit_env`, `sandbox`, `url`, `headers`, `tool_prefix`, `enabled_tools`, `disabled_tools`, `enabled_prompts`, `disabled_prompts`, `enabled_resource_templates`, `disabled_resource_templates`, `timeout`, `max_call_time`, `connect_timeout`, `validate_input`, `validate_output`, `pin_policy`, `annotations`, `max_response_bytes`, `retries`, `retry_backoff`, `retry_backoff_max`, `breaker_threshold`, `breaker_cooldown`, `max_concurrent_calls`, `idle_timeout`, `auth`, `client_id`, `client_secret`, `scopes`, `redirect_port`, `client_metadata_url`, `private_key`, `signing_algorithm`, `assertion`, `assertion_file`, `id_token`, `idp_token_endpoint`, `idp_client_id`"
        );
        assert_eq!(
            refused(ServerConfig::stdio("x").timeout(Duration::ZERO)),
            "server `s`: `timeout` must be a positive number of seconds, not 0"
        );
        assert_eq!(
            refused(ServerConfig::stdio("x").header("A", "b")),
            "server `s`: `headers` are not valid for a stdio server"
        );
        assert_eq!(
            refused(ServerConfig::http("http://h/mcp").client_id("app")),
            "server `s`: `client_id` is only valid with `auth` (`oauth`, `client_credentials`, `jwt_bearer`, `enterprise`)"
        );
        assert_eq!(
            refused(ServerConfig::stdio("x").sandbox(SandboxBuilder::new().home("elsewhere"))),
            "server `s`: unknown sandbox home `elsewhere`, expected `inherit` or `isolated`"
        );
        assert_eq!(
            refused(ServerConfig::stdio("x").set("annotations", "strict")),
            "server `s`: unknown annotations `strict`, expected one of `advise`, `enforce`"
        );
        assert_eq!(
            refused(ServerConfig::stdio("x").set("retries", "three")),
            "server `s`: invalid type: string \"three\", expected u32"
        );
        assert_eq!(
            refused(ServerConfig::stdio("x").allow_commands([" "])),
            "server `s`: `allow_commands` holds an empty command: \" \""
        );
        let bad_name = Config::new().server("Bad Name", ServerConfig::stdio("x"));
        assert_eq!(
            bad_name.unwrap_err().to_string(),
            "server `Bad Name`: invalid server name: names match ^[a-z][a-z0-9_-]{0,31}$"
        );
        let twice = Config::new()
            .server("s", ServerConfig::stdio("x"))
            .and_then(|c| c.server("s", ServerConfig::stdio("y")));
        assert_eq!(twice.unwrap_err().to_string(), "server `s`: added twice");
    }
}
