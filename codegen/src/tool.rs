//! Per-tool IR ([`ToolMethod`]) and its emission: the marker type with its
//! metadata, and the client method.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::docs::doc_attrs;
use crate::literals::LongLiterals;
use crate::lock::LockedTool;

/// Everything the generator needs to emit one tool.
#[derive(Debug)]
pub(crate) struct ToolMethod<'a> {
    pub(crate) tool: &'a LockedTool,
    /// `snake_case` method name.
    pub(crate) method: Ident,
    /// `PascalCase` marker type name (in `tools`).
    pub(crate) marker: Ident,
    /// The input type (`types::…`).
    pub(crate) input: TokenStream,
    /// The output type (`types::…`), if the tool has an `outputSchema`.
    pub(crate) output: Option<TokenStream>,
}

pub(crate) fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The string literal `Literal::string(value)` makes, with the same text
/// (so the same output), made faster for long texts (a definition is a few
/// KB): proc_macro2 escapes one `char::escape_debug` at a time, while here
/// printable ASCII is copied as is and only the rest goes through
/// `escape_debug` (as proc_macro2 does it), and the lexer reads the text
/// back.
pub(crate) fn str_literal(value: &str) -> Literal {
    let mut repr = String::with_capacity(value.len() + value.len() / 8 + 2);
    repr.push('"');
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\\' => repr.extend(c.escape_debug()),
            // `'` included: proc_macro2 doesn't escape it in a string.
            ' '..='~' => repr.push(c),
            // `\0` before an octal digit would read as an octal escape.
            '\0' if chars.peek().is_some_and(|n| ('0'..='7').contains(n)) => repr.push_str("\\x00"),
            _ => repr.extend(c.escape_debug()),
        }
    }
    repr.push('"');
    repr.parse().unwrap_or_else(|_| Literal::string(value))
}

