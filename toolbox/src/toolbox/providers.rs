//! Tool definitions for model APIs, as plain JSON values (no HTTP client):
//! OpenAI (Chat Completions and Responses, with a strict variant),
//! Anthropic and Gemini. Each provider's file cites the documentation its
//! rules come from.

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod openai;

#[cfg(test)]
mod corpus_tests;

use serde::Serialize;
use serde_json::Value;

/// How much of each tool's description a definition carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DescriptionPolicy {
    /// The whole description.
    #[default]
    Full,
    /// At most this many characters, cut at a word boundary with `…`.
    Truncate(usize),
}

impl DescriptionPolicy {
    /// Applies the policy to `text`.
    pub fn apply(self, text: &str) -> String {
        let DescriptionPolicy::Truncate(limit) = self else {
            return text.to_owned();
        };
        if text.chars().count() <= limit {
            return text.to_owned();
        }
        let cut: String = text.chars().take(limit.saturating_sub(1)).collect();
        // The cut ends a word when the next character is a space.
        let at_word_end = text
            .chars()
            .nth(limit.saturating_sub(1))
            .is_some_and(char::is_whitespace);
        let cut = match cut.rfind(char::is_whitespace) {
            _ if at_word_end => cut.trim_end(),
            Some(space) if space > 0 => cut[..space].trim_end(),
            _ => cut.as_str(),
        };
        format!("{cut}…")
    }
}

/// The shape of OpenAI tool definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpenAiShape {
    /// Chat Completions: `{"type": "function", "function": {…}}`.
    ChatCompletions,
    /// Responses: `{"type": "function", "name": …, "parameters": …}`.
    Responses,
}

/// A tool a provider's definitions leave out or can't mark strict, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Refusal {
    /// The model-facing name.
    pub name: String,
    /// Why, naming the JSON pointer in the locked input schema.
    pub reason: String,
}

/// `name: reason`.
impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.reason)
    }
}

/// Definitions for one provider.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Definitions {
    /// One tool definition each, in toolbox order.
    pub tools: Vec<Value>,
    /// Tools left out (Gemini) or not strict (OpenAI strict), and why.
    pub refusals: Vec<Refusal>,
    /// The provider's per-request limits these definitions exceed (the
    /// request would be refused): hold some tools back
    /// ([`Toolbox::hold_back_where`](crate::Toolbox::hold_back_where),
    /// [`Toolbox::hold_back_server`](crate::Toolbox::hold_back_server)).
    pub exceeded: Vec<LimitExceeded>,
    /// The model-facing names of the unlocked tools among
    /// [`tools`](Self::tools): listed live, not in `mcpbind.lock`
    /// ([`Toolbox::add_unlocked`](crate::Toolbox::add_unlocked)), so their
    /// definitions are the server's word at run time.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlocked: Vec<String>,
}

/// A per-request limit of a provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum RequestLimit {
    /// OpenAI: "A max of 128 functions are supported" (Chat Completions
    /// `tools`, <https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools>;
    /// the Responses API takes the same functions).
    OpenAiFunctions,
    /// Gemini on Vertex AI: "Maximum 64 function declarations can be
    /// provided" (`Tool.functionDeclarations`,
    /// <https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Tool>).
    GeminiFunctionDeclarations,
}

impl RequestLimit {
    /// The limit's value.
    pub const fn max(self) -> usize {
        match self {
            RequestLimit::OpenAiFunctions => 128,
            RequestLimit::GeminiFunctionDeclarations => 64,
        }
    }
}

/// Definitions hold more than a provider takes in one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{actual} tools, more than the {max} a request may hold ({limit:?}); hold some back")]
#[non_exhaustive]
pub struct LimitExceeded {
    /// Which limit.
    pub limit: RequestLimit,
    /// Its value.
    pub max: usize,
    /// How many the definitions hold.
    pub actual: usize,
}

impl Definitions {
    /// Records `limit` if the definitions exceed it.
    pub(crate) fn check(mut self, limit: RequestLimit) -> Self {
        if self.tools.len() > limit.max() {
            self.exceeded.push(LimitExceeded {
                limit,
                max: limit.max(),
                actual: self.tools.len(),
            });
        }
        self
    }
}

