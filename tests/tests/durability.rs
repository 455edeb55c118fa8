//! Nothing lost, nothing crashes: the lockfile survives a failed write, a
//! file that isn't a lockfile is never overwritten, special files are
//! refused unread, closed output and signals end mcpbind cleanly (its
//! servers with it). Every case runs the `mcpbind` binary against
//! `tests/servers/durability.py`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::project::durability_server;
use crate::util::{self, limit_file_size, mcpbind, mcpbind_env};

/// A project dir whose `mcpbind.toml` has one server `fake`
/// (`durability.py MODE ARG`).
fn project(mode: &str, arg: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_config(dir.path(), &[("fake", mode, arg)]);
    dir
}

/// An `mcpbind.toml` of `durability.py` servers: (name, mode, argument).
fn write_config(dir: &Path, servers: &[(&str, &str, &str)]) {
    let toml: String = servers
        .iter()
        .map(|(name, mode, arg)| durability_server(name, mode, arg))
        .collect();
    std::fs::write(dir.join("mcpbind.toml"), toml).unwrap();
}

/// `count` tools, each with a description of about 100 bytes.
fn write_tools(dir: &Path, count: usize) -> String {
    let tools: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            serde_json::json!({
                "name": format!("tool_{i:05}"),
                "description": format!("Tool number {i}: {}", "lorem ipsum ".repeat(8)),
                "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
            })
        })
        .collect();
    let path = dir.join("tools.json");
    std::fs::write(&path, serde_json::to_string(&tools).unwrap()).unwrap();
    path.display().to_string()
}

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A locked project: `fake` listing `count` tools from `tools.json`.
fn locked(count: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let tools = write_tools(dir.path(), count);
    write_config(dir.path(), &[("fake", "tools", &tools)]);
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    dir
}

#[test]
fn a_lock_that_cannot_be_written_whole_leaves_the_old_lockfile() {
    let dir = locked(2);
    let lock = dir.path().join("mcpbind.lock");
    let old = std::fs::read(&lock).unwrap();
    write_tools(dir.path(), 2_000);
    // `ulimit -f`: mcpbind may write no file past 64 KiB; the new lockfile
    // is about 400 KiB.
    let mut command = util::mcpbind_command();
    command.current_dir(dir.path()).arg("lock");
    limit_file_size(&mut command, 64 * 1024);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("failed to write") && stderr.contains("mcpbind.lock"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&lock).unwrap(),
        old,
        "the old lockfile changed"
    );
    assert_eq!(
        names_in(dir.path()),
        ["mcpbind.lock", "mcpbind.toml", "tools.json"],
        "a temporary file was left behind"
    );
    // Without the limit the same lock goes through.
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(std::fs::read_to_string(&lock)
        .unwrap()
        .contains("tool_01999"));
}

#[test]
fn lock_never_overwrites_a_file_that_is_not_a_lockfile() {
    let dir = project("tools", "unused.json");
    let config = std::fs::read_to_string(dir.path().join("mcpbind.toml")).unwrap();
    std::fs::write(dir.path().join("NOTES.md"), "# Notes\n").unwrap();
    std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    std::fs::write(dir.path().join("other.json"), "{\"a\": 1}\n").unwrap();
    std::os::unix::fs::symlink("other.json", dir.path().join("mcpbind.lock")).unwrap();
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 4] = [
        (&["lock", "--lockfile", "mcpbind.toml"], &[], "mcpbind.toml"),
        (&["lock", "--lockfile", "NOTES.md"], &[], "NOTES.md"),
        (
            &["lock"],
            &[("MCPBIND_LOCKFILE", "Cargo.toml")],
            "Cargo.toml",
        ),
        (&["lock"], &[], "mcpbind.lock"),
    ];
    for (args, env, file) in cases {
        let before: Vec<_> = ["mcpbind.toml", "NOTES.md", "Cargo.toml", "other.json"]
            .iter()
            .map(|f| std::fs::read(dir.path().join(f)).unwrap())
            .collect();
        let out = mcpbind_env(dir.path(), args, env);
        assert_eq!(out.code, Some(1), "{args:?}: {out:?}");
        assert!(
            out.stderr.starts_with(&format!(
                "error: refusing to overwrite {file}: {file} is not an mcpbind lockfile\nhelp: "
            )),
            "{args:?}: {out:?}"
        );
        let after: Vec<_> = ["mcpbind.toml", "NOTES.md", "Cargo.toml", "other.json"]
            .iter()
            .map(|f| std::fs::read(dir.path().join(f)).unwrap())
            .collect();
        assert_eq!(before, after, "{args:?} changed a file");
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mcpbind.toml")).unwrap(),
        config
    );
}

