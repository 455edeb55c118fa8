//! What a config should tell its user without failing: keys an imported
//! JSON file has that mcpbind does not read, and secrets passed on a
//! command line.

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::{expand_vars_with, Config, ServerConfig, TransportConfig};

/// Something in a config that works but that its user should hear about.
/// [`Config::warnings`] lists them; `mcpbind` prints each once as it loads
/// the config, and a client logs the one of its server (`tracing::warn!`)
/// as it connects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigWarning {
    /// An imported `mcpServers` entry has keys mcpbind does not read (a
    /// host's own settings such as Cline's `autoApprove`): they are left
    /// out.
    #[error("server `{server}`: mcpbind does not read {}: left out", list(keys))]
    UnknownKeys {
        /// The server.
        server: String,
        /// The keys, as written.
        keys: Vec<String>,
    },
    /// A `${VAR}` in a stdio server's `args`: its value is on the command
    /// line, which every local user can read (`ps`, `/proc/PID/cmdline`).
    #[error("server `{server}`: `${{{var}}}` in `args` puts its value on the command line, visible to every local user (`ps`, /proc/PID/cmdline); pass it through `env` instead")]
    SecretInArgs {
        /// The server.
        server: String,
        /// The variable.
        var: String,
    },
}

/// `` `a`, `b` `` for the message.
fn list(keys: &[String]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    quoted.join(", ")
}

impl Config {
    /// The warnings of every server, in server order.
    pub fn warnings(&self) -> Vec<ConfigWarning> {
        let unknown = self
            .unknown_keys
            .iter()
            .filter(|(_, keys)| !keys.is_empty())
            .map(|(server, keys)| ConfigWarning::UnknownKeys {
                server: server.clone(),
                keys: keys.clone(),
            });
        let args = self
            .servers
            .iter()
            .flat_map(|(name, server)| server.secrets_in_args(name));
        unknown.chain(args).collect()
    }
}

impl ServerConfig {
    /// A [`ConfigWarning::SecretInArgs`] for each variable the `args` of
    /// this server (named `server`) refer to; none for another transport.
    pub fn secrets_in_args(&self, server: &str) -> Vec<ConfigWarning> {
        let TransportConfig::Stdio { args, .. } = &self.transport else {
            return Vec::new();
        };
        let vars = RefCell::new(BTreeSet::new());
        for arg in args {
            // Only the names are wanted: every lookup "succeeds".
            let _ = expand_vars_with(server, arg, |var| {
                vars.borrow_mut().insert(var.to_owned());
                Some(String::new())
            });
        }
        vars.into_inner()
            .into_iter()
            .map(|var| ConfigWarning::SecretInArgs {
                server: server.to_owned(),
                var,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `"disabled": true` and `"enabled": false` leave a server out (even
    /// one mcpbind could not start); keys mcpbind does not read are named.
    #[test]
    fn imported_switches_and_unknown_keys() {
        let config = Config::from_json_str(
            r#"{"mcpServers": {
                "on": {"command": "node", "args": ["s.js"], "autoApprove": ["read"], "alwaysAllow": []},
                "off": {"command": "node", "disabled": true},
                "also-off": {"url": "http://h/mcp", "enabled": false, "envFile": ".env"},
                "explicit": {"command": "node", "enabled": true, "disabled": false}
            }}"#,
        )
        .unwrap();
        let servers: Vec<&str> = config.servers.keys().map(String::as_str).collect();
        assert_eq!(servers, ["explicit", "on"]);
        let disabled: Vec<&str> = config.disabled.iter().map(String::as_str).collect();
        assert_eq!(disabled, ["also-off", "off"]);
        assert_eq!(
            config.warnings(),
            [ConfigWarning::UnknownKeys {
                server: "on".into(),
                keys: vec!["alwaysAllow".into(), "autoApprove".into()],
            }]
        );
        assert_eq!(
            config.warnings()[0].to_string(),
            "server `on`: mcpbind does not read `alwaysAllow`, `autoApprove`: left out"
        );
    }

    /// `disabled = true` in TOML: checked like any table, then left out.
    #[test]
    fn a_disabled_toml_server_is_left_out_but_checked() {
        let config = Config::from_toml_str(
            "[servers.a]\ncommand = \"x\"\n[servers.b]\ncommand = \"y\"\ndisabled = true\n",
        )
        .unwrap();
        assert_eq!(config.servers.keys().collect::<Vec<_>>(), ["a"]);
        assert!(config.disabled.contains("b"));
        let bad =
            Config::from_toml_str("[servers.b]\ndisabled = true\ntimeout = -1\ncommand = \"y\"\n");
        assert!(bad
            .unwrap_err()
            .to_string()
            .contains("`timeout` must be a positive number"));
    }

    /// A variable in `args` is named once per server and variable; one in
    /// `env` is not.
    #[test]
    fn secrets_in_args_are_named() {
        let config = Config::from_toml_str(
            r#"
            [servers.leaky]
            command = "server"
            args = ["--token=${API_TOKEN}", "--again=${API_TOKEN}", "${MODE:-fast}"]
            env = { KEY = "${API_KEY}" }
            [servers.tidy]
            command = "server"
            env = { KEY = "${API_KEY}" }
            "#,
        )
        .unwrap();
        let warnings = config.warnings();
        assert_eq!(
            warnings,
            [
                ConfigWarning::SecretInArgs {
                    server: "leaky".into(),
                    var: "API_TOKEN".into()
                },
                ConfigWarning::SecretInArgs {
                    server: "leaky".into(),
                    var: "MODE".into()
                },
            ]
        );
        assert_eq!(
            warnings[0].to_string(),
            "server `leaky`: `${API_TOKEN}` in `args` puts its value on the command line, visible to every local user (`ps`, /proc/PID/cmdline); pass it through `env` instead"
        );
        assert!(config.servers["tidy"].secrets_in_args("tidy").is_empty());
    }
}
