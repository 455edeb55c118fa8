//! Prompts and resource templates, locked and bound like tools: typed
//! prompts, RFC 6570 template reads and completion against
//! server-everything, the `fetch` prompt of the pinned Python fetch server,
//! and the test double serving both.

use mcpbind::protocol::{ContentBlock, GetPromptResult, ResourceContents};
use mcpbind_tests::everything::{self, prompts, resources};
use mcpbind_tests::extra::fetch;

use crate::util;

/// The text of every text message of a prompt.
fn texts(result: &GetPromptResult) -> Vec<String> {
    result
        .messages
        .iter()
        .filter_map(|m| match &m.content {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// An error and its causes, as one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The committed lockfile keeps server-everything's four prompts and two
/// templates as listed (the relock in `lock.rs` proves it byte for byte).
#[test]
fn everything_prompts_and_templates_are_locked() {
    let lock = mcpbind::Lockfile::read(util::tests_dir().join("mcpbind.lock")).unwrap();
    let everything = &lock.servers["everything"];
    let names = |entries: &[mcpbind::LockedEntry]| -> Vec<String> {
        entries.iter().map(|e| e.name.clone()).collect()
    };
    assert_eq!(
        names(&everything.prompts),
        [
            "args-prompt",
            "completable-prompt",
            "resource-prompt",
            "simple-prompt"
        ]
    );
    assert_eq!(
        names(&everything.resource_templates),
        ["Dynamic Blob Resource", "Dynamic Text Resource"]
    );
    assert!(everything.completions);
    // A server without prompts keeps its entry exactly as before.
    let demo = &lock.servers["demo"];
    assert!(demo.prompts.is_empty() && demo.resource_templates.is_empty() && !demo.completions);
    // The generated metadata is the locked one.
    assert_eq!(everything::PROMPTS.len(), 4);
    let args = &<prompts::ArgsPromptArguments as mcpbind::Prompt>::META;
    assert_eq!(args.name, "args-prompt");
    assert_eq!(args.sha256, everything.prompts[0].sha256);
    assert_eq!(
        args.arguments
            .iter()
            .map(|a| (a.name, a.required))
            .collect::<Vec<_>>(),
        [("city", true), ("state", false)]
    );
}

/// The test double serves the locked prompts and templates: its
/// implemented prompt and template answer typed calls, through the same
/// generated client (that it relocks byte for byte is in `double.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn double_serves_typed_prompts_and_templates() {
    let double = mcpbind::ServerConfig::stdio(env!("CARGO_BIN_EXE_double")).arg("everything");
    let config = mcpbind::Config::new().server("everything", double).unwrap();
    let client = everything::Client::connect(&config).await.unwrap();
    let weather = client
        .prompts()
        .args_prompt(prompts::ArgsPromptArguments::new("Lyon").with_state("Rhône"))
        .await
        .unwrap();
    assert_eq!(texts(&weather), ["What's weather in Lyon, Rhône?"]);
    let text = client
        .resources()
        .dynamic_text_resource("12")
        .await
        .unwrap();
    assert!(
        matches!(&text.contents[..], [ResourceContents::TextResourceContents { text, .. }] if text == "Resource 12 from the double"),
        "{text:?}"
    );
    let err = client
        .prompts()
        .simple_prompt(prompts::SimplePromptArguments::default())
        .await
        .unwrap_err();
    assert!(
        chain(&err).contains("prompt `simple-prompt` is not implemented by this handler"),
        "{err:?}"
    );
    let err = client
        .resources()
        .dynamic_blob_resource("1")
        .await
        .unwrap_err();
    assert!(
        chain(&err).contains(
            "resource template `Dynamic Blob Resource` is not implemented by this handler"
        ),
        "{err:?}"
    );
    client.inner().clone().close().await;
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    /// Typed prompts, template reads (text and blob), completion and
    /// `resources/list` over one connection to server-everything.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn typed_prompts_templates_and_completion_against_server_everything() {
        let dir = tempfile::tempdir().unwrap();
        let config = util::stdio_servers(dir.path());
        let client = everything::Client::connect(&config).await.unwrap();

        let weather = client
            .prompts()
            .args_prompt(prompts::ArgsPromptArguments::new("Paris"))
            .await
            .unwrap();
        assert_eq!(texts(&weather), ["What's weather in Paris?"]);
        let weather = client
            .prompts()
            .args_prompt(prompts::ArgsPromptArguments::new("Austin").with_state("TX"))
            .await
            .unwrap();
        assert_eq!(texts(&weather), ["What's weather in Austin, TX?"]);
        let simple = client
            .prompts()
            .simple_prompt(prompts::SimplePromptArguments::default())
            .await
            .unwrap();
        assert!(!texts(&simple).is_empty());

        assert_eq!(
            resources::dynamic_text_resource_uri("7"),
            "demo://resource/dynamic/text/7"
        );
        // A value is percent-encoded as `{var}` says (the server then refuses
        // the id, which must be an integer: the URI is what matters).
        assert_eq!(
            resources::dynamic_text_resource_uri("a/b c"),
            "demo://resource/dynamic/text/a%2Fb%20c"
        );
        let text = client.resources().dynamic_text_resource("7").await.unwrap();
        match &text.contents[..] {
            [ResourceContents::TextResourceContents { uri, text, .. }] => {
                assert_eq!(uri, "demo://resource/dynamic/text/7");
                assert!(text.starts_with("Resource 7: "), "{text}");
            }
            other => panic!("expected one text content, got {other:?}"),
        }
        let blob = client.resources().dynamic_blob_resource("7").await.unwrap();
        assert!(
            matches!(&blob.contents[..], [ResourceContents::BlobResourceContents { blob, .. }] if !blob.is_empty()),
            "{blob:?}"
        );

        let completion = client
            .prompts()
            .complete_completable_prompt(prompts::CompletablePromptArgument::Department, "E", &[])
            .await
            .unwrap();
        assert_eq!(completion.values, ["Engineering"]);

        let listed = client.resources().list().await.unwrap();
        assert!(
            listed.iter().any(|r| r.name == "architecture.md"),
            "{listed:?}"
        );

        // The untyped call without a required argument reaches the server,
        // which refuses it; the typed one can't be written (compile-fail test).
        let err = client
            .inner()
            .get_prompt_raw("args-prompt", Default::default())
            .await
            .unwrap_err();
        let text = chain(&err);
        assert!(
            text.starts_with("request `prompts/get args-prompt` to server `everything` failed: ")
                && text.contains("city"),
            "{text}"
        );
        client.inner().clone().close().await;
    }

    /// The Python fetch server's `fetch` prompt: locked (reproducibly, with
    /// its required `url`), bound by `mcp_tools!`, and called typed. A private
    /// address is refused by the server without network access, and the
    /// refusal is the prompt's text.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn fetch_server_prompt_is_locked_and_typed() {
        let dir = tempfile::tempdir().unwrap();
        let command = util::servers_dir().join(".venv/bin/mcp-server-fetch");
        let toml = format!(
            "[servers.fetch]\ncommand = {}\n",
            util::toml_str(&command.display().to_string())
        );
        std::fs::write(dir.path().join("mcpbind.toml"), &toml).unwrap();
        let out = util::mcpbind(dir.path(), &["lock"]);
        assert_eq!(out.code, Some(0), "{out:?}");
        let lock = std::fs::read_to_string(dir.path().join("mcpbind.lock")).unwrap();
        util::assert_golden(&util::tests_dir().join("prompts.lock"), &lock);

        let meta = &<fetch::prompts::FetchArguments as mcpbind::Prompt>::META;
        assert_eq!(
            meta.arguments
                .iter()
                .map(|a| (a.name, a.required))
                .collect::<Vec<_>>(),
            [("url", true)]
        );

        let config = mcpbind::Config::from_toml_str(&toml).unwrap();
        let client = fetch::Client::connect(&config).await.unwrap();
        let page = client
            .prompts()
            .fetch(fetch::prompts::FetchArguments::new("http://127.0.0.1:9/"))
            .await
            .unwrap();
        let text = texts(&page).join("\n");
        assert!(text.contains("127.0.0.1"), "{text}");
        client.inner().clone().close().await;
    }
}
