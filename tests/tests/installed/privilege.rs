//! Least privilege against real processes: what a stdio server mcpbind
//! starts can see and do (`tests/servers/probe.py` reports it), the
//! sandbox on real servers, and no secret in any error.

use std::path::Path;

use mcpbind::{Client, Config, SandboxBuilder, ServerBuilder, ServerConfig};
use serde_json::{json, Map, Value};

use crate::util::sandbox::{python, require_landlock};
use crate::util::{self, call_text};

/// Exported in the agent's environment; must not reach a server that does
/// not ask for it.
const CANARIES: [(&str, &str); 2] = crate::env::PRIVILEGE_CANARIES;

/// The canaries and `MCPBIND_PRIVILEGE_GIVEN` are exported before `main`
/// (tests/tests/env.rs): checked here, not set.
fn export_canaries() {
    for (var, value) in CANARIES {
        assert_eq!(std::env::var(var).as_deref(), Ok(value));
    }
    assert_eq!(
        crate::env::value("MCPBIND_PRIVILEGE_GIVEN"),
        "given-value-9b2e"
    );
}

fn probe() -> String {
    util::tests_dir()
        .join("servers/probe.py")
        .display()
        .to_string()
}

/// A config with the probe as server `probe`, with what `extra` adds to
/// it.
fn probe_config(extra: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Config {
    let probe = ServerConfig::stdio(python()).arg(probe());
    Config::new().server("probe", extra(probe)).unwrap()
}
/// The server's environment, as it reports it.
async fn server_env(config: &Config) -> Map<String, Value> {
    let client = Client::connect(config, "probe").await.unwrap();
    let (failed, text) = call_text(&client, "env", json!({})).await;
    assert!(!failed, "{text}");
    match serde_json::from_str(&text).unwrap() {
        Value::Object(env) => env,
        other => panic!("{other}"),
    }
}

#[tokio::test]
async fn agent_variables_stay_with_the_agent_by_default() {
    export_canaries();
    let config = probe_config(|s| s.env("GIVEN", "${MCPBIND_PRIVILEGE_GIVEN}"));
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
    let env = server_env(&probe_config(|s| s.inherit_env(true))).await;
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
    let everything = ServerConfig::stdio("npx")
        .args(["--no-install", "mcp-server-everything", "stdio"])
        .cwd(servers);
    let config = Config::new().server("everything", everything).unwrap();
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
            "[servers.probe]\ncommand = {}\nargs = [{}, \"--token\", \"${{PROBE_TOKEN}}\"]\n",
            util::toml_str(&python()),
            util::toml_str(&probe())
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

/// A test directory: `allowed/` (readable), `out/` (writable), and
/// `secret.txt` beside them (neither).
fn sandbox_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("allowed")).unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("allowed/data.txt"), "allowed data").unwrap();
    std::fs::write(dir.path().join("secret.txt"), "agent secret").unwrap();
    dir
}

fn path_of(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).display().to_string()
}

#[tokio::test]
async fn files_are_confined_to_read_and_write() {
    require_landlock();
    let dir = sandbox_dir();
    let config = probe_config(|s| {
        s.sandbox(
            SandboxBuilder::new()
                .read([path_of(&dir, "allowed")])
                .write([path_of(&dir, "out")]),
        )
    });
    let client = Client::connect(&config, "probe").await.unwrap();
    let read = |name: &str| json!({"path": path_of(&dir, name)});
    assert_eq!(
        call_text(&client, "read", read("allowed/data.txt")).await,
        (false, "allowed data".to_owned())
    );
    // The kernel refuses what the config does not grant (root included).
    let (failed, text) = call_text(&client, "read", read("secret.txt")).await;
    assert!(failed && text.starts_with("errno EACCES"), "{text}");
    let write = |name: &str| json!({"path": path_of(&dir, name), "text": "x"});
    assert_eq!(
        call_text(&client, "write", write("out/new.txt")).await,
        (false, "written".to_owned())
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/new.txt")).unwrap(),
        "x"
    );
    let (failed, text) = call_text(&client, "write", write("allowed/new.txt")).await;
    assert!(failed && text.starts_with("errno EACCES"), "{text}");
    // The agent's own process: its environment is not the server's to read
    // (the server's /proc is its own PID namespace's: no such pid).
    let environ = format!("/proc/{}/environ", std::process::id());
    let (failed, text) = call_text(&client, "read", json!({ "path": environ })).await;
    assert!(failed && text.starts_with("errno ENOENT"), "{text}");
    // Its own temp dir is private and writable.
    let (_, env) = call_text(&client, "env", json!({})).await;
    let env: Value = serde_json::from_str(&env).unwrap();
    let tmp = env["TMPDIR"].as_str().unwrap().to_owned();
    assert_ne!(Some(tmp.as_str()), std::env::var("TMPDIR").ok().as_deref());
    let in_tmp = json!({"path": format!("{tmp}/scratch"), "text": "x"});
    assert_eq!(
        call_text(&client, "write", in_tmp).await,
        (false, "written".to_owned())
    );
}

/// Without a sandbox, the same read succeeds: the refusal above is the
/// sandbox's.
#[tokio::test]
async fn without_a_sandbox_the_same_read_succeeds() {
    let dir = sandbox_dir();
    let client = Client::connect(&probe_config(|s| s), "probe")
        .await
        .unwrap();
    let read = json!({"path": path_of(&dir, "secret.txt")});
    assert_eq!(
        call_text(&client, "read", read).await,
        (false, "agent secret".to_owned())
    );
}

