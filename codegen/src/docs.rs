//! Server text made safe as rustdoc.
//!
//! Descriptions are written by servers, which may be hostile: nothing in them
//! may compile (a fenced example becomes a `text` block), break the file (a
//! lone CR, a NUL), or be rejected by rustc (the bidirectional controls of
//! "Trojan Source", denied in comments by `text_direction_codepoint_in_comment`).
//! Invisible and control characters are shown as `\u{..}` escapes, so that a
//! reader of the generated code sees them.

use std::borrow::Cow;

use proc_macro2::TokenStream;
use quote::quote;

/// `#[doc = "…"]` lines, made safe for rustdoc.
pub(crate) fn doc_attrs(text: &str) -> TokenStream {
    let text = doc_text(text);
    let lines = text
        .lines()
        .map(|l| crate::naming::str_literal(&format!(" {l}")));
    quote! { #( #[doc = #lines] )* }
}

/// Whether `c` is shown as an escape: controls other than tab and line
/// breaks, bidirectional controls, zero-width and other invisible format
/// characters, and line/paragraph separators.
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c,
            '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2028}' | '\u{2029}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{061C}' | '\u{FEFF}' | '\u{00AD}')
}

/// Escapes hidden characters (see [`is_hidden`]) as `\u{..}`.
fn escape_hidden(text: &str) -> Cow<'_, str> {
    // Printable ASCII, tabs and line breaks (most texts): nothing hidden.
    let plain = |b: u8| matches!(b, b' '..=b'~' | b'\n' | b'\t');
    if text.bytes().all(plain) || !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Makes text safe as rustdoc: fenced code blocks become `text` blocks, and
/// so do indented code blocks (four spaces or a tab after a blank line:
/// rustdoc runs both as doctests), so that a server's example never
/// compiles or runs in the user's `cargo test`; an unclosed fence is closed,
/// and NULs are dropped.
pub(crate) fn doc_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_fence: Option<String> = None;
    let mut in_indented = false;
    let mut prev_blank = true;
    // Most texts have neither, and are not copied for them.
    let text = match text.contains(['\0', '\r']) {
        true => Cow::Owned(
            text.replace('\0', "")
                .replace("\r\n", "\n")
                .replace('\r', "\n"),
        ),
        false => Cow::Borrowed(text),
    };
    let text = escape_hidden(&text);
    for line in text.lines() {
        let trimmed = line.trim_start();
        let blank = trimmed.is_empty();
        if in_fence.is_none() {
            let indented = line.starts_with("    ") || line.starts_with('\t');
            if in_indented && !blank && !indented {
                out.push_str("```\n");
                in_indented = false;
            } else if !in_indented && !blank && indented && prev_blank {
                out.push_str("```text\n");
                in_indented = true;
            }
            if in_indented {
                out.push_str(line);
                out.push('\n');
                prev_blank = blank;
                continue;
            }
        }
        prev_blank = blank;
        let fence_len = trimmed.len() - trimmed.trim_start_matches(['`', '~']).len();
        let fence = &trimmed[..fence_len];
        let is_fence = fence.len() >= 3
            && fence
                .chars()
                .all(|c| c == fence.chars().next().unwrap_or('`'));
        match &in_fence {
            None if is_fence => {
                let indent = &line[..line.len() - trimmed.len()];
                out.push_str(indent);
                out.push_str(fence);
                out.push_str("text");
                in_fence = Some(fence.to_owned());
            }
            Some(open) if is_fence && trimmed.trim_end() == open.as_str() => {
                out.push_str(line);
                in_fence = None;
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    if let Some(open) = in_fence {
        out.push_str(&open);
        out.push('\n');
    }
    if in_indented {
        out.push_str("```\n");
    }
    out.trim_end().to_owned()
}

/// The `# Errors` section of a generated method that makes one request
/// of the server through `method` of `mcpbind::Client`, and returns its
/// answer (clippy's `missing_errors_doc`).
pub(crate) fn request_errors(method: &str) -> String {
    format!(
        "# Errors\n\nThose of [`mcpbind::Client::{method}`]: the connection was lost, the server did not answer in time, or it answered with an error."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_become_text() {
        assert_eq!(
            doc_text("x\n```rust\nfn main(){}\n```\ny"),
            "x\n```text\nfn main(){}\n```\ny"
        );
        assert_eq!(doc_text("```\nopen"), "```text\nopen\n```");
        assert_eq!(doc_text("a\0b"), "ab");
        assert_eq!(doc_text("a\rb\r\nc"), "a\nb\nc");
    }

    #[test]
    fn indented_code_becomes_text() {
        assert_eq!(
            doc_text("Indented code:\n\n    fn main() { panic!() }\n\nafter"),
            "Indented code:\n\n```text\n    fn main() { panic!() }\n\n```\nafter"
        );
        // A continuation line of a paragraph is not code.
        assert_eq!(doc_text("- item\n    more"), "- item\n    more");
        assert_eq!(doc_text("\tx = 1"), "```text\n\tx = 1\n```");
    }

    #[test]
    fn trojan_source_characters_are_escaped() {
        let text = "admin\u{202E}\u{2066}x\u{2069}\u{200B}y\u{7}z\tend";
        assert_eq!(
            doc_text(text),
            "admin\\u{202e}\\u{2066}x\\u{2069}\\u{200b}y\\u{7}z\tend"
        );
    }
}
