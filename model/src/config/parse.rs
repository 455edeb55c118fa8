//! The two forms of a config, parsed: `mcpbind.toml` and an `mcpServers`
//! JSON file (`.mcp.json`, Claude Desktop, Cursor, VS Code).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::auth_keys::{auth_config, AuthKeys, AuthKind};
use super::names::{self, Name, Transport};
use super::vars::undeclared_input;
use super::{
    is_valid_server_name, Annotations, Config, Lifecycle, ParseError, PinPolicy, ServerConfig,
    SigningAlgorithm, TransportConfig, DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_CALL_TIME,
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT,
};
use crate::sandbox::RawSandbox;

impl Config {
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
        let mut config = Config::default();
        for (name, raw) in file.servers {
            if raw.disabled {
                config.disabled.insert(name.0);
                continue;
            }
            let mut server = raw.server;
            server.allow_commands.clone_from(&file.allow_commands);
            config.servers.insert(name.0, server);
        }
        Ok(config)
    }

    /// Parses the `mcpServers` (or VS Code `servers`) JSON that MCP hosts keep.
    ///
    /// Values may hold `${VAR}` and `${VAR:-default}` (read from the
    /// environment when connecting), VS Code's `${env:VAR}`, and
    /// `${input:ID}` for an input the file declares under `inputs`: mcpbind
    /// can't prompt, so its value comes from the environment variable
    /// [`input_var`](super::input_var) names (`MCPBIND_INPUT_` and the id
    /// in capitals), and a missing one is an error that says which variable
    /// to set.
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
        let mut disabled = BTreeSet::new();
        let mut unknown_keys = BTreeMap::new();
        for (name, mut entry) in entries {
            if !is_valid_server_name(&name) {
                return Err(ParseError::ServerName { name });
            }
            if !entry.unknown.is_empty() {
                let keys = std::mem::take(&mut entry.unknown).into_keys().collect();
                unknown_keys.insert(name.clone(), keys);
            }
            // A host's switch (Cline, Claude Code): the entry stays in the
            // file, unchecked, and is never started.
            if entry.disabled == Some(true) || entry.enabled == Some(false) {
                disabled.insert(name);
                continue;
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
        Ok(Config {
            servers,
            disabled,
            unknown_keys,
        })
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
/// carries the table's line and column (and checked the same way when it
/// was built in code, `build.rs`).
pub(super) struct TomlServer {
    pub(super) server: ServerConfig,
    /// `disabled = true`: checked, then left out.
    pub(super) disabled: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    disabled: Option<bool>,
    transport: Option<Name<Transport>>,
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
    pin_policy: Option<Name<PinPolicy>>,
    annotations: Option<Name<Annotations>>,
    max_response_bytes: Option<u64>,
    // Lifecycle (see [`Lifecycle`]).
    retries: Option<u32>,
    retry_backoff: Option<f64>,
    retry_backoff_max: Option<f64>,
    breaker_threshold: Option<u32>,
    breaker_cooldown: Option<f64>,
    max_concurrent_calls: Option<usize>,
    idle_timeout: Option<f64>,
    // OAuth (see [`AuthConfig`], and `auth_keys.rs` for which kind takes
    // which key).
    auth: Option<Name<AuthKind>>,
    client_id: Option<String>,
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    redirect_port: Option<u16>,
    client_metadata_url: Option<String>,
    private_key: Option<String>,
    signing_algorithm: Option<Name<SigningAlgorithm>>,
    assertion: Option<String>,
    assertion_file: Option<PathBuf>,
    id_token: Option<String>,
    idp_token_endpoint: Option<String>,
    idp_client_id: Option<String>,
}

impl<'de> Deserialize<'de> for TomlServer {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawServer::deserialize(d)?;
        let disabled = raw.disabled.unwrap_or(false);
        raw.into_server()
            .map(|server| TomlServer { server, disabled })
            .map_err(serde::de::Error::custom)
    }
}

impl RawServer {
    fn into_server(mut self) -> Result<ServerConfig, String> {
        let lifecycle = self.lifecycle()?;
        let auth = auth_config(self.auth.take().map(|k| k.0), self.auth_keys())?;
        let transport = self.transport(auth.is_some())?;
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
            pin_policy: self.pin_policy.map_or(PinPolicy::Warn, |p| p.0),
            annotations: self.annotations.map_or(Annotations::Advise, |a| a.0),
            lifecycle,
        })
    }

    /// The keys beside `auth`, taken out.
    fn auth_keys(&mut self) -> AuthKeys {
        AuthKeys {
            client_id: self.client_id.take(),
            client_secret: self.client_secret.take(),
            scopes: std::mem::take(&mut self.scopes),
            redirect_port: self.redirect_port.take(),
            client_metadata_url: self.client_metadata_url.take(),
            private_key: self.private_key.take(),
            signing_algorithm: self.signing_algorithm.take().map(|a| a.0),
            assertion: self.assertion.take(),
            assertion_file: self.assertion_file.take(),
            id_token: self.id_token.take(),
            idp_token_endpoint: self.idp_token_endpoint.take(),
            idp_client_id: self.idp_client_id.take(),
        }
    }

    /// The transport: `transport`, or what `command` or `url` implies;
    /// `auth` says whether OAuth is set.
    fn transport(&mut self, auth: bool) -> Result<TransportConfig, String> {
        let kind = match (
            self.transport.as_ref().map(|t| t.0),
            &self.command,
            &self.url,
        ) {
            (Some(t), _, _) => t,
            (None, Some(_), None) => Transport::Stdio,
            (None, None, Some(_)) => Transport::StreamableHttp,
            (None, Some(_), Some(_)) => {
                return Err("both `command` and `url` are set: say which with `transport`".into())
            }
            (None, None, None) => {
                return Err(
                    "missing `command` (for a stdio server) or `url` (for an HTTP server)".into(),
                )
            }
        };
        match kind {
            Transport::Stdio => self.stdio(auth),
            Transport::StreamableHttp | Transport::Sse => self.http(kind, auth),
        }
    }

    fn stdio(&mut self, auth: bool) -> Result<TransportConfig, String> {
        let command = self
            .command
            .take()
            .ok_or("missing `command` for a stdio server")?;
        if self.url.is_some() {
            return Err("`url` is not valid for a stdio server".into());
        }
        if !self.headers.is_empty() {
            return Err("`headers` are not valid for a stdio server".into());
        }
        if auth {
            return Err("`auth` is not valid for a stdio server".into());
        }
        Ok(TransportConfig::Stdio {
            command,
            args: std::mem::take(&mut self.args),
            cwd: self.cwd.take(),
            env: std::mem::take(&mut self.env),
            inherit_env: self.inherit_env.unwrap_or(false),
            sandbox: self
                .sandbox
                .take()
                .map(RawSandbox::into_sandbox)
                .transpose()?,
        })
    }

    fn http(&mut self, kind: Transport, auth: bool) -> Result<TransportConfig, String> {
        let name = if kind == Transport::Sse {
            "sse"
        } else {
            "streamable-http"
        };
        let url = self
            .url
            .take()
            .ok_or_else(|| format!("missing `url` for a {name} server"))?;
        let stdio_only = [
            ("command", self.command.is_some()),
            ("args", !self.args.is_empty()),
            ("cwd", self.cwd.is_some()),
            ("env", !self.env.is_empty()),
            ("inherit_env", self.inherit_env.is_some()),
            ("sandbox", self.sandbox.is_some()),
        ];
        if let Some((field, _)) = stdio_only.iter().find(|(_, set)| *set) {
            return Err(format!("`{field}` is only valid for stdio servers"));
        }
        let authorization = self
            .headers
            .keys()
            .any(|h| h.eq_ignore_ascii_case("authorization"));
        if auth && authorization {
            return Err("`auth` and an `Authorization` header are both set: OAuth sends its own token (keep one of them)".into());
        }
        let headers = std::mem::take(&mut self.headers);
        Ok(match kind {
            Transport::Sse if auth => return Err(
                "`auth` is supported for Streamable HTTP servers, not the legacy `sse` transport"
                    .into(),
            ),
            Transport::Sse => TransportConfig::Sse { url, headers },
            _ => TransportConfig::StreamableHttp { url, headers },
        })
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
/// The longest timeout: a billion seconds (about 31 years).
const MAX_SECONDS: f64 = 1e9;

fn seconds(key: &str, value: Option<f64>, default: Duration) -> Result<Duration, String> {
    match value {
        None => Ok(default),
        Some(t) if t.is_finite() && t > 0.0 && t < MAX_SECONDS => Ok(Duration::from_secs_f64(t)),
        Some(t) if t.is_finite() && t > 0.0 => Err(format!(
            "`{key}` must be less than {MAX_SECONDS:.0} seconds (about 31 years), not {t:e}"
        )),
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
    /// Cline's and Claude Code's switch.
    disabled: Option<bool>,
    /// The opposite switch some hosts write.
    enabled: Option<bool>,
    /// Keys mcpbind does not read (a host's own: `autoApprove`…): a
    /// warning names them.
    #[serde(flatten)]
    unknown: BTreeMap<String, serde::de::IgnoredAny>,
}

impl JsonServer {
    fn into_server(self) -> Result<ServerConfig, String> {
        fn named<T: names::Named + PartialEq>(
            name: Option<String>,
        ) -> Result<Option<Name<T>>, String> {
            name.as_deref()
                .map(names::parse)
                .transpose()
                .map(|v| v.map(Name))
        }
        let transport = named(self.kind)?;
        RawServer {
            disabled: None,
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
            annotations: None,
            max_response_bytes: None,
            retries: None,
            retry_backoff: None,
            retry_backoff_max: None,
            breaker_threshold: None,
            breaker_cooldown: None,
            max_concurrent_calls: None,
            idle_timeout: None,
            auth: named(self.auth)?,
            client_id: self.client_id,
            client_secret: self.client_secret,
            scopes: self.scopes,
            redirect_port: self.redirect_port,
            client_metadata_url: self.client_metadata_url,
            private_key: self.private_key,
            signing_algorithm: named(self.signing_algorithm)?,
            assertion: self.assertion,
            assertion_file: self.assertion_file,
            id_token: self.id_token,
            idp_token_endpoint: self.idp_token_endpoint,
            idp_client_id: self.idp_client_id,
        }
        .into_server()
    }
}

impl Config {
    /// Replaces VS Code's `${workspaceFolder}` in every value (and `cwd`).
    pub(super) fn replace_workspace_folder(&mut self, folder: &str) {
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
