//! Reviewing server changes against a real server that changes: the demo
//! server locked as it is, then run as its v2 variant
//! (`MCPBIND_DEMO_VARIANT=v2`): `check` and `diff` print the classified
//! report in text, JSON and Markdown, exit codes follow `--deny`, and the
//! bindings generated from the old lock still call the new server for the
//! changes classified compatible.

use std::path::Path;
use std::process::Command;

use mcpbind_tests::demo;

use crate::util::{assert_golden, bin, mcpbind, mcpbind_env, tests_dir, toml_str, Output};

/// A dir whose config runs the demo server in the variant named by
/// `$DEMO_VARIANT` (default: the default server), with `extra` config
/// lines, locked with the default server.
fn locked_demo(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.demo]\ncommand = {}\nenv = {{ MCPBIND_DEMO_VARIANT = \"${{DEMO_VARIANT:-v1}}\" }}\n{extra}",
            toml_str(&bin("mcpbind-demo-server").display().to_string())
        ),
    )
    .unwrap();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    dir
}

fn v2(dir: &Path, args: &[&str]) -> Output {
    let out = mcpbind_env(dir, args, &[("DEMO_VARIANT", "v2")]);
    assert!(!out.stderr.contains("panicked"), "{out:?}");
    out
}

const V2_TEXT: &str = "\
demo: 2 breaking, 1 review, 3 compatible
  breaking:
    tool `delete_item`: required param `reason` added
    tool `tag_counts`: removed
  review:
    tool `echo`: description changed
        Echo a message back, [-optionally-]{+possibly+} repeated several times (joined by spaces).{+ Handy to test a connection.+}
  compatible:
    tool `get_weather`: output field `humidity` added
    tool `multiply`: added
    tool `search`: optional param `lang` added
total: 2 breaking, 1 review, 3 compatible
";

