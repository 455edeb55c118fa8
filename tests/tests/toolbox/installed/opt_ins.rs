//! Opt-ins against server-everything: its resource templates as read
//! tools, its prompts rendered into a system prompt.

use mcpbind::{CallError, OpenAiShape, PromptRequest, Toolbox, ToolboxError};
use mcpbind_tests::everything;
use serde_json::json;

use crate::toolbox::definition_names;
use crate::util;

/// The model-facing names of server-everything's two templates.
const READ_TEXT: &str = "everything_read_Dynamic_Text_Resource";
const READ_BLOB: &str = "everything_read_Dynamic_Blob_Resource";

/// A toolbox of server-everything alone, connected.
async fn everything_toolbox(dir: &std::path::Path) -> Toolbox {
    let config = util::stdio_servers(dir);
    let mut tools = Toolbox::new();
    tools
        .add(everything::Client::connect(&config).await.unwrap())
        .unwrap();
    tools
}

/// The templates' read tools, as each provider is offered them: the text
/// template's variable is its one required parameter, and its description
/// names the template.
fn assert_read_tools_are_offered(tools: &Toolbox) {
    let anthropic = tools.anthropic_tools().tools;
    let definition = anthropic.iter().find(|d| d["name"] == READ_TEXT).unwrap();
    assert_eq!(
        definition["input_schema"],
        json!({
            "type": "object",
            "properties": {"resourceId": {"type": "string", "description": "`{resourceId}` in `demo://resource/dynamic/text/{resourceId}`"}},
            "required": ["resourceId"],
            "additionalProperties": false,
        })
    );
    let description = definition["description"].as_str().unwrap();
    assert!(
        description.starts_with("Plaintext dynamic resource")
            && description.ends_with(
                "Reads the resource `demo://resource/dynamic/text/{resourceId}` (text/plain)."
            ),
        "{description}"
    );
    for names in [
        definition_names(&tools.openai_tools(OpenAiShape::ChatCompletions, true).tools),
        definition_names(&tools.gemini_declarations().tools),
    ] {
        assert!(names.contains(&READ_TEXT.to_owned()) && names.contains(&READ_BLOB.to_owned()));
    }
    assert_eq!(
        tools.resolve(READ_TEXT),
        Some(("everything", "Dynamic Text Resource"))
    );
}

