//! What the model gets back, per provider and content kind, against real
//! servers: server-everything's image and resource tools, and
//! server-filesystem's `read_media_file` on images, audio and other files.
//! The expected shapes are restated here from each provider's documentation
//! (cited in core/src/toolbox/content.rs), not imported from it.

use base64::Engine as _;
use mcpbind::{
    CallRequest, ContentKind, Placement, Provider, ProviderResult, RequestLimit, Toolbox, Verdict,
};
use mcpbind_tests::{demo, everything, filesystem};
use serde_json::json;

use crate::util;

fn config(dir: &std::path::Path) -> mcpbind::Config {
    util::stdio_servers(dir)
}

async fn everything_and_filesystem(config: &mcpbind::Config) -> Toolbox {
    let mut tools = Toolbox::new();
    tools
        .add(everything::Client::connect(config).await.unwrap())
        .unwrap();
    tools
        .add(filesystem::Client::connect(config).await.unwrap())
        .unwrap();
    tools
}

fn placements(result: &ProviderResult) -> Vec<(ContentKind, Placement)> {
    result.notes.iter().map(|n| (n.kind, n.placement)).collect()
}

fn data_url(mime: &str, data: &str) -> String {
    format!("data:{mime};base64,{data}")
}

/// Writes `name` under the filesystem server's root; returns its path.
fn media_file(dir: &std::path::Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join("files").join(name);
    std::fs::write(&path, bytes).unwrap();
    path.canonicalize().unwrap().display().to_string()
}

// ---------------------------------------------------------------------------
// rig

// ---------------------------------------------------------------------------
// Approval

// ---------------------------------------------------------------------------
// Request limits

#[test]
fn limits_are_reported_and_a_subset_is_picked() {
    let config = mcpbind::Config::from_toml_str(
        "[servers.demo]\ncommand = \"never-run\"\n[servers.everything]\ncommand = \"never-run\"\n",
    )
    .unwrap();
    // 200 copies of the demo server's tools, under prefixes of their own.
    let mut tools = Toolbox::new();
    for i in 0..12 {
        let mut server = config.servers["demo"].clone();
        server.tool_prefix = Some(format!("d{i}"));
        let client = mcpbind::Client::lazy(&format!("demo{i}"), server);
        tools
            .add_client(
                std::sync::Arc::new(client),
                <demo::Client as mcpbind::BoundServer>::ENTRIES,
            )
            .unwrap();
    }
    assert_eq!(tools.tool_count(), 144);
    let openai = tools.openai_tools(mcpbind::OpenAiShape::ChatCompletions, false);
    assert_eq!(openai.exceeded.len(), 1);
    assert_eq!(openai.exceeded[0].limit, RequestLimit::OpenAiFunctions);
    assert_eq!(
        (openai.exceeded[0].max, openai.exceeded[0].actual),
        (128, 144)
    );
    let gemini = tools.gemini_declarations();
    assert_eq!(
        gemini.exceeded[0].limit,
        RequestLimit::GeminiFunctionDeclarations
    );
    assert!(tools.anthropic_tools().exceeded.is_empty());

    // Hold back what is destructive: the rest fits.
    let destructive = tools.tool_facts().iter().filter(|t| t.destructive).count();
    assert_eq!(tools.hold_back_where(|t| t.destructive), destructive);
    assert!(destructive > 0);
    assert_eq!(tools.tool_count(), 144 - destructive);
    assert!(tools.names().iter().all(|n| !n.ends_with("_delete_item")));
    let by_server = tools.hold_back_where(|t| t.server != "demo0" && t.server != "demo1");
    assert_eq!(by_server, 120);
    let fits = tools.openai_tools(mcpbind::OpenAiShape::Responses, false);
    assert!(fits.exceeded.is_empty(), "{:?}", fits.exceeded);
    // By name, back again.
    assert_eq!(tools.enable_where(|t| t.tool == "delete_item"), 12);
    assert!(tools.names().contains(&"d0_delete_item"));
}

