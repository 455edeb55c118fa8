//! Prompts rendered into a system prompt (opt-in, with
//! [`Toolbox::system_prompt`](super::Toolbox::system_prompt)): each prompt
//! is got from its server (`prompts/get`) and its messages become text, in
//! order, for a model's system prompt (rig's `preamble`).

use rmcp::model::{ContentBlock, GetPromptResult, ResourceContents, Role};
use serde_json::{Map, Value};

use super::templates::blob_note;
use super::{Toolbox, ToolboxError};
use mcpbind_client::Error;
use mcpbind_model::Prompt;

impl Toolbox {
    /// Opt-in: renders prompts into one system prompt (rig's `preamble`).
    /// Each prompt is got from its server (`prompts/get`, through the
    /// toolbox's client for it) and its messages become text, in order;
    /// prompts are separated by a blank line. A server held back still
    /// gives its prompts.
    ///
    /// ```
    /// # mcpbind::mcp_tools!(lockfile = "../mcpbind/mcpbind.lock", servers = [everything]);
    /// # async fn run(tools: &mcpbind::Toolbox) -> Result<(), mcpbind::ToolboxError> {
    /// use mcpbind::PromptRequest;
    ///
    /// let preamble = tools
    ///     .system_prompt(&[
    ///         PromptRequest::of(&everything::prompts::ArgsPromptArguments::new("Paris")),
    ///         PromptRequest::new("everything", "simple-prompt"),
    ///     ])
    ///     .await?;
    /// # Ok(()) }
    /// # fn main() {}
    /// ```
    ///
    /// # Errors
    ///
    /// A prompt's server is not in the toolbox, or getting it failed (an
    /// unknown prompt, a missing required argument, a timeout…), naming the
    /// server and the prompt.
    pub async fn system_prompt(&self, prompts: &[PromptRequest]) -> Result<String, ToolboxError> {
        let mut parts = Vec::with_capacity(prompts.len());
        for request in prompts {
            let server = self
                .servers
                .iter()
                .find(|s| s.name == request.server)
                .ok_or_else(|| ToolboxError::UnknownServer {
                    server: request.server.clone(),
                })?;
            let failed = |source: Error| ToolboxError::Prompt {
                server: request.server.clone(),
                prompt: request.prompt.clone(),
                source: Box::new(source),
            };
            if let Some(reason) = &request.invalid {
                return Err(failed(Error::Arguments {
                    server: request.server.clone(),
                    tool: request.prompt.clone(),
                    reason: reason.clone(),
                    violations: Vec::new(),
                }));
            }
            let result = server
                .client
                .get_prompt_raw(&request.prompt, request.arguments.clone())
                .await
                .map_err(failed)?;
            parts.push(render_messages(&result));
        }
        Ok(parts.join("\n\n"))
    }
}

/// One prompt to render: its server, its name on the wire and its
/// arguments (strings in MCP).
///
/// ```
/// # mcpbind::mcp_tools!(lockfile = "../mcpbind/mcpbind.lock", servers = [everything]);
/// # fn main() {
/// use mcpbind::PromptRequest;
///
/// let typed = PromptRequest::of(&everything::prompts::ArgsPromptArguments::new("Paris"));
/// let by_name = PromptRequest::new("everything", "args-prompt").arg("city", "Paris");
/// assert_eq!(typed, by_name);
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRequest {
    pub(crate) server: String,
    pub(crate) prompt: String,
    pub(crate) arguments: Map<String, Value>,
    /// Why typed arguments could not be turned into JSON, reported when
    /// the prompt is got.
    pub(crate) invalid: Option<String>,
}

impl PromptRequest {
    /// Prompt `prompt` of server `server`, without arguments yet.
    pub fn new(server: impl Into<String>, prompt: impl Into<String>) -> Self {
        PromptRequest {
            server: server.into(),
            prompt: prompt.into(),
            arguments: Map::new(),
            invalid: None,
        }
    }

    /// Sets argument `name`.
    pub fn arg(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.arguments
            .insert(name.into(), Value::String(value.into()));
        self
    }

    /// A typed prompt: a generated arguments struct (its required
    /// arguments checked at compile time) names its server and prompt.
    pub fn of<P: Prompt<Arguments = P> + serde::Serialize>(arguments: &P) -> Self {
        let mut request = PromptRequest::new(P::META.server, P::META.name);
        match serde_json::to_value(arguments) {
            Ok(Value::Object(map)) => request.arguments = map,
            Ok(Value::Null) => {}
            Ok(other) => {
                request.invalid = Some(format!(
                    "prompt arguments must be a JSON object, got {other}"
                ))
            }
            Err(e) => request.invalid = Some(e.to_string()),
        }
        request
    }

    /// The server's name in the config.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The prompt's name on the wire.
    pub fn prompt(&self) -> &str {
        &self.prompt
    }
}

/// The messages of a prompt as text, in order. When they come from more
/// than one role, each is labelled (`User:`, `Assistant:`); an embedded
/// text resource is its text, a blob, image or audio a short note (never
/// its base64), a resource link its URI.
pub(crate) fn render_messages(result: &GetPromptResult) -> String {
    let first = result.messages.first().map(|m| &m.role);
    let labelled = result.messages.iter().any(|m| Some(&m.role) != first);
    let parts: Vec<String> = result
        .messages
        .iter()
        .map(|message| {
            let text = content_text(&message.content);
            if labelled {
                let role = match message.role {
                    Role::User => "User",
                    Role::Assistant => "Assistant",
                };
                format!("{role}: {text}")
            } else {
                text
            }
        })
        .collect();
    parts.join("\n\n")
}

fn content_text(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(image) => format!(
            "[image: {}, {} base64 characters]",
            image.mime_type,
            image.data.len()
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio: {}, {} base64 characters]",
            audio.mime_type,
            audio.data.len()
        ),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!("[resource {uri}] {}", blob_note(mime_type.as_deref(), blob)),
            _ => "[a resource of a kind mcpbind does not know]".to_owned(),
        },
        ContentBlock::ResourceLink(link) => format!("[resource link: {}]", link.uri),
        _ => "[content of a kind mcpbind does not know]".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::PromptMessage;

    use super::*;

    #[test]
    fn one_role_is_plain_text_and_several_are_labelled() {
        let text = |role, t: &str| PromptMessage::new(role, ContentBlock::text(t));
        let one = GetPromptResult::new(vec![text(Role::User, "a"), text(Role::User, "b")]);
        assert_eq!(render_messages(&one), "a\n\nb");
        let two = GetPromptResult::new(vec![
            text(Role::User, "Question?"),
            text(Role::Assistant, "Answer."),
        ]);
        assert_eq!(
            render_messages(&two),
            "User: Question?\n\nAssistant: Answer."
        );
    }

    #[test]
    fn typed_requests_carry_no_error_and_named_ones_their_arguments() {
        let request = PromptRequest::new("s", "p").arg("city", "Paris");
        assert_eq!(request.arguments["city"], "Paris");
        assert_eq!((request.server(), request.prompt()), ("s", "p"));
        assert!(request.invalid.is_none());
    }
}
