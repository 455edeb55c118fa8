//! The runtime against servers that misbehave on purpose
//! (`tests/servers/misbehave.py`): no secret shows, every buffer a server
//! fills is bounded, and every failure says what happened.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use mcpbind::{CallOptions, Client, Config, Error, ServerBuilder, ServerConfig};

use crate::util::{self, mcpbind_env};

/// A secret only ever given through `${MCPBIND_MISBEHAVE_CANARY}`.
const CANARY: &str = "canary-53cr3t-9d1e";
const CANARY_VAR: &str = "MCPBIND_MISBEHAVE_CANARY";

fn script() -> String {
    util::tests_dir()
        .join("servers/misbehave.py")
        .display()
        .to_string()
}

fn set_canary() {
    // Exported before `main` (tests/tests/env.rs).
    assert_eq!(crate::env::value(CANARY_VAR), CANARY);
}

/// `server` as server `bad`, checked as a config's server is.
fn server(server: ServerBuilder) -> mcpbind::ServerConfig {
    let mut config = Config::new().server("bad", server).unwrap();
    config.servers.remove("bad").unwrap()
}

/// misbehave.py in `mode`, with what `extra` adds to it.
fn stdio_server(
    mode: &str,
    extra: impl FnOnce(ServerBuilder) -> ServerBuilder,
) -> mcpbind::ServerConfig {
    server(extra(
        ServerConfig::stdio("python3").args([script(), mode.into()]),
    ))
}

/// An HTTP misbehave server, killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_server(mode: &str, arg: &str) -> HttpServer {
    let mut command = Command::new("python3");
    command.args([&script(), "--http", mode, arg]);
    let (child, url) = util::start_listening(command);
    HttpServer { child, url }
}

/// Display, `{:#}`-style chain and Debug of an error, to search for secrets.
fn all_text(err: &Error) -> String {
    let mut text = format!("{err}\n{err:?}\n");
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(&format!("{cause}\n{cause:?}\n"));
        source = cause.source();
    }
    text
}

fn assert_no_canary(text: &str) {
    assert!(!text.contains(CANARY), "the canary secret leaked:\n{text}");
}

async fn connect_err(config: mcpbind::ServerConfig) -> Error {
    match Client::connect_server("bad", config).await {
        Ok(_) => panic!("connected to a server that should fail"),
        Err(e) => e,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_urls_and_commands_are_redacted() {
    set_canary();
    // Port 9 (discard) refuses connections: reqwest's error names the URL.
    let cases = [
        (
            ServerConfig::http("http://127.0.0.1:9/mcp?api_key=${MCPBIND_MISBEHAVE_CANARY}"),
            "api_key=***",
        ),
        (
            ServerConfig::http("http://user:${MCPBIND_MISBEHAVE_CANARY}@127.0.0.1:9/mcp"),
            "user:***@",
        ),
        (
            ServerConfig::sse("http://127.0.0.1:9/sse?key=${MCPBIND_MISBEHAVE_CANARY}"),
            "key=***",
        ),
        (
            ServerConfig::stdio("/nonexistent/${MCPBIND_MISBEHAVE_CANARY}/server"),
            "/nonexistent/***/server",
        ),
    ];
    for (builder, shown) in cases {
        let err = connect_err(server(builder.clone())).await;
        let text = all_text(&err);
        assert_no_canary(&text);
        assert!(text.contains(shown), "{builder:?}: {text}");
    }
    // A secret in args, env and headers: the errors don't show it either.
    let secret = format!("${{{CANARY_VAR}}}");
    let config = stdio_server("stderr-flood", |s| {
        s.arg(format!("--token={secret}")).env("TOKEN", &secret)
    });
    assert_no_canary(&all_text(&connect_err(config).await));
    let http = http_server("status", "500:initialize");
    let config =
        server(ServerConfig::http(format!("{}?k={secret}", http.url)).header("X-Api-Key", &secret));
    assert!(!format!("{config:?}").contains(CANARY));
    assert_no_canary(&all_text(&connect_err(config).await));
}

#[test]
fn cli_errors_redact_secrets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        "[servers.remote]\nurl = \"http://127.0.0.1:9/mcp?api_key=${MCPBIND_MISBEHAVE_CANARY}\"\nconnect_timeout = 20\n",
    )
    .unwrap();
    for args in [&["lock"][..], &["call", "remote", "echo"]] {
        let out = mcpbind_env(dir.path(), args, &[(CANARY_VAR, CANARY)]);
        assert_eq!(out.code, Some(1), "{out:?}");
        assert!(out.stderr.contains("api_key=***"), "{out:?}");
        assert_no_canary(&format!("{}{}", out.stdout, out.stderr));
    }
}