// ---------------------------------------------------------------------------
// Resources as context

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_image_reaches_each_provider_in_its_shape() {
        let dir = tempfile::tempdir().unwrap();
        let tools = everything_and_filesystem(&config(dir.path())).await;
        let call = tools.call("everything_get-tiny-image", "{}").await;
        let result = call.outcome.as_ref().unwrap();
        let image = result.content[1].as_image().unwrap();
        let data = image.data.clone();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&data)
            .unwrap()
            .len();
        let note = format!("image, image/png, {bytes} bytes");

        // OpenAI Chat: tool messages are text only; the image follows in a
        // user message, and the tool message says so.
        let chat = call.for_provider(Provider::OpenAiChat, "call_1");
        assert_eq!(chat.message["role"], "tool");
        assert_eq!(chat.message["tool_call_id"], "call_1");
        assert_eq!(
            chat.message["content"],
            format!("Here's the image you requested:\n[{note}: attached in the next user message]\nThe image above is the MCP logo.")
        );
        assert_eq!(
            chat.follow_up,
            [json!({"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": data_url("image/png", &data)}}
            ]})]
        );
        assert_eq!(
            placements(&chat),
            [(ContentKind::Image, Placement::FollowUp)]
        );
        assert_eq!(chat.notes[0].bytes, Some(bytes as u64));

        // OpenAI Responses: function_call_output takes input_image items.
        let responses = call.for_provider(Provider::OpenAiResponses, "call_1");
        assert_eq!(
            responses.message,
            json!({"type": "function_call_output", "call_id": "call_1", "output": [
                {"type": "input_text", "text": "Here's the image you requested:"},
                {"type": "input_image", "image_url": data_url("image/png", &data)},
                {"type": "input_text", "text": "The image above is the MCP logo."},
            ]})
        );
        assert!(responses.follow_up.is_empty());

        // Anthropic: tool_result content takes base64 image blocks.
        let anthropic = call.for_provider(Provider::Anthropic, "toolu_1");
        assert_eq!(
            anthropic.message,
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "Here's the image you requested:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
                {"type": "text", "text": "The image above is the MCP logo."},
            ]})
        );
        assert_eq!(
            placements(&anthropic),
            [(ContentKind::Image, Placement::InResult)]
        );

        // Gemini: functionResponse with the image among its parts.
        let gemini = call.for_provider(Provider::Gemini, "");
        assert_eq!(
            gemini.message,
            json!({"functionResponse": {
                "name": "everything_get-tiny-image",
                "response": {"output": "Here's the image you requested:\nThe image above is the MCP logo."},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": data}}],
            }})
        );

        // Text-only callers are told what they don't see.
        assert_eq!(
            call.for_model().text,
            format!("Here's the image you requested:\n[{note}: not shown to a text-only model]\nThe image above is the MCP logo.")
        );
    }

    /// Resources in a result, for the model: links are named, an embedded
    /// text is inlined (and cut beyond the bound), an embedded blob is a
    /// note.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn resources_are_inlined_noted_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let tools = everything_and_filesystem(&config(dir.path())).await;
        links_are_named(&tools).await;
        an_embedded_text_is_inlined(&tools).await;
        an_embedded_blob_is_a_note(&tools).await;
    }

    /// Resource links are named with their URI and MIME type.
    async fn links_are_named(tools: &Toolbox) {
        let links = tools
            .call_value("everything_get-resource-links", json!({"count": 2}))
            .await;
        let reply = links.for_provider(Provider::Anthropic, "t");
        let text = reply.message["content"].as_str().unwrap();
        let result = links.outcome.as_ref().unwrap();
        for block in &result.content[1..] {
            let link = block.as_resource_link().unwrap();
            let line = format!(
                "[resource link: {} <{}>, {}: {}]",
                link.name,
                link.uri,
                link.mime_type.as_deref().unwrap(),
                link.description.as_deref().unwrap()
            );
            assert!(text.contains(&line), "{line} not in {text}");
        }
        assert_eq!(
            placements(&reply),
            [(ContentKind::ResourceLink, Placement::Described); 2]
        );
    }

    /// An embedded text resource is inlined; beyond the bound it is cut.
    async fn an_embedded_text_is_inlined(tools: &Toolbox) {
        let text_ref = tools
            .call_value(
                "everything_get-resource-reference",
                json!({"resourceType": "Text", "resourceId": 2}),
            )
            .await;
        let result = text_ref.outcome.as_ref().unwrap();
        let Some(mcpbind::protocol::ResourceContents::TextResourceContents { text: body, .. }) =
            result.content[1].as_resource().map(|r| &r.resource)
        else {
            panic!("not a text resource: {:?}", result.content);
        };
        let reply = text_ref.for_model();
        assert!(
            reply.text.contains(&format!(
                "Resource demo://resource/dynamic/text/2 (text/plain):\n{body}"
            )),
            "{}",
            reply.text
        );
        // Beyond the bound it is cut, and says how much is shown.
        let options = mcpbind::ContentOptions::default().with_max_resource_bytes(10);
        let cut = text_ref.for_provider_with(Provider::OpenAiChat, "c", &options);
        let content = cut.message["content"].as_str().unwrap();
        assert!(
            content.contains(&format!("[cut: 10 of {} bytes shown]", body.len())),
            "{content}"
        );
    }

    /// An embedded blob is a note of its URI, MIME type and size.
    async fn an_embedded_blob_is_a_note(tools: &Toolbox) {
        let blob_ref = tools
            .call_value(
                "everything_get-resource-reference",
                json!({"resourceType": "Blob", "resourceId": 1}),
            )
            .await;
        let result = blob_ref.outcome.as_ref().unwrap();
        let Some(mcpbind::protocol::ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        }) = result.content[1].as_resource().map(|r| &r.resource)
        else {
            panic!("not a blob: {:?}", result.content);
        };
        let size = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap()
            .len();
        let gemini = blob_ref.for_provider(Provider::Gemini, "");
        let output = gemini.message["functionResponse"]["response"]["output"]
            .as_str()
            .unwrap();
        assert!(
            output.contains(&format!(
                "[binary resource demo://resource/dynamic/blob/1: {}, {size} bytes, contents not shown]",
                mime_type.as_deref().unwrap()
            )),
            "{output}"
        );
        assert_eq!(gemini.notes[0].bytes, Some(size as u64));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn read_media_file_audio_and_other_files_per_provider() {
        let dir = tempfile::tempdir().unwrap();
        let tools = everything_and_filesystem(&config(dir.path())).await;
        let samples = b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\0\0\0\0";
        let wav = media_file(dir.path(), "beep.wav", samples);
        let call = tools
            .call_value("filesystem_read_media_file", json!({"path": wav}))
            .await;
        assert!(call.outcome.is_ok(), "{:?}", call.outcome);
        let data = base64::engine::general_purpose::STANDARD.encode(samples);
        let note = format!("audio, audio/wav, {} bytes", samples.len());

        // OpenAI Chat: wav is an input_audio part of a user message.
        let chat = call.for_provider(Provider::OpenAiChat, "c1");
        assert_eq!(
            chat.follow_up,
            [json!({"role": "user", "content": [
                {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}
            ]})]
        );
        // OpenAI Responses and Anthropic take no audio: an explicit note.
        for provider in [Provider::OpenAiResponses, Provider::Anthropic] {
            let reply = call.for_provider(provider, "c1");
            assert_eq!(
                placements(&reply),
                [(ContentKind::Audio, Placement::LeftOut)]
            );
            assert!(reply.follow_up.is_empty());
            let text = reply.message.to_string();
            assert!(text.contains(&format!("[{note}: left out, ")), "{text}");
            assert!(!text.contains(&data), "no base64 in a note");
        }
        // Gemini: audio is a part of the user turn, after the functionResponse.
        let gemini = call.for_provider(Provider::Gemini, "fc1");
        assert_eq!(gemini.message["functionResponse"]["id"], "fc1");
        assert_eq!(
            gemini.follow_up,
            [json!({"inlineData": {"mimeType": "audio/wav", "data": data}})]
        );

        // An image format no provider takes (BMP) is noted everywhere.
        let bmp = media_file(dir.path(), "x.bmp", b"BM\0\0");
        let call = tools
            .call_value("filesystem_read_media_file", json!({"path": bmp}))
            .await;
        for provider in Provider::ALL {
            let reply = call.for_provider(provider, "c");
            assert_eq!(
                placements(&reply),
                [(ContentKind::Image, Placement::LeftOut)],
                "{provider:?}"
            );
            assert!(reply.follow_up.is_empty());
            assert!(reply
                .message
                .to_string()
                .contains("[image, image/bmp, 4 bytes: left out, "));
        }

        // Any other file is a blob resource: noted, never its base64.
        let other = media_file(dir.path(), "data.bin", &[0u8; 300]);
        let call = tools
            .call_value("filesystem_read_media_file", json!({"path": other}))
            .await;
        let reply = call.for_provider(Provider::OpenAiResponses, "c");
        assert_eq!(
            placements(&reply),
            [(ContentKind::BlobResource, Placement::Described)]
        );
        assert_eq!(reply.notes[0].bytes, Some(300));
    }

    /// Structured content beside a text written from the same data is left out
    /// only when the text has each of its values as a whole token: the demo
    /// server's `create_order` answers `order for NAME: N items, U units`
    /// beside `{"order_id": "ord-U", "total_units": U}`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn structured_content_is_left_out_only_when_the_text_has_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut tools = Toolbox::new();
        tools
            .add(demo::Client::connect(&config(dir.path())).await.unwrap())
            .unwrap();
        let order = |name: &str| json!({"customer": {"name": name}, "items": [{"sku": "a-1", "quantity": 5}]});
        // `ord-5` and `5` are whole tokens of the text: nothing to add.
        let call = tools
            .call_value("demo_create_order", order("ord-5 Ltd"))
            .await;
        assert_eq!(
            call.outcome.as_ref().unwrap().structured_content,
            Some(json!({"order_id": "ord-5", "total_units": 5}))
        );
        assert_eq!(
            call.for_model().text,
            "order for ord-5 Ltd: 1 items, 5 units"
        );
        // `ord-5` only inside a word: the structured content follows the text.
        let call = tools.call_value("demo_create_order", order("Lord-5")).await;
        let both = r#"order for Lord-5: 1 items, 5 units
