//! What the client answers when a server asks it something (elicitation,
//! sampling, roots), against server-everything, which offers its eliciting,
//! sampling and roots tools only to clients that declare the capability.

#![allow(deprecated)] // sampling and roots: SEP-2577 (see core/src/elicit.rs)

use std::sync::{Arc, Mutex};

use mcpbind::protocol::{
    CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, Root,
};
use mcpbind::{CallOptions, Client, ClientHooks};
use rmcp::model::SamplingMessage;
use serde_json::{json, Map, Value};

use crate::util;

const ELICIT: &str = "trigger-elicitation-request";

async fn everything(dir: &std::path::Path, hooks: ClientHooks) -> Client {
    let config = util::stdio_servers(dir);
    Client::connect_with(&config, "everything", hooks)
        .await
        .unwrap()
}

async fn tool_names(client: &Client) -> Vec<String> {
    let tools = client.list_tools_raw().await.unwrap();
    tools
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

async fn call(client: &Client, tool: &str, arguments: Value) -> String {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object");
    };
    let result: CallToolResult = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn schema_defaults_need_a_default_for_every_field() {
    let schema = |properties: Value| {
        serde_json::from_value::<mcpbind::protocol::ElicitationSchema>(
            json!({"type": "object", "properties": properties}),
        )
        .unwrap()
    };
    let all = schema(json!({
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "verified": {"type": "boolean", "default": true},
    }));
    let mut expected = Map::new();
    for (k, v) in [
        ("name", json!("John Doe")),
        ("age", json!(30)),
        ("score", json!(95.5)),
        ("status", json!("active")),
        ("verified", json!(true)),
    ] {
        expected.insert(k.into(), v);
    }
    assert_eq!(mcpbind::elicit::schema_defaults(&all), Some(expected));

    let missing = schema(json!({
        "name": {"type": "string"},
        "age": {"type": "integer", "default": 30},
    }));
    assert_eq!(mcpbind::elicit::schema_defaults(&missing), None);
    // A form with no field is a bare confirmation: never accepted by default.
    assert_eq!(mcpbind::elicit::schema_defaults(&schema(json!({}))), None);
}

/// The tests that need the pinned npm and PyPI servers
/// (`tests/servers/install.sh`): `--skip installed::` leaves them out.
mod installed {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn default_hook_declines_a_form_with_a_field_without_default() {
        let dir = tempfile::tempdir().unwrap();
        // `Client::connect` uses the default hooks, as generated clients and the
        // CLI do.
        let config = util::stdio_servers(dir.path());
        let client = Client::connect(&config, "everything").await.unwrap();
        let tools = tool_names(&client).await;
        // Elicitation (form mode) is declared, URL mode, sampling and roots are
        // not: server-everything offers exactly the matching tools.
        assert!(tools.iter().any(|t| t == ELICIT), "{tools:?}");
        for absent in [
            "trigger-url-elicitation",
            "trigger-sampling-request",
            "get-roots-list",
        ] {
            assert!(!tools.iter().any(|t| t == absent), "{absent}: {tools:?}");
        }
        // `name` has no default: declined.
        let text = call(&client, ELICIT, json!({})).await;
        assert!(text.contains("User declined"), "{text}");
        assert!(text.contains("\"action\": \"decline\""), "{text}");
        client.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_user_elicitation_hook_answers_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&asked);
        let hooks = ClientHooks::default().elicitation(move |request: ElicitRequestParams| {
            let seen = Arc::clone(&seen);
            async move {
                if let ElicitRequestParams::FormElicitationParams {
                    message,
                    requested_schema,
                    ..
                } = request
                {
                    let fields: Vec<String> = requested_schema.properties.keys().cloned().collect();
                    seen.lock().unwrap().push((message, fields));
                }
                ElicitResult::new(ElicitationAction::Accept).with_content(json!({
                    "name": "Ada Lovelace",
                    "check": true,
                    "integer": 7,
                }))
            }
        });
        let client = everything(dir.path(), hooks).await;
        let text = call(&client, ELICIT, json!({})).await;
        assert!(
            text.contains("User provided the requested information"),
            "{text}"
        );
        assert!(text.contains("- Name: Ada Lovelace"), "{text}");
        assert!(text.contains("- Agreed to terms: true"), "{text}");
        assert!(text.contains("- Favorite Integer: 7"), "{text}");
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert!(asked[0].0.contains("Please provide inputs"), "{asked:?}");
        assert!(asked[0].1.iter().any(|f| f == "name"), "{asked:?}");
        client.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_hooks_nothing_is_declared() {
        let dir = tempfile::tempdir().unwrap();
        let client = everything(dir.path(), ClientHooks::none()).await;
        let tools = tool_names(&client).await;
        assert!(!tools.iter().any(|t| t == ELICIT), "{tools:?}");
        // The unconditional tools are still there.
        assert!(tools.iter().any(|t| t == "echo"), "{tools:?}");
        client.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn roots_and_sampling_hooks_answer_the_server() {
        let dir = tempfile::tempdir().unwrap();
        let prompts = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&prompts);
        let hooks = ClientHooks::default()
            .roots(vec![Root::new("file:///work/project")])
            .sampling(move |request: CreateMessageRequestParams| {
                let seen = Arc::clone(&seen);
                async move {
                    let asked: Vec<String> = request
                        .messages
                        .iter()
                        .filter_map(|m| m.content.first()?.as_text().map(|t| t.text.clone()))
                        .collect();
                    seen.lock().unwrap().extend(asked);
                    Ok(CreateMessageResult::new(
                        SamplingMessage::assistant_text("forty-two"),
                        "test-model".into(),
                    ))
                }
            });
        let client = everything(dir.path(), hooks).await;

        let roots = call(&client, "get-roots-list", json!({})).await;
        assert!(roots.contains("file:///work/project"), "{roots}");

        let sampled = call(
            &client,
            "trigger-sampling-request",
            json!({"prompt": "the answer?", "maxTokens": 10}),
        )
        .await;
        assert!(sampled.contains("forty-two"), "{sampled}");
        assert!(sampled.contains("test-model"), "{sampled}");
        let prompts = prompts.lock().unwrap().clone();
        assert!(
            prompts.iter().any(|p| p.contains("the answer?")),
            "{prompts:?}"
        );
        client.close().await;
    }
}
