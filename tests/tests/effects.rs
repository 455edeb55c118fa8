//! Effects in the types (`annotations = "enforce"`): against the demo
//! server, a typed call of a tool that may modify things goes only with the
//! approval of its input, from the program's approval policy; the toolbox
//! applies the same policy to a model's calls. (That such a call does not
//! compile without an approval is `compile-fail/unapproved_*.rs`.)

use std::sync::{Arc, Mutex};

use mcpbind::{Approvals, CallError, CallRequest, CallSource, Config, Error, Toolbox, Verdict};
use mcpbind_tests::enforced::demo::{self, tools, types};
use serde_json::json;

use crate::util;

/// The test servers, the demo server's annotations enforced: the config
/// `enforced::demo` was generated with (tests/enforce.toml).
fn config(dir: &std::path::Path) -> Config {
    let mut config = advised(dir);
    let demo = config.servers.get_mut("demo").unwrap();
    demo.annotations = mcpbind::Annotations::Enforce;
    config
}

/// The test servers as configured, each advise-mode (the default).
fn advised(dir: &std::path::Path) -> Config {
    util::stdio_servers(dir)
}

/// A policy that approves deleting item `1`, amends `two` to `2` and
/// refuses anything else, recording what it was asked.
fn policy(asked: Arc<Mutex<Vec<CallRequest>>>) -> Approvals {
    let mut policy = Approvals::new();
    policy.with_approval(move |call: CallRequest| {
        asked.lock().unwrap().push(call.clone());
        async move {
            match call.arguments["id"].as_str() {
                Some("1") => Verdict::Approve,
                Some("two") => Verdict::Amend {
                    arguments: json!({"id": "2"}),
                },
                _ => Verdict::refuse("only items 1 and 2"),
            }
        }
    });
    policy
}

fn unapproved_reason(result: mcpbind::Result<impl std::fmt::Debug>) -> String {
    match result {
        Err(Error::Unapproved {
            server,
            tool,
            reason,
        }) => {
            assert_eq!((server.as_str(), tool.as_str()), ("demo", "delete_item"));
            reason
        }
        other => panic!("not refused as unapproved: {other:?}"),
    }
}