Structured content: {"order_id":"ord-5","total_units":5}"#;
        assert_eq!(call.for_model().text, both);
        for provider in Provider::ALL {
            let message = call.for_provider(provider, "c").message.to_string();
            assert!(
                message.contains("Structured content: "),
                "{provider:?}: {message}"
            );
        }
    }

    /// A rig tool call gets the image as rig image content (its media type and
    /// base64 data) between the texts around it, and audio, which rig takes
    /// nowhere, as the note `for_provider` gives.
    #[cfg(feature = "rig")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn rig_tool_calls_get_images_as_rig_images() {
        use rig_core::completion::message::{
            DocumentSourceKind, ImageMediaType, ToolResultContent,
        };
        let dir = tempfile::tempdir().unwrap();
        let tools = everything_and_filesystem(&config(dir.path())).await;
        let direct = tools.call("everything_get-tiny-image", "{}").await;
        let data = direct.outcome.as_ref().unwrap().content[1]
            .as_image()
            .unwrap()
            .data
            .clone();
        let rig_tools = tools.rig_tools();
        let rig_tool = |name: &str| {
            rig_tools
                .iter()
                .find(|t| &**t.name() == name)
                .unwrap_or_else(|| panic!("no rig tool {name}"))
        };

        let output = rig_tool("everything_get-tiny-image")
            .execute(json!({}))
            .await
            .unwrap();
        let content = output.as_content();
        assert_eq!(content.len(), 3, "{output:?}");
        assert_eq!(
            content[0].as_text(),
            Some("Here's the image you requested:")
        );
        let ToolResultContent::Image(image) = &content[1] else {
            panic!("not an image: {:?}", content[1]);
        };
        assert_eq!(image.media_type, Some(ImageMediaType::PNG));
        assert_eq!(image.data, DocumentSourceKind::Base64(data));
        assert_eq!(
            content[2].as_text(),
            Some("The image above is the MCP logo.")
        );

        let samples = b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\x40\x1f\0\0\x80\x3e\0\0\x02\0\x10\0data\0\0\0\0";
        let wav = media_file(dir.path(), "beep.wav", samples);
        let output = rig_tool("filesystem_read_media_file")
            .execute(json!({"path": wav}))
            .await
            .unwrap();
        let text = output.as_text().unwrap_or_else(|| panic!("{output:?}"));
        assert!(
            text.contains("[audio, audio/wav, 44 bytes: left out, rig does not accept it]"),
            "{text}"
        );
        let data = base64::engine::general_purpose::STANDARD.encode(samples);
        assert!(!text.contains(&data), "no base64 in a note: {text}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_approval_refuses_amends_or_lets_calls_through() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let mut tools = Toolbox::new();
        tools
            .add(demo::Client::connect(&config).await.unwrap())
            .unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&seen);
        tools.with_approval(move |call: CallRequest| {
            log.lock()
                .unwrap()
                .push((call.name.clone(), call.destructive));
            async move {
                if call.destructive && call.tool == "delete_item" {
                    Verdict::refuse("deleting needs a human's approval")
                } else if call.tool == "echo" {
                    Verdict::Amend {
                        arguments: json!({"message": "amended"}),
                    }
                } else {
                    Verdict::Approve
                }
            }
        });
        let mut events = mcpbind::subscribe_events();

        let refused = tools
            .call_value("demo_delete_item", json!({"id": "42"}))
            .await;
        assert_eq!(refused.attempts, 0, "never sent");
        assert!(matches!(
            refused.outcome,
            Err(mcpbind::CallError::Refused { ref reason }) if reason == "deleting needs a human's approval"
        ));
        let reply = refused.for_model();
        assert!(reply.is_error);
        assert!(
            reply.text.starts_with(
                "the call to `demo_delete_item` was refused and not made: deleting needs a human's approval"
            ),
            "{}",
            reply.text
        );
        let anthropic = refused.for_provider(Provider::Anthropic, "toolu_9");
        assert_eq!(anthropic.message["is_error"], true);
        // The refusal is an event, with its arguments (the first of this
        // tool: under `cargo test` other tests' events share the bus).
        let event = loop {
            let event = events.recv().await.unwrap();
            if event.tool == "delete_item" {
                break event;
            }
        };
        assert_eq!(event.tool, "delete_item");
        assert_eq!(event.arguments, json!({"id": "42"}));
        assert!(matches!(event.outcome, mcpbind::Outcome::Rejected { .. }));

        let amended = tools
            .call_value("demo_echo", json!({"message": "hi"}))
            .await;
        assert_eq!(amended.for_model().text, "amended");
        let approved = tools.call_value("demo_add", json!({"a": 1, "b": 2})).await;
        assert!(approved.outcome.is_ok(), "{:?}", approved.outcome);
        assert_eq!(
            *seen.lock().unwrap(),
            [
                ("demo_delete_item".to_owned(), true),
                ("demo_echo".to_owned(), false),
                ("demo_add".to_owned(), false),
            ]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn resources_render_into_context_within_a_budget() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let client = everything::Client::connect(&config).await.unwrap();
        let listed = client.inner().list_resources().await.unwrap();
        assert!(listed.len() >= 5, "{listed:?}");
        let mut tools = Toolbox::new();
        tools.add(client).unwrap();

        // Room for everything: each document's text, as the server has it.
        let docs = util::npm_server("server-everything");
        let docs = std::path::Path::new(&docs)
            .parent()
            .unwrap()
            .join("docs/features.md");
        let features = std::fs::read_to_string(docs).unwrap();
        let all = tools
            .resource_context(&["everything"], 1 << 20)
            .await
            .unwrap();
        assert!(all.contains(features.trim()), "{all}");
        assert!(!all.contains("Left out"));

        // A small budget: what fits, then the rest named, none missing.
        let budget = 4000;
        let some = tools
            .resource_context(&["everything"], budget)
            .await
            .unwrap();
        assert!(some.len() <= budget, "{} bytes", some.len());
        let (_, left_out) = some
            .split_once("Left out (over the budget of 4000 bytes): ")
            .unwrap();
        for resource in &listed {
            let named = format!("<{}>", resource.uri);
            assert!(some.contains(&named), "{named} neither shown nor named");
        }
        assert!(left_out.contains("demo://resource/static/document/"));

        let unknown = tools.resource_context(&["nope"], budget).await;
        assert!(matches!(
            unknown,
            Err(mcpbind::ToolboxError::UnknownServer { .. })
        ));
    }
}