#[test]
fn lock_refuses_a_lockfile_it_cannot_read_and_keeps_what_it_did_not_relist() {
    let dir = tempfile::tempdir().unwrap();
    let tools = write_tools(dir.path(), 2);
    write_config(
        dir.path(),
        &[("a", "tools", &tools), ("b", "tools", &tools)],
    );
    assert_eq!(mcpbind(dir.path(), &["lock"]).code, Some(0));
    let lock = dir.path().join("mcpbind.lock");
    let good = std::fs::read_to_string(&lock).unwrap();

    // `b` is down: `a` is relocked, `b` keeps its entry, exit 1.
    let config = std::fs::read_to_string(dir.path().join("mcpbind.toml")).unwrap();
    let down = config.replace(
        "[servers.b]\ncommand = \"python3\"",
        "[servers.b]\ncommand = \"mcpbind-no-such-server\"",
    );
    assert_ne!(config, down);
    std::fs::write(dir.path().join("mcpbind.toml"), &down).unwrap();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("failed to lock server `b`"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), good);

    let cases = [
        (
            good.replace("\"lockfile_version\": 1", "\"lockfile_version\": 2"),
            "has lockfile_version 2, but this mcpbind reads version 1",
            "help: upgrade mcpbind",
        ),
        (
            good.replacen("  \"servers\"", "<<<<<<< HEAD\n  \"servers\"", 1)
                .replacen("\n}\n", "\n=======\n>>>>>>> theirs\n}\n", 1),
            "the lockfile has git conflict markers",
            "help: resolve the conflict",
        ),
        (
            good[..good.len() / 2].to_owned(),
            "invalid lockfile",
            "could not be listed, so their entries would be lost",
        ),
    ];
    for (text, error, help) in cases {
        std::fs::write(&lock, &text).unwrap();
        let out = mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(1), "{out:?}");
        assert!(out.stderr.contains(error), "{out:?}");
        assert!(out.stderr.contains(help), "{out:?}");
        assert_eq!(std::fs::read_to_string(&lock).unwrap(), text, "{error}");
    }
    // A truncated lockfile is an error for the offline commands too, and a
    // usage-class one (exit 2) for check and diff.
    for args in [&["check"][..], &["diff"]] {
        let out = mcpbind(dir.path(), args);
        assert_eq!(out.code, Some(2), "{args:?}: {out:?}");
        assert!(out.stderr.contains("invalid lockfile"), "{out:?}");
    }
}

#[test]
fn lock_in_a_workspace_member_writes_the_members_lockfile() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(
        root.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"app\"]\n",
    )
    .unwrap();
    std::fs::copy(
        util::tests_dir().join("mcpbind.lock"),
        root.path().join("mcpbind.lock"),
    )
    .unwrap();
    let root_lock = std::fs::read(root.path().join("mcpbind.lock")).unwrap();
    let member = root.path().join("app");
    std::fs::create_dir(&member).unwrap();
    std::fs::write(member.join("Cargo.toml"), "[package]\nname = \"app\"\n").unwrap();
    let tools = write_tools(&member, 2);
    write_config(&member, &[("fake", "tools", &tools)]);

    let out = mcpbind(&member, &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("Wrote mcpbind.lock"), "{out:?}");
    assert_eq!(
        std::fs::read(root.path().join("mcpbind.lock")).unwrap(),
        root_lock
    );
    let lock = std::fs::read_to_string(member.join("mcpbind.lock")).unwrap();
    assert!(lock.contains("\"fake\""), "{lock}");
}

#[test]
fn special_files_are_refused_before_reading() {
    let dir = locked(2);
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let fifo = fifo.display().to_string();
    let cases: [(&[&str], i32); 6] = [
        (&["lock", "--config", &fifo], 1),
        (&["lock", "--config", "/dev/zero"], 1),
        (&["list", "--lockfile", &fifo], 1),
        (&["generate", "--lockfile", "/dev/zero"], 1),
        (&["diff", "--from", &fifo, "--to", "mcpbind.lock"], 2),
        (&["diff", "--from", "/dev/zero", "--to", "mcpbind.lock"], 2),
    ];
    for (args, code) in cases {
        let out = mcpbind(dir.path(), args);
        assert_eq!(out.code, Some(code), "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("not a regular file"),
            "{args:?}: {out:?}"
        );
    }
}

