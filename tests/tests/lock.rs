//! `mcpbind lock` against real servers: reproducible bytes, the committed
//! lockfile, no secrets, every transport the same.

use crate::util::{self, assert_golden, mcpbind_env};

const CANARY: &str = "canary-7f3a9c-secret";

#[test]
fn generated_bindings_match_the_golden_file() {
    let generated = include_str!(concat!(env!("OUT_DIR"), "/mcpbind.rs"));
    assert_golden(&util::tests_dir().join("golden/mcpbind.rs"), generated);
}

/// A server that lists its tools in pages: every page is followed, and the
/// lockfile is the same as for one page.
#[test]
fn paginated_tools_list_is_followed_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.demo]\ncommand = {}\nenv = {{ MCPBIND_DEMO_PAGE_SIZE = \"5\" }}\n",
            util::toml_str(&util::bin("mcpbind-demo-server").display().to_string())
        ),
    )
    .unwrap();
    let out = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stderr.contains("Locked demo: 12 tools"), "{out:?}");
    let paged = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
    let whole = mcpbind::Lockfile::read(util::tests_dir().join("mcpbind.lock")).unwrap();
    assert!(
        paged.servers["demo"] == whole.servers["demo"],
        "paging changed the lock"
    );
}

#[test]
fn lock_warns_of_a_schema_calls_cant_be_checked_against() {
    let dir = tempfile::tempdir().unwrap();
    // Draft-07 wants an enum to have a value: not a schema mcpbind can
    // compile, so calls of `hang` would go unchecked.
    let schema = r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"k": {"enum": []}}}"#;
    std::fs::write(dir.path().join("schema.json"), schema).unwrap();
    let config = |checked: bool| {
        format!(
            "[servers.rec]\ncommand = {}\nvalidate_input = {checked}\nenv = {{ MCPBIND_RECORD_SCHEMA = {} }}\n",
            util::toml_str(env!("CARGO_BIN_EXE_recorder")),
            util::toml_str(&dir.path().join("schema.json").display().to_string())
        )
    };
    std::fs::write(dir.path().join("mcpbind.toml"), config(true)).unwrap();
    let out = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let warning = "warning: server `rec`, tool `hang`: its inputSchema can't be checked by mcpbind (it is not a valid JSON Schema: /properties/k/enum: [] has less than 1 items); only the server checks it";
    assert!(out.stderr.contains(warning), "{}", out.stderr);
    // One warning: the other tools' schemas compile.
    assert_eq!(out.stderr.matches("warning:").count(), 1, "{}", out.stderr);
    // Checks turned off for the server: nothing to warn of.
    std::fs::write(dir.path().join("mcpbind.toml"), config(false)).unwrap();
    let out = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(!out.stderr.contains("warning:"), "{}", out.stderr);
}