impl ToolMethod<'_> {
    /// The tool's documentation: title, description, annotations.
    /// The docs of the marker type and the `Handler` method: the title or
    /// the description's first line, and where the whole description is (it
    /// is written once, on the `Client` method, rather than three times).
    fn summary_docs(&self) -> String {
        let tool = self.tool;
        let first_line = tool
            .description()
            .and_then(|d| d.lines().map(str::trim_end).find(|l| !l.trim().is_empty()))
            // A code fence or block must not be cut in half.
            .filter(|l| {
                !l.starts_with("    ")
                    && !l.trim_start().starts_with("```")
                    && !l.trim_start().starts_with("~~~")
            });
        // One paragraph (one line of code): the summary rustdoc lists.
        let name = tool.name.escape_default();
        let place = format!(
            "tool `{name}`, described in full on `Client::{}`",
            self.method
        );
        match (tool.title(), first_line) {
            (Some(title), _) => {
                let title = title
                    .split(['\r', '\n'])
                    .filter(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("**{title}** ({place}).")
            }
            (None, Some(line)) => format!("{} ({place}).", line.trim().trim_end_matches('.')),
            (None, None) => {
                let mut doc = place;
                doc[..1].make_ascii_uppercase();
                doc + "."
            }
        }
    }

    /// The `Client` method's docs: the title (or the tool's name) with the
    /// annotations, then the whole description. Without a title, a
    /// description whose first line is plain text goes on the same line
    /// (`Tool `x` (read-only): Adds…`), which rustdoc reads as one paragraph.
    fn docs(&self) -> String {
        let tool = self.tool;
        let name = tool.name.escape_default();
        let hints = self.hints();
        let description = tool.description().map(str::trim).filter(|d| !d.is_empty());
        if let Some(title) = tool.title() {
            let title = title
                .split(['\r', '\n'])
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let description = description.map(str::to_owned);
            let description = description.unwrap_or_else(|| format!("Calls the `{name}` tool."));
            let hints: String = hints.iter().map(|h| format!(", {h}")).collect();
            return format!("**{title}** (tool `{name}`{hints})\n\n{description}");
        }
        let hints = if hints.is_empty() {
            String::new()
        } else {
            format!(" ({})", hints.join(", "))
        };
        match description {
            Some(d) if starts_plain(d) => format!("Tool `{name}`{hints}: {d}"),
            Some(d) => format!("Tool `{name}`{hints}.\n\n{d}"),
            None => format!("Calls the `{name}` tool{hints}."),
        }
    }

    /// The tool's annotations, in words (`read-only`, `idempotent`…).
    fn hints(&self) -> Vec<&'static str> {
        let tool = self.tool;
        let mut hints = Vec::new();
        if tool.hint("readOnlyHint") == Some(true) {
            hints.push("read-only");
        }
        if tool.hint("destructiveHint") == Some(true) && tool.hint("readOnlyHint") != Some(true) {
            hints.push("destructive");
        }
        if tool.hint("idempotentHint") == Some(true) {
            hints.push("idempotent");
        }
        if tool.hint("openWorldHint") == Some(false) {
            hints.push("closed-world");
        }
        hints
    }

    /// The marker type and its `::mcpbind::Tool` impl, in `mod tools`.
    pub(crate) fn marker_tokens(&self, server: &str, long: Option<&LongLiterals>) -> TokenStream {
        let tool = self.tool;
        let marker = &self.marker;
        let docs = doc_attrs(&self.summary_docs());
        let input = &self.input;
        let output = match &self.output {
            Some(o) => quote!(super::#o),
            None => quote!(()),
        };
        let name = tool.name.as_str();
        let definition = crate::canonical::canonical_json(&tool.definition);
        let title = text_span(
            &definition,
            tool.title(),
            &[&["title"], &["annotations", "title"]],
        );
        let description = text_span(&definition, tool.description(), &[&["description"]]);
        let spans = [
            title.unwrap_or_default(),
            description.unwrap_or_default(),
            top_level_range(&definition, "inputSchema").unwrap_or_default(),
            top_level_range(&definition, "outputSchema").unwrap_or_default(),
        ]
        .map(|(start, end)| {
            let (start, end) = (
                Literal::usize_unsuffixed(start),
                Literal::usize_unsuffixed(end),
            );
            quote!((#start, #end))
        });
        let definition = match long {
            Some(long) => long.literal(&definition),
            None => str_literal(&definition),
        };
        let read_only = tool.hint("readOnlyHint").unwrap_or(false);
        let destructive = tool.hint("destructiveHint").unwrap_or(true);
        let idempotent = tool.hint("idempotentHint").unwrap_or(false);
        let open_world = tool.hint("openWorldHint").unwrap_or(true);
        let args = quote! {
            #server,
            #name,
            #definition,
            [#(#spans),*],
            [#read_only, #destructive, #idempotent, #open_world],
        };
        // A text whose JSON has escapes is no slice of the definition.
        let escaped = (title.is_none() && tool.title().is_some())
            || (description.is_none() && tool.description().is_some());
        let meta = if escaped {
            let (title, description) = (opt_str(tool.title()), opt_str(tool.description()));
            quote!(::mcpbind::ToolMeta::with_texts(#args #title, #description))
        } else {
            quote!(::mcpbind::ToolMeta::new(#args))
        };
        quote! {
            #docs
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct #marker;

            impl ::mcpbind::Tool for #marker {
                type Input = super::#input;
                type Output = #output;
                const META: ::mcpbind::ToolMeta = #meta;
            }
        }
    }

    /// The typed client method.
    pub(crate) fn method_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&self.docs());
        let method = &self.method;
        let marker = &self.marker;
        let input = &self.input;
        let output = match &self.output {
            Some(o) => quote!(#o),
            None => quote!(()),
        };
        quote! {
            #docs
            pub fn #method(&self, input: #input) -> impl ::mcpbind::CallFuture<#output> + '_ {
                self.inner.call_owned::<tools::#marker>(input)
            }
        }
    }
}

impl ToolMethod<'_> {
    fn output_type(&self) -> TokenStream {
        match &self.output {
            Some(o) => quote!(#o),
            None => quote!(()),
        }
    }

    /// The `Handler` trait method, whose default answers "not implemented".
    pub(crate) fn handler_tokens(&self) -> TokenStream {
        let docs = doc_attrs(&self.summary_docs());
        let method = &self.method;
        let input = &self.input;
        let output = self.output_type();
        let name = self.tool.name.as_str();
        quote! {
            #docs
            fn #method(
                &self,
                input: #input,
            ) -> impl Future<Output = HandlerResult<#output>> + Send {
                ::mcpbind::__private::unimplemented(#name, input)
            }
        }
    }

    /// The `Server<H>` dispatch arm.
    pub(crate) fn dispatch_tokens(&self) -> TokenStream {
        let method = &self.method;
        let marker = &self.marker;
        let name = self.tool.name.as_str();
        quote! {
            #name => serve(#marker, args, |i| h.#method(i)),
        }
    }
}

/// Whether Markdown text starts with a line of plain text, which may follow
/// other text in the same paragraph (not a heading, list, quote, code,
/// table, HTML or rule, which would change).
fn starts_plain(text: &str) -> bool {
    let first = text.lines().next().unwrap_or_default();
    let Some(c) = first.chars().next() else {
        return false;
    };
    let list_number = first
        .split_once(['.', ')'])
        .is_some_and(|(n, rest)| n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(' '));
    (c.is_alphanumeric() || matches!(c, '`' | '(' | '"' | '\'' | '*'))
        && !first.starts_with("* ")
        && !first.starts_with("```")
        && !list_number
}

fn opt_str(s: Option<&str>) -> TokenStream {
    match s {
        Some(s) => {
            let s = str_literal(s);
            quote!(::std::option::Option::Some(#s))
        }
        None => quote!(::std::option::Option::None),
    }
}

/// The byte range of `text` inside its quotes in the canonical `definition`,
/// at the first of `paths` (keys of nested objects) that holds a string, if
/// the JSON there is `text` itself (no escapes).
fn text_span(definition: &str, text: Option<&str>, paths: &[&[&str]]) -> Option<(usize, usize)> {
    let text = text?;
    paths.iter().find_map(|path| {
        let (mut start, mut end) = (0, definition.len());
        for key in *path {
            let (s, e) = top_level_range(&definition[start..end], key)?;
            (start, end) = (start + s, start + e);
        }
        let quoted = &definition[start..end];
        let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
        (inner == text).then_some((start + 1, end - 1))
    })
}

/// The byte range of the value of top-level `key` in canonical JSON text
/// (an object with no whitespace), found by scanning, so that a `key` inside
/// a string or a nested object is never taken for it.
pub(crate) fn top_level_range(json: &str, key: &str) -> Option<(usize, usize)> {
    let wanted = format!("\"{key}\":");
    let bytes = json.as_bytes();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let mut value_start = None;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                // A key of the top-level object starts right after `{` or `,`.
                let after_separator = i > 0 && matches!(bytes[i - 1], b'{' | b',');
                if depth == 1 && after_separator && json[i..].starts_with(&wanted) {
                    value_start = Some(i + wanted.len());
                }
                in_string = true;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                match (value_start, depth) {
                    (Some(start), 1) if i >= start && matches!(bytes[start], b'{' | b'[') => {
                        return Some((start, i + 1));
                    }
                    // A scalar that is the last value ends at the closing `}`.
                    (Some(start), 0) if i > start => return Some((start, i)),
                    _ => {}
                }
            }
            _ => {}
        }
        if let Some(start) = value_start {
            // A scalar value ends at the next `,` or `}` of the top level.
            if depth == 1 && i > start && matches!(b, b',') && !matches!(bytes[start], b'{' | b'[')
            {
                return Some((start, i));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn str_literal_is_literal_string() {
        let mut all: String = (0..0x3100).filter_map(char::from_u32).collect();
        all.push_str("\u{1F600}\u{E0001}\u{FEFF}\u{10FFFF}");
        let cases = [
            "",
            "plain",
            "q\"uote 'single' back\\slash",
            "nul\0 then\u{0}7 and \u{0}8 end\u{0}",
            "line\nbreak\r\ttab\u{7f}\u{1}",
            "e\u{301} \u{200B}\u{202E} 日本",
            &all,
        ];
        for case in cases {
            assert_eq!(
                str_literal(case).to_string(),
                Literal::string(case).to_string(),
                "{case:?}"
            );
        }
    }

    #[test]
    fn finds_top_level_values_only() {
        let json = r#"{"a":"\"inputSchema\":1","b":{"inputSchema":{"x":1}},"inputSchema":{"type":"object","p":[1,{"q":"}"}]},"z":2}"#;
        let (s, e) = top_level_range(json, "inputSchema").unwrap();
        assert_eq!(&json[s..e], r#"{"type":"object","p":[1,{"q":"}"}]}"#);
        assert_eq!(top_level_range(json, "outputSchema"), None);
        let (s, e) = top_level_range(r#"{"a":{},"outputSchema":[]}"#, "outputSchema").unwrap();
        assert_eq!(&r#"{"a":{},"outputSchema":[]}"#[s..e], "[]");
        let json = r#"{"a":{"title":"no"},"title":"Yes"}"#;
        let (s, e) = top_level_range(json, "title").unwrap();
        assert_eq!(&json[s..e], r#""Yes""#);
        let (s, e) = top_level_range(json, "a").unwrap();
        assert_eq!(&json[s..e], r#"{"title":"no"}"#);
    }
}