#[test]
fn closed_or_full_output_never_panics() {
    let dir = locked(2_000);
    // stderr on a full disk: the lock still happens.
    std::fs::remove_file(dir.path().join("mcpbind.lock")).unwrap();
    let status = util::mcpbind_command()
        .current_dir(dir.path())
        .arg("lock")
        .stderr(std::fs::File::create("/dev/full").unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(dir.path().join("mcpbind.lock").is_file());
    // `| head -1`: the reader goes away after a line; exit 0, no panic.
    for args in [&["list"][..], &["generate"]] {
        let mut child = util::mcpbind_command()
            .current_dir(dir.path())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn pagination_that_never_ends_is_an_error() {
    let cases = [
        ("endless-pages", "`tools/list` did not end after 2000 pages"),
        (
            "repeat-cursor",
            "`tools/list` page 2 repeats the cursor of an earlier page",
        ),
    ];
    for (mode, error) in cases {
        let dir = project(mode, "");
        let out = mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(1), "{out:?}");
        assert!(out.stderr.contains(error), "{out:?}");
        assert!(!dir.path().join("mcpbind.lock").exists());
    }
}

/// SIGTERM, SIGINT or SIGHUP sent to mcpbind alone (not its group) while a
/// server hangs in `tools/list`: mcpbind exits 128 + the signal and the
/// server it started is gone with it, not left running under init.
#[test]
fn signals_stop_mcpbind_and_the_server_it_started() {
    // Orphans come to this process instead of init, so that it can tell a
    // killed server from one left running.
    // SAFETY: a plain prctl on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let cases = [
        ("lock", libc::SIGTERM, 143),
        ("lock", libc::SIGINT, 130),
        ("lock", libc::SIGHUP, 129),
        ("check", libc::SIGTERM, 143),
        ("diff", libc::SIGINT, 130),
    ];
    for (command, signal, code) in cases {
        let dir = locked(2);
        let pidfile = dir.path().join("server.pid");
        write_config(
            dir.path(),
            &[("fake", "hang", &pidfile.display().to_string())],
        );
        // The lock's filters match the config's (none): check and diff
        // get as far as listing.
        let mut child = util::mcpbind_command()
            .current_dir(dir.path())
            .arg(command)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let server = wait_for_pid(&pidfile, &mut child);
        // SAFETY: signalling the child this test started.
        unsafe {
            libc::kill(child.id() as i32, signal);
        }
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{command}: {stderr}");
        assert!(stderr.contains("error: stopped by SIG"), "{stderr}");
        assert_server_gone(server);
    }
}

/// The pid the hanging server wrote once it got `tools/list`.
fn wait_for_pid(pidfile: &Path, child: &mut std::process::Child) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(text) = std::fs::read_to_string(pidfile) {
            return text.trim().parse().unwrap();
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("mcpbind ended before the server was listed: {status}");
        }
        assert!(Instant::now() < deadline, "the server never got tools/list");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The server is dead: reaped by mcpbind, or a zombie handed to this
/// (subreaper) process. One still running after mcpbind exited would be an
/// orphan; it is killed, and the test fails.
fn assert_server_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut status = 0;
        // SAFETY: waiting on a pid that is ours to reap, or not ours.
        let waited = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if waited == pid || waited == -1 {
            return;
        }
        if Instant::now() > deadline {
            // SAFETY: killing the orphan this test made.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("the server (pid {pid}) was left running after mcpbind exited");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A project whose server `fake` lists `tools` (written to `tools.json`),
/// locked.
fn locked_with(tools: serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.json");
    std::fs::write(&path, tools.to_string()).unwrap();
    write_config(
        dir.path(),
        &[("fake", "tools", &path.display().to_string())],
    );
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    dir
}

#[test]
fn schemas_the_generator_cannot_type_are_errors_with_their_pointer() {
    let dir = locked_with(serde_json::json!([{"name": "me", "inputSchema": {"$ref": "#"}}]));
    let out = mcpbind(dir.path(), &["generate"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.starts_with(
        "error: server `fake`, tool `me`, at /inputSchema: the schema is only a `$ref` to itself, which defines no type\nhelp: "
    ), "{out:?}");
    assert!(!out.stderr.contains("panicked"), "{out:?}");

    // A chain of 1,000 definitions, which a server can send (it is flat).
    let mut defs = serde_json::Map::new();
    for i in 0..1000 {
        defs.insert(
            format!("d{i:04}"),
            serde_json::json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/d{:04}", i + 1)}}}),
        );
    }
    defs.insert("d1000".into(), serde_json::json!({"type": "string"}));
    let schema = serde_json::json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0000"}}, "$defs": defs});
    let dir = locked_with(serde_json::json!([{"name": "chain", "inputSchema": schema}]));
    let out = mcpbind(dir.path(), &["generate"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains(
        "tool `chain`, at /inputSchema/$defs/d0000: a `$ref` chain goes through more than 128 definitions"
    ), "{out:?}");
}

#[test]
fn servers_whose_modules_collide_are_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let tools = write_tools(dir.path(), 1);
    write_config(
        dir.path(),
        &[("fn", "tools", &tools), ("fn_", "tools", &tools)],
    );
    assert_eq!(mcpbind(dir.path(), &["lock"]).code, Some(0));
    let out = mcpbind(dir.path(), &["generate"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr
            .starts_with("error: servers `fn` and `fn_` would both be `pub mod fn_`\nhelp: "),
        "{out:?}"
    );
}

#[test]
fn list_escapes_what_a_server_sends() {
    let dir = locked_with(serde_json::json!([{
        "name": "evil\u{1b}[2J",
        "description": "Looks \u{202e}reversed\u{202c} and \u{1b}]0;title\u{7}",
        "inputSchema": {"type": "object"},
    }]));
    let out = mcpbind(dir.path(), &["list"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(!out.stdout.contains('\u{1b}'), "{out:?}");
    assert!(!out.stdout.contains('\u{202e}'), "{out:?}");
    assert!(out.stdout.contains("evil\\u{1b}[2J"), "{out:?}");
    assert!(out.stdout.contains("Looks \\u{202e}reversed"), "{out:?}");
}

#[test]
fn exit_codes_say_whether_a_comparison_was_made() {
    let dir = locked(2);
    for args in [&["check", "nosuch"][..], &["diff", "nosuch"]] {
        let out = mcpbind(dir.path(), args);
        assert_eq!(out.code, Some(2), "{args:?}: {out:?}");
        assert!(out.stderr.contains("server `nosuch` is not in"), "{out:?}");
    }
    let out = mcpbind(dir.path(), &["list", "nosuch"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(out.stderr.contains("help: locked servers: fake"), "{out:?}");
    // The server is gone: diff says it could not look, never "no changes".
    write_config(dir.path(), &[("fake", "tools", "/nonexistent/tools.json")]);
    let out = mcpbind(dir.path(), &["diff"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(!out.stdout.contains("no changes"), "{out:?}");
    assert!(
        out.stderr.contains("failed to check server `fake`"),
        "{out:?}"
    );
}

/// A schema whose property `a` goes through a chain of `n` definitions,
/// each an object referring to the next; the last is `{"type": last}`.
fn ref_chain(n: usize, last: &str) -> serde_json::Value {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        defs.insert(
            format!("d{i:04}"),
            serde_json::json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/d{:04}", i + 1)}}}),
        );
    }
    defs.insert(format!("d{n:04}"), serde_json::json!({ "type": last }));
    serde_json::json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0000"}}, "$defs": defs})
}

#[test]
fn a_type_changed_at_the_end_of_a_long_ref_chain_is_breaking() {
    let tools =
        |last: &str| serde_json::json!([{"name": "chain", "inputSchema": ref_chain(60, last)}]);
    let dir = locked_with(tools("string"));
    std::fs::write(dir.path().join("tools.json"), tools("integer").to_string()).unwrap();
    let out = mcpbind(dir.path(), &["check", "--deny", "breaking"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    let report = format!("{}{}", out.stdout, out.stderr);
    assert!(report.contains("breaking"), "{out:?}");
    assert!(report.contains("changed: `string` → `integer`"), "{out:?}");
}
