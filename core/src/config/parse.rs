//! The two forms of a config, parsed: `mcpbind.toml` and an `mcpServers`
//! JSON file (`.mcp.json`, Claude Desktop, Cursor, VS Code).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::vars::undeclared_input;
use super::{
    is_valid_server_name, Assertion, AuthConfig, Config, Lifecycle, ParseError, PinPolicy,
    ServerConfig, SigningAlgorithm, TransportConfig, DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MAX_CALL_TIME, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT,
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