/// The headers the other origin received, one JSON line per request.
fn received(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_origin_redirect_is_refused() {
    set_canary();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("other-origin.log");
    let http = http_server("redirect", &log.display().to_string());
    let config = server(
        ServerConfig::http(&http.url)
            .header("X-Api-Key", format!("${{{CANARY_VAR}}}"))
            .header("Authorization", format!("Bearer ${{{CANARY_VAR}}}")),
    );
    let err = connect_err(config).await;
    assert!(matches!(err, Error::Refused { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("refused a redirect"), "{text}");
    // Both origins are named: the configured port and the other one.
    let port = http
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp");
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert_eq!(text.matches("http://127.0.0.1:").count(), 2, "{text}");
    assert_eq!(received(&log), "", "the other origin got a request");
    assert_no_canary(&all_text(&err));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_origin_sse_endpoint_is_refused() {
    set_canary();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("other-origin.log");
    let sse = http_server("sse-cross", &log.display().to_string());
    let config = server(
        ServerConfig::sse(&sse.url).header("Authorization", format!("Bearer ${{{CANARY_VAR}}}")),
    );
    let err = connect_err(config).await;
    assert!(matches!(err, Error::Refused { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("endpoint on another origin"), "{text}");
    assert_eq!(text.matches("http://127.0.0.1:").count(), 2, "{text}");
    assert_eq!(received(&log), "", "the other origin got a request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_sse_event_is_bounded() {
    let sse = http_server("sse-endless", "");
    let config = server(ServerConfig::sse(&sse.url).max_response_bytes(1048576));
    let err = connect_err(config).await;
    assert!(
        matches!(err, Error::TooLarge { limit: 1048576, .. }),
        "{err:?}"
    );
    assert!(err.help().unwrap().contains("max_response_bytes"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_stderr_line_is_bounded() {
    // 4 MiB of stderr without a newline, then `END`, then exit 3.
    let err = connect_err(stdio_server("stderr-flood", |s| s)).await;
    let Error::Connect {
        stderr: Some(tail), ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert!(tail.ends_with("END"), "{}", &tail[tail.len() - 20..]);
    assert!(tail.len() <= 8 * 1024, "{}", tail.len());
    assert!(err.to_string().contains("exit status: 3"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_over_max_response_bytes_fails_at_once() {
    let config = stdio_server("tools", |s| {
        s.max_response_bytes(1048576)
            .timeout(Duration::from_secs(60))
    });
    let client = Client::connect_server("bad", config).await.unwrap();
    let big = serde_json::json!({"bytes": 3 << 20});
    let err = client
        .call_raw(
            "big",
            big.as_object().unwrap().clone(),
            &CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { limit: 1048576, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("1048576 bytes"), "{err}");
    assert!(err.help().unwrap().contains("`max_response_bytes`"));
    // The next call reconnects.
    let echo = serde_json::json!({"message": "again"});
    let result = client
        .call_raw(
            "echo",
            echo.as_object().unwrap().clone(),
            &CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_event_over_max_response_bytes_fails_at_once() {
    let http = http_server("status", "sse:tools/call");
    let config = server(
        ServerConfig::http(&http.url)
            .max_response_bytes(1048576)
            .timeout(Duration::from_secs(60)),
    );
    let client = Client::connect_server("bad", config).await.unwrap();
    let small = serde_json::json!({"bytes": 10});
    let result = client
        .call_raw(
            "big",
            small.as_object().unwrap().clone(),
            &CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "x".repeat(10));
    let big = serde_json::json!({"bytes": 3 << 20});
    let err = client
        .call_raw(
            "big",
            big.as_object().unwrap().clone(),
            &CallOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::TooLarge { limit: 1048576, .. }),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_over_rmcp_line_limit_is_read() {
    // rmcp drops lines over 16 MiB; the default max_response_bytes is larger.
    let client = Client::connect_server("bad", stdio_server("tools", |s| s))
        .await
        .unwrap();
    let bytes = 17 << 20;
    let big = serde_json::json!({ "bytes": bytes });
    let result = client
        .call_raw(
            "big",
            big.as_object().unwrap().clone(),
            &CallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text.len(), bytes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_errors_say_the_status() {
    let cases = [
        ("401:tools/call", "HTTP 401 Unauthorized", Some(401)),
        ("403:tools/call", "HTTP 403 Forbidden", Some(403)),
        ("404:tools/call", "HTTP 404 Not Found", Some(404)),
        (
            "500:tools/call",
            "HTTP 500 Internal Server Error",
            Some(500),
        ),
        ("html:tools/call", "`text/html` body", None),
        ("401:initialize", "HTTP 401 Unauthorized", Some(401)),
        (
            "500:tools/list",
            "HTTP 500 Internal Server Error",
            Some(500),
        ),
    ];
    for (mode, answer, code) in cases {
        let http = http_server("status", mode);
        let config = server(ServerConfig::http(&http.url).timeout(Duration::from_secs(20)));
        let method = mode.split_once(':').unwrap().1;
        let err = match Client::connect_server("bad", config).await {
            Err(e) => e,
            Ok(client) if method == "tools/list" => client.list_tools_raw().await.unwrap_err(),
            Ok(client) => {
                let args = serde_json::json!({"message": "hi"});
                client
                    .call_raw(
                        "echo",
                        args.as_object().unwrap().clone(),
                        &CallOptions::default(),
                    )
                    .await
                    .unwrap_err()
            }
        };
        let Error::Http { status, .. } = &err else {
            panic!("{mode}: {err:?}");
        };
        assert_eq!(*status, code, "{mode}");
        let text = err.to_string();
        assert!(text.contains(answer), "{mode}: {text}");
        assert!(text.contains(&format!("`{method}")), "{mode}: {text}");
        let help = err.help().unwrap_or_default();
        assert_eq!(
            help.contains("credentials"),
            matches!(code, Some(401 | 403)),
            "{mode}: {help}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_cwd_is_named() {
    let config = stdio_server("tools", |s| s.cwd("/nonexistent/mcpbind-cwd"));
    let err = connect_err(config).await;
    assert!(matches!(err, Error::Cwd { .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("working directory /nonexistent/mcpbind-cwd does not exist"),
        "{err}"
    );
}

/// `allow_commands`: a command not on the list is refused before anything
/// runs (the script would leave a file behind), with the list in the error;
/// one on it runs. A `${VAR}` in a refused command is not shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_outside_allow_commands_never_run() {
    set_canary();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let allowing = |allow: &[&str]| {
        let bad = ServerConfig::stdio("sh")
            .arg("-c")
            .arg(format!(
                "touch {}; exec python3 {} tools",
                marker.display(),
                script()
            ))
            .allow_commands(allow.iter().copied());
        let secret = ServerConfig::stdio(format!("/tmp/${{{CANARY_VAR}}}/npx"))
            .allow_commands(allow.iter().copied());
        Config::new()
            .server("bad", bad)
            .and_then(|c| c.server("secret", secret))
            .unwrap()
    };
    let config = allowing(&["python3", "/usr/bin/env"]);
    let err = connect_err(config.servers["bad"].clone()).await;
    assert!(matches!(err, Error::CommandNotAllowed { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        r#"server `bad`: command `sh` is not allowed (allow_commands = ["python3", "/usr/bin/env"])"#
    );
    assert!(!marker.exists(), "the refused command ran");
    let err = connect_err(config.servers["secret"].clone()).await;
    assert!(matches!(err, Error::CommandNotAllowed { .. }), "{err:?}");
    assert!(!all_text(&err).contains(CANARY), "{err:?}");

    let config = allowing(&["sh"]);
    Client::connect_server("bad", config.servers["bad"].clone())
        .await
        .unwrap();
    assert!(marker.exists());
    assert_eq!(
        Config::from_toml_str("allow_commands = [\"\"]").unwrap_err(),
        mcpbind::ConfigParseError::EmptyAllowedCommand {
            command: String::new()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_names_the_method() {
    let client = Client::connect_server(
        "bad",
        stdio_server("slow-list", |s| s.timeout(Duration::from_millis(300))),
    )
    .await
    .unwrap();
    let err = client.list_tools_raw().await.unwrap_err();
    let Error::Timeout { method, tool, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!((method.as_str(), tool), ("tools/list", &None));
    assert_eq!(
        err.to_string(),
        "request `tools/list` to server `bad` timed out after 300ms"
    );
}

fn lock_dir(mode: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.bad]\ncommand = \"python3\"\nargs = [{}, {}]\ntimeout = 30\n",
            util::toml_str(&script()),
            util::toml_str(mode)
        ),
    )
    .unwrap();
    dir
}

#[test]
fn lock_skips_malformed_tools_and_locks_the_rest() {
    let dir = lock_dir("bad-tools");
    let out = mcpbind_env(dir.path(), &["lock"], &[]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stderr.contains(
            "warning: server `bad`: skipped tool #1 in tools/list: `name` is the number 42, not a string"
        ),
        "{out:?}"
    );
    assert!(
        out.stderr.contains(
            "warning: server `bad`: skipped tool `no_schema` (#2 in tools/list): has no `inputSchema`"
        ),
        "{out:?}"
    );
    assert!(out.stderr.contains("Locked bad: 2 tools"), "{out:?}");
    let lock = std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap();
    assert!(lock.contains("\"also_good\""), "{lock}");
    assert!(!lock.contains("no_schema"), "{lock}");
}

#[test]
fn lock_of_a_too_deep_schema_fails_at_once() {
    let dir = lock_dir("deep-schema");
    let out = mcpbind_env(dir.path(), &["lock"], &[]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("server `bad` sent an invalid `tools/list` response"),
        "{out:?}"
    );
    assert!(out.stderr.contains("deeper than 128 levels"), "{out:?}");
    assert!(!out.stderr.contains("timed out"), "{out:?}");
}

#[test]
fn generate_writes_only_regular_files_it_generated() {
    let dir = tempfile::tempdir().unwrap();
    let lockfile = dir.path().join("mcpbind.lock");
    std::fs::copy(util::tests_dir().join("mcpbind.lock"), &lockfile).unwrap();
    let generate = |out: &Path| {
        let out = out.display().to_string();
        mcpbind_env(dir.path(), &["generate", "demo", "--out", &out], &[])
    };
    let refused = |out: PathBuf, why: &str| {
        let result = generate(&out);
        assert_eq!(result.code, Some(1), "{out:?}: {result:?}");
        assert!(result.stderr.contains(why), "{out:?}: {result:?}");
    };
    refused("/dev/zero".into(), "not a regular file");
    let fifo = dir.path().join("fifo.rs");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    refused(fifo, "not a regular file");
    refused(lockfile.clone(), "is the lockfile");
    let foreign = dir.path().join("hand_written.rs");
    std::fs::write(&foreign, "fn main() {}\n").unwrap();
    refused(foreign.clone(), "not generated by mcpbind");
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "fn main() {}\n");
    // A file it generated is rewritten (here: left alone, unchanged).
    let ours = dir.path().join("bindings.rs");
    assert_eq!(generate(&ours).code, Some(0));
    let first = std::fs::read_to_string(&ours).unwrap();
    assert_eq!(generate(&ours).code, Some(0));
    assert_eq!(std::fs::read_to_string(&ours).unwrap(), first);
}
