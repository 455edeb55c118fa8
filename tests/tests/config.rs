//! A config built in code, disabled servers, and what a config warns about,
//! against real servers and the real `mcpbind`.

use mcpbind::{Config, ServerConfig};
use mcpbind_tests::{demo, everything};

use crate::util;

/// The demo server and server-everything of `util::stdio_config`, built in
/// code.
fn built() -> Config {
    let demo = ServerConfig::stdio(util::bin("mcpbind-demo-server").display().to_string())
        .env("DEMO_TOKEN", "${MCPBIND_TEST_CANARY:-unset}");
    let everything =
        ServerConfig::stdio("node").args([util::npm_server("server-everything"), "stdio".into()]);
    Config::new()
        .server("demo", demo)
        .and_then(|c| c.server("everything", everything))
        .unwrap()
}

/// The same servers as TOML text (of `util::stdio_config`).
fn toml_twin() -> Config {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::from_toml_str(&util::stdio_config(dir.path())).unwrap();
    config
        .servers
        .retain(|name, _| name == "demo" || name == "everything");
    config
}

/// `disabled = true`: `lock` says it skipped the server and locks the rest,
/// `list` notes it, `generate` binds nothing of it, and naming it is an
/// error that says why.
#[test]
fn a_disabled_server_is_skipped_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.demo]\ncommand = {}\n\n[servers.off]\ncommand = \"/nonexistent/server\"\ndisabled = true\n",
        util::toml_str(&util::bin("mcpbind-demo-server").display().to_string())
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    let lock = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(lock.code, Some(0), "{lock:?}");
    assert!(
        lock.stderr.contains("Skipped off (disabled in the config)"),
        "{}",
        lock.stderr
    );
    let locked = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
    assert_eq!(locked.servers.keys().collect::<Vec<_>>(), ["demo"]);

    let list = util::mcpbind(dir.path(), &["list"]);
    assert_eq!(list.code, Some(0), "{list:?}");
    assert!(
        list.stderr
            .contains("note: server `off` is disabled in the config"),
        "{}",
        list.stderr
    );
    let generate = util::mcpbind(dir.path(), &["generate"]);
    assert_eq!(generate.code, Some(0), "{generate:?}");
    assert!(generate.stdout.contains("pub mod demo"));
    assert!(!generate.stdout.contains("pub mod off"));

    let named = util::mcpbind(dir.path(), &["lock", "off"]);
    assert_eq!(named.code, Some(1), "{named:?}");
    assert!(
        named.stderr.contains("server `off` is disabled in"),
        "{}",
        named.stderr
    );
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_config_built_in_code_calls_as_its_toml_twin() {
        let (built, twin) = (built(), toml_twin());
        assert_eq!(built, twin);
        for config in [&built, &twin] {
            let demo = demo::Client::connect(config).await.unwrap();
            let sum = demo
                .add(demo::types::AddInput { a: 2, b: 40 })
                .await
                .unwrap();
            assert_eq!(sum.output.sum, 42);
            let everything = everything::Client::connect(config).await.unwrap();
            let echo = everything
                .echo(everything::types::EchoInput::new("built"))
                .await
                .unwrap();
            assert!(echo.text().contains("built"), "{}", echo.text());
        }
    }

    /// An imported `.mcp.json`: a server marked `"disabled": true` or
    /// `"enabled": false` is not started, keys mcpbind does not read are named
    /// once, and a `${VAR}` in `args` is warned about once, by name, never by
    /// value.
    #[test]
    fn imported_json_warns_and_skips() {
        let dir = tempfile::tempdir().unwrap();
        let json = serde_json::json!({"mcpServers": {
            "everything": {
                "command": "node",
                "args": [util::npm_server("server-everything"), "stdio", "--token=${MCPBIND_JSON_TOKEN:-t0ken-value}"],
                "autoApprove": ["echo"],
            },
            "off": {"command": "/nonexistent/server", "disabled": true},
            "gone": {"url": "http://127.0.0.1:9/mcp", "enabled": false},
        }});
        std::fs::write(dir.path().join(".mcp.json"), json.to_string()).unwrap();
        let lock = util::mcpbind(dir.path(), &["lock", "--config", ".mcp.json"]);
        assert_eq!(lock.code, Some(0), "{lock:?}");
        let count = |needle: &str| lock.stderr.matches(needle).count();
        assert_eq!(
            count("warning: server `everything`: mcpbind does not read `autoApprove`: left out"),
            1,
            "{}",
            lock.stderr
        );
        assert_eq!(
            count("warning: server `everything`: `${MCPBIND_JSON_TOKEN}` in `args` puts its value on the command line"),
            1,
            "{}",
            lock.stderr
        );
        assert!(!lock.stderr.contains("t0ken-value"), "{}", lock.stderr);
        assert_eq!(count("Skipped off (disabled in the config)"), 1);
        assert_eq!(count("Skipped gone (disabled in the config)"), 1);
        let locked = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
        assert_eq!(locked.servers.keys().collect::<Vec<_>>(), ["everything"]);
    }
}
