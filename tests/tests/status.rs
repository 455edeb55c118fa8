//! The CLI's status never lies: a closed stdout keeps `check`'s and
//! `diff`'s status, a signal during a write leaves the old file and exits
//! 128 + n, a killed writer's temporary is removed by the next run (a live
//! writer's is kept), a BOM is no obstacle, a comparison that could not be
//! made never reads as "no changes", `generate --check` says whether the
//! checked-in bindings are current, and each error names its real cause.
//! Every case runs the `mcpbind` binary against real servers.
//!
//! A write is caught in the middle with the CLI's test-only pause point
//! (debug builds; `cli/src/signal.rs`): with `MCPBIND_TEST_PAUSE_IN_WRITE=1`
//! a write whose temporary is written, synced and locked prints
//! `mcpbind-test: paused before replacing PATH` and waits for a stopping
//! signal. The test reads that line before it signals: no timing.

use std::io::{BufRead as _, BufReader, Read as _};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::util::project::{
    break_add, demo_config, demo_project, durability_server, edit_lock, lock_with,
};
use crate::util::{self, limit_file_size, mcpbind, mcpbind_env, toml_str};

/// Drops the locked tool `add`: `lock` then has something to write.
fn drop_add(dir: &Path) {
    edit_lock(dir, |lock| {
        lock["servers"]["demo"]["tools"]
            .as_array_mut()
            .unwrap()
            .retain(|t| t["name"] != "add");
    });
}

/// The names in `dir` that are temporaries (`.NAME.PID-N.tmp`).
fn temporaries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.ends_with(".tmp"))
        .collect();
    names.sort();
    names
}

#[test]
fn check_and_diff_keep_their_status_when_stdout_is_closed() {
    let dir = demo_project();
    break_add(dir.path());
    let cases: [&[&str]; 4] = [
        &["check", "--deny", "breaking"],
        &["check", "--deny", "breaking", "--format", "json"],
        &["diff"],
        &["diff", "--format", "markdown"],
    ];
    for args in cases {
        // The reader is gone before mcpbind writes a byte: every write to
        // stdout fails with EPIPE (`| head -1` that has its line).
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = util::mcpbind_command()
            .current_dir(dir.path())
            .args(args)
            .stdout(writer)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `mcpbind ARGS` in `dir`, paused inside its write: returns the process
/// and the stderr it printed up to the pause.
// The child is returned (the caller waits for it, see `finish`), or waited
// for before the panic; the lint does not follow it out of the function.
#[allow(clippy::zombie_processes)]
fn paused_in_write(dir: &Path, args: &[&str]) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = util::mcpbind_command()
        .current_dir(dir)
        .args(args)
        .env("MCPBIND_TEST_PAUSE_IN_WRITE", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait().unwrap();
            panic!("{args:?} ended ({status}) before its write: {seen}");
        }
        seen.push_str(&line);
        if line.starts_with("mcpbind-test: paused before replacing") {
            return (child, stderr);
        }
    }
}

fn signal(child: &Child, signal: i32) {
    // SAFETY: signalling the child this test started.
    unsafe {
        libc::kill(child.id() as i32, signal);
    }
}

/// Waits for the child; its exit code and the rest of its stderr.
fn finish(mut child: Child, mut stderr: BufReader<std::process::ChildStderr>) -> (i32, String) {
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let code = status
        .code()
        .unwrap_or_else(|| panic!("mcpbind was killed ({status}): {rest}"));
    (code, rest)
}

