//! Servers that change while connected, compared with the lock under
//! `pin_policy` (`refuse`, `warn`): a tool whose definition changes, then
//! prompts and resource templates, when their lists change, after a
//! reconnect, and at a generated client's `connect`. Against
//! `tests/servers/evolving.py`, which changes its lists on demand. Each
//! test that reads the notices names its server for itself (the bus is the
//! process's, and the others change their servers meanwhile).

use std::time::Duration;

use mcpbind::{Client, Config, Error, Notice, PinPolicy, ServerConfig, ToolMeta};
use serde_json::{json, Map, Value};

use crate::long_running::{call, evolving, next_notice};
use crate::util;

/// `greet` as locked: before the server changes it.
const GREET: ToolMeta = ToolMeta::new(
    "evolving",
    "greet",
    r#"{"description":"Greets someone.","inputSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"},"name":"greet"}"#,
    [(0, 0); 4],
    [false, true, false, true],
);

/// The next drift of `server` on the bus: what went out of step, whether
/// it is refused, and what changed.
pub(crate) async fn next_drift(
    notices: &mut mcpbind::NoticeReceiver,
    server: &str,
) -> (Vec<String>, bool, Vec<mcpbind::Drift>) {
    next_notice(notices, "drift", |notice| match notice {
        Notice::Drift {
            server: from,
            tools,
            refused,
            drift,
            ..
        } if from == server => Some((tools.clone(), *refused, drift.clone())),
        _ => None,
    })
    .await
}

/// Under `refuse`, a tool that changes while connected is refused (and
/// published as drift) until it matches its lock again; other tools go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_changes_while_connected_is_refused_under_refuse() {
    let client = Client::connect_server("drift_refuse", evolving("refuse"))
        .await
        .unwrap();
    assert!(client.check_pins(&[GREET]).await.unwrap().is_empty());
    assert_eq!(
        call(&client, "greet", json!({"name": "Ada"}))
            .await
            .unwrap(),
        "hello Ada"
    );
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "change", json!({})).await.unwrap();
    let (tools, refused, _) = next_drift(&mut notices, "drift_refuse").await;
    assert_eq!((tools, refused), (vec!["greet".to_owned()], true));
    assert!(client.is_refused("greet"));
    let err = call(&client, "greet", json!({"name": "Ada"}))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Drift { .. }), "{err:?}");
    assert!(err.to_string().contains("tool `greet` changed"), "{err}");
    // Other tools are still called; a change back lifts the refusal.
    call(&client, "restore", json!({})).await.unwrap();
    for _ in 0..200 {
        if !client.is_refused("greet") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        call(&client, "greet", json!({"name": "Bo"})).await.unwrap(),
        "hello Bo"
    );
}

/// Under `warn`, the drift is published and calls go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_changes_while_connected_is_reported_under_warn() {
    let client = Client::connect_server("drift_warn", evolving("warn"))
        .await
        .unwrap();
    client.check_pins(&[GREET]).await.unwrap();
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "change", json!({})).await.unwrap();
    let (_, refused, lines) = next_drift(&mut notices, "drift_warn").await;
    assert!(!refused);
    assert_eq!(
        (lines[0].kind, lines[0].name.as_str(), lines[0].is_changed()),
        (mcpbind::EntryKind::Tool, "greet", true),
        "{lines:?}"
    );
    assert!(
        lines[0].to_string().contains("tool `greet` changed"),
        "{lines:?}"
    );
    assert!(!client.is_refused("greet"));
    // The server now wants an integer; mcpbind does not stand in the way.
    assert_eq!(
        call(&client, "greet", json!({"name": 7})).await.unwrap(),
        "hello 7"
    );
}

/// A locked entry, as generated code would hold it (digest of the
/// definition as the server lists it).
fn locked(definition: Value) -> (&'static str, &'static str) {
    let entry = mcpbind::LockedEntry::new(definition.clone()).unwrap();
    (
        Box::leak(entry.sha256.into_boxed_str()),
        Box::leak(definition.to_string().into_boxed_str()),
    )
}

/// The prompt `welcome` as locked (as evolving.py serves it at first).
fn welcome() -> mcpbind::PromptMeta {
    let (sha, definition) = locked(json!({
        "name": "welcome",
        "description": "Welcomes someone.",
        "arguments": [{"name": "who", "required": true}],
    }));
    mcpbind::PromptMeta::new(
        "evolving",
        "welcome",
        None,
        Some("Welcomes someone."),
        &[],
        sha,
        definition,
    )
}

/// The resource template `note` as locked.
fn note() -> mcpbind::ResourceTemplateMeta {
    let (sha, definition) = locked(json!({
        "name": "note", "uriTemplate": "note://{id}", "description": "A note.",
    }));
    mcpbind::ResourceTemplateMeta::new(
        "evolving",
        "note",
        "note://{id}",
        None,
        Some("A note."),
        None,
        sha,
        definition,
    )
}

