//! A tool result as each provider takes it back: text, images and audio
//! where the provider's tool result accepts them, a documented fallback
//! where it accepts them elsewhere in the conversation, and an explicit
//! note (kind, MIME type, size) where it accepts them nowhere. Nothing a
//! server sends is dropped without a note.
//!
//! Shapes and what each accepts, from the providers' documentation:
//! - OpenAI Chat Completions: a `tool` message, `{"role": "tool",
//!   "tool_call_id", "content"}`, whose content parts may only be text ("For
//!   tool messages, only type `text` is supported",
//!   <https://platform.openai.com/docs/api-reference/chat/create#chat-create-messages>).
//!   A `user` message accepts `image_url` parts (a `data:` URL; PNG, JPEG,
//!   WEBP, non-animated GIF, <https://platform.openai.com/docs/guides/images-vision>)
//!   and `input_audio` parts (`format` `wav` or `mp3`), so images and such
//!   audio go into one follow-up user message after the turn's tool
//!   messages.
//! - OpenAI Responses: a `function_call_output` item, `{"type":
//!   "function_call_output", "call_id", "output"}`, whose output is a string
//!   or a list of `input_text`, `input_image` and `input_file` items
//!   (<https://platform.openai.com/docs/api-reference/responses/create#responses-create-input>):
//!   images go in the result; audio is noted.
//! - Anthropic: a `tool_result` block, `{"type": "tool_result",
//!   "tool_use_id", "content", "is_error"}`, whose content is a string or a
//!   list of `text` and `image` blocks (base64 `source`, `image/jpeg`,
//!   `image/png`, `image/gif`, `image/webp`)
//!   (<https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks>,
//!   <https://docs.anthropic.com/en/docs/build-with-claude/vision>); no
//!   message accepts audio, so audio is noted.
//! - Gemini: a `functionResponse` part, `{"functionResponse": {"name",
//!   "response", "parts"}}`, `response` a JSON object ("Use 'output' key to
//!   specify function output and 'error' key to specify error details",
//!   <https://ai.google.dev/api/caching#FunctionResponse>) and `parts` its
//!   multimodal content, `inlineData` of `image/png`, `image/jpeg`,
//!   `image/webp` (<https://ai.google.dev/gemini-api/docs/function-calling#multimodal>).
//!   Audio (`audio/wav`, `audio/mp3`, `audio/aiff`, `audio/aac`,
//!   `audio/ogg`, `audio/flac`, <https://ai.google.dev/gemini-api/docs/audio>)
//!   is accepted as an `inlineData` part of a user turn, so it follows the
//!   `functionResponse` part in the same turn.
//!
//! For every provider: a text resource is inlined up to
//! [`ContentOptions::max_resource_bytes`] (cut with a note beyond), a blob
//! resource is a note of its URI, MIME type and size, a resource link is
//! named (name, URI, MIME type, description).
//!
//! Structured content and content together: the MCP specification asks a
//! tool that returns `structuredContent` to also return it as text
//! ("SHOULD also return the serialized JSON in a TextContent block"). So
//! when the content carries it (some text block is that JSON, or every
//! value of it is a whole token of the text, `1` not being one of `10
//! items`, or is a field of a block, as with a sentence written from the
//! same data or a structured copy of an image block), the content alone is
//! given (no second copy, no base64 pasted as text); when
//! there is no content at all, the structured content is given as JSON (for
//! Gemini, as the `output` object); when the content leaves some of it out,
//! both are given, the structured content after the rest.

use serde::Serialize;
use serde_json::{json, Value};

use rmcp::model::{ContentBlock, ResourceContents};

/// The model API a tool result is rendered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`tool` messages).
    OpenAiChat,
    /// OpenAI Responses (`function_call_output` items).
    OpenAiResponses,
    /// Anthropic Messages (`tool_result` blocks).
    Anthropic,
    /// Gemini (`functionResponse` parts).
    Gemini,
}

impl Provider {
    /// All providers, in a fixed order.
    pub const ALL: [Provider; 4] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
    ];

    fn label(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "OpenAI Chat Completions",
            Provider::OpenAiResponses => "OpenAI Responses",
            Provider::Anthropic => "Anthropic",
            Provider::Gemini => "Gemini",
        }
    }
}

/// Bounds of what a rendered result carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ContentOptions {
    /// How many bytes of an embedded text resource are inlined; the rest is
    /// cut, with a note saying how much.
    pub max_resource_bytes: usize,
}

