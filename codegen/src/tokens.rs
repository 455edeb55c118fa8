//! Small readings of token trees that the post-processing and the
//! container attributes share: an attribute at a position, a group's
//! tokens, a string literal's value.

use proc_macro2::{Delimiter, Group, Literal, TokenStream, TokenTree};

/// Whether `#[…]` (an attribute) is at `trees[j]`.
pub(crate) fn is_attribute_at(trees: &[TokenTree], j: usize) -> bool {
    matches!(
        (trees.get(j), trees.get(j + 1)),
        (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g)))
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket
    )
}

/// A group's tokens, without copying them: the group is dropped first, so
/// the stream is no longer shared when it is iterated.
pub(crate) fn into_stream(g: Group) -> TokenStream {
    g.stream()
}

/// The value of a string literal token, `None` for other literals.
pub(crate) fn string_value(lit: &Literal) -> Option<String> {
    let repr = lit.to_string();
    if !repr.starts_with('"') && !repr.starts_with('r') {
        return None;
    }
    // Without escapes, the value is what is between the quotes.
    let quoted = repr.strip_prefix('"').and_then(|r| r.strip_suffix('"'));
    if let Some(plain) = quoted.filter(|r| !r.contains('\\')) {
        return Some(plain.to_owned());
    }
    quoted
        .and_then(unescape)
        .or_else(|| syn::parse_str::<syn::LitStr>(&repr).ok().map(|s| s.value()))
}

/// The value of a string literal's inside, for the escapes that
/// `Literal::string` writes (`\n`, `\u{…}`…); `None` for any other (a line
/// continuation), which is left to syn.
fn unescape(quoted: &str) -> Option<String> {
    let mut out = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = match chars.next()? {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '0' => '\0',
            c @ ('\\' | '\'' | '"') => c,
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                char::from(u8::from_str_radix(&hex, 16).ok().filter(u8::is_ascii)?)
            }
            'u' => {
                let rest = chars.as_str().strip_prefix('{')?;
                let (hex, after) = rest.split_once('}')?;
                let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
                chars = after.chars();
                c
            }
            _ => return None,
        };
        out.push(escaped);
    }
    Some(out)
}
