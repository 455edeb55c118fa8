//! Test harness: real servers, real processes, one temp dir per test.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use mcpbind::{Config, ServerBuilder, ServerConfig};

pub mod documents;
pub mod project;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
pub mod sandbox;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// `tests/`.
pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_owned()
}

/// `target/debug` (or wherever this test binary was built).
fn bin_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/debug/deps/tests-xxxx
    exe.parent().unwrap().parent().unwrap().to_owned()
}

/// The path of a workspace binary (`mcpbind` or the demo server), built
/// first if it is older than its sources.
///
/// `cargo test --workspace` builds both in its build phase (their
/// packages have integration tests), so this runs no cargo at all then: a
/// `cargo build` per test process would wait on cargo's package-cache lock
/// behind every other cargo the tests run (trybuild, the build tests).
pub fn bin(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let bins = ["mcpbind", "mcpbind-demo-server"].map(|b| bin_dir().join(b));
        if bins.iter().all(|b| newer_than_sources(b)) {
            return;
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .current_dir(root())
            .args([
                "build",
                "--quiet",
                "-p",
                "mcpbind-cli",
                "-p",
                "mcpbind-demo-server",
            ])
            .status()
            .expect("cargo build");
        assert!(
            status.success(),
            "building mcpbind and the demo server failed"
        );
    });
    bin_dir().join(name)
}

/// Whether `bin` exists and is newer than every file the two binaries are
/// built from (the manifests, the lockfile, and the crates' sources).
fn newer_than_sources(bin: &Path) -> bool {
    let Ok(built) = std::fs::metadata(bin).and_then(|m| m.modified()) else {
        return false;
    };
    let root = root();
    let mut stack: Vec<PathBuf> = [
        "Cargo.toml",
        "Cargo.lock",
        "cli/Cargo.toml",
        "cli/src",
        "client/Cargo.toml",
        "client/src",
        "codegen/Cargo.toml",
        "codegen/src",
        "mcpbind/Cargo.toml",
        "mcpbind/src",
        "examples/demo-server/Cargo.toml",
        "examples/demo-server/src",
    ]
    .iter()
    .map(|p| root.join(p))
    .collect();
    while let Some(path) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.flatten().map(|e| e.path()));
            }
        } else if meta.modified().is_ok_and(|m| m > built) {
            return false;
        }
    }
    true
}

/// Installs the pinned npm (and PyPI) servers, once per process (the script
/// itself is idempotent and takes a lock).
///
/// A test that gets here (through [`npm_server`], [`stdio_config`],
/// [`stdio_servers`], [`everything_http`] and the rest, or directly) has a
/// module named `installed` in its path, so that `--skip installed::`
/// leaves out every test that needs the install (CONTRIBUTING.md, the fast
/// loop). One that doesn't fails here, saying so. A script of
/// `tests/servers/` that needs nothing installed (Python's standard library
/// alone) is `tests_dir().join("servers/…")`.
pub fn servers_dir() -> PathBuf {
    let thread = std::thread::current();
    assert!(
        may_install(thread.name()),
        "test `{}` needs the servers tests/servers/install.sh installs: move it into a module named `installed` (CONTRIBUTING.md), which the fast loop's `--skip installed::` leaves out",
        thread.name().unwrap_or_default()
    );
    static INSTALLED: OnceLock<()> = OnceLock::new();
    let dir = tests_dir().join("servers");
    INSTALLED.get_or_init(|| {
        let status = Command::new("bash")
            .arg(dir.join("install.sh"))
            .status()
            .expect("run tests/servers/install.sh");
        assert!(status.success(), "tests/servers/install.sh failed");
    });
    dir
}

/// Whether a thread named `thread` may run the install: a test's thread
/// (libtest names it after the test's path) whose path has a module named
/// `installed`. A thread that is not a test's (a runtime's worker, one a
/// test spawned: no `::` in its name, or none) is not checked.
fn may_install(thread: Option<&str>) -> bool {
    match thread {
        Some(path) if path.contains("::") => path.split("::").any(|m| m == "installed"),
        _ => true,
    }
}

#[test]
fn only_tests_marked_installed_may_install() {
    assert!(may_install(Some(
        "toolbox::installed::dispatch::dispatches_concurrently"
    )));
    assert!(may_install(Some("installed::x")));
    assert!(!may_install(Some(
        "toolbox::definitions::gemini_declarations"
    )));
    assert!(!may_install(Some("escape::an_installed_npm_server_starts")));
    assert!(!may_install(Some("preinstalled::x")));
    assert!(may_install(Some("tokio-runtime-worker")));
    assert!(may_install(None));
    // This test's own thread is a test's, and not marked.
    assert!(!may_install(std::thread::current().name()));
}

/// The entry point of a pinned npm server (`@modelcontextprotocol/PACKAGE`).
pub fn npm_server(package: &str) -> String {
    servers_dir()
        .join("node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js")
        .display()
        .to_string()
}