#[test]
fn a_signal_during_a_write_abandons_it() {
    let cases = [
        (libc::SIGTERM, 143, "SIGTERM"),
        (libc::SIGINT, 130, "SIGINT"),
        (libc::SIGHUP, 129, "SIGHUP"),
    ];
    for (number, code, name) in cases {
        let dir = demo_project();
        drop_add(dir.path());
        let lock = dir.path().join("mcpbind.lock");
        let before = std::fs::read(&lock).unwrap();
        let (child, stderr) = paused_in_write(dir.path(), &["lock"]);
        assert_eq!(temporaries(dir.path()).len(), 1, "the write is under way");
        signal(&child, number);
        let (status, rest) = finish(child, stderr);
        assert_eq!(status, code, "{name}: {rest}");
        assert!(
            rest.contains(&format!("error: stopped by {name}")),
            "{rest}"
        );
        assert!(!rest.contains("Wrote"), "{rest}");
        assert_eq!(std::fs::read(&lock).unwrap(), before, "{name}");
        assert_eq!(temporaries(dir.path()), Vec::<String>::new(), "{name}");
    }

    // The same for bindings written with `generate --out`.
    let dir = demo_project();
    let out = mcpbind(dir.path(), &["generate", "--out", "mcp.rs"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let bindings = dir.path().join("mcp.rs");
    let before = std::fs::read(&bindings).unwrap();
    drop_add(dir.path());
    let (child, stderr) = paused_in_write(dir.path(), &["generate", "--out", "mcp.rs"]);
    signal(&child, libc::SIGTERM);
    let (status, rest) = finish(child, stderr);
    assert_eq!(status, 143, "{rest}");
    assert_eq!(std::fs::read(&bindings).unwrap(), before);
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_killed_writers_temporary_is_removed_by_the_next_run() {
    let dir = demo_project();
    drop_add(dir.path());
    let (child, stderr) = paused_in_write(dir.path(), &["lock"]);
    signal(&child, libc::SIGKILL);
    drop(stderr);
    let status = child.wait_with_output().unwrap().status;
    assert_eq!(status.code(), None, "killed: {status}");
    let left = temporaries(dir.path());
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(".mcpbind.lock."), "{left:?}");
    let size = std::fs::metadata(dir.path().join(&left[0])).unwrap().len();
    assert!(size > 1000, "a full-size temporary: {size} bytes");
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());

    // Bindings: a temporary of `generate --out`, removed by the next one.
    let out = mcpbind(dir.path(), &["generate", "--out", "mcp.rs"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    drop_add(dir.path());
    let (child, stderr) = paused_in_write(dir.path(), &["generate", "--out", "mcp.rs"]);
    signal(&child, libc::SIGKILL);
    drop(stderr);
    child.wait_with_output().unwrap();
    let left = temporaries(dir.path());
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(".mcp.rs."), "{left:?}");
    let out = mcpbind(dir.path(), &["generate", "--out", "mcp.rs"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_live_writers_temporary_is_kept() {
    let dir = demo_project();
    drop_add(dir.path());
    let (child, stderr) = paused_in_write(dir.path(), &["lock"]);
    let held = temporaries(dir.path());
    assert_eq!(held.len(), 1, "{held:?}");
    // Another run writes the same lockfile meanwhile.
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("Wrote mcpbind.lock"), "{out:?}");
    assert_eq!(temporaries(dir.path()), held, "the live writer's is kept");
    // The live writer, stopped, removes its own.
    signal(&child, libc::SIGTERM);
    let (status, rest) = finish(child, stderr);
    assert_eq!(status, 143, "{rest}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

#[test]
fn a_lockfile_that_starts_with_a_bom_is_read() {
    let dir = demo_project();
    let lock = dir.path().join("mcpbind.lock");
    let mut text = b"\xef\xbb\xbf".to_vec();
    text.extend(std::fs::read(&lock).unwrap());
    std::fs::write(&lock, &text).unwrap();
    let out = mcpbind(dir.path(), &["list"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.starts_with("demo ("), "{out:?}");
    let out = mcpbind(dir.path(), &["check"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let out = mcpbind(dir.path(), &["generate"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("pub fn add("), "{}", out.stderr);
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
}

/// Servers `ok` and `gone` (both listing tools from a file), locked; then
/// `gone`'s file is removed, so it can no longer be listed.
fn one_server_gone() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let tools = serde_json::json!([{"name": "t", "inputSchema": {"type": "object"}}]);
    for name in ["ok", "gone"] {
        std::fs::write(dir.path().join(format!("{name}.json")), tools.to_string()).unwrap();
    }
    let file = |name: &str| dir.path().join(name).display().to_string();
    let config = durability_server("ok", "tools", &file("ok.json"))
        + &durability_server("gone", "tools", &file("gone.json"));
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    std::fs::remove_file(dir.path().join("gone.json")).unwrap();
    dir
}

#[test]
fn a_comparison_that_could_not_be_made_never_reads_as_no_changes() {
    let dir = one_server_gone();
    // Only the unreachable server: nothing was compared, nothing printed.
    for command in ["diff", "check"] {
        for format in ["text", "json", "markdown"] {
            let out = mcpbind(dir.path(), &[command, "gone", "--format", format]);
            assert_eq!(out.code, Some(2), "{command} {format}: {out:?}");
            assert_eq!(out.stdout, "", "{command} {format}");
            assert!(
                out.stderr.contains("failed to check server `gone`"),
                "{out:?}"
            );
        }
    }
    // Both: the report covers `ok` and says `gone` was not compared.
    for command in ["diff", "check"] {
        let out = mcpbind(dir.path(), &[command, "--format", "json"]);
        assert_eq!(out.code, Some(2), "{command}: {out:?}");
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(json["unreachable"], serde_json::json!(["gone"]), "{json}");
        let servers: Vec<&str> = json["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["server"].as_str().unwrap())
            .collect();
        assert_eq!(servers, ["ok"], "{json}");

        let out = mcpbind(dir.path(), &[command, "--format", "markdown"]);
        assert_eq!(out.code, Some(2), "{command}: {out:?}");
        assert!(
            out.stdout
                .starts_with("### mcpbind: not compared: `gone` could not be reached\n\nThe servers compared are unchanged.\n"),
            "{out:?}"
        );
        assert!(!out.stdout.contains("mcpbind: no changes"), "{out:?}");

        let out = mcpbind(dir.path(), &[command]);
        assert_eq!(out.code, Some(2), "{command}: {out:?}");
        assert!(!out.stdout.contains("no changes"), "{out:?}");
    }
}

#[test]
fn generate_check_says_whether_the_bindings_are_current() {
    let dir = demo_project();
    let out = mcpbind(dir.path(), &["generate", "--check"]);
    assert_eq!(out.code, Some(2), "--check without --out: {out:?}");
    assert!(out.stderr.contains("--out"), "{out:?}");

    std::fs::create_dir(dir.path().join("src")).unwrap();
    let check = ["generate", "--check", "--out", "src/mcp.rs"];
    let out = mcpbind(dir.path(), &check);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: src/mcp.rs is not what mcpbind.lock generates: it does not exist\nhelp: run `mcpbind generate --out src/mcp.rs` and commit src/mcp.rs\n"
    );
    assert!(
        !dir.path().join("src/mcp.rs").exists(),
        "--check writes nothing"
    );

    let out = mcpbind(dir.path(), &["generate", "--out", "src/mcp.rs"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let out = mcpbind(dir.path(), &check);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stderr, "       Fresh src/mcp.rs matches mcpbind.lock\n");

    let bindings = std::fs::read(dir.path().join("src/mcp.rs")).unwrap();
    drop_add(dir.path());
    let out = mcpbind(dir.path(), &check);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.starts_with(
            "error: src/mcp.rs is not what mcpbind.lock generates: they differ from line "
        ),
        "{out:?}"
    );
    assert!(out.stderr.contains("\n  - "), "{out:?}");
    assert!(out.stderr.contains("\n  + "), "{out:?}");
    assert!(
        out.stderr
            .ends_with("\nhelp: run `mcpbind generate --out src/mcp.rs` and commit src/mcp.rs\n"),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read(dir.path().join("src/mcp.rs")).unwrap(),
        bindings,
        "--check writes nothing"
    );
}

/// `--check` of a `--out` that `generate --out` refuses to overwrite (a
/// hand-written module, a directory, a FIFO) says so, and does not advise
/// that command; nothing is written.
#[test]
fn generate_check_does_not_advise_what_generate_refuses() {
    let dir = demo_project();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::create_dir(dir.path().join("src/dir.rs")).unwrap();
    let fifo = Command::new("mkfifo")
        .arg(dir.path().join("src/fifo.rs"))
        .status()
        .unwrap();
    assert!(fifo.success());
    for (out, why) in [
        ("src/main.rs", "it was not generated by mcpbind (it does not start with `// This file is @generated by mcpbind`)"),
        ("src/dir.rs", "it cannot be read: "),
        ("src/fifo.rs", "it cannot be read: "),
    ] {
        let run = mcpbind(dir.path(), &["generate", "--check", "--out", out]);
        assert_eq!(run.code, Some(1), "{out}: {run:?}");
        assert!(
            run.stderr.starts_with(&format!(
                "error: {out} is not checked-in bindings: {why}"
            )),
            "{out}: {run:?}"
        );
        assert!(
            run.stderr.contains(&format!(
                "\nhelp: point `--out` at the file `mcpbind generate --out` wrote (its first line is `// This file is @generated by mcpbind…`); mcpbind does not overwrite {out}\n"
            )),
            "{out}: {run:?}"
        );
        assert!(!run.stderr.contains("run `mcpbind generate"), "{out}: {run:?}");
        // What the advice would have run refuses it indeed.
        let write = mcpbind(dir.path(), &["generate", "--out", out]);
        assert_eq!(write.code, Some(1), "{out}: {write:?}");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/main.rs")).unwrap(),
        "fn main() {}\n"
    );
}

#[test]
fn a_cwd_that_is_a_file_is_said_to_be_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("afile"), "").unwrap();
    let out = lock_with(dir.path(), &demo_config("cwd = \"afile\"\n"));
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("failed to start server `demo`: working directory "),
        "{out:?}"
    );
    assert!(out.stderr.contains("afile is not a directory\n"), "{out:?}");
    assert!(!out.stderr.contains("does not exist"), "{out:?}");
    assert!(!out.stderr.contains("create the directory"), "{out:?}");
}

#[test]
fn a_timeout_past_the_limit_names_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = lock_with(dir.path(), &demo_config("timeout = 1e300\n"));
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .contains("`timeout` must be less than 1000000000 seconds (about 31 years), not 1e300"),
        "{out:?}"
    );
}

#[test]
fn login_on_a_server_without_oauth_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mcpbind.toml"), demo_config("")).unwrap();
    let out = mcpbind(dir.path(), &["login", "demo"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: failed to log in to server `demo`: server `demo`: it has no `auth = \"oauth\"` (login is for Streamable HTTP servers with OAuth)\n"
    );
}

#[test]
fn a_missing_server_info_is_said_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[servers.bad]\ncommand = \"python3\"\nargs = [{}, \"no-server-info\"]\n",
        toml_str(
            &util::tests_dir()
                .join("servers/misbehave.py")
                .display()
                .to_string()
        )
    );
    let out = lock_with(dir.path(), &config);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: failed to lock server `bad`: failed to connect to server `bad`: the MCP handshake failed: its `initialize` result has no `serverInfo` (the server's name and version, which MCP requires)\n"
    );
}

#[test]
fn diff_to_a_file_that_is_no_lockfile_gives_advice_for_to() {
    let dir = demo_project();
    let out = mcpbind(
        dir.path(),
        &["diff", "--from", "mcpbind.lock", "--to", "mcpbind.toml"],
    );
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: cannot compare mcpbind.toml: mcpbind.toml is not an mcpbind lockfile\nhelp: `--from` and `--to` each name a lockfile"),
        "{out:?}"
    );
    assert!(!out.stderr.contains("--lockfile"), "{out:?}");
}

#[test]
fn a_credentials_dir_that_is_a_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        "[servers.sec]\nurl = \"http://127.0.0.1:9/mcp\"\nauth = \"oauth\"\n",
    )
    .unwrap();
    let file = dir.path().join("credentials");
    std::fs::write(&file, "").unwrap();
    let out = mcpbind_env(
        dir.path(),
        &["login", "sec", "--no-browser"],
        &[("MCPBIND_CREDENTIALS_DIR", file.to_str().unwrap())],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        format!(
            "error: failed to log in to server `sec`: server `sec`: cannot store tokens in {}: it is not a directory\n",
            file.display()
        )
    );
}

/// Storing the tokens fails (a file size limit stands in for a full disk:
/// the token file's write fails with EFBIG): the exchange itself worked.
#[test]
fn tokens_that_cannot_be_stored_are_not_a_failed_exchange() {
    let server = crate::oauth::OAuthServer::start(3600);
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.sec]\nurl = {}\nauth = \"oauth\"\n",
            toml_str(&server.url)
        ),
    )
    .unwrap();
    let mut command = util::mcpbind_command();
    command
        .current_dir(dir.path())
        .args(["login", "sec"])
        .env("MCPBIND_CREDENTIALS_DIR", store.path())
        .env("BROWSER", "curl --silent --location --output /dev/null");
    limit_file_size(&mut command, 16);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("server `sec`: the server issued tokens, but storing them failed: "),
        "{stderr}"
    );
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(!stderr.contains("token exchange failed"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(store.path()).unwrap().collect();
    assert!(left.is_empty(), "nothing left in the store: {left:?}");
}