#[test]
fn check_and_diff_classify_the_changed_server() {
    let dir = locked_demo("");
    let out = mcpbind(dir.path(), &["check"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout, "", "{out:?}");
    assert!(out.stderr.contains("Ok demo: 12 tools match"), "{out:?}");

    // Text, the default; no colour into a pipe.
    let out = v2(dir.path(), &["check"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(out.stdout, V2_TEXT);
    assert!(
        out.stderr.contains("error: server `demo` in mcpbind.lock is out of date (tool `delete_item`: input schema changed;"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("help: run `mcpbind lock demo` and commit mcpbind.lock"),
        "{out:?}"
    );
    let out = v2(dir.path(), &["diff"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(out.stdout, V2_TEXT);

    assert_v2_json(dir.path());

    // Markdown, for a pull-request comment: a golden file.
    let out = v2(dir.path(), &["check", "--format", "markdown"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_golden(&tests_dir().join("golden/review_demo_v2.md"), &out.stdout);
    let out = v2(dir.path(), &["diff", "--format", "markdown"]);
    assert_golden(&tests_dir().join("golden/review_demo_v2.md"), &out.stdout);
}

/// The v2 server's report in JSON, the documented shape, from `diff` and
/// `check` alike (`dir` is [`locked_demo`]'s).
fn assert_v2_json(dir: &Path) {
    let out = v2(dir, &["diff", "--format", "json"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["format_version"], 1);
    assert_eq!(
        json["summary"],
        serde_json::json!({"breaking": 2, "review": 1, "compatible": 3})
    );
    let changes: Vec<(&str, &str, &str, &str)> = json["servers"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["class"].as_str().unwrap(),
                c["rule"].as_str().unwrap(),
                c["name"].as_str().unwrap(),
                c["pointer"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            (
                "breaking",
                "required-param-added",
                "delete_item",
                "/inputSchema/properties/reason"
            ),
            ("breaking", "tool-removed", "tag_counts", ""),
            ("review", "description-changed", "echo", "/description"),
            (
                "compatible",
                "output-field-added",
                "get_weather",
                "/outputSchema/properties/humidity"
            ),
            ("compatible", "tool-added", "multiply", ""),
            (
                "compatible",
                "optional-param-added",
                "search",
                "/inputSchema/properties/lang"
            ),
        ]
    );
    let out = v2(dir, &["check", "--format", "json"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out.stdout).unwrap(),
        json
    );
}

/// Exit codes follow `--deny`: with the tool filter, the same v2 server
/// shows only compatible changes, or review and compatible ones.
#[test]
fn check_exit_codes_follow_deny() {
    let expect = |dir: &Path, deny: &str, code: i32| {
        let out = v2(dir, &["check", "--deny", deny]);
        assert_eq!(out.code, Some(code), "--deny {deny}: {out:?}");
        out
    };
    let all = locked_demo("");
    for deny in ["breaking", "review", "any"] {
        expect(all.path(), deny, 1);
    }

    let compatible = locked_demo("enabled_tools = [\"add\", \"get_weather\", \"search\"]\n");
    let out = expect(compatible.path(), "breaking", 0);
    assert_eq!(
        out.stdout,
        "demo: 2 compatible\n  compatible:\n    tool `get_weather`: output field `humidity` added\n    tool `search`: optional param `lang` added\ntotal: 2 compatible\n"
    );
    assert!(
        out.stderr
            .contains("Ok demo: 2 compatible (allowed by --deny breaking)"),
        "{out:?}"
    );
    expect(compatible.path(), "review", 0);
    expect(compatible.path(), "any", 1);
    // The default is `any`.
    assert_eq!(v2(compatible.path(), &["check"]).code, Some(1));

    let reworded = locked_demo("enabled_tools = [\"echo\", \"get_weather\"]\n");
    expect(reworded.path(), "breaking", 0);
    expect(reworded.path(), "review", 1);
    expect(reworded.path(), "any", 1);
}

/// A server that can't be reached is exit 2, not drift; so is a usage
/// error.
#[test]
fn unreachable_server_and_usage_errors_exit_2() {
    let dir = locked_demo("");
    let toml = std::fs::read_to_string(dir.path().join("mcpbind.toml")).unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        toml.replace("mcpbind-demo-server\"", "mcpbind-no-such-server\""),
    )
    .unwrap();
    for command in ["check", "diff"] {
        let out = mcpbind(dir.path(), &[command]);
        assert_eq!(out.code, Some(2), "{out:?}");
        assert!(
            out.stderr
                .contains("error: failed to check server `demo`: could not list its tools"),
            "{out:?}"
        );
    }
    let out = mcpbind(dir.path(), &["check", "--deny", "everything"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    let out = mcpbind(dir.path(), &["diff", "--from", "mcpbind.lock"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    let out = mcpbind(
        dir.path(),
        &["diff", "--from", "mcpbind.lock", "--to", "missing.lock"],
    );
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(out.stderr.contains("missing.lock"), "{out:?}");
}

/// A git repository holding [`locked_demo`]'s lock of v1 as `HEAD` and as
/// `old.lock`, the working tree's `mcpbind.lock` relocked from v2, and a
/// config whose server does not exist (nothing may start it).
fn offline_lockfiles() -> tempfile::TempDir {
    let dir = locked_demo("");
    let path = dir.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .current_dir(path)
            .args([
                "-c",
                "user.name=mcpbind",
                "-c",
                "user.email=mcpbind@example.com",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "mcpbind.lock", "mcpbind.toml"]);
    git(&["commit", "-q", "-m", "lock v1"]);
    std::fs::copy(path.join("mcpbind.lock"), path.join("old.lock")).unwrap();
    let out = v2(path, &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");

    // No server is started: the config may name one that doesn't exist.
    std::fs::write(
        path.join("mcpbind.toml"),
        "[servers.demo]\ncommand = \"mcpbind-no-such-server\"\n",
    )
    .unwrap();
    dir
}

/// Offline: two lockfiles, or the lockfile at a git revision against the
/// working tree, give the same report as the live comparison.
#[test]
fn diff_compares_lockfiles_offline() {
    let dir = offline_lockfiles();
    let path = dir.path();
    let out = mcpbind(
        path,
        &["diff", "--from", "old.lock", "--to", "mcpbind.lock"],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_eq!(out.stdout, V2_TEXT);
    let out = mcpbind(path, &["diff", "--git", "HEAD", "--format", "markdown"]);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert_golden(&tests_dir().join("golden/review_demo_v2.md"), &out.stdout);
    // Reversed, the same changes point the other way.
    let out = mcpbind(
        path,
        &["diff", "--from", "mcpbind.lock", "--to", "old.lock"],
    );
    assert!(
        out.stdout.contains("    tool `get_weather`: output field `humidity` removed\n    tool `multiply`: removed\n    tool `search`: param `lang` removed\n"),
        "{out:?}"
    );
    // Unchanged: exit 0.
    let out = mcpbind(path, &["diff", "--from", "old.lock", "--to", "old.lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    assert_eq!(out.stdout, "demo: no changes\ntotal: no changes\n");
}

/// Offline, a server in neither lockfile, a revision that is not a commit,
/// and a folder outside a repository are refused, each saying why.
#[test]
fn diff_offline_refuses_an_unknown_server_or_revision() {
    let dir = offline_lockfiles();
    let path = dir.path();
    let out = mcpbind(
        path,
        &["diff", "--from", "old.lock", "--to", "old.lock", "nope"],
    );
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .contains("error: server `nope` is in neither lockfile\nhelp: locked servers: demo"),
        "{out:?}"
    );
    let out = mcpbind(path, &["diff", "--git", "no-such-rev"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr
            .contains("error: `no-such-rev` is not a commit of the git repository"),
        "{out:?}"
    );
    assert!(out.stderr.contains("help: "), "{out:?}");
    // Outside a repository, git's own reason.
    std::fs::remove_dir_all(path.join(".git")).unwrap();
    let out = mcpbind(path, &["diff", "--git", "HEAD"]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(
        out.stderr.contains("fatal: not a git repository"),
        "{out:?}"
    );
}

/// Colour only where it is wanted: never into a pipe, on with
/// `CLICOLOR_FORCE`, and `NO_COLOR` wins.
#[test]
fn colour_follows_the_terminal_and_no_color() {
    let dir = locked_demo("");
    let forced = mcpbind_env(
        dir.path(),
        &["diff"],
        &[("DEMO_VARIANT", "v2"), ("CLICOLOR_FORCE", "1")],
    );
    assert!(
        forced.stdout.contains("\x1b[1;31mbreaking\x1b[0m"),
        "{forced:?}"
    );
    assert!(
        forced.stdout.contains("\x1b[31m[-optionally-]\x1b[0m"),
        "{forced:?}"
    );
    let off = mcpbind_env(
        dir.path(),
        &["diff"],
        &[
            ("DEMO_VARIANT", "v2"),
            ("CLICOLOR_FORCE", "1"),
            ("NO_COLOR", "1"),
        ],
    );
    assert_eq!(off.stdout, V2_TEXT);
    // Machine formats never have colour.
    let json = mcpbind_env(
        dir.path(),
        &["diff", "--format", "json"],
        &[("DEMO_VARIANT", "v2"), ("CLICOLOR_FORCE", "1")],
    );
    assert!(!json.stdout.contains('\x1b'), "{json:?}");
}

/// The bindings generated from the old lock (`tests/mcpbind.lock`, the
/// default demo server) call the v2 server: an added output field is
/// ignored by the typed output, and an added optional param changes
/// nothing for a call that doesn't set it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn old_bindings_call_the_new_server_for_compatible_changes() {
    let config = |variant: &str| {
        let demo = mcpbind::ServerConfig::stdio(bin("mcpbind-demo-server").display().to_string())
            .env("MCPBIND_DEMO_VARIANT", variant);
        mcpbind::Config::new().server("demo", demo).unwrap()
    };
    let old = demo::Client::connect(&config("v1")).await.unwrap();
    let new = demo::Client::connect(&config("v2")).await.unwrap();

    let input = || demo::types::GetWeatherInput {
        city: "Oslo".into(),
        units: Some(demo::types::Units::Fahrenheit),
    };
    let before = old.get_weather(input()).await.unwrap();
    let after = new.get_weather(input()).await.unwrap();
    // The server did send the new field; the old type parsed without it.
    let structured = after.structured_content.as_ref().unwrap();
    assert!(structured.get("humidity").is_some(), "{structured}");
    assert!(before
        .structured_content
        .as_ref()
        .unwrap()
        .get("humidity")
        .is_none());
    assert_eq!(after.output.city, before.output.city);
    assert_eq!(after.output.temperature, before.output.temperature);
    assert_eq!(after.output.conditions, before.output.conditions);
    assert_eq!(after.output.units, before.output.units);

    let search = || demo::types::SearchInput::new("rust");
    let before = old.search(search()).await.unwrap();
    let after = new.search(search()).await.unwrap();
    assert_eq!(before.text(), "query=rust, limit=10, after=null");
    assert_eq!(after.text(), before.text());

    // Unchanged tools still work, and the breaking change breaks as
    // classified: the old call lacks the new required `reason`.
    let sum = new
        .add(demo::types::AddInput { a: 2, b: 40 })
        .await
        .unwrap();
    assert_eq!(sum.output.sum, 42);
    let err = new
        .delete_item(demo::types::DeleteItemInput { id: "x".into() })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("reason"), "{err}");
}

/// Config import, finished: VS Code's `.vscode/mcp.json` (`servers`,
/// `inputs`, `${workspaceFolder}`) and `${VAR:-default}` in an imported
/// file. An input mcpbind can't prompt for is an error naming the variable
/// to set; set, the server is locked, and its value is written nowhere.
#[test]
fn imports_a_vscode_mcp_json_with_inputs() {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join(".vscode")).unwrap();
    std::fs::write(
        ws.path().join(".vscode/mcp.json"),
        format!(
            r#"{{
  "inputs": [{{"type": "promptString", "id": "demo-token", "description": "Demo token", "password": true}}],
  "servers": {{
    "demo": {{
      "type": "stdio",
      "command": "${{MCPBIND_TEST_DEMO_BIN:-{}}}",
      "args": [],
      "env": {{"DEMO_TOKEN": "${{input:demo-token}}", "DATA": "${{workspaceFolder}}/data"}}
    }}
  }}
}}"#,
            bin("mcpbind-demo-server").display()
        ),
    )
    .unwrap();
    let args = ["lock", "--config", ".vscode/mcp.json"];
    let out = mcpbind(ws.path(), &args);
    assert_eq!(out.code, Some(1), "{out:?}");
    assert!(
        out.stderr.contains(
            "VS Code input `demo-token` has no value here: set the environment variable `MCPBIND_INPUT_DEMO_TOKEN` to it"
        ),
        "{out:?}"
    );

    let secret = "s3cret-demo-token";
    let out = mcpbind_env(ws.path(), &args, &[("MCPBIND_INPUT_DEMO_TOKEN", secret)]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let lock = std::fs::read_to_string(ws.path().join(".vscode/mcpbind.lock")).unwrap();
    assert!(lock.contains("\"mcpbind-demo\""));
    assert!(!lock.contains(secret) && !out.stderr.contains(secret));
    let out = mcpbind_env(
        ws.path(),
        &["check", "--config", ".vscode/mcp.json"],
        &[("MCPBIND_INPUT_DEMO_TOKEN", secret)],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
}

/// A dir whose config runs server-everything over stdio, locked live, with
/// the lock then rewritten as server-everything's previous release would
/// have left it ([`previous_everything`]): the live server is then that
/// release's upgrade. The untouched live lock is kept as `live.lock`.
fn everything_upgraded(breaking: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.everything]\ncommand = \"node\"\nargs = [{}, \"stdio\"]\n",
            toml_str(&crate::util::npm_server("server-everything"))
        ),
    )
    .unwrap();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let path = dir.path().join("mcpbind.lock");
    std::fs::copy(&path, dir.path().join("live.lock")).unwrap();
    let mut lock = mcpbind::Lockfile::read(&path).unwrap();
    let server = lock.servers.remove("everything").unwrap();
    lock.servers
        .insert("everything".into(), previous_everything(server, breaking));
    lock.write(&path).unwrap();
    dir
}

/// Server-everything's prompts and templates as an earlier release listed
/// them: each edit is the reverse of a change an upgrade makes. With
/// `breaking`, the upgrade also makes an argument required, drops a prompt
/// and renames a template variable.
fn previous_everything(server: mcpbind::ServerLock, breaking: bool) -> mcpbind::ServerLock {
    use serde_json::{json, Value};
    let definitions = |entries: &[mcpbind::LockedEntry]| -> Vec<Value> {
        entries.iter().map(|e| e.definition.clone()).collect()
    };
    let find = |list: &mut Vec<Value>, name: &str| -> usize {
        list.iter()
            .position(|d| d["name"] == name)
            .unwrap_or_else(|| panic!("server-everything no longer lists `{name}`"))
    };
    let mut prompts = definitions(&server.prompts);
    // The upgrade adds `args-prompt`'s optional `state` (compatible)…
    let args = find(&mut prompts, "args-prompt");
    prompts[args]["arguments"]
        .as_array_mut()
        .unwrap()
        .retain(|a| a["name"] != "state");
    // … rewords `resource-prompt` (review: what the model reads)…
    let resource = find(&mut prompts, "resource-prompt");
    prompts[resource]["description"] = json!("A prompt that embeds a resource");
    // … and adds `simple-prompt` (compatible).
    let simple = find(&mut prompts, "simple-prompt");
    prompts.remove(simple);
    let mut templates = definitions(&server.resource_templates);
    // It changes the blob template's MIME type (review).
    let blob = find(&mut templates, "Dynamic Blob Resource");
    templates[blob]["mimeType"] = json!("application/x-binary");
    if breaking {
        // It makes `completable-prompt`'s `name` required (breaking)…
        let completable = find(&mut prompts, "completable-prompt");
        prompts[completable]["arguments"][1]["required"] = json!(false);
        // … drops `legacy-prompt` (breaking)…
        prompts.push(json!({"name": "legacy-prompt", "description": "An old prompt"}));
        // … and renames the text template's variable (breaking).
        let text = find(&mut templates, "Dynamic Text Resource");
        templates[text]["uriTemplate"] = json!("demo://resource/dynamic/text/{id}");
    }
    server
        .with_prompts("everything", prompts)
        .unwrap()
        .with_resource_templates("everything", templates)
        .unwrap()
}

const EVERYTHING_TEXT: &str = "\
everything: 4 breaking, 2 review, 2 compatible
  breaking:
    prompt `completable-prompt`: argument `name` made required
    prompt `legacy-prompt`: removed
    resource template `Dynamic Text Resource`: variable `id` removed (the URI function loses a parameter)
    resource template `Dynamic Text Resource`: variable `resourceId` added (the URI function gains a parameter)
  review:
    prompt `resource-prompt`: description changed
        A prompt that [-embeds a-]{+includes an embedded+} resource{+ reference+}
    resource template `Dynamic Blob Resource`: MIME type changed: `application/x-binary` → `application/octet-stream`
  compatible:
    prompt `args-prompt`: optional argument `state` added
    prompt `simple-prompt`: added
total: 4 breaking, 2 review, 2 compatible
";

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// Prompts and resource templates are reviewed like tools, by the real
    /// CLI over real snapshots of server-everything: `check` (live against the
    /// lock) and `diff` (two lockfiles, offline) name each entry's kind and
    /// classify argument and template changes.
    #[test]
    fn check_and_diff_classify_prompts_and_templates() {
        let dir = everything_upgraded(true);
        let out = mcpbind(dir.path(), &["check", "--deny", "breaking"]);
        assert!(!out.stderr.contains("panicked"), "{out:?}");
        assert_eq!(out.code, Some(1), "{out:?}");
        assert_eq!(out.stdout, EVERYTHING_TEXT, "{out:?}");
        assert!(
            out.stderr.contains(
                "error: server `everything` in mcpbind.lock is out of date (prompt `completable-prompt`: argument `name` made required; prompt `legacy-prompt`: removed;"
            ),
            "{out:?}"
        );
        let out = mcpbind(
            dir.path(),
            &["diff", "--from", "mcpbind.lock", "--to", "live.lock"],
        );
        assert_eq!(out.code, Some(1), "{out:?}");
        assert_eq!(out.stdout, EVERYTHING_TEXT);

        assert_everything_json(dir.path());

        let out = mcpbind(dir.path(), &["check", "--format", "markdown"]);
        assert_eq!(out.code, Some(1), "{out:?}");
        assert_golden(
            &tests_dir().join("golden/review_everything_prompts.md"),
            &out.stdout,
        );
    }

    /// `diff --format json` of [`everything_upgraded`]`(true)`'s two
    /// lockfiles: each change's rule, the kind of entry, its name and
    /// pointer.
    fn assert_everything_json(dir: &Path) {
        let out = mcpbind(
            dir,
            &[
                "diff",
                "--from",
                "mcpbind.lock",
                "--to",
                "live.lock",
                "--format",
                "json",
            ],
        );
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let changes: Vec<(&str, &str, &str, &str)> = json["servers"][0]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["rule"].as_str().unwrap(),
                    c["kind"].as_str().unwrap(),
                    c["name"].as_str().unwrap(),
                    c["pointer"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            changes,
            [
                (
                    "param-made-required",
                    "prompt",
                    "completable-prompt",
                    "/arguments/1/required"
                ),
                ("prompt-removed", "prompt", "legacy-prompt", ""),
                (
                    "template-variable-removed",
                    "resource_template",
                    "Dynamic Text Resource",
                    "/uriTemplate"
                ),
                (
                    "template-variable-added",
                    "resource_template",
                    "Dynamic Text Resource",
                    "/uriTemplate"
                ),
                (
                    "description-changed",
                    "prompt",
                    "resource-prompt",
                    "/description"
                ),
                (
                    "mime-type-changed",
                    "resource_template",
                    "Dynamic Blob Resource",
                    "/mimeType"
                ),
                (
                    "optional-param-added",
                    "prompt",
                    "args-prompt",
                    "/arguments/1"
                ),
                ("prompt-added", "prompt", "simple-prompt", ""),
            ]
        );
    }

    /// An upgrade of server-everything that only adds and rewords:
    /// `--deny breaking` passes, `review` doesn't.
    #[test]
    fn deny_breaking_passes_an_upgrade_that_only_adds_and_rewords() {
        let dir = everything_upgraded(false);
        let out = mcpbind(dir.path(), &["check", "--deny", "breaking"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(
            out.stderr
                .contains("Ok everything: 2 review, 2 compatible (allowed by --deny breaking)"),
            "{out:?}"
        );
        let out = mcpbind(dir.path(), &["check", "--deny", "review"]);
        assert_eq!(out.code, Some(1), "{out:?}");
    }
}