impl Default for ContentOptions {
    fn default() -> Self {
        ContentOptions {
            max_resource_bytes: 32 * 1024,
        }
    }
}

impl ContentOptions {
    /// Sets [`max_resource_bytes`](Self::max_resource_bytes).
    pub fn with_max_resource_bytes(mut self, bytes: usize) -> Self {
        self.max_resource_bytes = bytes;
        self
    }
}

/// What kind of content a [`ContentNote`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum ContentKind {
    /// An image block.
    Image,
    /// An audio block.
    Audio,
    /// An embedded resource with text contents.
    TextResource,
    /// An embedded resource with binary contents.
    BlobResource,
    /// A resource link.
    ResourceLink,
    /// A kind of block mcpbind does not know.
    Unknown,
}

impl ContentKind {
    fn label(self) -> &'static str {
        match self {
            ContentKind::Image => "image",
            ContentKind::Audio => "audio",
            ContentKind::TextResource => "text resource",
            ContentKind::BlobResource => "binary resource",
            ContentKind::ResourceLink => "resource link",
            ContentKind::Unknown => "content of an unknown kind",
        }
    }
}

/// Where a non-text block went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum Placement {
    /// In the tool result itself, in the provider's shape.
    InResult,
    /// In [`ProviderResult::follow_up`] (the provider accepts it elsewhere
    /// in the conversation); the result says so.
    FollowUp,
    /// As a description only (a resource link, a blob, a cut text): the
    /// model reads its kind, MIME type and size.
    Described,
    /// Left out: the provider accepts it nowhere; the result says so.
    LeftOut,
}

/// A block of a result that is not plain text, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ContentNote {
    /// The block's kind.
    pub kind: ContentKind,
    /// Its MIME type, if it has one.
    pub mime_type: Option<String>,
    /// Its size in bytes (decoded, for base64 data), if known.
    pub bytes: Option<u64>,
    /// Its URI (resources and links).
    pub uri: Option<String>,
    /// Where it went.
    pub placement: Placement,
}

impl ContentNote {
    /// Content of a kind mcpbind does not know (a content block, or a
    /// resource's contents), left out.
    fn unknown() -> ContentNote {
        ContentNote {
            kind: ContentKind::Unknown,
            mime_type: None,
            bytes: None,
            uri: None,
            placement: Placement::LeftOut,
        }
    }
}

/// A tool result in one provider's shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ProviderResult {
    /// The provider's tool-result value: an OpenAI Chat `tool` message, an
    /// OpenAI Responses `function_call_output` item, an Anthropic
    /// `tool_result` block, a Gemini `functionResponse` part.
    pub message: Value,
    /// What the provider accepts elsewhere: for OpenAI Chat, one `user`
    /// message (send it after all tool messages of the turn); for OpenAI
    /// Responses, one `user` message input item; for Gemini, parts to add
    /// to the same turn after the `functionResponse` parts. Empty when
    /// everything fits in [`message`](Self::message).
    pub follow_up: Vec<Value>,
    /// Every block that is not plain text, and where it went.
    pub notes: Vec<ContentNote>,
    /// Whether the result reports an error.
    pub is_error: bool,
}

/// One piece of a result after the provider-independent step.
#[derive(Debug)]
pub(crate) enum Piece<'a> {
    Text(String),
    Media {
        kind: ContentKind,
        data: &'a str,
        mime: &'a str,
        note: usize,
    },
}

/// The provider-independent step: text as is, resources inlined or
/// described, structured content by the policy in the module docs; media
/// kept for the provider step.
pub(crate) fn pieces<'a>(
    content: &'a [ContentBlock],
    structured: Option<&Value>,
    options: &ContentOptions,
) -> (Vec<Piece<'a>>, Vec<ContentNote>) {
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for block in content {
        match block {
            ContentBlock::Text(text) => out.push(Piece::Text(text.text.clone())),
            ContentBlock::Image(image) => out.push(media(
                ContentKind::Image,
                &image.data,
                &image.mime_type,
                &mut notes,
            )),
            ContentBlock::Audio(audio) => out.push(media(
                ContentKind::Audio,
                &audio.data,
                &audio.mime_type,
                &mut notes,
            )),
            ContentBlock::Resource(embedded) => out.push(Piece::Text(resource(
                &embedded.resource,
                options,
                &mut notes,
            ))),
            ContentBlock::ResourceLink(link) => {
                notes.push(ContentNote {
                    kind: ContentKind::ResourceLink,
                    mime_type: link.mime_type.clone(),
                    bytes: link.size,
                    uri: Some(link.uri.clone()),
                    placement: Placement::Described,
                });
                out.push(Piece::Text(link_text(link)));
            }
            _ => {
                notes.push(ContentNote::unknown());
                out.push(Piece::Text(
                    "[a content block of a kind mcpbind does not know was left out]".into(),
                ));
            }
        }
    }
    if let Some(structured) = structured {
        add_structured(&mut out, content, structured);
    }
    (out, notes)
}

