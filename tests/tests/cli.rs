//! The CLI as a real process: clear errors, exit codes, no panics.

use crate::util::project::{break_add, demo_project};
use crate::util::{mcpbind, mcpbind_env, Output};

/// `mcpbind lock` with `config`, in a directory of its own.
fn lock_with(config: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    crate::util::project::lock_with(dir.path(), config)
}

#[test]
fn bad_config_names_file_line_and_column() {
    let out = lock_with("[servers.demo]\ncommand = \"x\"\ncomand = \"y\"\n");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: failed to load the server config mcpbind.toml"),
        "{out:?}"
    );
    assert!(out.stderr.contains("line 3, column 1"), "{out:?}");
    assert!(out.stderr.contains("unknown field `comand`"), "{out:?}");

    let out = lock_with("[servers.Demo]\ncommand = \"x\"\n");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("invalid server name `Demo`"), "{out:?}");

    let out = lock_with("[servers.demo]\nargs = [\"x\"]\n");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("missing `command`"), "{out:?}");
}

#[test]
fn unreachable_server_fails_with_exit_1() {
    // Port 9 (discard) on loopback: nothing listens there.
    let out = lock_with("[servers.remote]\nurl = \"http://127.0.0.1:9/mcp\"\n");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains("error: failed to lock server `remote`"),
        "{out:?}"
    );
    assert!(
        out.stderr.contains("failed to connect to server `remote`"),
        "{out:?}"
    );
    assert!(out.stderr.contains("127.0.0.1:9"), "{out:?}");
}

#[test]
fn server_that_exits_at_start_shows_its_stderr() {
    let out = lock_with(
        "[servers.broken]\ncommand = \"sh\"\nargs = [\"-c\", \"echo 'cannot open database' >&2; exit 3\"]\n",
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains("failed to connect to server `broken`"),
        "{out:?}"
    );
    assert!(out.stderr.contains("exit status: 3"), "{out:?}");
    assert!(out.stderr.contains("cannot open database"), "{out:?}");
}

#[test]
fn missing_program_is_named() {
    let out = lock_with("[servers.ghost]\ncommand = \"mcpbind-no-such-program\"\n");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains("cannot run `mcpbind-no-such-program`"),
        "{out:?}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpbind(dir.path(), &["lokc"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    let out = mcpbind(dir.path(), &["generate", "--no-such-flag"]);
    assert_eq!(out.code, Some(2), "{out:?}");
}

#[test]
fn missing_lockfile_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpbind(dir.path(), &["list"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: mcpbind.lock not found\nhelp: run `mcpbind lock` to snapshot the servers of mcpbind.toml, and commit mcpbind.lock\n"
    );
}

/// The `help:` line comes from the library's errors however deep in the
/// chain they are: here a config error, under the runtime's error, under
/// codegen's, under the CLI's own context; and the message holds no help.
#[test]
fn help_is_found_through_the_chain_of_a_library_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        "[servers.api]\ntransport = \"streamable-http\"\nurl = \"http://127.0.0.1:9/mcp\"\nheaders = { Authorization = \"Bearer ${MCPBIND_TEST_UNSET_TOKEN}\" }\n",
    )
    .unwrap();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: failed to lock server `api`: server `api`: environment variable `MCPBIND_TEST_UNSET_TOKEN` is not set (referenced as `${MCPBIND_TEST_UNSET_TOKEN}` in the config)\nhelp: export `MCPBIND_TEST_UNSET_TOKEN`, or write `${MCPBIND_TEST_UNSET_TOKEN:-default}`\n"
    );
}

