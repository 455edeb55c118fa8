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
//! (`prepare::PLACEHOLDER`) are cut from string literals. A plain enum
//! (one that takes the lean derives) derives `WireStr` (its `Display` and
//! `FromStr`, from `mcpbind-derive`) in place of typify's printed impls.
//!
//! Working on tokens rather than a parsed `syn::File` keeps this linear and
//! cheap: nothing is re-parsed but the few literals that change.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::quote;

use crate::container::{container_attrs, ContainerAttrs};
use crate::docs::doc_text;
use crate::prepare::{strip_placeholders, PLACEHOLDER};
use crate::tokens::{into_stream, is_attribute_at, string_value};

/// The prefix that replaces a leading `::` before `serde`/`serde_json`.
const PRIVATE: &str = "::mcpbind::__private";

/// Rewrites typify's tokens (see the module docs). With `json_short`,
/// `serde_json`'s `Map` and `Value` are named bare (the scope imports them:
/// [`types_prelude`]).
/// `constructors`: the params structs' names, with the arguments of their
/// `#[constructors(…)]` (`ctor::constructor`).
pub(crate) fn rewrite(
    tokens: TokenStream,
    placeholders: bool,
    json_short: bool,
    constructors: HashMap<String, TokenStream>,
) -> TokenStream {
    Rewriter {
        placeholders,
        json_short,
        plain_enums: RefCell::default(),
        constructors,
    }
    .stream(tokens)
}

/// The `use` lines the `types` module needs: the bare derives (the bare
/// `Deserialize` is mcpbind's lean derive, [`lean_deserialize`]; `serde` for
/// `serde::Deserialize` where an item needs serde's), and
/// `serde_json`'s `Map` and `Value` unless a definition takes one of those
/// names (`types::defines_json_names`).
pub(crate) fn types_prelude(json_short: bool) -> TokenStream {
    let json = json_short.then(|| {
        quote!(
            use ::mcpbind::__private::serde_json::{Map, Value};
        )
    });
    quote! {
        #[allow(unused_imports)]
        use ::mcpbind::__private::{
            constructors, serde, skip_serializing_none, Deserialize, Serialize, WireStr,
        };
        #json
    }
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
    /// The enums seen so far that derive `WireStr` (typify prints an
    /// enum's impls after it).
    plain_enums: RefCell<HashSet<String>>,
    constructors: HashMap<String, TokenStream>,
}