fn media<'a>(
    kind: ContentKind,
    data: &'a str,
    mime: &'a str,
    notes: &mut Vec<ContentNote>,
) -> Piece<'a> {
    notes.push(ContentNote {
        kind,
        mime_type: Some(mime.to_owned()),
        bytes: Some(decoded_len(data) as u64),
        uri: None,
        // Decided by the provider step.
        placement: Placement::LeftOut,
    });
    Piece::Media {
        kind,
        data,
        mime,
        note: notes.len() - 1,
    }
}

/// The policy of the module docs: no second copy of what the content says.
fn add_structured(out: &mut Vec<Piece<'_>>, content: &[ContentBlock], structured: &Value) {
    let texts: Vec<&str> = out
        .iter()
        .filter_map(|p| match p {
            Piece::Text(t) => Some(t.as_str()),
            Piece::Media { .. } => None,
        })
        .collect();
    let said = texts
        .iter()
        .any(|t| serde_json::from_str::<Value>(t).is_ok_and(|v| &v == structured));
    let joined = texts.join("\n");
    // The blocks' own fields (an image's data and MIME type, a resource's
    // URI…): a structured copy of the blocks says nothing more.
    let mut fields = std::collections::HashSet::new();
    for block in content {
        if let Ok(value) = serde_json::to_value(block) {
            leaves(&value, &mut fields);
        }
    }
    let empty = joined.trim().is_empty() && fields.is_empty();
    if said || (!empty && carries_every_value(&joined, &fields, structured)) {
        return;
    }
    let json = structured.to_string();
    if empty {
        out.clear();
        out.push(Piece::Text(json));
    } else {
        out.push(Piece::Text(format!("Structured content: {json}")));
    }
}

/// Every string, number and boolean in `value`, as text.
fn leaves(value: &Value, out: &mut std::collections::HashSet<String>) {
    match value {
        Value::Null => {}
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Bool(_) | Value::Number(_) => {
            out.insert(value.to_string());
        }
        Value::Array(items) => items.iter().for_each(|v| leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| leaves(v, out)),
    }
}

/// Whether the content holds every value (string, number, boolean) of
/// `structured`, in its text as a whole token or as a field of one of its
/// blocks: a text written for people from the same data (`{"content":
/// "Wrote 3 bytes"}` beside the text `Wrote 3 bytes`), or a structured copy
/// of the blocks. A value that is only part of a word or a number of the
/// text (`1` in `10 items`, `cat` in `category`) is not carried.
fn carries_every_value(
    text: &str,
    fields: &std::collections::HashSet<String>,
    structured: &Value,
) -> bool {
    match structured {
        Value::Null => true,
        Value::String(s) => fields.contains(s) || has_token(text, s, false),
        Value::Bool(_) | Value::Number(_) => {
            let s = structured.to_string();
            fields.contains(&s) || has_token(text, &s, structured.is_number())
        }
        Value::Array(items) => items.iter().all(|v| carries_every_value(text, fields, v)),
        Value::Object(map) => map.values().all(|v| carries_every_value(text, fields, v)),
    }
}

/// Whether `token` is in `text` as a whole: where it starts (ends) with a
/// letter, digit or `_`, the character before (after) it is none of these.
/// A number is whole where no sign, digit or decimal point goes on from it
/// either (`1` is not in `-1`, `1.5` or `v1`; it is in `1.` ending a
/// sentence). The empty string is carried by any text.
fn has_token(text: &str, token: &str, number: bool) -> bool {
    if token.is_empty() {
        return true;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let starts_word = number || token.starts_with(word);
    let ends_word = token.ends_with(word);
    text.match_indices(token).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let mut after = text[at + token.len()..].chars();
        let next = after.next();
        let cut_before = (starts_word && before.is_some_and(word))
            || (number && matches!(before, Some('-' | '+' | '.')));
        let cut_after = (ends_word && next.is_some_and(word))
            || (number && next == Some('.') && after.next().is_some_and(|c| c.is_ascii_digit()));
        !cut_before && !cut_after
    })
}

