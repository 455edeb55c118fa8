//! The rig-core adapter (cargo feature `rig`): a toolbox's tools as rig's
//! dynamic tools (`rig_core::tool::DynamicTool`: a definition plus a
//! callback over JSON arguments), so that a rig agent calls locked, typed
//! MCP tools through the toolbox's dispatch (checks, typed call, events,
//! hooks).
//!
//! A result reaches rig as its content: rig's tool output takes text and
//! images (`ToolResultContent::Text`, `ToolResultContent::Image`), so an
//! image of a media type rig knows is a rig image (its base64 data and
//! media type), and the rest is text as [`ToolCall::for_provider`] gives
//! it: resources inlined or described, structured content by the same
//! rule, and a note (kind, MIME type, size) for what rig takes nowhere
//! (audio, an image format it doesn't know).
//!
//! [`ToolCall::for_provider`]: super::ToolCall::for_provider

use std::sync::Arc;

use rig_core::completion::message::{ImageMediaType, MimeType, ToolName, ToolResultContent};
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use serde_json::Value;

use super::content::{self, ContentKind, ContentOptions, Piece};
use super::{CallError, Toolbox};
use mcpbind_client::{Error, ToolResult};

/// How rig is named in a note of what it does not accept.
const RIG: &str = "rig";

impl Toolbox {
    /// One rig dynamic tool per tool the model can call now. Each holds a
    /// clone of the toolbox (clients are shared, not reconnected).
    pub fn rig_tools(&self) -> Vec<DynamicTool> {
        let shared = Arc::new(self.clone());
        self.anthropic_tools()
            .tools
            .into_iter()
            .filter_map(|definition| {
                let name = definition.get("name")?.as_str()?.to_owned();
                let description = definition
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let parameters = definition.get("input_schema")?.clone();
                let toolbox = Arc::clone(&shared);
                let tool_name = ToolName::new(name.clone()).ok()?;
                Some(DynamicTool::new(
                    tool_name,
                    description,
                    parameters,
                    move |arguments: Value| {
                        let toolbox = Arc::clone(&toolbox);
                        let name = name.clone();
                        Box::pin(async move { run(&toolbox, &name, arguments).await })
                    },
                ))
            })
            .collect()
    }
}

async fn run(
    toolbox: &Toolbox,
    name: &str,
    arguments: Value,
) -> Result<ToolOutput, ToolExecutionError> {
    let call = toolbox.call_value(name, arguments).await;
    let reply = call.for_model();
    match &call.outcome {
        Ok(result) => Ok(output(result)),
        Err(CallError::Arguments { .. } | CallError::MalformedJson { .. }) => {
            Err(ToolExecutionError::invalid_args(reply.text))
        }
        Err(CallError::UnknownTool { .. }) => Err(ToolExecutionError::not_found(reply.text)),
        Err(CallError::Call(Error::Timeout { .. })) => Err(ToolExecutionError::timeout(reply.text)),
        Err(_) => Err(ToolExecutionError::other(reply.text)),
    }
}

/// A successful result as rig content (see the module docs).
fn output(result: &ToolResult<Value>) -> ToolOutput {
    let (pieces, notes) = content::pieces(
        &result.content,
        result.structured_content.as_ref(),
        &ContentOptions::default(),
    );
    let mut blocks = Vec::new();
    let mut text: Vec<String> = Vec::new();
    for piece in pieces {
        match piece {
            Piece::Text(t) => text.push(t),
            Piece::Media {
                kind,
                data,
                mime,
                note,
            } => match image(kind, data, mime) {
                Some(image) => {
                    flush(&mut text, &mut blocks);
                    blocks.push(image);
                }
                None => text.push(content::left_out(&notes[note], RIG)),
            },
        }
    }
    flush(&mut text, &mut blocks);
    ToolOutput::content(blocks).unwrap_or_else(|_| ToolOutput::text(""))
}

/// Consecutive texts as one text block (a text-only result is one block,
/// `ToolOutput::as_text`), as [`ToolCall::for_model`](super::ToolCall::for_model)
/// joins them.
fn flush(text: &mut Vec<String>, blocks: &mut Vec<ToolResultContent>) {
    if !text.is_empty() {
        blocks.push(ToolResultContent::text(text.join("\n")));
        text.clear();
    }
}

/// An image block as a rig image, when rig knows its media type.
fn image(kind: ContentKind, data: &str, mime: &str) -> Option<ToolResultContent> {
    if kind != ContentKind::Image {
        return None;
    }
    let media_type = ImageMediaType::from_mime_type(&content::normalize_mime(mime))?;
    Some(ToolResultContent::image_base64(
        data,
        Some(media_type),
        None,
    ))
}
