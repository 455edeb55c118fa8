//! Claims of the README that no other test exercised, each against a real
//! process: output validation (`Error::Output`, `validate_output = false`,
//! output read from JSON text) with a copy of server-everything that answers
//! wrongly (`tests/servers/claims.py copy`); `pin_policy` `warn` and
//! `ignore` at connect, with the demo server's v2 release; five review rules
//! through `mcpbind diff` over servers that change between two locks
//! (`claims.py evolve`); a static `headers` entry reaching an HTTP server
//! that records every request's headers (`claims.py --http`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use mcpbind::{
    Config, Drift, DriftChange, EntryKind, Error, PinPolicy, ServerBuilder, ServerConfig,
};
use mcpbind_tests::{demo, everything};
use serde_json::Value;

use crate::util::{self, bin, mcpbind, tests_dir, toml_str};

fn script() -> String {
    tests_dir().join("servers/claims.py").display().to_string()
}

/// server-everything as locked in tests/mcpbind.lock, served by
/// `claims.py copy` answering every call with `answer`, with what `extra`
/// adds to the server.
fn everything_copy(answer: &str, extra: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Config {
    let lock = tests_dir().join("mcpbind.lock").display().to_string();
    let server = ServerConfig::stdio("python3").args([
        script(),
        "copy".into(),
        lock,
        "everything".into(),
        answer.into(),
    ]);
    Config::new().server("everything", extra(server)).unwrap()
}

fn new_york() -> everything::types::GetStructuredContentInput {
    everything::types::GetStructuredContentInput {
        location: everything::types::GetStructuredContentInputLocation::NewYork,
    }
}

/// The reason of an `Error::Output` for `everything.get-structured-content`.
fn output_reason(err: Error) -> String {
    match err {
        Error::Output {
            server,
            tool,
            reason,
            ..
        } => {
            assert_eq!(
                (server.as_str(), tool.as_str()),
                ("everything", "get-structured-content")
            );
            reason
        }
        other => panic!("expected Error::Output, got {other:?}"),
    }
}

/// `structuredContent` is checked against the locked `outputSchema`: a
/// field that `additionalProperties: false` refuses is `Error::Output`
/// naming it, although the output type (which ignores unknown fields)
/// would parse it; `validate_output = false` lets the same answer through,
/// parsed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_is_validated_unless_switched_off() {
    let client = everything::Client::connect(&everything_copy("extra-field", |s| s))
        .await
        .unwrap();
    let err = client.get_structured_content(new_york()).await.unwrap_err();
    // As data: the keyword that refused it, at the root of the output.
    let Error::Output { violations, .. } = &err else {
        panic!("expected Error::Output, got {err:?}");
    };
    assert_eq!(
        violations
            .iter()
            .map(|v| (v.pointer.as_str(), v.keyword.as_str()))
            .collect::<Vec<_>>(),
        [("/", "additionalProperties")],
        "{violations:?}"
    );
    let reason = output_reason(err);
    assert!(
        reason.starts_with("structuredContent does not match the locked outputSchema: "),
        "{reason}"
    );
    assert!(reason.contains("wind"), "{reason}");

    let lenient = everything_copy("extra-field", |s| s.validate_output(false));
    let client = everything::Client::connect(&lenient).await.unwrap();
    let result = client.get_structured_content(new_york()).await.unwrap();
    assert_eq!(result.output.temperature, 21.5);
    assert_eq!(result.output.conditions, "Sunny");
    // The raw structured content is kept as sent, the unknown field with it.
    assert_eq!(
        result.structured_content.unwrap()["wind"],
        Value::from("12 km/h")
    );
}

/// A wrong type is refused by validation (which names the field), and with
/// validation off by the output type itself: either way `Error::Output`,
/// never a wrong value. (serde_json's error for the second names the value,
/// not the field: a `serde_json::Value` has no positions to report.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrongly_typed_output_is_an_output_error() {
    let client = everything::Client::connect(&everything_copy("wrong-type", |s| s))
        .await
        .unwrap();
    let reason = output_reason(client.get_structured_content(new_york()).await.unwrap_err());
    assert!(reason.contains("temperature"), "{reason}");
    assert!(reason.contains("locked outputSchema"), "{reason}");

    let lenient = everything_copy("wrong-type", |s| s.validate_output(false));
    let client = everything::Client::connect(&lenient).await.unwrap();
    let reason = output_reason(client.get_structured_content(new_york()).await.unwrap_err());
    assert_eq!(
        reason,
        "structuredContent does not match the locked outputSchema: invalid type: string \"warm\", expected f64"
    );
}