fn resource(
    contents: &ResourceContents,
    options: &ContentOptions,
    notes: &mut Vec<ContentNote>,
) -> String {
    match contents {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => {
            let cut = cut_at(text, options.max_resource_bytes);
            let mut out = format!(
                "Resource {uri}{}:\n{cut}",
                mime_type
                    .as_deref()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default()
            );
            let placement = if cut.len() < text.len() {
                out.push_str(&format!(
                    "\n[cut: {} of {} bytes shown]",
                    cut.len(),
                    text.len()
                ));
                Placement::Described
            } else {
                Placement::InResult
            };
            notes.push(ContentNote {
                kind: ContentKind::TextResource,
                mime_type: mime_type.clone(),
                bytes: Some(text.len() as u64),
                uri: Some(uri.clone()),
                placement,
            });
            out
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => {
            let bytes = decoded_len(blob);
            notes.push(ContentNote {
                kind: ContentKind::BlobResource,
                mime_type: mime_type.clone(),
                bytes: Some(bytes as u64),
                uri: Some(uri.clone()),
                placement: Placement::Described,
            });
            format!(
                "[binary resource {uri}: {}, {bytes} bytes, contents not shown]",
                mime_type.as_deref().unwrap_or("no MIME type")
            )
        }
        _ => {
            notes.push(ContentNote::unknown());
            "[resource contents of a kind mcpbind does not know were left out]".into()
        }
    }
}

fn link_text(link: &rmcp::model::Resource) -> String {
    let mut text = format!("[resource link: {} <{}>", link.name, link.uri);
    if let Some(mime) = &link.mime_type {
        text.push_str(&format!(", {mime}"));
    }
    if let Some(size) = link.size {
        text.push_str(&format!(", {size} bytes"));
    }
    if let Some(description) = &link.description {
        text.push_str(&format!(": {description}"));
    }
    text.push(']');
    text
}

/// At most `max` bytes of `text`, cut at a character boundary.
fn cut_at(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The length of what base64 text decodes to, without decoding it.
pub(crate) fn decoded_len(base64: &str) -> usize {
    let digits = base64
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    digits * 3 / 4
}

/// The text-only rendering ([`ToolCall::for_model`](super::ToolCall::for_model)):
/// media become notes of their kind, MIME type and size.
pub(crate) fn text_only(pieces: &[Piece<'_>], notes: &[ContentNote]) -> String {
    pieces
        .iter()
        .map(|piece| match piece {
            Piece::Text(text) => text.clone(),
            Piece::Media { note, .. } => {
                format!(
                    "[{}: not shown to a text-only model]",
                    describe(&notes[*note])
                )
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `image, image/png, 1234 bytes`.
fn describe(note: &ContentNote) -> String {
    let mut text = note.kind.label().to_owned();
    if let Some(mime) = &note.mime_type {
        text.push_str(&format!(", {mime}"));
    }
    if let Some(bytes) = note.bytes {
        text.push_str(&format!(", {bytes} bytes"));
    }
    text
}

/// The note of a media block `by` accepts nowhere: `[audio, audio/ogg,
/// 12345 bytes: left out, Anthropic does not accept it]`.
pub(crate) fn left_out(note: &ContentNote, by: &str) -> String {
    format!("[{}: left out, {by} does not accept it]", describe(note))
}

/// Where `provider` takes a media block of `kind` and `mime`.
pub(crate) fn placement(provider: Provider, kind: ContentKind, mime: &str) -> Placement {
    const OPENAI_IMAGES: &[&str] = &["image/png", "image/jpeg", "image/webp", "image/gif"];
    const ANTHROPIC_IMAGES: &[&str] = &["image/jpeg", "image/png", "image/gif", "image/webp"];
    const GEMINI_RESULT_IMAGES: &[&str] = &["image/png", "image/jpeg", "image/webp"];
    const GEMINI_AUDIO: &[&str] = &[
        "audio/wav",
        "audio/mp3",
        "audio/aiff",
        "audio/aac",
        "audio/ogg",
        "audio/flac",
    ];
    let mime = normalize_mime(mime);
    let mime = mime.as_str();
    match (provider, kind) {
        (Provider::OpenAiChat, ContentKind::Image) if OPENAI_IMAGES.contains(&mime) => {
            Placement::FollowUp
        }
        (Provider::OpenAiChat, ContentKind::Audio) if openai_audio_format(mime).is_some() => {
            Placement::FollowUp
        }
        (Provider::OpenAiResponses, ContentKind::Image) if OPENAI_IMAGES.contains(&mime) => {
            Placement::InResult
        }
        (Provider::Anthropic, ContentKind::Image) if ANTHROPIC_IMAGES.contains(&mime) => {
            Placement::InResult
        }
        (Provider::Gemini, ContentKind::Image) if GEMINI_RESULT_IMAGES.contains(&mime) => {
            Placement::InResult
        }
        (Provider::Gemini, ContentKind::Audio) if GEMINI_AUDIO.contains(&mime) => {
            Placement::FollowUp
        }
        _ => Placement::LeftOut,
    }
}

/// Common aliases to the names the providers list (`image/jpg`,
/// `audio/x-wav`, `audio/mpeg`…), parameters dropped.
pub(crate) fn normalize_mime(mime: &str) -> String {
    let base = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    match base.as_str() {
        "image/jpg" => "image/jpeg".into(),
        "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => "audio/wav".into(),
        "audio/mpeg" | "audio/mpeg3" | "audio/x-mp3" => "audio/mp3".into(),
        "audio/x-aiff" => "audio/aiff".into(),
        "audio/x-flac" => "audio/flac".into(),
        _ => base,
    }
}

/// OpenAI's `input_audio.format` for a MIME type.
fn openai_audio_format(mime: &str) -> Option<&'static str> {
    match normalize_mime(mime).as_str() {
        "audio/wav" => Some("wav"),
        "audio/mp3" => Some("mp3"),
        _ => None,
    }
}

/// Renders pieces for one provider.
pub(crate) fn render(
    provider: Provider,
    name: &str,
    call_id: &str,
    pieces: Vec<Piece<'_>>,
    mut notes: Vec<ContentNote>,
    is_error: bool,
) -> ProviderResult {
    let mut blocks = Vec::new();
    let mut follow_up = Vec::new();
    for piece in pieces {
        let (kind, data, mime, note) = match piece {
            Piece::Text(text) => {
                blocks.push(Block::Text(text));
                continue;
            }
            Piece::Media {
                kind,
                data,
                mime,
                note,
            } => (kind, data, mime, note),
        };
        let placement = placement(provider, kind, mime);
        notes[note].placement = placement;
        let described = describe(&notes[note]);
        match placement {
            Placement::InResult => blocks.push(Block::Media { kind, data, mime }),
            Placement::FollowUp => {
                follow_up.push(media_part(provider, kind, data, mime));
                blocks.push(Block::Text(format!(
                    "[{described}: attached {}]",
                    match provider {
                        Provider::Gemini => "as the next part of this turn",
                        _ => "in the next user message",
                    }
                )));
            }
            Placement::Described | Placement::LeftOut => {
                blocks.push(Block::Text(left_out(&notes[note], provider.label())));
            }
        }
    }
    let message = message(provider, name, call_id, &blocks, is_error);
    let follow_up = match provider {
        Provider::OpenAiChat | Provider::OpenAiResponses if !follow_up.is_empty() => {
            vec![json!({"role": "user", "content": follow_up})]
        }
        _ => follow_up,
    };
    ProviderResult {
        message,
        follow_up,
        notes,
        is_error,
    }
}

/// The provider's tool-result value for the blocks.
fn message(
    provider: Provider,
    name: &str,
    call_id: &str,
    blocks: &[Block<'_>],
    is_error: bool,
) -> Value {
    match provider {
        Provider::OpenAiChat => json!({
            "role": "tool",
            "tool_call_id": call_id,
            "content": joined(blocks),
        }),
        Provider::OpenAiResponses => json!({
            "type": "function_call_output",
            "call_id": call_id,
            "output": block_list(provider, blocks),
        }),
        Provider::Anthropic => {
            let mut block = json!({
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": block_list(provider, blocks),
            });
            if is_error {
                block["is_error"] = json!(true);
            }
            block
        }
        Provider::Gemini => gemini_response(name, call_id, blocks, is_error),
    }
}

enum Block<'a> {
    Text(String),
    Media {
        kind: ContentKind,
        data: &'a str,
        mime: &'a str,
    },
}

fn joined(blocks: &[Block<'_>]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            Block::Media { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A string when all is text (both APIs take one), else a list.
fn block_list(provider: Provider, blocks: &[Block<'_>]) -> Value {
    if blocks.iter().all(|b| matches!(b, Block::Text(_))) {
        return json!(joined(blocks));
    }
    let items: Vec<Value> = blocks
        .iter()
        .filter(|b| !matches!(b, Block::Text(t) if t.is_empty()))
        .map(|b| match (provider, b) {
            (Provider::OpenAiResponses, Block::Text(text)) => {
                json!({"type": "input_text", "text": text})
            }
            (_, Block::Text(text)) => json!({"type": "text", "text": text}),
            (_, Block::Media { kind, data, mime }) => media_part(provider, *kind, data, mime),
        })
        .collect();
    Value::Array(items)
}

/// One media block in `provider`'s shape (in the result or a follow-up).
fn media_part(provider: Provider, kind: ContentKind, data: &str, mime: &str) -> Value {
    let mime = normalize_mime(mime);
    match (provider, kind) {
        (Provider::OpenAiChat, ContentKind::Audio) => json!({
            "type": "input_audio",
            "input_audio": {"data": data, "format": openai_audio_format(&mime)},
        }),
        (Provider::OpenAiChat, _) => json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{mime};base64,{data}")},
        }),
        (Provider::OpenAiResponses, _) => json!({
            "type": "input_image",
            "image_url": format!("data:{mime};base64,{data}"),
        }),
        (Provider::Anthropic, _) => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": mime, "data": data},
        }),
        (Provider::Gemini, _) => json!({"inlineData": {"mimeType": mime, "data": data}}),
    }
}

fn gemini_response(name: &str, call_id: &str, blocks: &[Block<'_>], is_error: bool) -> Value {
    let text = joined(blocks);
    // The structured content alone (no text) is given as the object it is.
    let output = serde_json::from_str::<Value>(&text)
        .ok()
        .filter(Value::is_object)
        .unwrap_or(Value::String(text));
    let key = if is_error { "error" } else { "output" };
    let mut response = json!({"name": name, "response": {key: output}});
    if !call_id.is_empty() {
        response["id"] = json!(call_id);
    }
    let parts: Vec<Value> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Media { kind, data, mime } => {
                Some(media_part(Provider::Gemini, *kind, data, mime))
            }
            Block::Text(_) => None,
        })
        .collect();
    if !parts.is_empty() {
        response["parts"] = Value::Array(parts);
    }
    json!({ "functionResponse": response })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ContentBlock, ResourceContents};

    fn blocks() -> Vec<ContentBlock> {
        vec![
            ContentBlock::text("before"),
            ContentBlock::image("aGVsbG8=", "image/png"),
            ContentBlock::audio("aGVsbG8=", "audio/ogg"),
        ]
    }

    #[test]
    fn structured_content_is_not_given_twice() {
        let structured = json!({"a": 1});
        let with_json = vec![ContentBlock::text(r#"{"a": 1}"#)];
        let (p, _) = pieces(&with_json, Some(&structured), &ContentOptions::default());
        assert_eq!(text_only(&p, &[]), r#"{"a": 1}"#);
        let none: Vec<ContentBlock> = Vec::new();
        let (p, _) = pieces(&none, Some(&structured), &ContentOptions::default());
        assert_eq!(text_only(&p, &[]), r#"{"a":1}"#);
        let sentence = vec![ContentBlock::text("a is 1")];
        let (p, _) = pieces(&sentence, Some(&structured), &ContentOptions::default());
        assert_eq!(text_only(&p, &[]), "a is 1");
        let other = vec![ContentBlock::text("done")];
        let (p, _) = pieces(&other, Some(&structured), &ContentOptions::default());
        assert_eq!(text_only(&p, &[]), "done\nStructured content: {\"a\":1}");
    }

    /// The text given for `text` beside `structured`.
    fn given(text: &str, structured: Value) -> String {
        let content = vec![ContentBlock::text(text)];
        let (p, _) = pieces(&content, Some(&structured), &ContentOptions::default());
        text_only(&p, &[])
    }

    /// `structured` is left out beside `text` (the text carries it).
    fn carried(text: &str, structured: Value) -> bool {
        let out = given(text, structured.clone());
        if out == text {
            return true;
        }
        assert_eq!(out, format!("{text}\nStructured content: {structured}"));
        false
    }

    #[test]
    fn structured_values_are_carried_only_as_whole_tokens() {
        // Numbers: a digit of a longer number is not the number.
        assert!(!carried("10 items", json!({"code": 1})));
        assert!(carried("10 items", json!({"code": 10})));
        assert!(!carried("100 items", json!({"code": 10})));
        assert!(carried("code 1.", json!({"code": 1})));
        assert!(!carried("took 1.5 s", json!({"code": 1})));
        assert!(!carried("took 1.5 s", json!({"code": 5})));
        assert!(carried("took 1.5 s", json!({"seconds": 1.5})));
        assert!(!carried("took 1.55 s", json!({"seconds": 1.5})));
        assert!(!carried("version v2", json!({"n": 2})));
        // Negative numbers: the sign belongs to the number.
        assert!(carried("it is -3 outside", json!({"t": -3})));
        assert!(!carried("it is -3 outside", json!({"t": 3})));
        assert!(!carried("it is -30 outside", json!({"t": -3})));
        assert!(carried("-0.25", json!({"t": -0.25})));
        // Booleans: whole words.
        assert!(carried("done: true", json!({"ok": true})));
        assert!(!carried("untrue", json!({"ok": true})));
        assert!(!carried("true_value", json!({"ok": true})));
        // Strings: whole strings, spaces and all.
        assert!(carried(
            "Wrote 3 bytes to a b.txt",
            json!({"path": "a b.txt", "n": 3})
        ));
        assert!(!carried(
            "Wrote 3 bytes to a b.txt",
            json!({"path": "b.tx"})
        ));
        assert!(!carried("the category", json!({"kind": "cat"})));
        assert!(carried("a cat, a dog", json!({"kind": "cat"})));
        assert!(carried("see /tmp/x.", json!({"path": "/tmp/x"})));
        assert!(!carried("see /tmp/xy", json!({"path": "/tmp/x"})));
        assert!(carried(
            "said \"hello world\"",
            json!({"said": "hello world"})
        ));
        assert!(!carried(
            "said hello worlds",
            json!({"said": "hello world"})
        ));
        // Nested objects and arrays: every value, at every level.
        let nested = json!({"user": {"name": "ada", "tags": ["x y", 7]}, "ok": false});
        assert!(carried("ada has tags x y and 7: false", nested.clone()));
        assert!(!carried("ada has tags x y and 77: false", nested.clone()));
        assert!(!carried("ada has tags x yz and 7: false", nested));
        assert!(!carried("items: 10, 20", json!([[10, 2]])));
        assert!(carried("items: 10, 2", json!([[10, 2]])));
    }

    #[test]
    fn text_resources_are_cut_at_the_bound_with_a_note() {
        let content = vec![ContentBlock::Resource(rmcp::model::EmbeddedResource::new(
            ResourceContents::text("héllo world", "mem://x"),
        ))];
        let options = ContentOptions::default().with_max_resource_bytes(2);
        let (p, notes) = pieces(&content, None, &options);
        assert_eq!(
            text_only(&p, &notes),
            "Resource mem://x (text/plain):\nh\n[cut: 1 of 12 bytes shown]"
        );
        assert_eq!(notes[0].placement, Placement::Described);
    }

    #[test]
    fn each_provider_places_media_as_documented() {
        let content = blocks();
        let expected = [
            (
                Provider::OpenAiChat,
                [Placement::FollowUp, Placement::LeftOut],
            ),
            (
                Provider::OpenAiResponses,
                [Placement::InResult, Placement::LeftOut],
            ),
            (
                Provider::Anthropic,
                [Placement::InResult, Placement::LeftOut],
            ),
            (Provider::Gemini, [Placement::InResult, Placement::FollowUp]),
        ];
        for (provider, placements) in expected {
            let (p, notes) = pieces(&content, None, &ContentOptions::default());
            let out = render(provider, "t", "id1", p, notes, false);
            let got: Vec<Placement> = out.notes.iter().map(|n| n.placement).collect();
            assert_eq!(got, placements, "{provider:?}");
            assert_eq!(out.notes[0].bytes, Some(5));
        }
    }
}
