//! Post-processing of typify's output, in one pass over its tokens.
//!
//! typify names `::serde` and `::serde_json` (in paths and inside attribute
//! strings such as `skip_serializing_if = "::serde_json::Map::is_empty"`);
//! the user's crate depends on `mcpbind` alone, so every such path goes
//! through `::mcpbind::__private`, and serde's own derives (where mcpbind's
//! lean ones don't apply) are told where serde is (`#[serde(crate = …)]`). Derives name `Deserialize`/`Serialize` bare:
//! the `types` module imports them (a definition can't take those names, see
//! `naming::SHADOWING`), which keeps each derive on one line. Doc strings are
//! made rustdoc-safe ([`crate::docs::doc_text`]) and placeholder suffixes
//! (`prepare::PLACEHOLDER`) are cut from string literals.
//!
//! Working on tokens rather than a parsed `syn::File` keeps this linear and
//! cheap: nothing is re-parsed but the few literals that change.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::quote;

use crate::docs::doc_text;
use crate::prepare::{strip_placeholders, PLACEHOLDER};

/// The prefix that replaces a leading `::` before `serde`/`serde_json`.
const PRIVATE: &str = "::mcpbind::__private";

/// Rewrites typify's tokens (see the module docs). With `json_short`,
/// `serde_json`'s `Map` and `Value` are named bare (the scope imports them:
/// [`types_prelude`]).
pub(crate) fn rewrite(tokens: TokenStream, placeholders: bool, json_short: bool) -> TokenStream {
    Rewriter {
        placeholders,
        json_short,
    }
    .stream(tokens)
}

/// The `use` lines the `types` module needs: the bare derives (the bare
/// `Deserialize` is mcpbind's lean derive, [`lean_deserialize`]; `serde` for
/// `serde::Deserialize` where an item needs serde's), and
/// `serde_json`'s `Map` and `Value` unless a definition takes one of those
/// names ([`defines_json_names`]).
pub(crate) fn types_prelude(json_short: bool) -> TokenStream {
    let json = json_short.then(|| {
        quote!(
            use ::mcpbind::__private::serde_json::{Map, Value};
        )
    });
    quote! {
        #[allow(unused_imports)]
        use ::mcpbind::__private::{serde, Deserialize, Serialize};
        #json
    }
}

/// Whether `tokens` define a type named `Map` or `Value` (then those keep
/// their full paths).
pub(crate) fn defines_json_names(tokens: &TokenStream) -> bool {
    let mut after_keyword = false;
    for tree in tokens.clone() {
        match &tree {
            TokenTree::Ident(id) if after_keyword && (id == "Map" || id == "Value") => {
                return true;
            }
            TokenTree::Ident(id) => {
                after_keyword = matches!(
                    id.to_string().as_str(),
                    "struct" | "enum" | "type" | "union" | "trait" | "mod"
                );
            }
            TokenTree::Group(g) if defines_json_names(&g.stream()) => return true,
            _ => after_keyword = false,
        }
    }
    false
}

/// `::std::<module>::<Name>` paths to prelude items, named bare. The
/// generated modules define none of these names: definitions never take them
/// (`naming::SHADOWING`) and the template's items are named otherwise.
const PRELUDE: &[(&str, &str)] = &[
    ("option", "Option"),
    ("string", "String"),
    ("vec", "Vec"),
    ("boxed", "Box"),
    ("result", "Result"),
    ("convert", "From"),
    ("convert", "Into"),
    ("convert", "TryFrom"),
    ("default", "Default"),
    ("marker", "Send"),
    ("marker", "Sync"),
];

struct Rewriter {
    placeholders: bool,
    json_short: bool,
}

