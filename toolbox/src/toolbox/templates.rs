//! Resource templates as read tools (opt-in, with
//! [`Toolbox::add_resource_templates`](super::Toolbox::add_resource_templates)):
//! one tool per template, its parameters the template's variables (strings),
//! and a call expands the template (RFC 6570) and reads the resource
//! (`resources/read`) through the server's client.

use crate::validate::Violation;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{ContentBlock, ReadResourceResult, ResourceContents};
use serde_json::{json, Map, Value};

use super::{
    model_name, object_arguments, CallError, ServerSlot, SlotKind, ToolCall, ToolSlot, Toolbox,
    ToolboxError,
};
use mcpbind_client::internal;
use mcpbind_client::notices::ListKind;
use mcpbind_client::{Client, ToolResult};
use mcpbind_model::uri_template::{UriTemplate, UriTemplateError, UriValue};
use mcpbind_model::ResourceTemplateMeta;

impl Toolbox {
    /// Opt-in: exposes resource templates (a generated module's
    /// `RESOURCE_TEMPLATES`, or some of them) as read tools of their
    /// server, which must be in the toolbox already. Each is a tool named
    /// `{tool_prefix}_read_{template name}` (made legal like every name),
    /// whose parameters are the template's variables as strings (required
    /// unless form-style: `{?a}`, `{&b}`, `{;c}`); a call expands the
    /// template (RFC 6570) and reads the resource (`resources/read`),
    /// returning its text contents and, for binary ones, their MIME type
    /// and size. The config's `enabled_resource_templates` /
    /// `disabled_resource_templates` apply; a template already exposed is
    /// kept once. Hooks run around a read as around a tool call; a read is
    /// not a [`ToolInvoked`](mcpbind_client::events::ToolInvoked) event.
    ///
    /// # Errors
    ///
    /// A template's server is not in the toolbox, its name collides with
    /// another model-facing name, or its locked `uriTemplate` is not RFC
    /// 6570.
    pub fn add_resource_templates(
        &mut self,
        templates: &[ResourceTemplateMeta],
    ) -> Result<&mut Self, ToolboxError> {
        for meta in templates {
            self.add_template(meta)?;
        }
        Ok(self)
    }

    fn add_template(&mut self, meta: &ResourceTemplateMeta) -> Result<(), ToolboxError> {
        let index = self
            .servers
            .iter()
            .position(|s| s.name == meta.server)
            .ok_or_else(|| ToolboxError::UnknownServer {
                server: meta.server.to_owned(),
            })?;
        let server = &self.servers[index];
        let config = server.client.server_config();
        let exposed = server
            .tools
            .iter()
            .any(|t| matches!(&t.kind, SlotKind::Template(x) if x.meta.name == meta.name));
        if exposed || !config.allows_resource_template(meta.name) {
            return Ok(());
        }
        let tool = TemplateTool::new(*meta).map_err(|e| ToolboxError::InvalidTemplate {
            server: meta.server.to_owned(),
            template: meta.name.to_owned(),
            reason: e.to_string(),
        })?;
        let prefix = config
            .tool_prefix
            .clone()
            .unwrap_or_else(|| server.name.clone());
        let name = model_name(&prefix, &tool.tool_name());
        if let Some(&(s, t)) = self.index.get(&name) {
            let first = &self.servers[s];
            return Err(ToolboxError::NameCollision {
                name,
                first_server: first.name.clone(),
                first_tool: first.tools[t].wire_name().to_owned(),
                second_server: meta.server.to_owned(),
                second_tool: meta.name.to_owned(),
            });
        }
        let server = &mut self.servers[index];
        self.index.insert(name.clone(), (index, server.tools.len()));
        server.tools.push(ToolSlot {
            schema: Arc::new(tool.schema()),
            kind: SlotKind::Template(Arc::new(tool)),
            model_name: name,
            held_back: false,
        });
        Ok(())
    }
}