/// With no approval policy, a model's call of `delete_item` is refused and
/// never sent; `add` (read-only) goes.
async fn refuses_deleting_but_adds(toolbox: &Toolbox) {
    let call = toolbox.call("demo_delete_item", r#"{"id": "1"}"#).await;
    let Err(CallError::Refused { reason }) = &call.outcome else {
        panic!("{:?}", call.outcome)
    };
    assert!(reason.contains("needs an approval"), "{reason}");
    assert_eq!(call.attempts, 0);
    let call = toolbox.call("demo_add", r#"{"a": 2, "b": 40}"#).await;
    assert!(call.outcome.is_ok(), "{:?}", call.outcome);
}

/// The message of bindings generated under `bindings`, connected with a
/// config that says `config`, and its help.
fn mismatch(bindings: &str, config: &str) -> (String, String) {
    (
        format!("server `demo`: the bindings were generated with `annotations = \"{bindings}\"`, but the config connecting them says `annotations = \"{config}\"`"),
        format!("regenerate the bindings with this config (`annotations = \"{config}\"` for server `demo`): rebuild, as a build.rs and `mcp_tools!` read the mcpbind.toml beside the lockfile (or name it: `Builder::config`, `mcp_tools!(config = \"…\")`); checked-in bindings: `mcpbind generate --config <this config> --out <the file>`"),
    )
}

fn assert_mismatch(err: &Error, bindings: mcpbind::Annotations, config: mcpbind::Annotations) {
    let Error::AnnotationsMismatch {
        server,
        bindings: b,
        config: c,
    } = err
    else {
        panic!("not refused for its annotations mode: {err:?}")
    };
    assert_eq!((server.as_str(), *b, *c), ("demo", bindings, config));
    let (message, help) = mismatch(bindings.name(), config.name());
    assert_eq!(err.to_string(), message);
    assert_eq!(err.help().unwrap(), help);
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// A typed call of an enforced tool goes with its input's approval
    /// (as asked, amended), and not with a refusal, another input's
    /// approval, no policy or the untyped way round; a read-only tool is
    /// called as before.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn typed_calls_of_enforced_tools_take_the_approval_of_their_input() {
        let dir = tempfile::tempdir().unwrap();
        let client = demo::Client::connect(&config(dir.path())).await.unwrap();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let policy = policy(Arc::clone(&asked));

        approved_as_asked(&client, &policy, &asked).await;
        amended(&client, &policy).await;
        refused_or_unapproved(&client, &policy).await;

        // A read-only tool is called as before.
        let sum = client.add(types::AddInput::new(2, 40)).await.unwrap();
        assert_eq!(sum.output.sum, 42);
        assert_eq!(
            asked.lock().unwrap().len(),
            4,
            "the four reviews above, no more"
        );
    }

    /// An approval of the input as given: the call goes, and the policy was
    /// asked with the call's server, tool, arguments and annotations.
    async fn approved_as_asked(
        client: &demo::Client,
        policy: &Approvals,
        asked: &Mutex<Vec<CallRequest>>,
    ) {
        let input = types::DeleteItemInput::new("1");
        let ok = policy.approve(tools::DeleteItem, &input).await.unwrap();
        let done = client.delete_item(input, ok).await.unwrap();
        assert_eq!(done.text(), "deleted 1");
        {
            let asked = asked.lock().unwrap();
            let request = &asked[0];
            assert_eq!(request.source, CallSource::Typed);
            assert_eq!(
                (request.server.as_str(), request.tool.as_str()),
                ("demo", "delete_item")
            );
            assert_eq!(request.arguments, json!({"id": "1"}));
            assert!(request.destructive && !request.read_only && request.idempotent);
        }
    }

    /// An amend decides what is sent, for the input that was reviewed; the
    /// event shows what was sent.
    async fn amended(client: &demo::Client, policy: &Approvals) {
        let mut events = mcpbind::subscribe_events();
        let input = types::DeleteItemInput::new("two");
        let ok = policy.approve(tools::DeleteItem, &input).await.unwrap();
        assert_eq!(ok.arguments(), &json!({"id": "2"}));
        assert_eq!(
            client.delete_item(input, ok).await.unwrap().text(),
            "deleted 2"
        );

        let sent = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            loop {
                // Typed calls of `delete_item` elsewhere in this binary delete
                // item 1 (the toolbox test's are the toolbox's).
                let event = events.recv().await.unwrap();
                if (event.tool.as_str(), event.source) == ("delete_item", CallSource::Typed)
                    && event.arguments != json!({"id": "1"})
                {
                    return event.arguments.clone();
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(sent, json!({"id": "2"}));
    }

    /// A refusal, another input's approval, no policy, and the untyped
    /// calls: each is `Error::Unapproved`, saying why.
    async fn refused_or_unapproved(client: &demo::Client, policy: &Approvals) {
        // A refusal is the policy's reason.
        let refused = policy
            .approve(tools::DeleteItem, &types::DeleteItemInput::new("3"))
            .await;
        assert_eq!(unapproved_reason(refused), "only items 1 and 2");

        // An approval is for the input it was given for.
        let ok = policy
            .approve(tools::DeleteItem, &types::DeleteItemInput::new("1"))
            .await
            .unwrap();
        let other = client
            .delete_item(types::DeleteItemInput::new("4"), ok)
            .await;
        assert!(unapproved_reason(other).contains("other arguments"));

        // A policy with no approval approves nothing.
        let none = Approvals::new()
            .approve(tools::DeleteItem, &types::DeleteItemInput::new("1"))
            .await;
        assert!(unapproved_reason(none).contains("no approval policy"));

        // The untyped way round is closed too.
        let bypass = client
            .inner()
            .call::<tools::DeleteItem>(&types::DeleteItemInput::new("1"))
            .await;
        assert!(unapproved_reason(bypass).contains("generated method"));
        let task = client
            .inner()
            .start_typed_task::<tools::DeleteItem>(
                &types::DeleteItemInput::new("1"),
                &mcpbind::CallOptions::default(),
            )
            .await;
        assert!(unapproved_reason(task).contains("generated method"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_toolbox_applies_the_same_policy() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let mut toolbox = Toolbox::new();
        toolbox
            .add(demo::Client::connect(&config).await.unwrap())
            .unwrap();

        // Without an approval, a model's call of an enforced tool is refused
        // and never sent; a read-only tool goes.
        refuses_deleting_but_adds(&toolbox).await;

        // Bound without `enforce` and so configured, the same tool goes
        // unreviewed, as before.
        let mut advised = Toolbox::new();
        let advise_config = self::advised(dir.path());
        advised
            .add(
                mcpbind_tests::demo::Client::connect(&advise_config)
                    .await
                    .unwrap(),
            )
            .unwrap();
        let call = advised.call("demo_delete_item", r#"{"id": "9"}"#).await;
        assert_eq!(call.for_model().text, "deleted 9");

        // One policy: the model's calls and the program's own.
        let asked = Arc::new(Mutex::new(Vec::new()));
        toolbox.with_approvals(&policy(Arc::clone(&asked)));
        let call = toolbox.call("demo_delete_item", r#"{"id": "two"}"#).await;
        assert_eq!(call.for_model().text, "deleted 2");
        let call = toolbox.call("demo_delete_item", r#"{"id": "9"}"#).await;
        assert!(matches!(call.outcome, Err(CallError::Refused { .. })));
        let input = types::DeleteItemInput::new("1");
        let ok = toolbox
            .approvals()
            .approve(tools::DeleteItem, &input)
            .await
            .unwrap();
        let client = demo::Client::connect(&config).await.unwrap();
        assert_eq!(
            client.delete_item(input, ok).await.unwrap().text(),
            "deleted 1"
        );
        let asked = asked.lock().unwrap();
        let sources: Vec<CallSource> = asked.iter().map(|r| r.source).collect();
        assert_eq!(
            sources,
            [CallSource::Toolbox, CallSource::Toolbox, CallSource::Typed]
        );
        assert_eq!(asked[0].name, "demo_delete_item");
    }

    /// A server added unlocked has no bindings to take approvals: under
    /// `annotations = "enforce"` in its config, the toolbox asks the policy
    /// before a model's call of a tool whose live annotations say it may
    /// modify things, as it does for an enforced binding.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn unlocked_tools_of_an_enforced_server_take_an_approval_too() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let mut toolbox = Toolbox::new();
        let client = mcpbind::Client::connect(&config, "demo").await.unwrap();
        toolbox.add_unlocked(client).await.unwrap();

        refuses_deleting_but_adds(&toolbox).await;

        let asked = Arc::new(Mutex::new(Vec::new()));
        toolbox.with_approvals(&policy(Arc::clone(&asked)));
        let call = toolbox.call("demo_delete_item", r#"{"id": "two"}"#).await;
        assert_eq!(call.for_model().text, "deleted 2");
        let asked = asked.lock().unwrap();
        assert!(asked[0].unlocked && asked[0].name == "demo_delete_item");
    }

    /// Bindings record the `annotations` mode they were generated under;
    /// connecting them with a config whose server says another is refused,
    /// before the server is started, whether the bindings came from a build
    /// script (`mcpbind_tests::demo`) or `mcp_tools!` (`via_macro`,
    /// `enforced`). Advise bindings under an enforce config would call
    /// `delete_item` with no approval.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bindings_of_another_annotations_mode_are_refused_at_connect() {
        use mcpbind::Annotations::{Advise, Enforce};
        let dir = tempfile::tempdir().unwrap();
        let (enforce, advise) = (config(dir.path()), advised(dir.path()));
        assert_eq!(mcpbind_tests::demo::Client::ANNOTATIONS, Advise);
        assert_eq!(mcpbind_tests::via_macro::demo::Client::ANNOTATIONS, Advise);
        assert_eq!(demo::Client::ANNOTATIONS, Enforce);

        let err = mcpbind_tests::demo::Client::connect(&enforce)
            .await
            .unwrap_err();
        assert_mismatch(&err, Advise, Enforce);
        let err = mcpbind_tests::via_macro::demo::Client::connect(&enforce)
            .await
            .unwrap_err();
        assert_mismatch(&err, Advise, Enforce);
        let err = demo::Client::connect(&advise).await.unwrap_err();
        assert_mismatch(&err, Enforce, Advise);

        // The modes agree: connected, and the enforced one still takes its
        // approval.
        let client = demo::Client::connect(&enforce).await.unwrap();
        let input = types::DeleteItemInput::new("1");
        unapproved_reason(client.inner().call::<tools::DeleteItem>(&input).await);
        mcpbind_tests::demo::Client::connect(&advise).await.unwrap();
    }

    /// The toolbox is the same backstop: bindings wrapped around a client
    /// connected with a config of another mode (`from_client`, which does not
    /// check) are refused by `Toolbox::add`, with the same message.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_toolbox_refuses_bindings_of_another_annotations_mode() {
        use mcpbind::Annotations::{Advise, Enforce};
        let dir = tempfile::tempdir().unwrap();
        let enforce = config(dir.path());
        let untyped = mcpbind::Client::connect(&enforce, "demo").await.unwrap();
        let advised = mcpbind_tests::demo::Client::from_client(untyped.clone());
        let err = Toolbox::new().add(advised).map(|_| ()).unwrap_err();
        let mcpbind::ToolboxError::AnnotationsMismatch {
            server,
            bindings,
            config,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(
            (server.as_str(), *bindings, *config),
            ("demo", Advise, Enforce)
        );
        let (message, help) = mismatch("advise", "enforce");
        assert_eq!(err.to_string(), message);
        assert_eq!(err.help().unwrap(), help);
        // The enforced bindings around the same client are added.
        Toolbox::new()
            .add(demo::Client::from_client(untyped))
            .unwrap();
    }
}