/// A lockfile that cannot be written (a file size limit, as a full disk
/// would): the error names the file once, then why.
#[test]
fn a_lockfile_that_cannot_be_written_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let demo = util::bin("mcpbind-demo-server").display().to_string();
    let config = format!("[servers.demo]\ncommand = {}\n", util::toml_str(&demo));
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    // SIGXFSZ ignored, so that the write fails with EFBIG.
    let mut sh = std::process::Command::new("sh");
    util::clean_env(&mut sh);
    let out = sh
        .current_dir(dir.path())
        .args(["-c", "trap '' XFSZ; ulimit -f 0; exec \"$0\" lock"])
        .arg(util::bin("mcpbind"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let error = stderr.lines().find(|l| l.starts_with("error:")).unwrap();
    assert!(
        error.starts_with("error: failed to write ")
            && error.contains("mcpbind.lock: File too large"),
        "{stderr}"
    );
    assert_eq!(error.matches("failed to write").count(), 1, "{stderr}");
}

/// Another cargo holds the build directory (rust-analyzer's check, another
/// build): with the binaries built, `mcpbind lock` of the quickstart's
/// config and the quickstart itself still work, since neither starts the
/// demo server through cargo.
#[test]
fn the_quickstart_runs_while_another_cargo_holds_the_build_directory() {
    let mcpbind = util::bin("mcpbind");
    let built = util::cargo()
        .current_dir(util::root())
        .args(["build", "--quiet", "-p", "mcpbind-example-quickstart"])
        .status()
        .unwrap();
    assert!(built.success());
    let bin_dir = mcpbind.parent().unwrap();
    // Held as cargo holds it (an exclusive `flock`), until the test ends.
    let held = std::fs::File::open(bin_dir.join(".cargo-lock")).unwrap();
    held.lock().unwrap();

    let scratch = tempfile::tempdir().unwrap();
    let lockfile = scratch.path().join("mcpbind.lock");
    let config = util::root().join("examples/quickstart/mcpbind.toml");
    let out = util::mcpbind_env(
        scratch.path(),
        &["lock", "--config", config.to_str().unwrap()],
        &[("MCPBIND_LOCKFILE", lockfile.to_str().unwrap())],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let committed = util::root().join("examples/quickstart/mcpbind.lock");
    assert_eq!(
        std::fs::read_to_string(&lockfile).unwrap(),
        std::fs::read_to_string(committed).unwrap()
    );

    let mut quickstart = std::process::Command::new(bin_dir.join("mcpbind-example-quickstart"));
    let out = util::clean_env(&mut quickstart).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("add(2, 40)           -> sum = 42"),
        "{stdout}"
    );
}

/// A server that dies during the handshake: the reason comes first, then
/// rmcp's words on a line of their own, then the server's stderr, whose
/// last line ends the message.
#[test]
fn a_handshake_error_keeps_each_text_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    // Reads what mcpbind writes first (`server/discover` and `ping`), then
    // fails as a server with a missing module does.
    let script = "import sys; sys.stdin.readline(); sys.stdin.readline(); sys.stderr.write('Traceback (most recent call last):\\nModuleNotFoundError: No module named \\'x\\'\\n'); sys.exit(3)";
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.crash]\ncommand = \"python3\"\nargs = [\"-c\", {}]\n",
            util::toml_str(script)
        ),
    )
    .unwrap();
    let out = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        out.stderr,
        "error: failed to lock server `crash`: failed to connect to server `crash`: the process exited during the handshake (exit status: 3)\n\
         the connection closed before the server answered `server/discover`\n\
         server stderr (last lines):\n\
         Traceback (most recent call last):\n\
         ModuleNotFoundError: No module named 'x'\n"
    );
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    #[test]
    fn lock_is_reproducible_matches_committed_and_leaks_no_secret() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcpbind.toml"),
            util::stdio_config(dir.path()),
        )
        .unwrap();
        let env = [("MCPBIND_TEST_CANARY", CANARY)];

        let first = mcpbind_env(dir.path(), &["lock"], &env);
        assert_eq!(first.code, Some(0), "{first:?}");
        let lock = std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap();
        for server in ["demo", "everything", "filesystem", "memory", "time"] {
            assert!(
                first.stderr.contains(&format!("Locked {server}")),
                "{first:?}"
            );
        }

        // Locking an unchanged server twice gives identical bytes, and the
        // second run says so.
        let second = mcpbind_env(dir.path(), &["lock"], &env);
        assert_eq!(second.code, Some(0), "{second:?}");
        let again = std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap();
        assert_eq!(lock, again);
        assert!(second.stderr.contains("(unchanged)"), "{second:?}");
        assert!(!second.stderr.contains("Wrote"), "{second:?}");

        // The raw tool objects are kept, fields rmcp's model doesn't know
        // included (server-everything sends `execution`).
        assert!(lock.contains("\"execution\""));

        assert_golden(&util::tests_dir().join("mcpbind.lock"), &lock);

        let generated = mcpbind_env(dir.path(), &["generate"], &env);
        assert_eq!(generated.code, Some(0), "{generated:?}");
        assert!(generated
            .stdout
            .starts_with("// This file is @generated by mcpbind"));
        for text in [
            &lock,
            &first.stdout,
            &first.stderr,
            &second.stderr,
            &generated.stdout,
            &generated.stderr,
        ] {
            assert!(!text.contains(CANARY), "the canary secret leaked");
        }
    }

    #[test]
    fn lock_of_one_server_keeps_the_others() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcpbind.toml"),
            util::stdio_config(dir.path()),
        )
        .unwrap();
        let committed = std::fs::read_to_string(util::tests_dir().join("mcpbind.lock")).unwrap();
        std::fs::write(dir.path().join("mcpbind.lock"), &committed).unwrap();
        let out = mcpbind_env(
            dir.path(),
            &["lock", "demo"],
            &[("MCPBIND_TEST_CANARY", CANARY)],
        );
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(
            out.stderr.contains("Locked demo: 12 tools (unchanged)"),
            "{out:?}"
        );
        assert!(!out.stderr.contains("Locked everything"), "{out:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap(),
            committed
        );
    }

    #[test]
    fn streamable_http_lists_the_same_tools_as_stdio() {
        let demo = util::demo_http();
        let everything = util::everything_http();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcpbind.toml"),
            format!(
                "[servers.demo]\nurl = {}\nheaders = {{ X-Token = \"${{MCPBIND_TEST_CANARY}}\" }}\n\n[servers.everything]\ntransport = \"streamable-http\"\nurl = {}\n",
                util::toml_str(&demo.url),
                util::toml_str(&everything.url)
            ),
        )
        .unwrap();
        let out = mcpbind_env(dir.path(), &["lock"], &[("MCPBIND_TEST_CANARY", CANARY)]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let http: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap(),
        )
        .unwrap();
        let stdio: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(util::tests_dir().join("mcpbind.lock")).unwrap(),
        )
        .unwrap();
        for server in ["demo", "everything"] {
            let tools = |lock: &serde_json::Value| -> Vec<(String, String)> {
                lock["servers"][server]["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| (t["name"].to_string(), t["sha256"].to_string()))
                    .collect()
            };
            assert_eq!(
                tools(&http),
                tools(&stdio),
                "server `{server}` lists different tools over HTTP"
            );
            for list in ["prompts", "resource_templates"] {
                assert_eq!(
                    http["servers"][server][list], stdio["servers"][server][list],
                    "server `{server}` lists different {list} over HTTP"
                );
            }
        }
        assert!(!out.stderr.contains(CANARY));
    }

    #[test]
    fn legacy_sse_lists_the_same_tools_as_stdio() {
        let everything = util::everything_sse();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mcpbind.toml"),
            format!(
                "[servers.everything]\ntransport = \"sse\"\nurl = {}\n",
                util::toml_str(&everything.url)
            ),
        )
        .unwrap();
        let out = util::mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let sse = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
        let stdio = mcpbind::Lockfile::read(util::tests_dir().join("mcpbind.lock")).unwrap();
        let (sse, stdio) = (&sse.servers["everything"], &stdio.servers["everything"]);
        assert!(
            sse.tools == stdio.tools
                && sse.prompts == stdio.prompts
                && sse.resource_templates == stdio.resource_templates,
            "server-everything lists different tools, prompts or templates over SSE"
        );
    }
}