/// `s` as a TOML string (quoted and escaped as TOML, not as Rust's
/// `{:?}`: a backslash, a control character or any Unicode comes out as
/// TOML reads it back), for a value put into TOML text a test writes.
pub fn toml_str(s: &str) -> String {
    toml::Value::String(s.into()).to_string()
}

#[test]
fn toml_str_reads_back_as_the_same_string() {
    for s in [
        "/usr/bin/node",
        r"C:\Program Files\node.exe",
        "a \"quoted\" 'word'",
        "tab\tbell\u{7}newline\n",
        "caf\u{e9} \u{1F980} \u{202E}",
    ] {
        let text = format!("value = {}", toml_str(s));
        let table: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(table["value"].as_str(), Some(s), "{text}");
    }
}

/// A config for the five test servers over stdio, with absolute paths.
/// `${MCPBIND_TEST_CANARY}` is passed to the demo server's environment.
pub fn stdio_config(dir: &Path) -> String {
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let path = |p: PathBuf| toml_str(&p.display().to_string());
    format!(
        r#"
[servers.demo]
command = {demo}
env = {{ DEMO_TOKEN = "${{MCPBIND_TEST_CANARY:-unset}}" }}

[servers.everything]
command = "node"
args = [{everything}, "stdio"]

[servers.filesystem]
command = "node"
args = [{filesystem}, {files}]

[servers.memory]
command = "node"
args = [{memory}]
env = {{ MEMORY_FILE_PATH = {memfile} }}

[servers.time]
command = {time}
args = ["--local-timezone", "UTC"]
"#,
        demo = path(bin("mcpbind-demo-server")),
        everything = toml_str(&npm_server("server-everything")),
        filesystem = toml_str(&npm_server("server-filesystem")),
        files = path(files),
        memory = toml_str(&npm_server("server-memory")),
        memfile = path(dir.join("memory.jsonl")),
        time = path(servers_dir().join(".venv/bin/mcp-server-time")),
    )
}

/// The servers of [`stdio_config`], built in code (for a test that needs
/// the `Config`, not the file).
pub fn stdio_servers(dir: &Path) -> Config {
    stdio_servers_with(dir, |_, server| server)
}

/// [`stdio_servers`], with what `extra` adds to each server (given its
/// name).
pub fn stdio_servers_with(
    dir: &Path,
    extra: impl Fn(&str, ServerBuilder) -> ServerBuilder,
) -> Config {
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let path = |p: PathBuf| p.display().to_string();
    let node = |script: &str| ServerConfig::stdio("node").arg(npm_server(script));
    [
        (
            "demo",
            ServerConfig::stdio(path(bin("mcpbind-demo-server")))
                .env("DEMO_TOKEN", "${MCPBIND_TEST_CANARY:-unset}"),
        ),
        ("everything", node("server-everything").arg("stdio")),
        ("filesystem", node("server-filesystem").arg(path(files))),
        (
            "memory",
            node("server-memory").env("MEMORY_FILE_PATH", path(dir.join("memory.jsonl"))),
        ),
        (
            "time",
            ServerConfig::stdio(path(servers_dir().join(".venv/bin/mcp-server-time")))
                .args(["--local-timezone", "UTC"]),
        ),
    ]
    .into_iter()
    .try_fold(Config::new(), |config, (name, server)| {
        config.server(name, extra(name, server))
    })
    .unwrap()
}

/// Tests of the helpers that run the install.
mod installed {
    use super::*;

    #[test]
    fn stdio_servers_are_stdio_config() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            stdio_servers(dir.path()),
            Config::from_toml_str(&stdio_config(dir.path())).unwrap()
        );
    }
}

/// A server process killed when dropped.
pub struct Running {
    child: Child,
    pub url: String,
}