/// A model's call of a template's read tool: its arguments checked, the
/// template expanded and the resource read.
pub(super) async fn call(
    server: &ServerSlot,
    tool: &ToolSlot,
    template: &TemplateTool,
    arguments: Result<Value, String>,
    start: Instant,
) -> ToolCall {
    let outcome = match object_arguments(arguments) {
        Ok(map) => {
            // Gemini's declaration names a variable like `user.id` by an alias.
            let mut arguments = Value::Object(map);
            super::params::unalias(&tool.schema, &mut arguments);
            let map = match arguments {
                Value::Object(map) => map,
                _ => Default::default(),
            };
            template.read(&server.client, &map).await
        }
        Err((reason, _)) => Err(CallError::MalformedJson { reason }),
    };
    let sent = !matches!(
        outcome,
        Err(CallError::Arguments { .. } | CallError::MalformedJson { .. })
    );
    ToolCall {
        name: tool.model_name.clone(),
        target: Some((server.name.clone(), template.meta.name)),
        outcome,
        duration: start.elapsed(),
        attempts: u32::from(sent),
    }
}

/// A resource template the model can read: its locked metadata and its
/// parsed template.
#[derive(Debug)]
pub(crate) struct TemplateTool {
    pub(crate) meta: ResourceTemplateMeta,
    template: UriTemplate,
    /// What the model reads about it: the template's description (or
    /// title) and the URI it reads.
    pub(crate) description: String,
}

impl TemplateTool {
    /// A read tool for a locked template.
    ///
    /// # Errors
    ///
    /// The locked `uriTemplate` is not RFC 6570 (the lockfile was edited).
    pub(crate) fn new(meta: ResourceTemplateMeta) -> Result<TemplateTool, UriTemplateError> {
        let template = UriTemplate::parse(meta.uri_template)?;
        let about = meta
            .description
            .or(meta.title)
            .map(str::trim)
            .filter(|d| !d.is_empty());
        let mut description = match about {
            Some(about) => format!("{about}\n\n"),
            None => String::new(),
        };
        let _ = write!(description, "Reads the resource `{}`", meta.uri_template);
        if let Some(mime) = meta.mime_type {
            let _ = write!(description, " ({mime})");
        }
        description.push('.');
        Ok(TemplateTool {
            meta,
            template,
            description,
        })
    }

    /// The model-facing wire name under which it is exposed, before the
    /// server's prefix: `read_{template name}`.
    pub(crate) fn tool_name(&self) -> String {
        format!("read_{}", self.meta.name)
    }

    /// The input schema: one string property per variable, required unless
    /// it is form-style (`{?a}`, `{&b}`, `{;c}`), nothing else allowed.
    pub(crate) fn schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for var in self.template.variables() {
            let description = format!("`{{{}}}` in `{}`", var.name, self.meta.uri_template);
            properties.insert(
                var.name.clone(),
                json!({"type": "string", "description": description}),
            );
            if !self.template.is_optional(&var.name) {
                required.push(Value::String(var.name.clone()));
            }
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }

    /// The variable values of a model's arguments, or one problem per bad
    /// argument. Numbers and booleans
    /// are taken as their text (a URI is text); `null` is undefined.
    fn values(
        &self,
        arguments: &Map<String, Value>,
    ) -> Result<Vec<(String, UriValue)>, Vec<Violation>> {
        let variables = self.template.variables();
        let names: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
        let mut problems = Vec::new();
        for key in arguments.keys().filter(|k| !names.contains(&k.as_str())) {
            problems.push(Violation::new(
                format!("/{}", pointer_token(key)),
                "additionalProperties",
                format!(
                    "unknown variable (the template's variables: {})",
                    names.join(", ")
                ),
            ));
        }
        let mut values = Vec::new();
        for name in names {
            let value = match arguments.get(name) {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(v @ (Value::Number(_) | Value::Bool(_))) => Some(v.to_string()),
                Some(other) => {
                    problems.push(Violation::new(
                        format!("/{}", pointer_token(name)),
                        "type",
                        format!("expected a string, got {other}"),
                    ));
                    continue;
                }
            };
            match value {
                Some(value) => values.push((name.to_owned(), UriValue::String(value))),
                None if !self.template.is_optional(name) => problems.push(Violation::new(
                    "/",
                    "required",
                    format!(
                        "missing required variable `{name}` (it fills `{{{name}}}` in `{}`)",
                        self.meta.uri_template
                    ),
                )),
                None => {}
            }
        }
        if problems.is_empty() {
            Ok(values)
        } else {
            Err(problems)
        }
    }

