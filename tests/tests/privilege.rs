//! Least privilege against real processes: what a stdio server mcpbind
//! starts can see and do (`tests/servers/probe.py` reports it), the
//! sandbox on real servers, and no secret in any error.

use mcpbind::{CallOptions, Client, Config};
use serde_json::{json, Map, Value};

use crate::util;

/// Exported in the agent's environment; must not reach a server that does
/// not ask for it.
const CANARIES: [(&str, &str); 2] = [
    ("AWS_SECRET_ACCESS_KEY", "aws-canary-7f3a"),
    ("MCPBIND_PRIVILEGE_CANARY", "agent-canary-c41d"),
];

fn export_canaries() {
    // Every test sets the same values, so concurrent tests agree.
    for (var, value) in CANARIES {
        std::env::set_var(var, value);
    }
    std::env::set_var("MCPBIND_PRIVILEGE_GIVEN", "given-value-9b2e");
}

/// The venv's Python (the test servers' installation).
fn python() -> String {
    util::servers_dir()
        .join(".venv/bin/python")
        .display()
        .to_string()
}

fn probe() -> String {
    util::tests_dir()
        .join("servers/probe.py")
        .display()
        .to_string()
}

/// A config with the probe as server `probe`, and `extra` in its table.
fn probe_config(extra: &str) -> Config {
    Config::from_toml_str(&format!(
        "[servers.probe]\ncommand = {:?}\nargs = [{:?}]\n{extra}",
        python(),
        probe()
    ))
    .unwrap()
}

async fn call(client: &Client, tool: &str, arguments: Value) -> (bool, String) {
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let result = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e:#}"));
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    (result.is_error == Some(true), text)
}

/// The server's environment, as it reports it.
async fn server_env(config: &Config) -> Map<String, Value> {
    let client = Client::connect(config, "probe").await.unwrap();
    let (failed, text) = call(&client, "env", json!({})).await;
    assert!(!failed, "{text}");
    match serde_json::from_str(&text).unwrap() {
        Value::Object(env) => env,
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn agent_variables_stay_with_the_agent_by_default() {
    export_canaries();
    let config = probe_config("env = { GIVEN = \"${MCPBIND_PRIVILEGE_GIVEN}\" }");
    let env = server_env(&config).await;
    for (var, _) in CANARIES {
        assert!(!env.contains_key(var), "{var} reached the server: {env:?}");
    }
    assert_eq!(env["GIVEN"], "given-value-9b2e");
    // What a program needs to start is still there.
    for var in ["PATH", "HOME"] {
        assert_eq!(
            env.get(var).and_then(Value::as_str),
            std::env::var(var).ok().as_deref(),
            "{var}"
        );
    }
    // Nothing beyond the safe list and `env`.
    let extra: Vec<&String> = env
        .keys()
        .filter(|k| !mcpbind::config::is_safe_env(k) && *k != "GIVEN")
        .collect();
    assert!(extra.is_empty(), "unexpected variables: {extra:?}");
}

#[tokio::test]
async fn inherit_env_passes_everything_on() {
    export_canaries();
    let env = server_env(&probe_config("inherit_env = true")).await;
    for (var, value) in CANARIES {
        assert_eq!(env.get(var).and_then(Value::as_str), Some(value), "{var}");
    }
}

/// An imported `.mcp.json` server gets the filtered environment too.
#[tokio::test]
async fn imported_servers_get_the_filtered_environment() {
    export_canaries();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".mcp.json");
    let entry = json!({"mcpServers": {"probe": {
        "command": python(), "args": [probe()], "env": {"GIVEN": "${MCPBIND_PRIVILEGE_GIVEN}"}
    }}});
    std::fs::write(&file, entry.to_string()).unwrap();
    let env = server_env(&Config::load(&file).unwrap()).await;
    for (var, _) in CANARIES {
        assert!(!env.contains_key(var), "{var} reached the server");
    }
    assert_eq!(env["GIVEN"], "given-value-9b2e");
}

/// A node server started by `npx` (from the test servers' own
/// node_modules, so without the network) still starts with the filtered
/// environment.
#[tokio::test]
async fn npx_starts_with_the_filtered_environment() {
    export_canaries();
    let servers = util::servers_dir();
    let config = Config::from_toml_str(&format!(
        "[servers.everything]\ncommand = \"npx\"\nargs = [\"--no-install\", \"mcp-server-everything\", \"stdio\"]\ncwd = {:?}\n",
        servers.display().to_string()
    ))
    .unwrap();
    let client = Client::connect(&config, "everything").await.unwrap();
    let tools = client.list_tools_raw().await.unwrap();
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{tools:?}");
}

/// A server that prints its arguments on a usage error and exits (as
/// clap-based servers do): `mcpbind lock` reports its stderr without the
/// token its arguments held, in any encoding.
#[test]
fn lock_does_not_print_a_token_the_server_echoed() {
    let token = "tok-\"3f9a/c0de\"";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.probe]\ncommand = {:?}\nargs = [{:?}, \"--token\", \"${{PROBE_TOKEN}}\"]\n",
            python(),
            probe()
        ),
    )
    .unwrap();
    let out = util::mcpbind_env(dir.path(), &["lock"], &[("PROBE_TOKEN", token)]);
    assert_eq!(out.code, Some(1), "{out:?}");
    // The server's stderr is shown, with the token hidden.
    assert!(
        out.stderr.contains("unexpected arguments: --token ***"),
        "{}",
        out.stderr
    );
    for shown in [token, "3f9a/c0de", "3f9a%2Fc0de"] {
        assert!(!out.stderr.contains(shown), "{}", out.stderr);
        assert!(!out.stdout.contains(shown), "{}", out.stdout);
    }
}