/// Prompts and resource templates are compared with the lock when their
/// lists change, as tools are: under `refuse`, a changed prompt is not got
/// and a changed template not read, and the drift names its list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_templates_that_change_while_connected_are_refused() {
    let client = Client::connect_server("drift_prompts", evolving("refuse"))
        .await
        .unwrap();
    let note = pin_welcome_and_note(&client).await;
    client.get_prompt_raw("welcome", who("Ada")).await.unwrap();
    let one = [("id", mcpbind::UriValue::String("1".into()))];
    client.read_template(&note, &one).await.unwrap();

    let mut notices = mcpbind::subscribe_notices();
    let drift = |notice: &Notice| match notice {
        Notice::Drift {
            server,
            tools,
            drift,
            refused,
            list,
        } if server == "drift_prompts" => Some((*list, tools.clone(), drift.clone(), *refused)),
        _ => None,
    };
    call(&client, "change_prompt", json!({})).await.unwrap();
    let (list, names, lines, refused) = next_notice(&mut notices, "prompt drift", drift).await;
    assert_eq!(
        (list, names, refused),
        (mcpbind::ListKind::Prompts, vec!["welcome".to_owned()], true)
    );
    assert_eq!(lines[0].kind, mcpbind::EntryKind::Prompt, "{lines:?}");
    assert!(
        lines[0].to_string().starts_with("prompt `welcome` changed"),
        "{lines:?}"
    );
    let err = client
        .get_prompt_raw("welcome", who("Ada"))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Drift { .. }), "{err:?}");
    // The template is not touched by a prompt's change.
    client.read_template(&note, &one).await.unwrap();

    call(&client, "change_template", json!({})).await.unwrap();
    let (list, names, lines, _) = next_notice(&mut notices, "template drift", drift).await;
    assert_eq!(
        (list, names),
        (mcpbind::ListKind::Resources, vec!["note".to_owned()])
    );
    assert_eq!(
        lines[0].kind,
        mcpbind::EntryKind::ResourceTemplate,
        "{lines:?}"
    );
    assert!(
        lines[0]
            .to_string()
            .starts_with("resource template `note` changed"),
        "{lines:?}"
    );
    let err = client.read_template(&note, &one).await.unwrap_err();
    assert!(
        err.to_string().contains("resource template `note` changed"),
        "{err}"
    );
}

/// evolving.py under `policy`, starting with the prompt's and template's
/// descriptions in the JSON file `descriptions` when it exists (a later
/// release of the server).
fn evolving_config(policy: PinPolicy, descriptions: &std::path::Path) -> Config {
    let script = util::tests_dir().join("servers/evolving.py");
    let evolving = ServerConfig::stdio("python3")
        .arg(script.display().to_string())
        .env("EVOLVING_DESCRIPTIONS", descriptions.display().to_string())
        .pin_policy(policy)
        .timeout(Duration::from_secs(60))
        .retry_backoff(Duration::ZERO);
    Config::new().server("evolving", evolving).unwrap()
}

fn evolving_release(policy: PinPolicy, descriptions: &std::path::Path) -> mcpbind::ServerConfig {
    evolving_config(policy, descriptions).servers["evolving"].clone()
}

/// Kills the server's process (as a crash or an upgrade would) and waits
/// until the client sees its connection closed.
async fn kill_server(client: &Client) {
    let pid = client.process_id().await.unwrap();
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for _ in 0..1000 {
        if !client.is_connected().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the client still says connected 10 s after its server died");
}

/// After a reconnect, the pinned prompts and resource templates are
/// compared with the lock again, as tools are: under `refuse`, a server
/// that came back with a changed prompt (template) is refused, naming it,
/// until it matches again; and a prompt refused when its list changed is
/// no longer refused once a new connection matches the lock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_templates_are_checked_again_after_a_reconnect() {
    let dir = tempfile::tempdir().unwrap();
    let descriptions = dir.path().join("descriptions.json");
    let client = Client::connect_server(
        "drift_reconnect",
        evolving_release(PinPolicy::Refuse, &descriptions),
    )
    .await
    .unwrap();
    // Prompts and a template pinned, and no tools.
    let note = pin_welcome_and_note(&client).await;
    let who = || who("Ada");
    let one = [("id", mcpbind::UriValue::String("1".into()))];
    client.get_prompt_raw("welcome", who()).await.unwrap();

    // The server comes back with another prompt: refused, with every call.
    std::fs::write(&descriptions, r#"{"welcome": "Welcomes someone warmly."}"#).unwrap();
    kill_server(&client).await;
    let err = client.get_prompt_raw("welcome", who()).await.unwrap_err();
    let Error::Drift { drift, .. } = &err else {
        panic!("expected Error::Drift, got {err:?}");
    };
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_description_changed(
        &drift[0],
        mcpbind::EntryKind::Prompt,
        "welcome",
        "prompt `welcome` changed (sha256 ",
    );
    let err = call(&client, "greet", json!({"name": "Ada"}))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Drift { .. }), "{err:?}");

    // Back as locked: the next connection is checked and used.
    std::fs::remove_file(&descriptions).unwrap();
    client.get_prompt_raw("welcome", who()).await.unwrap();

    // The same for the template.
    std::fs::write(&descriptions, r#"{"note": "A note, changed."}"#).unwrap();
    kill_server(&client).await;
    let err = client.read_template(&note, &one).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("resource template `note` changed (sha256 "),
        "{err}"
    );
    std::fs::remove_file(&descriptions).unwrap();
    client.read_template(&note, &one).await.unwrap();

    // A prompt refused when its list changed while connected...
    let mut notices = mcpbind::subscribe_notices();
    call(&client, "change_prompt", json!({})).await.unwrap();
    next_notice(&mut notices, "prompt drift", |notice| match notice {
        Notice::Drift { server, list, .. }
            if server == "drift_reconnect" && *list == mcpbind::ListKind::Prompts =>
        {
            Some(())
        }
        _ => None,
    })
    .await;
    let err = client.get_prompt_raw("welcome", who()).await.unwrap_err();
    assert!(matches!(err, Error::Drift { .. }), "{err:?}");
    // ...is got again from a server back as locked (a new process, which
    // starts with the locked prompt), once a call made the new connection.
    kill_server(&client).await;
    assert_eq!(
        call(&client, "greet", json!({"name": "Ada"}))
            .await
            .unwrap(),
        "hello Ada"
    );
    client.get_prompt_raw("welcome", who()).await.unwrap();
}