/// A server that sends its structured output only as JSON text (as
/// servers before `structuredContent` did) gets it parsed; a text that is
/// not JSON is `Error::Output` saying the structured content is missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_is_read_from_json_text() {
    let client = everything::Client::connect(&everything_copy("text-only", |s| s))
        .await
        .unwrap();
    let result = client.get_structured_content(new_york()).await.unwrap();
    assert_eq!(result.structured_content, None);
    assert_eq!(result.output.humidity, 40.0);
    assert_eq!(result.output.conditions, "Sunny");

    let client = everything::Client::connect(&everything_copy("text-not-json", |s| s))
        .await
        .unwrap();
    let reason = output_reason(client.get_structured_content(new_york()).await.unwrap_err());
    assert_eq!(
        reason,
        "the tool declares an outputSchema but the result has no structuredContent"
    );
}

/// The demo server's v2 release under each `pin_policy`, with bindings of
/// the v1 lock: `refuse` fails the connect with `Error::Drift`; `warn`
/// connects, reports the same drift and calls even a changed tool;
/// `ignore` connects and reports nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pin_policy_at_connect() {
    let config = |policy: &str| {
        let demo = ServerConfig::stdio(bin("mcpbind-demo-server").display().to_string())
            .env("MCPBIND_DEMO_VARIANT", "v2")
            .set("pin_policy", policy);
        Config::new().server("demo", demo).unwrap()
    };
    // What v2 changed among the locked tools (tests/tests/review.rs has
    // the whole review): four tools changed, `tag_counts` removed.
    let changed = ["delete_item", "echo", "get_weather", "search", "tag_counts"];
    // The drift is data: a tool's kind, name and what changed in it.
    let named = |drift: &[Drift]| -> BTreeSet<String> {
        assert!(drift.iter().all(|d| d.kind == EntryKind::Tool), "{drift:?}");
        drift.iter().map(|d| d.name.clone()).collect()
    };
    let changed: BTreeSet<String> = changed.iter().map(|t| t.to_string()).collect();

    let refuse = config("refuse");
    assert_eq!(refuse.servers["demo"].pin_policy, PinPolicy::Refuse);
    let Err(err) = demo::Client::connect(&refuse).await else {
        panic!("connected under `refuse` to a server that changed");
    };
    let Error::Drift { drift, .. } = &err else {
        panic!("expected Error::Drift, got {err:?}");
    };
    assert_eq!(named(drift), changed, "{drift:?}");
    let tag_counts = drift.iter().find(|d| d.name == "tag_counts").unwrap();
    assert_eq!(tag_counts.change, DriftChange::Removed);
    assert_eq!(tag_counts.to_string(), "tool `tag_counts` is gone");
    assert!(
        drift
            .iter()
            .filter(|d| d.name != "tag_counts")
            .all(|d| d.is_changed()),
        "{drift:?}"
    );
    // The message keeps one line per entry.
    let text = err.to_string();
    assert!(
        text.starts_with("server `demo` changed since it was locked: tool `")
            && text.contains("; tool `tag_counts` is gone"),
        "{text}"
    );

    let warn = config("warn");
    assert_eq!(warn.servers["demo"].pin_policy, PinPolicy::Warn);
    let client = demo::Client::connect(&warn).await.unwrap();
    let drift = client.inner().check_pins(demo::TOOLS).await.unwrap();
    assert_eq!(named(&drift), changed, "{drift:?}");
    assert!(!client.inner().is_refused("echo"));
    let echo = client
        .echo(demo::types::EchoInput::new("pinned"))
        .await
        .unwrap();
    assert_eq!(echo.text(), "pinned");

    let ignore = config("ignore");
    assert_eq!(ignore.servers["demo"].pin_policy, PinPolicy::Ignore);
    let client = demo::Client::connect(&ignore).await.unwrap();
    assert_eq!(
        client.inner().check_pins(demo::TOOLS).await.unwrap(),
        Vec::<Drift>::new()
    );
    let sum = client.add(demo::types::AddInput::new(2, 40)).await.unwrap();
    assert_eq!(sum.output.sum, 42);
}

/// Locks the servers of `toml` in `dir` (a fresh config each time).
fn lock(dir: &Path, toml: &str) {
    std::fs::write(dir.join("mcpbind.toml"), toml).unwrap();
    let out = mcpbind(dir, &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
}

fn evolve(name: &str, variant: &str) -> String {
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, \"evolve\", {}]\n",
        toml_str(&script()),
        toml_str(variant)
    )
}