    /// Expands the template with the model's arguments and reads the
    /// resource: its text contents, and a note for each blob.
    pub(crate) async fn read(
        &self,
        client: &Client,
        arguments: &Map<String, Value>,
    ) -> Result<ToolResult<Value>, CallError> {
        let values = self
            .values(arguments)
            .map_err(|violations| CallError::Arguments { violations })?;
        let values: Vec<(&str, UriValue)> = values
            .iter()
            .map(|(name, value)| (name.as_str(), value.clone()))
            .collect();
        internal::refuse_drifted_in(client, ListKind::Resources, self.meta.name)
            .map_err(CallError::Call)?;
        let uri = self.template.expand_with(&values);
        let result = client.read_resource(&uri).await.map_err(CallError::Call)?;
        Ok(internal::tool_result(
            Value::Null,
            vec![ContentBlock::text(render_contents(&result))],
            None,
        ))
    }
}

/// `~` and `/` escaped for a JSON pointer.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A read result as the model reads it: each text content as it is, each
/// blob as a note of its MIME type and size (not its base64); with more
/// than one content, each under its URI.
pub(crate) fn render_contents(result: &ReadResourceResult) -> String {
    let many = result.contents.len() > 1;
    let parts: Vec<String> = result
        .contents
        .iter()
        .map(|content| {
            let (uri, body) = match content {
                ResourceContents::TextResourceContents { uri, text, .. } => (uri, text.clone()),
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => (uri, blob_note(mime_type.as_deref(), blob)),
                _ => return "[contents of a kind mcpbind does not know]".to_owned(),
            };
            if many {
                format!("{uri}:\n{body}")
            } else {
                body
            }
        })
        .collect();
    if parts.is_empty() {
        "(the resource has no contents)".to_owned()
    } else {
        parts.join("\n\n")
    }
}

/// `[binary contents: image/png, 1024 bytes]`.
pub(crate) fn blob_note(mime_type: Option<&str>, base64: &str) -> String {
    format!(
        "[binary contents: {}, {} bytes]",
        mime_type.unwrap_or("no MIME type"),
        super::content::decoded_len(base64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(uri_template: &'static str) -> ResourceTemplateMeta {
        ResourceTemplateMeta::new(
            "s",
            "Item",
            uri_template,
            None,
            Some("An item."),
            Some("text/plain"),
            "",
            "{}",
        )
    }

    #[test]
    fn variables_become_string_parameters() {
        let tool = TemplateTool::new(meta("demo://items/{id}{?lang}")).unwrap();
        assert_eq!(tool.tool_name(), "read_Item");
        assert_eq!(
            tool.description,
            "An item.\n\nReads the resource `demo://items/{id}{?lang}` (text/plain)."
        );
        let schema = tool.schema();
        assert_eq!(schema["required"], json!(["id"]));
        assert_eq!(schema["properties"]["lang"]["type"], "string");
        let args = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            tool.values(&args(json!({"id": 7, "lang": null}))),
            Ok(vec![("id".to_owned(), UriValue::String("7".into()))])
        );
        let problems = tool
            .values(&args(json!({"lang": ["en"], "x/y": "1"})))
            .unwrap_err();
        let shown: Vec<(String, &str)> = problems
            .iter()
            .map(|p| (p.to_string(), p.keyword.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (
                    "/x~1y: unknown variable (the template's variables: id, lang)".to_owned(),
                    "additionalProperties"
                ),
                (
                    "/: missing required variable `id` (it fills `{id}` in `demo://items/{id}{?lang}`)"
                        .to_owned(),
                    "required"
                ),
                ("/lang: expected a string, got [\"en\"]".to_owned(), "type"),
            ]
        );
    }

    #[test]
    fn blobs_are_described_not_copied() {
        use crate::toolbox::content::decoded_len;
        assert_eq!(decoded_len("aGVsbG8="), 5);
        assert_eq!(decoded_len("aGVsbG8h"), 6);
        assert_eq!(decoded_len(""), 0);
        let result = ReadResourceResult::new(vec![
            ResourceContents::text("hello", "demo://a"),
            ResourceContents::BlobResourceContents {
                uri: "demo://b".into(),
                mime_type: Some("application/octet-stream".into()),
                blob: "aGVsbG8=".into(),
                meta: None,
            },
        ]);
        assert_eq!(
            render_contents(&result),
            "demo://a:\nhello\n\ndemo://b:\n[binary contents: application/octet-stream, 5 bytes]"
        );
    }
}
