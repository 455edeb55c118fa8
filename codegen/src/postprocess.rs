//! Post-processing of typify's output, in one pass over its tokens.
//!
//! typify names `::serde` and `::serde_json` (in paths and inside attribute
//! strings such as `skip_serializing_if = "::serde_json::Map::is_empty"`);
//! the user's crate depends on `mcpbind` alone, so every such path goes
//! through `::mcpbind::__private`, and serde's derives are told where serde
//! is (`#[serde(crate = …)]`). Derives name `Deserialize`/`Serialize` bare:
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

/// Rewrites typify's tokens (see the module docs).
pub(crate) fn rewrite(tokens: TokenStream, placeholders: bool) -> TokenStream {
    Rewriter { placeholders }.stream(tokens)
}

/// The `use` line the `types` module needs for the bare derives.
pub(crate) fn types_prelude() -> TokenStream {
    quote! {
        #[allow(unused_imports)]
        use ::mcpbind::__private::serde::{Deserialize, Serialize};
    }
}

struct Rewriter {
    placeholders: bool,
}

impl Rewriter {
    fn stream(&self, tokens: TokenStream) -> TokenStream {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len() + 8);
        let mut i = 0;
        while i < trees.len() {
            // `#` `[…]`: an attribute.
            if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&trees[i], trees.get(i + 1))
            {
                if p.as_char() == '#' && g.delimiter() == Delimiter::Bracket {
                    self.attribute(g, &mut out);
                    i += 2;
                    continue;
                }
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

    /// Emits `#[…]`, rewritten.
    fn attribute(&self, g: &Group, out: &mut Vec<TokenTree>) {
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let name = match inner.first() {
            Some(TokenTree::Ident(id)) => id.to_string(),
            _ => String::new(),
        };
        let body = match name.as_str() {
            "doc" => self.doc(&inner),
            "serde" => self.serde(&inner),
            "derive" => {
                let (body, serde) = derive(&inner);
                push_attr(out, body);
                if serde {
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

/// `derive(…)` with `::serde::Deserialize`/`::serde::Serialize` named bare
/// (the `types` module imports them); whether it derives a serde trait.
fn derive(inner: &[TokenTree]) -> (TokenStream, bool) {
    let Some(TokenTree::Group(list)) = inner.get(1) else {
        return (inner.iter().cloned().collect(), false);
    };
    let trees: Vec<TokenTree> = list.stream().into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let mut serde = false;
    let mut i = 0;
    while i < trees.len() {
        if is_leading_colons(&trees, i) && is_serde(trees.get(i + 2)) {
            // `:: serde :: Name`: keep `Name`.
            if let Some(TokenTree::Ident(name)) = trees.get(i + 5) {
                serde = true;
                out.push(TokenTree::Ident(name.clone()));
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
        Some(TokenTree::Ident(id)) => {
            let id = id.to_string();
            !matches!(id.as_str(), "self" | "Self" | "super" | "crate")
                && syn::parse_str::<syn::Ident>(&id).is_err()
        }
        // `impl<'de> ::serde::…`: no type has an associated `serde`.
        Some(TokenTree::Punct(_)) => true,
        Some(TokenTree::Group(_)) | Some(TokenTree::Literal(_)) => false,
        None => true,
    }
}

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
    syn::parse_str::<syn::LitStr>(&repr).ok().map(|s| s.value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(tokens: TokenStream) -> String {
        rewrite(tokens, true).to_string()
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
        });
        assert!(
            out.contains("derive (Deserialize , Serialize , Clone)"),
            "{out}"
        );
        assert!(
            out.contains("serde (crate = \"::mcpbind::__private::serde\")"),
            "{out}"
        );
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