/// A workspace whose lockfile is at its root: commands run in a member
/// crate find it there, and `MCPBIND_LOCKFILE` overrides the lookup.
#[test]
fn lockfile_is_found_at_the_workspace_root_or_by_variable() {
    let root = tempfile::tempdir().unwrap();
    let member = root.path().join("crates/app");
    std::fs::create_dir_all(&member).unwrap();
    std::fs::write(
        root.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/app\"]\n",
    )
    .unwrap();
    std::fs::write(member.join("Cargo.toml"), "[package]\nname = \"app\"\n").unwrap();
    std::fs::copy(
        crate::util::tests_dir().join("mcpbind.lock"),
        root.path().join("mcpbind.lock"),
    )
    .unwrap();

    let out = mcpbind(&member, &["list", "demo"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.starts_with("demo (mcpbind-demo 0.1.0"),
        "{out:?}"
    );

    // The variable names another file (relative to the current directory).
    std::fs::create_dir(member.join("ci")).unwrap();
    let out = mcpbind_env(&member, &["list"], &[("MCPBIND_LOCKFILE", "ci/other.lock")]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: ci/other.lock not found\nhelp: MCPBIND_LOCKFILE is set to `ci/other.lock`: run `mcpbind lock` to create that file, or unset MCPBIND_LOCKFILE\n"
    );
    std::fs::copy(
        root.path().join("mcpbind.lock"),
        member.join("ci/other.lock"),
    )
    .unwrap();
    let out = mcpbind_env(
        &member,
        &["list", "time"],
        &[("MCPBIND_LOCKFILE", "ci/other.lock")],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.starts_with("time ("), "{out:?}");
}

/// A hand-edited lockfile listing a tool twice (both digests valid) is
/// refused with its file and line, the server and the tool, and the fix.
#[test]
fn tool_listed_twice_is_refused_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(crate::util::tests_dir().join("mcpbind.lock")).unwrap();
    let mut lock: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tools = lock["servers"]["time"]["tools"].as_array_mut().unwrap();
    tools.push(tools[0].clone());
    let text = serde_json::to_string_pretty(&lock).unwrap();
    std::fs::write(dir.path().join("mcpbind.lock"), &text).unwrap();
    let tool = lock["servers"]["time"]["tools"][0]["name"]
        .as_str()
        .unwrap();
    let sha = lock["servers"]["time"]["tools"][0]["sha256"]
        .as_str()
        .unwrap();
    let (at, _) = text.match_indices(sha).nth(1).unwrap();
    let line = text[..at].matches('\n').count() + 1;

    let out = mcpbind(dir.path(), &["generate"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        format!("error: mcpbind.lock:{line}: server `time` lists tool `{tool}` twice\nhelp: remove one of the two entries, or run `mcpbind lock` to rewrite mcpbind.lock\n")
    );
}

/// `mcpbind generate` follows the config's `annotations`: `--config`, else
/// `mcpbind.toml` here when there is one.
#[test]
fn generate_follows_the_configs_annotations() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        crate::util::tests_dir().join("mcpbind.lock"),
        dir.path().join("mcpbind.lock"),
    )
    .unwrap();
    let enforce = "[servers.demo]\ncommand = \"x\"\nannotations = \"enforce\"\n";
    std::fs::write(dir.path().join("enforce.toml"), enforce).unwrap();
    let approved = "approved: ::mcpbind::Approved<tools::DeleteItem>";

    let out = mcpbind(dir.path(), &["generate", "demo"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(!out.stdout.contains("Approved<"), "no config: advise");
    let out = mcpbind(
        dir.path(),
        &["generate", "--config", "enforce.toml", "demo"],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains(approved), "{out:?}");
    assert!(!out.stdout.contains("Approved<tools::Add>"), "read-only");

    std::fs::write(dir.path().join("mcpbind.toml"), enforce).unwrap();
    let out = mcpbind(dir.path(), &["generate", "demo"]);
    assert!(out.stdout.contains(approved), "the default config: {out:?}");
    let out = mcpbind(dir.path(), &["generate", "--no-config", "demo"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(!out.stdout.contains("Approved<"), "--no-config: {out:?}");
    assert!(out.stdout.contains("Annotations::Advise"), "{out:?}");

    // The config beside the lockfile, not the one in the current
    // directory: `--lockfile sub/mcpbind.lock` reads sub/mcpbind.toml,
    // and so does `MCPBIND_LOCKFILE`.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::fs::copy(dir.path().join("mcpbind.lock"), sub.join("mcpbind.lock")).unwrap();
    let advise = "[servers.demo]\ncommand = \"x\"\n";
    std::fs::write(sub.join("mcpbind.toml"), advise).unwrap();
    let out = mcpbind(
        dir.path(),
        &["generate", "--lockfile", "sub/mcpbind.lock", "demo"],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(!out.stdout.contains("Approved<"), "sub's config: {out:?}");
    std::fs::write(sub.join("mcpbind.toml"), enforce).unwrap();
    std::fs::write(dir.path().join("mcpbind.toml"), advise).unwrap();
    let out = mcpbind(
        dir.path(),
        &["generate", "--lockfile", "sub/mcpbind.lock", "demo"],
    );
    assert!(out.stdout.contains(approved), "sub's config: {out:?}");
    let out = crate::util::mcpbind_env(
        dir.path(),
        &["generate", "demo"],
        &[("MCPBIND_LOCKFILE", "sub/mcpbind.lock")],
    );
    assert!(out.stdout.contains(approved), "MCPBIND_LOCKFILE: {out:?}");
    std::fs::write(dir.path().join("mcpbind.toml"), enforce).unwrap();

    let bad = "[servers.demo]\ncommand = \"x\"\nannotations = \"strict\"\n";
    std::fs::write(dir.path().join("mcpbind.toml"), bad).unwrap();
    let out = mcpbind(dir.path(), &["generate", "demo"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: failed to load the server config mcpbind.toml"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("unknown annotations `strict`, expected one of `advise`, `enforce`"),
        "{out:?}"
    );
    let out = mcpbind(dir.path(), &["generate", "--config", "missing.toml"]);
    assert_eq!(out.code, Some(1), "{out:?}");
}

#[test]
fn list_is_offline_and_names_tools() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        crate::util::tests_dir().join("mcpbind.lock"),
        dir.path().join("mcpbind.lock"),
    )
    .unwrap();
    let out = mcpbind(dir.path(), &["list", "demo"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.starts_with("demo (mcpbind-demo 0.1.0"),
        "{out:?}"
    );
    assert!(out.stdout.contains("\n  add  "), "{out:?}");
    assert!(!out.stdout.contains("everything"), "{out:?}");
}

#[test]
fn check_and_diff_report_drift_with_the_fix() {
    let dir = demo_project();
    let out = mcpbind(dir.path(), &["check"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("Ok demo: 12 tools match"), "{out:?}");

    // The locked `add` says its first parameter is `augend`; the live
    // server says `a`.
    break_add(dir.path());

    let out = mcpbind(dir.path(), &["check"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains("error: server `demo` in mcpbind.lock is out of date (tool `add`: input schema changed)\nhelp: run `mcpbind lock demo` and commit mcpbind.lock"),
        "{out:?}"
    );
    // The classified report, on stdout.
    let out = mcpbind(dir.path(), &["diff", "demo"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stdout
            .contains("  breaking:\n    tool `add`: required param `a` added\n    tool `add`: param `augend` removed\n"),
        "{out:?}"
    );
}

#[test]
fn call_prints_results_and_fails_on_tool_errors() {
    let dir = demo_project();
    let out = mcpbind(dir.path(), &["call", "demo", "add", r#"{"a": 1, "b": 2}"#]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("\"sum\": 3"), "{out:?}");
    let out = mcpbind(
        dir.path(),
        &["call", "demo", "fail", r#"{"message": "no"}"#],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(out.stdout.trim(), "no", "{out:?}");
    let out = mcpbind(dir.path(), &["call", "demo", "add", "[1]"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("must be a JSON object"), "{out:?}");
}

/// A server that starts but never answers the handshake: a clear error
/// after `connect_timeout`, not a hang. (`sleep` reads no request and
/// answers nothing.)
#[test]
fn silent_server_times_out_at_connect() {
    let started = std::time::Instant::now();
    let out =
        lock_with("[servers.wedged]\ncommand = \"sleep\"\nargs = [\"30\"]\nconnect_timeout = 1\n");
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains(
            "failed to connect to server `wedged`: no answer to the MCP handshake within 1s"
        ),
        "{out:?}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

/// The `mcpServers` JSON that MCP hosts keep works as a config as is; the
/// lockfile goes beside it.
#[test]
fn locks_from_an_mcp_servers_json_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".mcp.json"),
        serde_json::json!({"mcpServers": {"demo": {
            "command": crate::util::bin("mcpbind-demo-server"),
            "args": [],
            "env": {},
        }}})
        .to_string(),
    )
    .unwrap();
    let out = mcpbind(dir.path(), &["lock", "--config", ".mcp.json"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let lock = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
    assert_eq!(lock.servers["demo"].tools.len(), 12);
}

/// A 2026-07-28 server that rejects `initialize` is reached through
/// `server/discover`, quickly (no fallback timer).
#[test]
fn discover_only_server_is_locked_and_called() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.modern]\ncommand = {}\n",
            crate::util::toml_str(env!("CARGO_BIN_EXE_discover_only"))
        ),
    )
    .unwrap();
    crate::util::bin("mcpbind"); // built before the clock starts
    let started = std::time::Instant::now();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    // A hang guard, not a speed test: rmcp's Auto lifecycle would wait 10 s here.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    let lock = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
    assert_eq!(lock.servers["modern"].protocol_version, "2026-07-28");
    assert_eq!(lock.servers["modern"].tools[0].name, "ping");
    let out = mcpbind(dir.path(), &["call", "modern", "ping"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout.trim(), "pong");
}

/// A call of a tool the server does not list fails with the server's
/// error, and help with the nearest listed name and the names listed.
#[test]
fn call_of_an_unlisted_tool_suggests_the_nearest() {
    let dir = demo_project();
    let out = mcpbind(dir.path(), &["call", "demo", "ad", r#"{"a": 1, "b": 2}"#]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("\nhelp: `demo` lists no tool `ad`; did you mean `add`?\nits tools: "),
        "{out:?}"
    );
    assert!(out.stderr.contains("draw_shape"), "{out:?}");
    // Nothing near: no guess.
    let out = mcpbind(dir.path(), &["call", "demo", "zzzzzzzz", "{}"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("help: `demo` lists no tool `zzzzzzzz`\nits tools: "),
        "{out:?}"
    );
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// `call` prints what a terminal can show: an image as one line saying
    /// what it is, a resource link by its URI and name, an embedded text
    /// resource as its text; `--json` prints the image's data (the real
    /// server-everything).
    #[test]
    fn call_shows_images_and_resources_as_lines() {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::util::stdio_config(dir.path());
        std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
        let image = ["call", "everything", "get-tiny-image", "{}"];
        let out = mcpbind(dir.path(), &image);
        assert_eq!(out.code, Some(0), "{out:?}");
        let line = (out.stdout.lines())
            .find(|l| l.starts_with("[image: image/png, "))
            .unwrap_or_else(|| panic!("{out:?}"));
        assert!(line.ends_with(" bytes; --json prints it]"), "{out:?}");
        // The PNG signature, base64: the data itself is not printed.
        assert!(!out.stdout.contains("iVBORw0KGgo"), "{out:?}");
        let out = mcpbind(
            dir.path(),
            &["call", "--json", "everything", "get-tiny-image", "{}"],
        );
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(out.stdout.contains("\"data\": \"iVBORw0KGgo"), "{out:?}");

        let links = [
            "call",
            "everything",
            "get-resource-links",
            r#"{"count": 2}"#,
        ];
        let out = mcpbind(dir.path(), &links);
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(
            out.stdout
                .contains("[resource link: demo://resource/dynamic/"),
            "{out:?}"
        );
        let text = r#"{"resourceType": "Text", "resourceId": 1}"#;
        let out = mcpbind(
            dir.path(),
            &["call", "everything", "get-resource-reference", text],
        );
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(
            out.stdout
                .contains("[resource: demo://resource/dynamic/text/1]\nResource 1: "),
            "{out:?}"
        );
    }
}
