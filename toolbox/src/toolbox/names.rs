//! Model-facing tool names: `{prefix}_{tool}`, made legal for every major
//! model API.
//!
//! The strictest rules in use, which every name here satisfies:
//! - OpenAI function names: `^[a-zA-Z0-9_-]{1,64}$` (Chat Completions
//!   `tools[].function.name`, "Must be a-z, A-Z, 0-9, or contain underscores
//!   and dashes, with a maximum length of 64",
//!   <https://platform.openai.com/docs/api-reference/chat/create>);
//! - Anthropic tool names: "Must match the regex `^[a-zA-Z0-9_-]{1,64}$`"
//!   (<https://docs.anthropic.com/en/api/messages>, `tools[].name`);
//! - Gemini function declarations: "Must start with a letter or an
//!   underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots and
//!   dashes, with a maximum length of 64"
//!   (<https://ai.google.dev/api/caching#FunctionDeclaration>).
//!
//! So: `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`.

use sha2::{Digest, Sha256};

/// The longest model-facing name any of the providers accepts.
pub const MAX_NAME_LEN: usize = 64;

/// Hex digits of the hash suffix that keeps shortened names distinct.
const HASH_LEN: usize = 8;

/// The model-facing name of `tool` under `prefix` (no prefix when empty).
///
/// Characters outside `[a-zA-Z0-9_-]` become `_`; a name that does not
/// start with a letter or `_` gets a leading `_`; a name longer than 64
/// characters is cut to 55 and given `_` plus the first 8 hex digits of the
/// sha256 of the unshortened name, so that shortening is deterministic and
/// two long names that share a beginning stay apart.
pub fn model_name(prefix: &str, tool: &str) -> String {
    let joined = if prefix.is_empty() {
        tool.to_owned()
    } else {
        format!("{prefix}_{tool}")
    };
    let mut name: String = joined
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert(0, '_');
    }
    if name.len() > MAX_NAME_LEN {
        let digest = Sha256::digest(joined.as_bytes());
        let hex: String = digest
            .iter()
            .take(HASH_LEN / 2)
            .map(|b| format!("{b:02x}"))
            .collect();
        name.truncate(MAX_NAME_LEN - HASH_LEN - 1);
        name.push('_');
        name.push_str(&hex);
    }
    name
}

/// Whether `name` satisfies every provider's rule (see the module docs).
pub fn is_legal(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_keeps_legal_names() {
        assert_eq!(model_name("demo", "add"), "demo_add");
        assert_eq!(model_name("", "add"), "add");
        assert_eq!(model_name("everything", "get-sum"), "everything_get-sum");
    }

    #[test]
    fn replaces_illegal_characters_and_leading_digits() {
        assert_eq!(model_name("", "2x.mode"), "_2x_mode");
        assert_eq!(model_name("a", "ns/tool name"), "a_ns_tool_name");
        assert_eq!(model_name("", "é"), "_");
        assert!(is_legal(&model_name("", "-dash")));
    }

    #[test]
    fn shortens_long_names_deterministically() {
        let long = "x".repeat(80);
        let a = model_name("server", &long);
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert_eq!(a, model_name("server", &long));
        assert!(is_legal(&a));
        let b = model_name("server", &format!("{long}y"));
        assert_ne!(a, b);
        assert_eq!(a[..55], b[..55]);
    }
}