impl Rewriter {
    /// Rewrites one level of tokens, taking each token out of `tokens`
    /// rather than cloning it: proc_macro2 has no borrowing iterator, and
    /// iterating a stream that is still shared (as `Group::stream` is with
    /// its group) copies every token in it.
    fn stream(&self, tokens: TokenStream) -> TokenStream {
        let mut trees: Vec<TokenTree> = tokens.into_iter().collect();
        // Decided up front, as taking tokens out loses what came before;
        // and only before the names `step` rewrites (telling `a::b` from
        // `as ::b` compares the name before with every keyword).
        let leading: Vec<bool> = (0..trees.len())
            .map(|i| {
                matches!(trees.get(i + 2), Some(TokenTree::Ident(id)) if id == "std" || is_serde_name(id))
                    && is_leading_colons(&trees, i)
            })
            .collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len() + 8);
        let mut i = 0;
        while i < trees.len() {
            i += self.step(&mut trees, i, leading[i], &mut out);
        }
        out.into_iter().collect()
    }

    /// Rewrites what starts at `trees[i]` into `out`; returns how many
    /// tokens it took. `leading`: `trees[i]` is a `::` that begins a path.
    fn step(
        &self,
        trees: &mut [TokenTree],
        i: usize,
        leading: bool,
        out: &mut Vec<TokenTree>,
    ) -> usize {
        // `impl TryFrom<&str> for X { … value.parse() … }` (and `String`):
        // typify's conveniences over `FromStr`, left out (`"x".parse()`
        // does the same).
        if let Some(len) = parse_delegate(&trees[i..]) {
            return len;
        }
        // typify's `Display` and `FromStr` of an enum that derives `WireStr`.
        if let Some(len) = self.wire_str_impl(&trees[i..]) {
            return len;
        }
        // typify's `mod error { struct ConversionError … }`, the same in
        // every server: mcpbind's.
        if let Some(len) = self.error_module(&mut trees[i..], out) {
            return len;
        }
        // `#` `[…]`: an attribute.
        if is_attribute_at(trees, i) {
            self.attribute(trees, i, out);
            return 2;
        }
        if leading {
            // `::std::option::Option` and the like: `Option`.
            if let Some((name, len)) = self.short_path(&trees[i..]) {
                out.push(TokenTree::Ident(name));
                return len;
            }
            // `::serde…` / `::serde_json…`.
            if is_serde(trees.get(i + 2)) {
                out.extend(private_prefix());
                return 2;
            }
        }
        match take(&mut trees[i]) {
            TokenTree::Group(g) => out.push(self.group(g)),
            TokenTree::Literal(lit) if self.placeholders => out.push(self.literal(lit)),
            other => out.push(other),
        }
        1
    }

    /// At `mod error { … }` holding typify's `ConversionError`: emits
    /// `mod error { pub use ::mcpbind::__private::ConversionError; }` and
    /// returns how many tokens it replaced.
    fn error_module(&self, trees: &mut [TokenTree], out: &mut Vec<TokenTree>) -> Option<usize> {
        let [TokenTree::Ident(keyword), TokenTree::Ident(name), body @ TokenTree::Group(_), ..] =
            trees
        else {
            return None;
        };
        if keyword != "mod" || name != "error" {
            return None;
        }
        let defines_it = inspect_group(body, |body| {
            body.iter()
                .take(12)
                .any(|t| matches!(t, TokenTree::Ident(id) if id == "ConversionError"))
        })?;
        if !defines_it {
            return None;
        }
        out.extend(quote!(
            mod error {
                pub use ::mcpbind::__private::ConversionError;
            }
        ));
        Some(3)
    }

    /// A path at the start of `trees` (which begins with a leading `::`)
    /// named bare: the name and how many tokens it took
    /// (`::std::option::Option` or, with `json_short`, `::serde_json::Map`).
    fn short_path(&self, trees: &[TokenTree]) -> Option<(Ident, usize)> {
        let ident = |k: usize| match trees.get(k) {
            Some(TokenTree::Ident(id)) => Some(id),
            _ => None,
        };
        let colons = |k: usize| {
            matches!(trees.get(k), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
                && matches!(trees.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
        };
        let first = ident(2)?;
        // `::std::option::Option::Some` becomes `Option::Some`.
        let bare = |name: &str, len: usize| Some((Ident::new(name, Span::call_site()), len));
        if first == "std" && colons(3) && colons(6) {
            let (module, name) = (ident(5)?, ident(8)?);
            let (_, name) = PRELUDE.iter().find(|(m, n)| module == m && name == n)?;
            return bare(name, 9);
        }
        if first == "serde_json" && self.json_short && colons(3) {
            let name = ident(5)?;
            let name = ["Map", "Value"].into_iter().find(|n| name == n)?;
            return bare(name, 6);
        }
        None
    }

    fn group(&self, g: Group) -> TokenTree {
        let (delimiter, span) = (g.delimiter(), g.span());
        let mut new = Group::new(delimiter, self.stream(into_stream(g)));
        new.set_span(span);
        TokenTree::Group(new)
    }

    /// A literal with its placeholder suffixes cut, if it has any.
    fn literal(&self, lit: Literal) -> TokenTree {
        match string_value(&lit) {
            Some(value) if value.contains(PLACEHOLDER) => {
                TokenTree::Literal(Literal::string(&strip_placeholders(&value)))
            }
            _ => TokenTree::Literal(lit),
        }
    }

    /// Emits the attribute `#[…]` at `trees[i]`, rewritten (`trees` goes on
    /// with the item it belongs to).
    fn attribute(&self, trees: &mut [TokenTree], i: usize, out: &mut Vec<TokenTree>) {
        let TokenTree::Group(g) = take(&mut trees[i + 1]) else {
            return;
        };
        let inner: Vec<TokenTree> = into_stream(g).into_iter().collect();
        let name = match inner.first() {
            Some(TokenTree::Ident(id)) => ["doc", "serde", "derive"].into_iter().find(|n| id == n),
            _ => None,
        };
        let body = match name {
            // typify's doc of a type without a description is its name.
            Some("doc") if names_item(&inner, &trees[i + 2..]) => return,
            Some("doc") => self.doc(inner),
            Some("serde") => self.serde(inner),
            Some(_) => {
                // The derive's own attribute is no serde one: the item's
                // other attributes follow it.
                let lean = lean_deserialize(&mut trees[i + 2..]);
                let plain_enum = match &lean {
                    Some(Lean::Enum(name)) => {
                        self.plain_enums.borrow_mut().insert(name.clone());
                        true
                    }
                    _ => false,
                };
                let lean = lean.is_some();
                let container = match lean {
                    true => container_attrs(&mut trees[i + 2..], self.placeholders),
                    false => ContainerAttrs::default(),
                };
                // Above the derive, which sees the attributes it adds.
                if container.skip_serializing_none {
                    push_attr(out, quote!(skip_serializing_none));
                }
                let name = struct_name(&trees[i + 2..]);
                if let Some(required) = name.and_then(|n| self.constructors.get(&n)) {
                    push_attr(out, quote!(constructors(#required)));
                }
                let (body, serde) = derive(&inner, lean);
                push_attr(out, body);
                // Its own attribute: the derive above just fits on a line.
                if plain_enum {
                    push_attr(out, quote!(derive(WireStr)));
                }
                if let Some(rule) = container.rename_all {
                    push_attr(out, quote!(serde(rename_all = #rule)));
                }
                // mcpbind's lean derives need no path to serde.
                if serde && !lean {
                    push_attr(out, quote!(serde(crate = "::mcpbind::__private::serde")));
                }
                return;
            }
            None => self.stream(inner.into_iter().collect()),
        };
        push_attr(out, body);
    }

    /// How many tokens `impl ::std::fmt::Display for X { … }` (or
    /// `::std::str::FromStr`) at the start of `trees` takes, when `X`
    /// derives `WireStr`.
    fn wire_str_impl(&self, trees: &[TokenTree]) -> Option<usize> {
        let [TokenTree::Ident(keyword), ..] = trees else {
            return None;
        };
        if keyword != "impl" {
            return None;
        }
        let body = trees
            .iter()
            .position(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))?;
        let [.., TokenTree::Ident(module), _, _, TokenTree::Ident(name), TokenTree::Ident(for_), TokenTree::Ident(ty)] =
            &trees[..body]
        else {
            return None;
        };
        let display = module == "fmt" && name == "Display";
        let from_str = module == "str" && name == "FromStr";
        let derived = for_ == "for" && self.plain_enums.borrow().contains(&ty.to_string());
        ((display || from_str) && derived).then_some(body + 1)
    }

    /// `doc = "…"`, made rustdoc-safe.
    fn doc(&self, inner: Vec<TokenTree>) -> TokenStream {
        let value = match inner.get(2) {
            Some(TokenTree::Literal(lit)) => string_value(lit),
            _ => None,
        };
        let Some(value) = value else {
            return inner.into_iter().collect();
        };
        let text = doc_text(&strip_placeholders(&value));
        let text = if text.starts_with(' ') || text.is_empty() {
            text
        } else {
            format!(" {text}")
        };
        let text = crate::naming::str_literal(&text);
        quote!(doc = #text)
    }

    /// `serde(…)`: string literals naming serde paths go through
    /// `::mcpbind::__private`; placeholders are cut from renames.
    fn serde(&self, inner: Vec<TokenTree>) -> TokenStream {
        let mut out = Vec::with_capacity(inner.len());
        for tree in inner {
            match tree {
                TokenTree::Group(g) => {
                    let (delimiter, span) = (g.delimiter(), g.span());
                    let args: TokenStream = into_stream(g)
                        .into_iter()
                        .map(|t| match t {
                            TokenTree::Literal(lit) => self.serde_literal(lit),
                            t => t,
                        })
                        .collect();
                    let mut new = Group::new(delimiter, args);
                    new.set_span(span);
                    out.push(TokenTree::Group(new));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }

    fn serde_literal(&self, lit: Literal) -> TokenTree {
        let Some(value) = string_value(&lit) else {
            return TokenTree::Literal(lit);
        };
        let mut new = value.clone();
        if let Some(rest) = new.strip_prefix("::std::") {
            if let Some((_, name)) = PRELUDE.iter().find(|(m, n)| {
                rest.strip_prefix(m)
                    .and_then(|r| r.strip_prefix("::"))
                    .and_then(|r| r.strip_prefix(n))
                    .is_some_and(|r| r.starts_with("::"))
            }) {
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
            TokenTree::Literal(lit)
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
    // Only a `TryFrom` impl is printed and compared below.
    if !trees[1..body]
        .iter()
        .any(|t| matches!(t, TokenTree::Ident(id) if id == "TryFrom"))
    {
        return None;
    }
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

/// Whether the item whose remaining attributes start at `trees[0]` can
/// take mcpbind's lean `Deserialize` derive: a struct with named fields or
/// an enum of unit variants, with only the serde attributes that derive
/// supports (see `mcpbind-derive`; typify's untagged and tagged enums,
/// tuple structs and `transparent` keep serde's). `trees` is looked into,
/// not changed.
fn lean_deserialize(trees: &mut [TokenTree]) -> Option<Lean> {
    let mut j = 0;
    let mut deny_unknown = false;
    while is_attribute_at(trees, j) {
        if let Some(keys) = serde_keys(&mut trees[j + 1]) {
            for key in keys {
                match key.as_str() {
                    "crate" => {}
                    "deny_unknown_fields" => deny_unknown = true,
                    _ => return None,
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
    let is_struct = match trees.get(j) {
        Some(TokenTree::Ident(id)) if id == "struct" => true,
        Some(TokenTree::Ident(id)) if id == "enum" && !deny_unknown => false,
        _ => return None,
    };
    let Some(TokenTree::Ident(name)) = trees.get(j + 1) else {
        return None;
    };
    let name = name.to_string();
    if !matches!(trees.get(j + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace) {
        return None;
    }
    let lean = inspect_group(&mut trees[j + 2], |body| match is_struct {
        true => lean_struct(body, deny_unknown),
        false => lean_enum(body),
    })?;
    let kind = if is_struct {
        Lean::Struct
    } else {
        Lean::Enum(name)
    };
    lean.then_some(kind)
}

/// An item that takes mcpbind's lean derives.
enum Lean {
    Struct,
    /// An enum of unit variants (named), which also derives `WireStr`.
    Enum(String),
}

/// A struct body the lean derive takes: field attributes it supports, and
/// at most one `flatten` (none beside `deny_unknown_fields`).
fn lean_struct(body: &mut [TokenTree], deny_unknown: bool) -> bool {
    let mut flattened = 0;
    let mut k = 0;
    while k < body.len() {
        if is_attribute_at(body, k) {
            for key in serde_keys(&mut body[k + 1]).unwrap_or_default() {
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

/// An enum body of unit variants, with no serde attribute but `rename`.
fn lean_enum(body: &mut [TokenTree]) -> bool {
    body.split_mut(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .all(|variant| {
            let mut k = 0;
            while is_attribute_at(variant, k) {
                if serde_keys(&mut variant[k + 1])
                    .is_some_and(|keys| keys.iter().any(|k| k != "rename"))
                {
                    return false;
                }
                k += 2;
            }
            matches!(&variant[k..], [] | [TokenTree::Ident(_)])
        })
}

/// Whether the doc attribute `inner` (`doc = "…"`) says only the name of
/// the item that follows it (`trees`: its other attributes, then the item),
/// as typify's docs of types without a description do.
fn names_item(inner: &[TokenTree], trees: &[TokenTree]) -> bool {
    let Some(TokenTree::Literal(lit)) = inner.get(2) else {
        return false;
    };
    let Some(name) = string_value(lit) else {
        return false;
    };
    let Some(name) = name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) else {
        return false;
    };
    matches!(
        item_of(trees),
        Some((kind, item)) if ["struct", "enum", "type"].contains(&kind.as_str()) && item == name
    )
}

/// The name of the struct whose remaining attributes start at `trees[0]`.
fn struct_name(trees: &[TokenTree]) -> Option<String> {
    item_of(trees).and_then(|(kind, name)| (kind == "struct").then_some(name))
}

/// The keyword (`struct`…) and name of the item whose remaining attributes
/// start at `trees[0]`.
fn item_of(trees: &[TokenTree]) -> Option<(String, String)> {
    let mut j = 0;
    while is_attribute_at(trees, j) {
        j += 2;
    }
    let mut rest = trees[j..].iter().filter(|t| {
        !matches!(t, TokenTree::Ident(id) if id == "pub")
            && !matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis)
    });
    match (rest.next(), rest.next()) {
        (Some(TokenTree::Ident(kind)), Some(TokenTree::Ident(name))) => {
            Some((kind.to_string(), name.to_string()))
        }
        _ => None,
    }
}

/// The keys of an attribute `[serde(…)]` (`rename` of `rename = "x"`),
/// `None` for another attribute. `attr` is the bracketed group.
fn serde_keys(attr: &mut TokenTree) -> Option<Vec<String>> {
    inspect_group(attr, |attr| match attr {
        [TokenTree::Ident(id), args @ TokenTree::Group(_)] if id == "serde" => {
            inspect_group(args, |args| {
                args.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
                    .filter_map(|arg| match arg.first() {
                        Some(TokenTree::Ident(key)) => Some(key.to_string()),
                        _ => None,
                    })
                    .collect()
            })
        }
        _ => None,
    })?
}

/// Runs `f` on the tokens inside the group `tree` and puts the group back,
/// without copying them (see [`Rewriter::stream`]); `None` if `tree` is no
/// group.
fn inspect_group<R>(tree: &mut TokenTree, f: impl FnOnce(&mut [TokenTree]) -> R) -> Option<R> {
    let TokenTree::Group(g) = tree else {
        return None;
    };
    let (delimiter, span) = (g.delimiter(), g.span());
    let old = std::mem::replace(g, Group::new(delimiter, TokenStream::new()));
    let mut trees: Vec<TokenTree> = into_stream(old).into_iter().collect();
    let result = f(&mut trees);
    *g = Group::new(delimiter, trees.into_iter().collect());
    g.set_span(span);
    Some(result)
}

/// Takes a token out of `trees`, leaving a `#` that nothing reads again.
fn take(tree: &mut TokenTree) -> TokenTree {
    std::mem::replace(tree, TokenTree::Punct(Punct::new('#', Spacing::Alone)))
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
        Some(TokenTree::Ident(id)) => KEYWORDS.iter().any(|k| id == k),
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
    matches!(tree, Some(TokenTree::Ident(id)) if is_serde_name(id))
}

fn is_serde_name(id: &Ident) -> bool {
    id == "serde" || id == "serde_json"
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(tokens: TokenStream) -> String {
        rewrite(tokens, true, false, HashMap::new()).to_string()
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