/// A model's call, by name with JSON arguments, reads the real resource:
/// text as it is, a blob as a note of its size.
async fn assert_reads_the_resource(tools: &Toolbox) {
    let call = tools.call(READ_TEXT, r#"{"resourceId": "7"}"#).await;
    assert_eq!(
        call.target,
        Some(("everything".to_owned(), "Dynamic Text Resource"))
    );
    assert_eq!(call.attempts, 1);
    let reply = call.for_model();
    assert!(!reply.is_error, "{reply:?}");
    assert!(
        reply
            .text
            .starts_with("Resource 7: This is a plaintext resource created at "),
        "{reply:?}"
    );
    // A blob is described, not pasted: the decoded size of "Resource 7:
    // This is a base64 blob created at <local time>", not its base64.
    let call = tools.call_value(READ_BLOB, json!({"resourceId": 7})).await;
    let text = call.for_model().text;
    let size: usize = text
        .strip_prefix("[binary contents: text/plain, ")
        .and_then(|rest| rest.strip_suffix(" bytes]"))
        .unwrap_or_else(|| panic!("{text}"))
        .parse()
        .unwrap();
    assert!((50..=60).contains(&size), "{text}");
}

/// A missing or unknown variable is an argument error naming it, never
/// sent; the server's own refusal is an error too.
async fn assert_bad_variables_are_named(tools: &Toolbox) {
    let call = tools.call(READ_TEXT, "{}").await;
    assert_eq!(call.attempts, 0);
    let Err(CallError::Arguments {
        violations: problems,
    }) = &call.outcome
    else {
        panic!("{:?}", call.outcome)
    };
    assert_eq!(
        (
            problems.len(),
            problems[0].pointer.as_str(),
            problems[0].keyword.as_str()
        ),
        (1, "/", "required")
    );
    assert_eq!(
        problems[0].to_string(),
        "/: missing required variable `resourceId` (it fills `{resourceId}` in `demo://resource/dynamic/text/{resourceId}`)"
    );
    assert!(call.for_model().text.starts_with(&format!(
        "invalid arguments for `{READ_TEXT}`:\n- /: missing required variable `resourceId`"
    )));
    let call = tools
        .call_value(READ_TEXT, json!({"resourceId": "7", "id": "8"}))
        .await;
    assert!(
        matches!(&call.outcome, Err(CallError::Arguments { violations: problems }) if problems[0].pointer == "/id" && problems[0].message.starts_with("unknown variable")),
        "{:?}",
        call.outcome
    );
    // The server's own refusal (the id must be an integer) is an error.
    let call = tools
        .call_value(READ_TEXT, json!({"resourceId": "seven"}))
        .await;
    assert!(call.for_model().is_error, "{:?}", call.outcome);
}

/// Server-everything's templates become read tools only when asked for;
/// a model's call by name reads the real resource (text as it is, a blob
/// as a note), and a missing variable is an argument error naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_templates_are_read_tools_when_opted_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut tools = everything_toolbox(dir.path()).await;
    let count = tools.tool_count();
    assert!(!definition_names(&tools.anthropic_tools().tools).contains(&READ_TEXT.to_owned()));
    let call = tools.call(READ_TEXT, r#"{"resourceId": "7"}"#).await;
    assert_eq!(call.for_model().text, format!("unknown tool `{READ_TEXT}`"));

    tools
        .add_resource_templates(everything::RESOURCE_TEMPLATES)
        .unwrap();
    assert_eq!(tools.tool_count(), count + 2);
    // Kept once when added twice.
    tools
        .add_resource_templates(everything::RESOURCE_TEMPLATES)
        .unwrap();
    assert_eq!(tools.tool_count(), count + 2);
    assert_read_tools_are_offered(&tools);
    assert_reads_the_resource(&tools).await;
    assert_bad_variables_are_named(&tools).await;

    // Held back with their server; merged with it.
    tools.hold_back_server("everything").unwrap();
    assert!(tools.held_back().contains(&READ_TEXT));
    tools.enable_server("everything").unwrap();
    let mut merged = Toolbox::new();
    merged.merge(tools.clone()).unwrap();
    assert_eq!(merged.names(), tools.names());

    let err = Toolbox::new()
        .add_resource_templates(everything::RESOURCE_TEMPLATES)
        .unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `everything`");
}

/// Prompts rendered into a system prompt (rig's `preamble`): the real
/// prompts' text, in order, typed or by name; a missing required argument
/// is an error naming the server and the prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_render_into_a_system_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let tools = everything_toolbox(dir.path()).await;
    let preamble = tools
        .system_prompt(&[
            PromptRequest::of(
                &everything::prompts::ArgsPromptArguments::new("Austin").with_state("TX"),
            ),
            PromptRequest::new("everything", "args-prompt").arg("city", "Paris"),
        ])
        .await
        .unwrap();
    assert_eq!(
        preamble,
        "What's weather in Austin, TX?\n\nWhat's weather in Paris?"
    );
    // Two messages of one role, the second an embedded resource: its text.
    let preamble = tools
        .system_prompt(&[PromptRequest::new("everything", "resource-prompt")
            .arg("resourceType", "Text")
            .arg("resourceId", "3")])
        .await
        .unwrap();
    assert!(
        preamble.starts_with("This prompt includes the Text resource with id: 3. Please analyze the following resource:\n\n[resource demo://resource/dynamic/text/3]\nResource 3: This is a plaintext resource created at "),
        "{preamble}"
    );

    let err = tools
        .system_prompt(&[PromptRequest::new("everything", "args-prompt")])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolboxError::Prompt { server, prompt, .. } if server == "everything" && prompt == "args-prompt")
    );
    // The server's refusal, which names the argument, is in the causes.
    let mut causes = String::new();
    let mut source = std::error::Error::source(&err);
    while let Some(cause) = source {
        causes.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    assert_eq!(
        err.to_string(),
        "prompt `args-prompt` of server `everything` could not be rendered"
    );
    assert!(
        causes.starts_with(": request `prompts/get args-prompt` to server `everything` failed: ")
            && causes.contains("city"),
        "{causes}"
    );
    let err = tools
        .system_prompt(&[PromptRequest::new("nowhere", "p")])
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "the toolbox has no server `nowhere`");
}
