//! Typed calls through the generated bindings, against real servers.

use std::time::{Duration, Instant};

use mcpbind::{Config, Error, ServerConfig};
use mcpbind_tests::{demo, everything, filesystem, memory};

use crate::util;

fn config(dir: &std::path::Path) -> Config {
    Config::from_toml_str(&util::stdio_config(dir)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_over_streamable_http() {
    let server = util::demo_http();
    let config = Config::new()
        .server("demo", ServerConfig::http(server.url.as_str()))
        .unwrap();
    let demo = demo::Client::connect(&config).await.unwrap();
    let sum = demo
        .add(demo::types::AddInput { a: -5, b: 3 })
        .await
        .unwrap();
    assert_eq!(sum.output.sum, -2);
    let err = demo
        .fail(demo::types::FailInput {
            message: "over http".into(),
        })
        .await
        .unwrap_err();
    assert!(err.to_string().ends_with("over http"));
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// Each kind of input and output the demo server's tools have, through
    /// the generated bindings over stdio: integers, defaults, nested
    /// structs and lists, enums, tagged unions, maps, and `isError`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn demo_over_stdio() {
        let dir = tempfile::tempdir().unwrap();
        let demo = demo::Client::connect(&config(dir.path())).await.unwrap();

        let sum = demo
            .add(demo::types::AddInput { a: 2, b: 40 })
            .await
            .unwrap();
        assert_eq!(sum.output.sum, 42);

        echo_and_its_default(&demo).await;
        create_order_with_nested_structs(&demo).await;
        enums_unions_and_maps(&demo).await;

        // `isError` results are errors that name server and tool and keep the text.
        let err = demo
            .fail(demo::types::FailInput {
                message: "nope".into(),
            })
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Tool { .. }), "{err:?}");
        assert_eq!(err.to_string(), "tool `demo.fail` returned an error: nope");
    }

    /// `echo` with `repeat`, and with the default its constructor fills in;
    /// a constructor leaves an optional field without a default empty.
    async fn echo_and_its_default(demo: &demo::Client) {
        let echo = demo
            .echo(demo::types::EchoInput {
                message: "hi".into(),
                repeat: Some(3),
            })
            .await
            .unwrap();
        assert_eq!(echo.text(), "hi hi hi");
        // The constructor fills `repeat` with the schema's default (1).
        let echo = demo
            .echo(demo::types::EchoInput::new("once"))
            .await
            .unwrap();
        assert_eq!(echo.text(), "once");
        let create = demo::types::CreateOrderInput::new(
            demo::types::Customer {
                name: "Bo".into(),
                email: None,
            },
            vec![],
        );
        assert_eq!(create.note, None);
    }

    /// `create_order`: a nested struct and a list of them in, structured
    /// output and text out.
    async fn create_order_with_nested_structs(demo: &demo::Client) {
        let order = demo
            .create_order(demo::types::CreateOrderInput {
                customer: demo::types::Customer {
                    name: "Ada".into(),
                    email: None,
                },
                items: vec![
                    demo::types::LineItem {
                        sku: "a".into(),
                        quantity: 3,
                    },
                    demo::types::LineItem {
                        sku: "b".into(),
                        quantity: 4,
                    },
                ],
                note: Some("fragile".into()),
            })
            .await
            .unwrap();
        assert_eq!(order.output.total_units, 7);
        assert_eq!(order.output.order_id, "ord-7");
        assert_eq!(order.text(), "order for Ada: 2 items, 7 units");
    }

    /// An enum in (`set_mode`), a tagged union in (`draw_shape`), an enum
    /// out (`get_weather`), a map in and its keys out (`tag_counts`).
    async fn enums_unions_and_maps(demo: &demo::Client) {
        let mode = demo
            .set_mode(demo::types::SetModeInput {
                mode: demo::types::Mode::SlowMode,
            })
            .await
            .unwrap();
        assert_eq!(mode.text(), "mode set to slow mode");

        let area = demo
            .draw_shape(demo::types::DrawShapeInput {
                shape: demo::types::Shape::Rect {
                    width: 2.0,
                    height: 3.5,
                },
            })
            .await
            .unwrap();
        assert_eq!(area.output.area, 7.0);

        let weather = demo
            .get_weather(demo::types::GetWeatherInput {
                city: "Oslo".into(),
                units: Some(demo::types::Units::Fahrenheit),
            })
            .await
            .unwrap();
        assert_eq!(weather.output.city, "Oslo");
        assert_eq!(weather.output.units, demo::types::Units::Fahrenheit);

        let counts = demo
            .tag_counts(demo::types::TagCountsInput {
                counts: [("a".to_owned(), 2), ("b".to_owned(), 5)].into(),
                labels: None,
            })
            .await
            .unwrap();
        assert_eq!(counts.output.total, 7);
        assert_eq!(counts.output.keys, ["a", "b"]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn timeout_cancels_the_call_on_the_wire() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        config.servers.get_mut("demo").unwrap().timeout = Duration::from_millis(300);
        let demo = demo::Client::connect(&config).await.unwrap();
        let started = Instant::now();
        let err = demo
            .sleep(demo::types::SleepInput { millis: 20_000 })
            .await
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            err.to_string(),
            "call to `demo.sleep` timed out after 300ms"
        );
        // The server saw `notifications/cancelled` (it says so on stderr), and the
        // connection is still good.
        let mut cancelled = false;
        for _ in 0..100 {
            if demo
                .inner()
                .stderr_tail()
                .await
                .is_some_and(|t| t.contains("sleep cancelled"))
            {
                cancelled = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(cancelled, "the server never saw the cancellation");
        let sum = demo
            .add(demo::types::AddInput { a: 1, b: 1 })
            .await
            .unwrap();
        assert_eq!(sum.output.sum, 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dead_server_shows_stderr_and_reconnects() {
        let dir = tempfile::tempdir().unwrap();
        let demo = demo::Client::connect(&config(dir.path())).await.unwrap();
        let err = demo
            .crash(demo::types::CrashInput { code: 7 })
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("server `demo` closed the connection (exit status: 7)"),
            "{text}"
        );
        assert!(text.contains("demo server crashing on purpose"), "{text}");
        // The next call starts the server again.
        let sum = demo
            .add(demo::types::AddInput { a: 20, b: 1 })
            .await
            .unwrap();
        assert_eq!(sum.output.sum, 21);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn everything_over_stdio_http_and_sse() {
        let dir = tempfile::tempdir().unwrap();
        let http = util::everything_http();
        let twenty = Duration::from_secs(20);
        let over_http = Config::new()
            .server(
                "everything",
                ServerConfig::http(http.url.as_str()).timeout(twenty),
            )
            .unwrap();
        let sse = util::everything_sse();
        let over_sse = Config::new()
            .server(
                "everything",
                ServerConfig::sse(sse.url.as_str()).timeout(twenty),
            )
            .unwrap();
        for config in [config(dir.path()), over_http, over_sse] {
            let everything = everything::Client::connect(&config).await.unwrap();
            let echo = everything
                .echo(everything::types::EchoInput {
                    message: "typed".into(),
                })
                .await
                .unwrap();
            assert_eq!(echo.text(), "Echo: typed");

            let sum = everything
                .get_sum(everything::types::GetSumInput { a: 1.5, b: 2.0 })
                .await
                .unwrap();
            assert!(sum.text().contains("3.5"), "{}", sum.text());

            let weather = everything
                .get_structured_content(everything::types::GetStructuredContentInput {
                    location: everything::types::GetStructuredContentInputLocation::NewYork,
                })
                .await
                .unwrap();
            assert!(weather.output.humidity >= 0.0);
            assert!(!weather.output.conditions.is_empty());
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn filesystem_and_memory() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let fs = filesystem::Client::connect(&config).await.unwrap();
        let path = dir.path().join("files/hello.txt").display().to_string();
        fs.write_file(filesystem::types::WriteFileInput {
            path: path.clone(),
            content: "typed bindings\n".into(),
        })
        .await
        .unwrap();
        let read = fs
            .read_text_file(filesystem::types::ReadTextFileInput {
                path,
                head: None,
                tail: None,
            })
            .await
            .unwrap();
        assert_eq!(read.output.content, "typed bindings\n");
        let dirs = fs
            .list_allowed_directories(Default::default())
            .await
            .unwrap();
        assert!(dirs.text().contains("files"), "{}", dirs.text());

        let memory = memory::Client::connect(&config).await.unwrap();
        memory
            .create_entities(memory::types::CreateEntitiesInput {
                entities: vec![memory::types::Entity {
                    name: "mcpbind".into(),
                    entity_type: "project".into(),
                    observations: vec!["binds MCP tools".into()],
                }],
            })
            .await
            .unwrap();
        let graph = memory.read_graph(Default::default()).await.unwrap();
        assert_eq!(graph.output.entities.len(), 1);
        assert_eq!(graph.output.entities[0].name, "mcpbind");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn python_time_server() {
        let dir = tempfile::tempdir().unwrap();
        let time = mcpbind_tests::time::Client::connect(&config(dir.path()))
            .await
            .unwrap();
        let now = time
            .get_current_time(mcpbind_tests::time::types::GetCurrentTimeInput {
                timezone: "UTC".into(),
            })
            .await
            .unwrap();
        assert_eq!(now.output.timezone, "UTC");
        assert!(!now.output.is_dst);
        let converted = time
            .convert_time(mcpbind_tests::time::types::ConvertTimeInput {
                source_timezone: "UTC".into(),
                time: "12:00".into(),
                target_timezone: "Asia/Tokyo".into(),
            })
            .await
            .unwrap();
        assert!(
            converted.output.target.datetime.contains("T21:00"),
            "{:?}",
            converted.output
        );
    }

    /// What types can't say (`maximum: 10`) is checked against the locked schema
    /// before the call is sent, with the JSON pointer and the rule.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn arguments_are_validated_against_the_locked_schema() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        let everything = everything::Client::connect(&config).await.unwrap();
        let err = everything
            .get_resource_links(everything::types::GetResourceLinksInput { count: Some(30.0) })
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid arguments for `everything.get-resource-links`: /count: 30.0 is greater than the maximum of 10 (checked against the locked inputSchema; the call was not sent)"
        );
        // The same as data: where, which keyword.
        let Error::Arguments { violations, .. } = &err else {
            panic!("expected Error::Arguments, got {err:?}");
        };
        assert_eq!(
            violations
                .iter()
                .map(|v| (v.pointer.as_str(), v.keyword.as_str()))
                .collect::<Vec<_>>(),
            [("/count", "maximum")]
        );
        let ok = everything
            .get_resource_links(everything::types::GetResourceLinksInput { count: Some(2.0) })
            .await
            .unwrap();
        assert_eq!(ok.content.len(), 3, "{:?}", ok.content);

        // Switched off, the call goes out and the server answers for itself.
        config.servers.get_mut("everything").unwrap().validate_input = false;
        let everything = everything::Client::connect(&config).await.unwrap();
        let err = everything
            .get_resource_links(everything::types::GetResourceLinksInput { count: Some(30.0) })
            .await
            .unwrap_err();
        assert!(!err.to_string().contains("the call was not sent"), "{err}");
    }

    /// The generated client compares the live tools with the locked hashes at
    /// connect: `warn` reports, `refuse` fails.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn pins_catch_a_tool_changed_since_it_was_locked() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = config(dir.path());
        let client = demo::Client::connect(&config).await.unwrap();
        assert!(client
            .inner()
            .check_pins(demo::TOOLS)
            .await
            .unwrap()
            .is_empty());

        // The lock says `add` had another definition.
        let mut tampered = demo::TOOLS.to_vec();
        let add = <demo::tools::Add as mcpbind::Tool>::META;
        let mut changed = add;
        let definition = add
            .definition
            .replace("Add two integers", "Add two numbers");
        assert_ne!(definition, add.definition);
        changed.definition = Box::leak(definition.into_boxed_str());
        tampered[0] = changed;
        let drift = client.inner().check_pins(&tampered).await.unwrap();
        assert_eq!(drift.len(), 1);
        assert_eq!(
            (drift[0].kind, drift[0].name.as_str()),
            (mcpbind::EntryKind::Tool, "add")
        );
        assert_eq!(drift[0].parts(), [mcpbind::DefinitionPart::Description]);
        let mcpbind::DriftChange::Changed {
            locked_sha256,
            changes,
            ..
        } = &drift[0].change
        else {
            panic!("{drift:?}");
        };
        assert_eq!(locked_sha256, &changed.sha256());
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].pointer, "/description");
        let was = |value: &Option<serde_json::Value>| {
            value.as_ref().and_then(|v| v.as_str()).map(str::to_owned)
        };
        assert!(
            was(&changes[0].old).unwrap().contains("Add two numbers"),
            "{changes:?}"
        );
        assert!(
            was(&changes[0].new).unwrap().contains("Add two integers"),
            "{changes:?}"
        );
        let locked = &changed.sha256()[..12];
        assert!(
            drift[0]
                .to_string()
                .starts_with(&format!("tool `add` changed (sha256 {locked} locked, ")),
            "{drift:?}"
        );

        config.servers.get_mut("demo").unwrap().pin_policy = mcpbind::PinPolicy::Refuse;
        let strict = mcpbind::Client::connect(&config, "demo").await.unwrap();
        let err = strict.check_pins(&tampered).await.unwrap_err();
        assert!(
            err.to_string()
                .starts_with("server `demo` changed since it was locked: tool `add` changed"),
            "{err}"
        );
        assert!(!err.to_string().contains("help:"), "{err}");
        assert_eq!(
            err.help().as_deref(),
            Some("review with `mcpbind diff demo`, then run `mcpbind lock demo` and rebuild")
        );
    }

    /// Dropping a client kills its server's process, and the process is reaped
    /// (no zombie left behind).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_client_kills_and_reaps_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let demo = demo::Client::connect(&config(dir.path())).await.unwrap();
        let pid = demo
            .inner()
            .process_id()
            .await
            .expect("a stdio server has a pid");
        let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
        assert!(proc_dir.exists());
        drop(demo);
        let mut gone = false;
        for _ in 0..200 {
            if !proc_dir.exists() {
                gone = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let state = std::fs::read_to_string(proc_dir.join("stat")).unwrap_or_default();
        assert!(
            gone,
            "process {pid} still exists after the client was dropped: {state}"
        );
    }

    /// A typed call's future is `Send` (an agent spawns it on a runtime) and
    /// borrows nothing but the client: checked by the compiler.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn typed_calls_can_be_spawned() {
        let dir = tempfile::tempdir().unwrap();
        let demo = demo::Client::connect(&config(dir.path())).await.unwrap();
        let input = demo::types::AddInput::new(2, 40);
        let call = tokio::spawn(async move { demo.add(input).await.map(|r| r.output) });
        assert_eq!(call.await.unwrap().unwrap().sum, 42);
    }
}