/// Five rules of the review, from two locks of real servers: a server
/// added and one removed; a changed server whose `serverInfo.title`
/// changed, whose input property schema went from `true` to `false`, and
/// whose output field was made required. Each change with its class,
/// pointer and message, in the stable JSON report and in the text one.
#[test]
fn diff_classifies_servers_schemas_and_server_info() {
    let dir = evolved_locks();
    let path = dir.path();
    let (found, stdout) = json_changes(path);
    let expected = [
        (
            "claims",
            "breaking",
            "schema-changed",
            "/inputSchema/properties/extra",
        ),
        (
            "claims",
            "compatible",
            "output-field-made-required",
            "/outputSchema/required",
        ),
        (
            "claims",
            "review",
            "server-info-changed",
            "/server_info/title",
        ),
        ("fresh", "compatible", "server-added", ""),
        ("gone", "breaking", "server-removed", ""),
    ];
    let got: Vec<(&str, &str, &str, &str)> = found
        .iter()
        .map(|(s, c, r, p, _)| (s.as_str(), c.as_str(), r.as_str(), p.as_str()))
        .collect();
    assert_eq!(got, expected, "{}", stdout);
    let messages: Vec<&str> = found.iter().map(|f| f.4.as_str()).collect();
    assert!(
        messages[1].contains("`body`") && messages[1].contains("made required"),
        "{messages:?}"
    );
    assert!(messages[2].contains("`title`"), "{messages:?}");
    assert!(
        messages[2].contains("Claims, second release"),
        "{messages:?}"
    );

    // The text report says the same, per server.
    let out = mcpbind(
        path,
        &["diff", "--from", "old.lock", "--to", "mcpbind.lock"],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    for server in ["claims:", "fresh:", "gone:"] {
        assert!(out.stdout.contains(server), "{}", out.stdout);
    }
    assert!(out.stdout.contains("made required"), "{}", out.stdout);
}

/// A dir with two locks of the evolving server: `old.lock` holds `claims`
/// and `gone` at v1, `mcpbind.lock` holds `claims` at v2 and `fresh`.
fn evolved_locks() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    lock(
        path,
        &format!("{}{}", evolve("claims", "v1"), evolve("gone", "v1")),
    );
    std::fs::rename(path.join("mcpbind.lock"), path.join("old.lock")).unwrap();
    lock(
        path,
        &format!("{}{}", evolve("claims", "v2"), evolve("fresh", "v1")),
    );
    dir
}

/// A change of a JSON report: server, class, rule, pointer, message.
type Change = (String, String, String, String, String);

/// The changes of `diff --format json` between [`evolved_locks`]'s two
/// lockfiles, sorted; and the report as printed.
fn json_changes(path: &Path) -> (Vec<Change>, String) {
    let out = mcpbind(
        path,
        &[
            "diff",
            "--from",
            "old.lock",
            "--to",
            "mcpbind.lock",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, Some(1), "{out:?}");
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let mut found: Vec<Change> = Vec::new();
    for server in report["servers"].as_array().unwrap() {
        for c in server["changes"].as_array().unwrap() {
            let text = |key: &str| c[key].as_str().unwrap_or("").to_owned();
            found.push((
                server["server"].as_str().unwrap().to_owned(),
                text("class"),
                text("rule"),
                text("pointer"),
                text("message"),
            ));
        }
    }
    found.sort();
    (found, out.stdout)
}

/// A static `headers` entry, and one read from the environment, reach the
/// server on every request the client sends (Streamable HTTP).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_headers_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let mut command = Command::new("python3");
    util::clean_env(&mut command).args([&script(), "--http", &log.display().to_string()]);
    let server = util::Running::start(command);
    assert_eq!(
        crate::env::value("MCPBIND_CLAIMS_HEADER"),
        "from-the-environment"
    );
    let remote = ServerConfig::http(&server.url)
        .header("X-Static", "static-value")
        .header("X-From-Env", "${MCPBIND_CLAIMS_HEADER}");
    let config = Config::new().server("remote", remote).unwrap();
    let client = mcpbind::Client::connect(&config, "remote").await.unwrap();
    let mut arguments = serde_json::Map::new();
    arguments.insert("message".into(), "hi".into());
    let result = client
        .call_raw("echo", arguments, &mcpbind::CallOptions::default())
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "hi");

    let requests: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let posts: Vec<&Value> = requests.iter().filter(|r| r["method"] == "POST").collect();
    // initialize, notifications/initialized, tools/call at least.
    assert!(posts.len() >= 3, "{requests:?}");
    for request in &requests {
        assert_eq!(request["headers"]["x-static"], "static-value", "{request}");
        assert_eq!(
            request["headers"]["x-from-env"], "from-the-environment",
            "{request}"
        );
    }
}