/// What each provider module needs of a tool.
pub(crate) struct ToolView<'a> {
    pub name: &'a str,
    pub description: String,
    pub schema: &'a Value,
}

/// Keywords that only annotate or constrain what the toolbox checks
/// locally against the locked schema anyway, so dropping them for a
/// provider loses no safety: every call is validated before it is sent.
pub(crate) fn is_dropped_everywhere(key: &str) -> bool {
    matches!(key, "$schema" | "$id" | "$comment" | "examples")
}

/// The root of an input schema as every provider takes it: an object
/// schema with `properties`. MCP requires `"type": "object"` at the root,
/// but real servers send `{}` or only `{"$schema": …}` for a tool without
/// parameters, which OpenAI refuses; and some models refuse an object
/// schema without `properties`. Neither addition changes what is valid
/// (calls are checked against the locked schema anyway).
pub(crate) fn object_root(schema: Value) -> Value {
    let mut map = match schema {
        Value::Object(map) => map,
        // `true` or something that isn't a schema.
        _ => serde_json::Map::new(),
    };
    if !map.contains_key("type") && !map.contains_key("anyOf") && !map.contains_key("oneOf") {
        map.insert("type".into(), Value::String("object".into()));
    }
    if map.get("type").and_then(Value::as_str) == Some("object") && !map.contains_key("properties")
    {
        map.insert("properties".into(), Value::Object(Default::default()));
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_roots_become_empty_object_schemas() {
        let empty = json!({"type": "object", "properties": {}});
        assert_eq!(object_root(json!({})), empty);
        let with_schema =
            object_root(json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}));
        assert_eq!(with_schema["type"], "object");
        assert_eq!(with_schema["properties"], json!({}));
        assert_eq!(object_root(json!(true)), empty);
        let kept = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(object_root(kept.clone()), kept);
    }

    /// One rule per provider for a tool without parameters, whatever form
    /// its locked root has: OpenAI (both shapes, strict or not) and
    /// Anthropic get the empty object schema; Gemini, which refuses an
    /// `OBJECT` with empty `properties`, gets no `parameters` (its docs:
    /// "For function with no parameters, this can be left unset").
    #[test]
    fn empty_roots_follow_one_rule_per_provider() {
        let empty = json!({"type": "object", "properties": {}});
        let roots = [
            json!({}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}),
        ];
        for root in roots {
            let schema = object_root(root.clone());
            let view = ToolView {
                name: "s_ping",
                description: "Pings.".into(),
                schema: &schema,
            };
            let responses = openai::definition(&view, OpenAiShape::Responses, None);
            assert_eq!(responses["parameters"], empty, "{root}");
            let chat = openai::definition(&view, OpenAiShape::ChatCompletions, None);
            assert_eq!(chat["function"]["parameters"], empty, "{root}");
            let strict = openai::strict_schema(&schema).unwrap();
            assert_eq!(strict["type"], "object", "{root}");
            assert_eq!(strict["properties"], json!({}), "{root}");
            assert_eq!(strict["additionalProperties"], false, "{root}");
            let strict = openai::definition(&view, OpenAiShape::Responses, Some(strict));
            assert_eq!(strict["strict"], true, "{root}");
            assert_eq!(
                anthropic::definition(&view)["input_schema"],
                empty,
                "{root}"
            );
            let gemini = gemini::declaration(&view).unwrap();
            assert_eq!(
                gemini,
                json!({"name": "s_ping", "description": "Pings."}),
                "{root}"
            );
        }
    }

    #[test]
    fn truncates_at_word_boundary() {
        let p = DescriptionPolicy::Truncate(12);
        assert_eq!(p.apply("short"), "short");
        assert_eq!(p.apply("Read a file from the disk"), "Read a file…");
        assert_eq!(p.apply("Read a file, then more"), "Read a…");
        assert_eq!(p.apply("Averyveryverylongword"), "Averyveryve…");
        assert_eq!(DescriptionPolicy::Full.apply("x y"), "x y");
    }
}