impl Rewriter {
    fn stream(&self, tokens: TokenStream) -> TokenStream {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len() + 8);
        let mut i = 0;
        while i < trees.len() {
            // `impl TryFrom<&str> for X { … value.parse() … }` (and `String`):
            // typify's conveniences over `FromStr`, left out (`"x".parse()`
            // does the same).
            if let Some(len) = parse_delegate(&trees[i..]) {
                i += len;
                continue;
            }
            // typify's `mod error { struct ConversionError … }`, the same in
            // every server: mcpbind's.
            if let Some(len) = self.error_module(&trees[i..], &mut out) {
                i += len;
                continue;
            }
            // `#` `[…]`: an attribute.
            if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&trees[i], trees.get(i + 1))
            {
                if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket {
                    self.attribute(g, &trees[i..], &mut out);
                    i += 2;
                    continue;
                }
            }
            // `::std::option::Option` and the like: `Option`.
            if let Some((name, len)) = self.short_path(&trees, i) {
                out.push(TokenTree::Ident(name));
                i += len;
                continue;
            }
            // `::serde…` / `::serde_json…`.
            if is_serde(trees.get(i + 2)) && is_leading_colons(&trees, i) {
                out.extend(private_prefix());
                i += 2;
                continue;
            }
            match &trees[i] {
                TokenTree::Group(g) => out.push(self.group(g)),
                TokenTree::Literal(lit) if self.placeholders => out.push(self.literal(lit)),
                other => out.push(other.clone()),
            }
            i += 1;
        }
        out.into_iter().collect()
    }

    /// At `mod error { … }` holding typify's `ConversionError`: emits
    /// `mod error { pub use ::mcpbind::__private::ConversionError; }` and
    /// returns how many tokens it replaced.
    fn error_module(&self, trees: &[TokenTree], out: &mut Vec<TokenTree>) -> Option<usize> {
        let [TokenTree::Ident(keyword), TokenTree::Ident(name), TokenTree::Group(body), ..] = trees
        else {
            return None;
        };
        let defines_it = body
            .stream()
            .into_iter()
            .take(12)
            .any(|t| matches!(&t, TokenTree::Ident(id) if id == "ConversionError"));
        if keyword != "mod" || name != "error" || !defines_it {
            return None;
        }
        out.extend(quote!(
            mod error {
                pub use ::mcpbind::__private::ConversionError;
            }
        ));
        Some(3)
    }

    /// A path at `trees[i]` named bare: the name and how many tokens it
    /// took (`::std::option::Option` or, with `json_short`,
    /// `::serde_json::Map`).
    fn short_path(&self, trees: &[TokenTree], i: usize) -> Option<(Ident, usize)> {
        let ident = |k: usize| match trees.get(i + k) {
            Some(TokenTree::Ident(id)) => Some(id.to_string()),
            _ => None,
        };
        let colons = |k: usize| {
            matches!(trees.get(i + k), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
                && matches!(trees.get(i + k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
        };
        let first = ident(2)?;
        if !is_leading_colons(trees, i) {
            return None;
        }
        // `::std::option::Option::Some` becomes `Option::Some`.
        let bare = |name: &str, len: usize| Some((Ident::new(name, Span::call_site()), len));
        match first.as_str() {
            "std" if colons(3) && colons(6) => {
                let (module, name) = (ident(5)?, ident(8)?);
                if PRELUDE.iter().any(|(m, n)| *m == module && *n == name) {
                    return bare(&name, 9);
                }
                None
            }
            "serde_json" if self.json_short && colons(3) => {
                let name = ident(5)?;
                if name == "Map" || name == "Value" {
                    return bare(&name, 6);
                }
                None
            }
            _ => None,
        }
    }

    fn group(&self, g: &Group) -> TokenTree {
        let mut new = Group::new(g.delimiter(), self.stream(g.stream()));
        new.set_span(g.span());
        TokenTree::Group(new)
    }

    /// A literal with its placeholder suffixes cut, if it has any.
    fn literal(&self, lit: &Literal) -> TokenTree {
        match string_value(lit) {
            Some(value) if value.contains(PLACEHOLDER) => {
                TokenTree::Literal(Literal::string(&strip_placeholders(&value)))
            }
            _ => TokenTree::Literal(lit.clone()),
        }
    }

    /// Emits `#[…]`, rewritten; `item` starts with it (and goes on with
    /// the item it belongs to).
    fn attribute(&self, g: &Group, item: &[TokenTree], out: &mut Vec<TokenTree>) {
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let name = match inner.first() {
            Some(TokenTree::Ident(id)) => id.to_string(),
            _ => String::new(),
        };
        let body = match name.as_str() {
            "doc" => self.doc(&inner),
            "serde" => self.serde(&inner),
            "derive" => {
                let lean = lean_deserialize(item);
                let (body, serde) = derive(&inner, lean);
                push_attr(out, body);
                // mcpbind's lean derives need no path to serde.
                if serde && !lean {
                    push_attr(out, quote!(serde(crate = "::mcpbind::__private::serde")));
                }
                return;
            }
            _ => self.stream(g.stream()),
        };
        push_attr(out, body);
    }

    /// `doc = "…"`, made rustdoc-safe.
    fn doc(&self, inner: &[TokenTree]) -> TokenStream {
        let Some(TokenTree::Literal(lit)) = inner.get(2) else {
            return inner.iter().cloned().collect();
        };
        let Some(value) = string_value(lit) else {
            return inner.iter().cloned().collect();
        };
        let text = doc_text(&strip_placeholders(&value));
        let text = if text.starts_with(' ') || text.is_empty() {
            text
        } else {
            format!(" {text}")
        };
        quote!(doc = #text)
    }

    /// `serde(…)`: string literals naming serde paths go through
    /// `::mcpbind::__private`; placeholders are cut from renames.
    fn serde(&self, inner: &[TokenTree]) -> TokenStream {
        let mut out = Vec::with_capacity(inner.len());
        for tree in inner {
            match tree {
                TokenTree::Group(g) => {
                    let args: Vec<TokenTree> = g
                        .stream()
                        .into_iter()
                        .map(|t| match &t {
                            TokenTree::Literal(lit) => self.serde_literal(lit),
                            _ => t,
                        })
                        .collect();
                    let mut new = Group::new(g.delimiter(), args.into_iter().collect());
                    new.set_span(g.span());
                    out.push(TokenTree::Group(new));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }

    fn serde_literal(&self, lit: &Literal) -> TokenTree {
        let Some(value) = string_value(lit) else {
            return TokenTree::Literal(lit.clone());
        };
        let mut new = value.clone();
        if let Some(rest) = new.strip_prefix("::std::") {
            if let Some((_, name)) = PRELUDE
                .iter()
                .find(|(m, n)| rest.starts_with(&format!("{m}::{n}::")))
            {
                new = rest[rest.find(name).unwrap_or(0)..].to_owned();
            }
        } else if self.json_short
            && (new.starts_with("::serde_json::Map::") || new.starts_with("::serde_json::Value::"))
        {
            new = new["::serde_json::".len()..].to_owned();
        }
        if new.starts_with("::serde::") || new.starts_with("::serde_json::") {
            new = format!("{PRIVATE}{new}");
        }
        if self.placeholders && new.contains(PLACEHOLDER) {
            new = strip_placeholders(&new);
        }
        if new == value {
            TokenTree::Literal(lit.clone())
        } else {
            TokenTree::Literal(Literal::string(&new))
        }
    }
}

/// How many tokens an `impl TryFrom<&str | String | &String> for X { … }`
/// at the start of `trees` takes, when its body only calls `value.parse()`.
fn parse_delegate(trees: &[TokenTree]) -> Option<usize> {
    if !matches!(trees.first(), Some(TokenTree::Ident(id)) if id == "impl") {
        return None;
    }
    let body = trees
        .iter()
        .position(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))?;
    let header: String = trees[1..body]
        .iter()
        .map(|t| t.to_string())
        .collect::<String>()
        .replace(' ', "");
    let header = header.strip_prefix("::std::convert::").unwrap_or(&header);
    let source = [
        "<&str>",
        "<String>",
        "<::std::string::String>",
        "<&::std::string::String>",
    ];
    let delegates = header
        .strip_prefix("TryFrom")
        .is_some_and(|rest| source.iter().any(|s| rest.starts_with(s)));
    let TokenTree::Group(g) = &trees[body] else {
        return None;
    };
    let text = g.stream().to_string().replace(' ', "");
    (delegates && text.ends_with("{value.parse()}")).then_some(body + 1)
}

/// `derive(…)` with `::serde::Deserialize`/`::serde::Serialize` named bare
/// (the `types` module imports them); whether it derives a serde trait.
/// The bare `Deserialize` is mcpbind's lean derive (`mcpbind-derive`), so
/// where the item can't take it (`lean` is false), serde's keeps its path.
/// `Ord` and `PartialOrd` are left out: nothing in the generated code
/// compares or sorts its types (maps are keyed by `String`), and without
/// them a plain enum's derive fits on one line.
fn derive(inner: &[TokenTree], lean: bool) -> (TokenStream, bool) {
    let Some(TokenTree::Group(list)) = inner.get(1) else {
        return (inner.iter().cloned().collect(), false);
    };
    let trees: Vec<TokenTree> = list.stream().into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let mut serde = false;
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Ident(id) = &trees[i] {
            if id == "Ord" || id == "PartialOrd" {
                // With its `,`.
                i += if matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ',')
                {
                    2
                } else {
                    1
                };
                continue;
            }
        }
        if is_leading_colons(&trees, i) && is_serde(trees.get(i + 2)) {
            // `:: serde :: Name`: keep `Name`.
            if let Some(TokenTree::Ident(name)) = trees.get(i + 5) {
                serde = true;
                if !lean {
                    // `serde::Deserialize`: the `types` module imports `serde`.
                    out.extend(trees[i + 2..i + 6].iter().cloned());
                } else {
                    out.push(TokenTree::Ident(name.clone()));
                }
                i += 6;
                continue;
            }
        }
        out.push(trees[i].clone());
        i += 1;
    }
    let mut group = Group::new(Delimiter::Parenthesis, out.into_iter().collect());
    group.set_span(list.span());
    let derive = &inner[0];
    (quote!(#derive #group), serde)
}

/// Whether the item whose attributes start at `trees[0]` can take
/// mcpbind's lean `Deserialize` derive: a struct with named fields or an
/// enum of unit variants, with only the serde attributes that derive
/// supports (see `mcpbind-derive`; typify's untagged and tagged enums,
/// tuple structs and `transparent` keep serde's).
fn lean_deserialize(trees: &[TokenTree]) -> bool {
    let mut j = 0;
    let mut deny_unknown = false;
    while let Some(attr) = attribute_at(trees, j) {
        if let Some(keys) = serde_keys(&attr) {
            for key in keys {
                match key.as_str() {
                    "crate" => {}
                    "deny_unknown_fields" => deny_unknown = true,
                    _ => return false,
                }
            }
        }
        j += 2;
    }
    if matches!(trees.get(j), Some(TokenTree::Ident(id)) if id == "pub") {
        j += 1;
        if matches!(trees.get(j), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        {
            j += 1;
        }
    }
    let keyword = match trees.get(j) {
        Some(TokenTree::Ident(id)) => id.to_string(),
        _ => return false,
    };
    let body = match (trees.get(j + 1), trees.get(j + 2)) {
        (Some(TokenTree::Ident(_)), Some(TokenTree::Group(g)))
            if g.delimiter() == Delimiter::Brace =>
        {
            g.stream().into_iter().collect::<Vec<_>>()
        }
        _ => return false,
    };
    match keyword.as_str() {
        "struct" => {
            let mut flattened = 0;
            let mut k = 0;
            while k < body.len() {
                if let Some(attr) = attribute_at(&body, k) {
                    for key in serde_keys(&attr).unwrap_or_default() {
                        match key.as_str() {
                            "flatten" => flattened += 1,
                            "rename" | "default" | "skip_serializing_if" | "deserialize_with" => {}
                            _ => return false,
                        }
                    }
                    k += 2;
                } else {
                    k += 1;
                }
            }
            flattened == 0 || (flattened == 1 && !deny_unknown)
        }
        "enum" if !deny_unknown => body
            .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
            .all(|variant| {
                let mut k = 0;
                while let Some(attr) = attribute_at(variant, k) {
                    if serde_keys(&attr).is_some_and(|keys| keys.iter().any(|k| k != "rename")) {
                        return false;
                    }
                    k += 2;
                }
                matches!(&variant[k..], [] | [TokenTree::Ident(_)])
            }),
        _ => false,
    }
}

/// The inside of the attribute `#[…]` at `trees[j]`, if one is there.
fn attribute_at(trees: &[TokenTree], j: usize) -> Option<Vec<TokenTree>> {
    match (trees.get(j), trees.get(j + 1)) {
        (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g)))
            if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket =>
        {
            Some(g.stream().into_iter().collect())
        }
        _ => None,
    }
}

/// The keys of a `serde(…)` attribute's inside (`rename` of
/// `rename = "x"`), `None` for another attribute.
fn serde_keys(attr: &[TokenTree]) -> Option<Vec<String>> {
    match attr {
        [TokenTree::Ident(id), TokenTree::Group(args)] if id == "serde" => {
            let args: Vec<TokenTree> = args.stream().into_iter().collect();
            Some(
                args.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    .filter_map(|arg| match arg.first() {
                        Some(TokenTree::Ident(key)) => Some(key.to_string()),
                        _ => None,
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}

fn push_attr(out: &mut Vec<TokenTree>, body: TokenStream) {
    out.push(TokenTree::Punct(Punct::new('#', Spacing::Alone)));
    out.push(TokenTree::Group(Group::new(Delimiter::Bracket, body)));
}

/// Whether `trees[i..]` starts with `::` that begins a path (not the `::` of
/// `a::b`).
fn is_leading_colons(trees: &[TokenTree], i: usize) -> bool {
    let colon = |t: Option<&TokenTree>, spacing: Spacing| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == spacing);
    if !(colon(trees.get(i), Spacing::Joint) && colon(trees.get(i + 1), Spacing::Alone)) {
        return false;
    }
    match i.checked_sub(1).map(|j| &trees[j]) {
        // `a::b`, `self::b` are not leading; `as ::x`,
        // `pub ::x`, `dyn ::x` (after any other keyword) are.
        Some(TokenTree::Ident(id)) => KEYWORDS.contains(&id.to_string().as_str()),
        // `impl<'de> ::serde::…`: no type has an associated `serde`.
        Some(TokenTree::Punct(_)) => true,
        Some(TokenTree::Group(_)) | Some(TokenTree::Literal(_)) => false,
        None => true,
    }
}

/// Rust's keywords but `self`, `Self`, `super` and `crate` (after which
/// `::` continues a path).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

fn is_serde(tree: Option<&TokenTree>) -> bool {
    matches!(tree, Some(TokenTree::Ident(id)) if id == "serde" || id == "serde_json")
}

/// `::mcpbind::__private::` as tokens (the `::` before `serde` included).
fn private_prefix() -> Vec<TokenTree> {
    let colons = || {
        [
            TokenTree::Punct(Punct::new(':', Spacing::Joint)),
            TokenTree::Punct(Punct::new(':', Spacing::Alone)),
        ]
    };
    let mut out = Vec::with_capacity(6);
    out.extend(colons());
    out.push(TokenTree::Ident(Ident::new("mcpbind", Span::call_site())));
    out.extend(colons());
    out.push(TokenTree::Ident(Ident::new("__private", Span::call_site())));
    out.extend(colons());
    out
}

/// The value of a string literal token, `None` for other literals.
fn string_value(lit: &Literal) -> Option<String> {
    let repr = lit.to_string();
    if !repr.starts_with('"') && !repr.starts_with('r') {
        return None;
    }
    // Without escapes, the value is what is between the quotes.
    if let Some(plain) = repr
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .filter(|r| !r.contains('\\'))
    {
        return Some(plain.to_owned());
    }
    syn::parse_str::<syn::LitStr>(&repr).ok().map(|s| s.value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(tokens: TokenStream) -> String {
        rewrite(tokens, true, false).to_string()
    }

    #[test]
    fn serde_paths_go_through_mcpbind() {
        let out = rewritten(quote! {
            #[derive(::serde::Deserialize, ::serde::Serialize, Clone)]
            pub struct A {
                #[serde(default, skip_serializing_if = "::serde_json::Map::is_empty")]
                pub m: ::serde_json::Map<String, ::serde_json::Value>,
            }
            impl X for A {
                fn f<T: ::serde::de::Error>() -> <T as ::serde::de::Error>::Foo { ::serde_json::json!(1) }
            }
            pub struct B(pub ::serde_json::Value, self::serde::X);
            #[derive(::serde::Deserialize, ::serde::Serialize)]
            pub struct C(pub String);
        });
        // A struct with named fields takes mcpbind's lean derives, which
        // need no path to serde; a newtype takes serde's, told where it is.
        assert!(
            out.contains("derive (Deserialize , Serialize , Clone)"),
            "{out}"
        );
        assert!(
            out.contains("derive (serde :: Deserialize , serde :: Serialize)] # [serde (crate = \"::mcpbind::__private::serde\")] pub struct C"),
            "{out}"
        );
        assert_eq!(out.matches("serde (crate").count(), 1, "{out}");
        assert!(
            out.contains("\"::mcpbind::__private::serde_json::Map::is_empty\""),
            "{out}"
        );
        assert!(
            !out.replace("__private :: serde", "")
                .replace("self :: serde", "")
                .contains(":: serde"),
            "{out}"
        );
        assert!(
            out.contains("pub :: mcpbind :: __private :: serde_json :: Value"),
            "{out}"
        );
        assert!(
            out.contains("< T as :: mcpbind :: __private :: serde :: de :: Error >"),
            "{out}"
        );
    }

    #[test]
    fn docs_and_placeholders() {
        let out = rewritten(quote! {
            #[doc = "```rust\nx\n```"]
            #[serde(rename = "foo\u{1}2")]
            pub struct A;
            const B: &str = "a\u{1}3";
        });
        assert!(out.contains("```text"), "{out}");
        assert!(out.contains("rename = \"foo\""), "{out}");
        assert!(out.contains("\"a\""), "{out}");
    }
}