#[tokio::test]
async fn network_false_cannot_connect_out() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let target = json!({"host": "127.0.0.1", "port": port});
    // Unconfined, the listener is reachable.
    let open = Client::connect(&probe_config(|s| s), "probe")
        .await
        .unwrap();
    assert_eq!(
        call_text(&open, "connect", target.clone()).await,
        (false, "connected".to_owned())
    );
    let config = probe_config(|s| s.sandbox(SandboxBuilder::new().network(false)));
    let confined = Client::connect(&config, "probe").await.unwrap();
    let (failed, text) = call_text(&confined, "connect", target).await;
    assert!(failed && text.starts_with("errno ENETUNREACH"), "{text}");
}

#[tokio::test]
async fn isolated_home_is_fresh_and_removed_after() {
    let config = probe_config(|s| s.sandbox(SandboxBuilder::new().home("isolated")));
    let client = Client::connect(&config, "probe").await.unwrap();
    let (_, env) = call_text(&client, "env", json!({})).await;
    let env: Value = serde_json::from_str(&env).unwrap();
    let home = env["HOME"].as_str().unwrap().to_owned();
    assert_ne!(Some(home.as_str()), std::env::var("HOME").ok().as_deref());
    assert_eq!(
        call_text(&client, "list", json!({ "path": home })).await,
        (false, "[]".to_owned())
    );
    client.close().await;
    assert!(!Path::new(&home).exists(), "{home} was left behind");
}

/// `processes`: enforced for any user (in the server's own user namespace,
/// so the count is the server's; as root, where the kernel never applies
/// `RLIMIT_NPROC`, by a pids cgroup).
#[tokio::test]
async fn processes_are_limited() {
    let config = probe_config(|s| s.sandbox(SandboxBuilder::new().processes(3)));
    let client = Client::connect(&config, "probe").await.unwrap();
    let (failed, text) = call_text(&client, "children", json!({"count": 1})).await;
    assert!(!failed, "{text}");
    let (failed, text) = call_text(&client, "children", json!({"count": 10})).await;
    assert!(failed && text.starts_with("errno EAGAIN"), "{text}");
}

/// `open_files`: the server cannot hold more descriptors than granted.
#[tokio::test]
async fn open_files_are_limited() {
    let dir = sandbox_dir();
    let config = probe_config(|s| s.sandbox(SandboxBuilder::new().open_files(12)));
    let client = Client::connect(&config, "probe").await.unwrap();
    let (failed, text) =
        call_text(&client, "list", json!({"path": path_of(&dir, "allowed")})).await;
    assert!(!failed, "{text}");
    let (failed, text) = call_text(&client, "hold", json!({"count": 20})).await;
    assert!(failed && text.starts_with("errno EMFILE"), "{text}");
}

/// server-filesystem (npm) told to serve the whole test directory, but
/// sandboxed to `allowed/`: the kernel refuses what its own allowed
/// directories would permit.
#[tokio::test]
async fn server_filesystem_is_confined_by_the_kernel() {
    require_landlock();
    let dir = sandbox_dir();
    let fs = ServerConfig::stdio("node")
        .args([
            util::npm_server("server-filesystem"),
            dir.path().display().to_string(),
        ])
        .sandbox(
            SandboxBuilder::new()
                .read([path_of(&dir, "allowed")])
                .network(false)
                .home("isolated"),
        );
    let config = Config::new().server("fs", fs).unwrap();
    let client = Client::connect(&config, "fs").await.unwrap();
    let read = |name: &str| json!({"path": path_of(&dir, name)});
    let (failed, text) = call_text(&client, "read_text_file", read("allowed/data.txt")).await;
    assert!(!failed && text.contains("allowed data"), "{text}");
    let (failed, text) = call_text(&client, "read_text_file", read("secret.txt")).await;
    assert!(failed, "{text}");
    assert!(
        text.contains("EACCES") || text.contains("permission denied"),
        "{text}"
    );
    assert!(!text.contains("agent secret"), "{text}");
}

/// `mcpbind call` goes through the same spawn: the sandbox holds there.
#[test]
fn the_cli_spawns_through_the_sandbox() {
    require_landlock();
    let dir = sandbox_dir();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.probe]\ncommand = {}\nargs = [{}]\n[servers.probe.sandbox]\nread = [\"allowed\"]\n",
            util::toml_str(&python()),
            util::toml_str(&probe())
        ),
    )
    .unwrap();
    let args = json!({ "path": path_of(&dir, "secret.txt") }).to_string();
    let out = util::mcpbind(dir.path(), &["call", "probe", "read", &args]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stdout.starts_with("errno EACCES"), "{out:?}");
    let args = json!({ "path": path_of(&dir, "allowed/data.txt") }).to_string();
    let out = util::mcpbind(dir.path(), &["call", "probe", "read", &args]);
    assert_eq!(
        (out.code, out.stdout.trim()),
        (Some(0), "allowed data"),
        "{out:?}"
    );
}

/// A tool that echoes a configured secret into its `isError` text: the
/// typed call's error shows `***`, never the value.
#[tokio::test]
async fn a_call_error_hides_a_secret_the_server_echoed() {
    let secret = crate::env::value("MCPBIND_TEST_CANARY");
    let dir = tempfile::tempdir().unwrap();
    let config = util::stdio_servers(dir.path());
    let demo = mcpbind_tests::demo::Client::connect(&config).await.unwrap();
    let err = demo
        .fail(mcpbind_tests::demo::types::FailInput {
            message: format!("the token is {secret}"),
        })
        .await
        .unwrap_err();
    assert!(matches!(err, mcpbind::Error::Tool { .. }), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(secret), "{shown}");
    assert!(err.to_string().contains("the token is ***"), "{err}");
}