/// A generated client's `connect` compares the locked prompts and resource
/// templates with the server's too, under its `pin_policy`: a later release
/// whose prompt (template) changed is refused under `refuse`, naming it,
/// and reported under `warn`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_generated_connect_checks_the_prompts_and_templates_pinned() {
    use mcpbind_tests::evolving_lock::evolving;
    let dir = tempfile::tempdir().unwrap();
    let descriptions = dir.path().join("descriptions.json");
    let refuse = evolving_config(PinPolicy::Refuse, &descriptions);
    // As locked.
    evolving::Client::connect(&refuse).await.unwrap();

    let drift_at_connect = |config: Config| async move {
        match evolving::Client::connect(&config).await {
            Err(Error::Drift { drift, .. }) => drift,
            Err(err) => panic!("expected Error::Drift, got {err:?}"),
            Ok(_) => panic!("connected under `refuse` to a server that changed"),
        }
    };
    std::fs::write(&descriptions, r#"{"welcome": "Welcomes someone warmly."}"#).unwrap();
    let drift = drift_at_connect(refuse.clone()).await;
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_description_changed(
        &drift[0],
        mcpbind::EntryKind::Prompt,
        "welcome",
        "prompt `welcome` changed (sha256 ",
    );
    std::fs::write(&descriptions, r#"{"note": "A note, changed."}"#).unwrap();
    let drift = drift_at_connect(refuse).await;
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_description_changed(
        &drift[0],
        mcpbind::EntryKind::ResourceTemplate,
        "note",
        "resource template `note` changed (sha256 ",
    );

    // Under `warn`, it connects, and the drift is there to read.
    std::fs::write(&descriptions, r#"{"welcome": "Welcomes someone warmly."}"#).unwrap();
    let client = evolving::Client::connect(&evolving_config(PinPolicy::Warn, &descriptions))
        .await
        .unwrap();
    let drift = client
        .inner()
        .check_prompt_pins(evolving::PROMPTS)
        .await
        .unwrap();
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_description_changed(
        &drift[0],
        mcpbind::EntryKind::Prompt,
        "welcome",
        "prompt `welcome` changed",
    );
}

/// `drift` is a change of the description of the `kind` entry `name`, and
/// says so in words that start with `text`.
fn assert_description_changed(
    drift: &mcpbind::Drift,
    kind: mcpbind::EntryKind,
    name: &str,
    text: &str,
) {
    assert_eq!((drift.kind, drift.name.as_str()), (kind, name), "{drift:?}");
    let mcpbind::DriftChange::Changed { parts, .. } = &drift.change else {
        panic!("expected a changed {name}, got {drift:?}");
    };
    assert_eq!(parts, &[mcpbind::DefinitionPart::Description], "{drift:?}");
    assert!(drift.to_string().starts_with(text), "{drift}");
}

/// Pins the `welcome` prompt and the `note` template as locked, asserting
/// the server matches them; returns the template.
async fn pin_welcome_and_note(client: &Client) -> mcpbind::ResourceTemplateMeta {
    let (welcome, note) = (welcome(), note());
    assert!(client
        .check_prompt_pins(&[welcome])
        .await
        .unwrap()
        .is_empty());
    assert!(client
        .check_resource_template_pins(&[note])
        .await
        .unwrap()
        .is_empty());
    note
}

/// The arguments of the `welcome` prompt for `name`.
fn who(name: &str) -> Map<String, Value> {
    let mut arguments = Map::new();
    arguments.insert("who".into(), json!(name));
    arguments
}