impl Running {
    /// Starts `command`, an HTTP test server that prints `listening on URL`.
    pub fn start(command: Command) -> Running {
        let (child, url) = start_listening(command);
        Running { child, url }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the demo server over Streamable HTTP on a free loopback port.
pub fn demo_http() -> Running {
    let mut command = Command::new(bin("mcpbind-demo-server"));
    clean_env(&mut command).args(["--http", "127.0.0.1:0"]);
    let (child, url) = start_listening(command);
    Running { child, url }
}

/// Starts an HTTP test server that prints `listening on URL` as its first
/// line: the process, and the URL.
pub fn start_listening(mut command: Command) -> (std::process::Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line from {command:?}: {line:?}"))
        .to_owned();
    (child, url)
}

/// Starts server-everything over Streamable HTTP on a free loopback port.
pub fn everything_http() -> Running {
    everything_over("streamableHttp", "/mcp")
}

/// Starts server-everything over the legacy HTTP+SSE transport.
pub fn everything_sse() -> Running {
    everything_over("sse", "/sse")
}

fn everything_over(mode: &str, path: &str) -> Running {
    let dir = servers_dir();
    let mut child = clean_env(&mut Command::new("node"))
        .arg("--require")
        .arg(dir.join("listen-report.cjs"))
        .arg(npm_server("server-everything"))
        .arg(mode)
        .env("PORT", "0")
        .env("MCPBIND_LISTEN_HOST", "127.0.0.1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut port = None;
    let mut lines = stderr.lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(rest) = line.strip_prefix("MCPBIND_LISTENING ") {
            port = rest.split_whitespace().nth(1).map(str::to_owned);
            break;
        }
    }
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    let port = port.expect("server-everything did not report its port");
    Running {
        child,
        url: format!("http://127.0.0.1:{port}{path}"),
    }
}

/// Runs `mcpbind` with args in `dir`.
pub fn mcpbind(dir: &Path, args: &[&str]) -> Output {
    mcpbind_env(dir, args, &[])
}

pub fn mcpbind_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let out = mcpbind_command()
        .current_dir(dir)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The `cargo` running the tests, with the environment of [`clean_env`]
/// (no inherited `MCPBIND_LOCKFILE`, which would redirect build scripts'
/// lookups, colour switch or locale).
pub fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    clean_env(&mut command);
    command
}

/// `mcpbind`, with the environment of [`clean_env`]: what a test passes
/// with `.env` is all it gets of those variables.
pub fn mcpbind_command() -> Command {
    let mut command = Command::new(bin("mcpbind"));
    clean_env(&mut command);
    command
}

/// Calls `tool` with `arguments` (an object) as a model would, unchecked
/// (`Client::call_raw`): whether the server said it failed, and the text
/// of its content.
pub async fn call_text(
    client: &mcpbind::Client,
    tool: &str,
    arguments: serde_json::Value,
) -> (bool, String) {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let result = client
        .call_raw(tool, arguments, &mcpbind::CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e:#}"));
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    (result.is_error == Some(true), text)
}

/// [`call_text`] of a call that succeeds: its text.
pub async fn call_ok(client: &mcpbind::Client, tool: &str, arguments: serde_json::Value) -> String {
    let (failed, text) = call_text(client, tool, arguments).await;
    assert!(!failed, "{tool} failed: {text}");
    text
}

/// Limits the size of the files `command` writes to `bytes` (`ulimit
/// -f`).
#[cfg(unix)]
pub fn limit_file_size(command: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between
    // fork and exec.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Removes from a child's environment what the developer's shell (or CI)
/// may have set and the output depends on: mcpbind's own variables
/// (`MCPBIND_LOCKFILE` redirects every lookup), colour switches (`NO_COLOR`,
/// `CLICOLOR_FORCE`), log filters, and the locale (`LANG`, `LANGUAGE`,
/// `LC_*`: servers written in Node or Python format by it). The child runs
/// in the C locale, as on a bare CI machine.
pub fn clean_env(command: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        if is_inherited_noise(key) {
            command.env_remove(key);
        }
    }
    command
}

/// The variables [`clean_env`] removes.
fn is_inherited_noise(key: &str) -> bool {
    key.starts_with("MCPBIND_")
        || key.starts_with("LC_")
        || matches!(
            key,
            "LANG" | "LANGUAGE" | "NO_COLOR" | "CLICOLOR" | "CLICOLOR_FORCE" | "RUST_LOG"
        )
}

#[test]
fn clean_env_removes_what_output_depends_on() {
    for key in [
        "MCPBIND_LOCKFILE",
        "MCPBIND_REFRESH",
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "LANG",
        "LC_ALL",
        "LC_NUMERIC",
        "LANGUAGE",
    ] {
        assert!(is_inherited_noise(key), "{key}");
    }
    for key in ["PATH", "HOME", "CARGO", "TMPDIR"] {
        assert!(!is_inherited_noise(key), "{key}");
    }
}

#[derive(Debug)]
pub struct Output {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

// The one bless helper (`MCPBIND_BLESS=1` only), shared with the codegen
// and fidelity tests.
#[path = "../../codegen/tests/support/golden.rs"]
mod golden;

/// Compares `actual` with a committed file; `MCPBIND_BLESS=1` rewrites it.
pub use golden::assert_golden;

/// What is wrong with `value` under `schema`, as boon says it (empty when
/// valid): a reading of the schema that is not mcpbind's.
pub fn schema_errors(schema: &serde_json::Value, value: &serde_json::Value) -> Vec<String> {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("https://schema.invalid/s.json", schema.clone())
        .unwrap();
    let index = compiler
        .compile("https://schema.invalid/s.json", &mut schemas)
        .unwrap();
    match schemas.validate(value, index) {
        Ok(()) => Vec::new(),
        Err(error) => vec![format!("{error:#}")],
    }
}

/// Where the temp crates of the tests build: the workspace's target dir
/// (`cargo test` holds no lock while tests run; cargo's lock serialises the
/// nested runs), with the profile the workspace gives its dependencies (no
/// debug info; a temp crate's own manifest has no profile), so the
/// dependencies .ci/run's clippy and the other nested runs checked are
/// reused, not compiled once more per crate.
pub fn nested_target() -> [(&'static str, std::ffi::OsString); 2] {
    [
        ("CARGO_TARGET_DIR", root().join("target").into()),
        ("CARGO_PROFILE_DEV_DEBUG", "false".into()),
    ]
}
