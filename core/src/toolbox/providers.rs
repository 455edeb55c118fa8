//! Tool definitions for model APIs, as plain JSON values (no HTTP client):
//! OpenAI (Chat Completions and Responses, with a strict variant),
//! Anthropic and Gemini. Each provider's file cites the documentation its
//! rules come from.

pub(crate) mod anthropic;
pub(crate) mod gemini;
pub(crate) mod openai;

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

/// Definitions for one provider.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Definitions {
    /// One tool definition each, in toolbox order.
    pub tools: Vec<Value>,
    /// Tools left out (Gemini) or not strict (OpenAI strict), and why.
    pub refusals: Vec<Refusal>,
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

#[cfg(test)]
mod tests {
    use super::*;

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
