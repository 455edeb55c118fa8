//! Test doubles from the generated `Handler` traits list exactly the tools
//! (prompts, resource templates) of the real servers, and answer typed
//! calls.

use crate::util;
use mcpbind_tests::demo;

#[test]
fn double_lists_the_real_servers_tools_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let double = util::toml_str(env!("CARGO_BIN_EXE_double"));
    std::fs::write(
        dir.path().join("mcpbind.toml"),
        format!(
            "[servers.demo]\ncommand = {double}\nargs = [\"demo\"]\n\n[servers.everything]\ncommand = {double}\nargs = [\"everything\"]\n"
        ),
    )
    .unwrap();
    let out = util::mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let relocked = mcpbind::Lockfile::read(dir.path().join("mcpbind.lock")).unwrap();
    let real = mcpbind::Lockfile::read(util::tests_dir().join("mcpbind.lock")).unwrap();
    for server in ["demo", "everything"] {
        // Tools, prompts and resource templates, as locked.
        let text = |lock: &mcpbind::Lockfile| {
            let s = &lock.servers[server];
            serde_json::to_string_pretty(&(
                &s.tools,
                &s.prompts,
                &s.resource_templates,
                s.completions,
            ))
            .unwrap()
        };
        assert!(
            text(&real) == text(&relocked),
            "the {server} double lists different tools"
        );
        assert_eq!(
            relocked.servers[server].server_info,
            real.servers[server].server_info
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_answers_typed_calls() {
    let double = mcpbind::ServerConfig::stdio(env!("CARGO_BIN_EXE_double")).arg("demo");
    let config = mcpbind::Config::new().server("demo", double).unwrap();
    let client = demo::Client::connect(&config).await.unwrap();
    let sum = client
        .add(demo::types::AddInput { a: 20, b: 22 })
        .await
        .unwrap();
    assert_eq!(sum.output.sum, 42);
    assert!(sum.structured_content.is_some());
    let echo = client
        .echo(demo::types::EchoInput {
            message: "x".into(),
            repeat: Some(2),
        })
        .await
        .unwrap();
    assert_eq!(echo.text(), "x x");
    let err = client
        .sleep(demo::types::SleepInput { millis: 1 })
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `demo.sleep` returned an error: tool `sleep` is not implemented by this handler"
    );
}
