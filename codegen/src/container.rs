//! Container attributes in place of per-field ones, for the items that take
//! mcpbind's lean derives, as a hand-written type would have them:
//!
//! - `#[serde(rename_all = "…")]`, where a struct's fields (or an enum's
//!   variants) are renamed by one of serde's rules, as `camelCase` APIs are:
//!   the fields' own `rename`s go. A rule is chosen only where every field
//!   without a `rename` keeps its name under it (so nothing typify left
//!   alone changes on the wire), and only where it takes away more lines
//!   than the one it adds; renames it doesn't give stay. The names are
//!   serde's (`serde_derive`'s `case.rs`), which `mcpbind-derive` applies.
//! - `#[skip_serializing_none]` (serde_with's, from `mcpbind-derive`), where
//!   every `Option` field of a struct is skipped when `None` (as typify
//!   writes optional properties) and there are at least two: the fields'
//!   own `skip_serializing_if = "Option::is_none"` go. A struct with a
//!   required nullable field (an `Option` written as `null`) keeps them.

use std::collections::BTreeMap;

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

use crate::prepare::strip_placeholders;
use crate::tokens::{into_stream, is_attribute_at, string_value};

/// serde's rules, in the order they are tried (the first of equals wins):
/// for fields, and for variants (where single words tie, `snake_case`).
const FIELD_RULES: [&str; 8] = [
    "camelCase",
    "snake_case",
    "kebab-case",
    "PascalCase",
    "SCREAMING_SNAKE_CASE",
    "SCREAMING-KEBAB-CASE",
    "lowercase",
    "UPPERCASE",
];
const VARIANT_RULES: [&str; 8] = [
    "snake_case",
    "kebab-case",
    "camelCase",
    "lowercase",
    "SCREAMING_SNAKE_CASE",
    "SCREAMING-KEBAB-CASE",
    "UPPERCASE",
    "PascalCase",
];

/// The name serde gives a `snake_case` field under `rule`.
fn field_name(rule: &str, field: &str) -> String {
    let words = || field.split('_');
    match rule {
        "lowercase" | "snake_case" => field.to_owned(),
        "UPPERCASE" | "SCREAMING_SNAKE_CASE" => field.to_ascii_uppercase(),
        "kebab-case" => field.replace('_', "-"),
        "SCREAMING-KEBAB-CASE" => field.to_ascii_uppercase().replace('_', "-"),
        "PascalCase" => words().map(capitalized).collect(),
        _ => lower_first(&words().map(capitalized).collect::<String>()),
    }
}

/// The name serde gives a `PascalCase` variant under `rule`.
fn variant_name(rule: &str, variant: &str) -> String {
    // serde's snake_case: `_` before each upper-case letter but the first.
    let snake = || {
        let mut snake = String::with_capacity(variant.len() + 4);
        for (i, c) in variant.char_indices() {
            if i > 0 && c.is_uppercase() {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        snake
    };
    match rule {
        "PascalCase" => variant.to_owned(),
        "lowercase" => variant.to_ascii_lowercase(),
        "UPPERCASE" => variant.to_ascii_uppercase(),
        "camelCase" => lower_first(variant),
        "snake_case" => snake(),
        "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
        "kebab-case" => snake().replace('_', "-"),
        _ => snake().to_ascii_uppercase().replace('_', "-"),
    }
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

fn lower_first(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    })
}

/// One field or variant of the item's body.
struct Entry {
    /// Its Rust name (`r#` cut).
    name: String,
    /// Its `rename`, where it has one: the value, and the index in the body
    /// of the attribute's `#`.
    rename: Option<(String, usize)>,
    /// The index of its attribute with `skip_serializing_if =
    /// "…Option::is_none"`, if it has one.
    skips_none: Option<usize>,
    /// Whether its type is an `Option<…>`.
    option: bool,
    flatten: bool,
}

/// The container attributes chosen for an item (see the module docs).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ContainerAttrs {
    pub(crate) rename_all: Option<&'static str>,
    pub(crate) skip_serializing_none: bool,
}

/// Chooses the container attributes of the item at the start of `item` (its
/// attributes, `pub`, `struct`/`enum`, name and body) and takes out of its
/// body the field attributes they make redundant.
pub(crate) fn container_attrs(item: &mut [TokenTree], placeholders: bool) -> ContainerAttrs {
    let mut j = 0;
    while is_attribute_at(item, j) {
        j += 2;
    }
    let Some(is_enum) = item[j..].iter().find_map(|t| match t {
        TokenTree::Ident(id) if id == "struct" || id == "enum" => Some(id == "enum"),
        _ => None,
    }) else {
        return ContainerAttrs::default();
    };
    let body = item[j..]
        .iter_mut()
        .find(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace));
    let Some(TokenTree::Group(group)) = body else {
        return ContainerAttrs::default();
    };
    // Taken out of the group, not copied (see `postprocess::into_stream`),
    // and put back below.
    let span = group.span();
    let taken = std::mem::replace(group, Group::new(Delimiter::Brace, TokenStream::new()));
    let tokens: Vec<TokenTree> = into_stream(taken).into_iter().collect();
    let entries = entries(&tokens, placeholders);
    let name = |rule: &str, e: &Entry| match is_enum {
        true => variant_name(rule, &e.name),
        false => field_name(rule, &e.name),
    };
    let rename_all = choose_rule(is_enum, &entries, name);
    let skips: Vec<usize> = entries.iter().filter_map(|e| e.skips_none).collect();
    let skip_serializing_none =
        skips.len() >= 2 && entries.iter().all(|e| e.option == e.skips_none.is_some());
    // The keys to take out, by attribute.
    let mut removed: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    if let Some(rule) = rename_all {
        for e in &entries {
            if let Some((to, at)) = &e.rename {
                if *to == name(rule, e) {
                    removed.entry(*at).or_default().push("rename");
                }
            }
        }
    }
    if skip_serializing_none {
        for at in skips {
            removed.entry(at).or_default().push("skip_serializing_if");
        }
    }
    let mut kept = Vec::with_capacity(tokens.len());
    let mut tokens = tokens.into_iter().enumerate();
    while let Some((k, token)) = tokens.next() {
        let Some(keys) = removed.get(&k) else {
            kept.push(token);
            continue;
        };
        // The attribute's `#`, then its bracketed group.
        if let Some((_, attr)) = tokens.next() {
            if let Some(rest) = without_keys(&attr, keys) {
                kept.extend([token, rest]);
            }
        }
    }
    *group = Group::new(Delimiter::Brace, kept.into_iter().collect());
    group.set_span(span);
    ContainerAttrs {
        rename_all,
        skip_serializing_none,
    }
}

/// The rule that takes away the most renames (at least two: the
/// container's attribute is a line), among those that rename no field
/// typify left alone.
fn choose_rule(
    is_enum: bool,
    entries: &[Entry],
    name: impl Fn(&str, &Entry) -> String,
) -> Option<&'static str> {
    let rules = if is_enum { VARIANT_RULES } else { FIELD_RULES };
    let (rule, saved) = rules
        .into_iter()
        .filter(|rule| {
            entries
                .iter()
                .all(|e| e.rename.is_some() || e.flatten || name(rule, e) == e.name)
        })
        .map(|rule| {
            let saved = entries
                .iter()
                .filter(|e| matches!(&e.rename, Some((to, _)) if *to == name(rule, e)))
                .count();
            (rule, saved)
        })
        .fold(
            None,
            |best: Option<(&'static str, usize)>, (rule, saved)| match best {
                Some((_, most)) if most >= saved => best,
                _ => Some((rule, saved)),
            },
        )?;
    (saved >= 2).then_some(rule)
}

/// The fields (or variants) of a body, with their attributes' facts.
fn entries(tokens: &[TokenTree], placeholders: bool) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        let (mut rename, mut skips_none, mut flatten) = (None, None, false);
        while is_attribute_at(tokens, k) {
            for (key, value) in serde_args(&tokens[k + 1]) {
                match (key.as_str(), value) {
                    ("rename", Some(to)) => {
                        let to = if placeholders {
                            strip_placeholders(&to)
                        } else {
                            to
                        };
                        rename = Some((to, k));
                    }
                    ("skip_serializing_if", Some(path)) if path.ends_with("Option::is_none") => {
                        skips_none = Some(k);
                    }
                    ("flatten", _) => flatten = true,
                    _ => {}
                }
            }
            k += 2;
        }
        // The name is the first identifier but `pub`; then the type (whose
        // generics may hold commas) runs to the next comma outside `<>`; its
        // last identifier before `<` says what it is.
        let (mut name, mut type_name) = (None, None);
        let (mut depth, mut in_type) = (0usize, false);
        while k < tokens.len() {
            match &tokens[k] {
                TokenTree::Ident(id) if name.is_none() && id != "pub" => {
                    name = Some(id.to_string().trim_start_matches("r#").to_owned());
                }
                TokenTree::Ident(id) if in_type && depth == 0 => type_name = Some(id.to_string()),
                TokenTree::Punct(p) if p.as_char() == ':' && name.is_some() => in_type = true,
                TokenTree::Punct(p) if p.as_char() == '<' => depth += 1,
                TokenTree::Punct(p) if p.as_char() == '>' => depth = depth.saturating_sub(1),
                TokenTree::Punct(p) if p.as_char() == ',' && depth == 0 => break,
                _ => {}
            }
            k += 1;
        }
        k += 1;
        if let Some(name) = name {
            entries.push(Entry {
                name,
                rename,
                skips_none,
                option: type_name.as_deref() == Some("Option"),
                flatten,
            });
        }
    }
    entries
}

/// The arguments of an attribute `[serde(…)]`: each key, with its string
/// value if it has one; nothing for another attribute.
fn serde_args(attr: &TokenTree) -> Vec<(String, Option<String>)> {
    let Some(args) = serde_group(attr) else {
        return Vec::new();
    };
    let args: Vec<TokenTree> = args.stream().into_iter().collect();
    args.split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .filter_map(|arg| match arg {
            [TokenTree::Ident(key)] => Some((key.to_string(), None)),
            [TokenTree::Ident(key), TokenTree::Punct(eq), TokenTree::Literal(value)]
                if eq.as_char() == '=' =>
            {
                Some((key.to_string(), string_value(value)))
            }
            _ => None,
        })
        .collect()
}

/// The `(…)` of an attribute `[serde(…)]`.
fn serde_group(attr: &TokenTree) -> Option<Group> {
    let TokenTree::Group(attr) = attr else {
        return None;
    };
    let mut inner = attr.stream().into_iter();
    match (inner.next(), inner.next()) {
        (Some(TokenTree::Ident(id)), Some(TokenTree::Group(args))) if id == "serde" => Some(args),
        _ => None,
    }
}

/// The attribute `[serde(…)]` without its `keys`; `None` when they were
/// all it said.
fn without_keys(attr: &TokenTree, keys: &[&str]) -> Option<TokenTree> {
    let (TokenTree::Group(outer), Some(args)) = (attr, serde_group(attr)) else {
        return Some(attr.clone());
    };
    let tokens: Vec<TokenTree> = args.stream().into_iter().collect();
    let rest: Vec<&[TokenTree]> = tokens
        .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .filter(|arg| !arg.is_empty())
        .filter(|arg| !matches!(arg.first(), Some(TokenTree::Ident(key)) if keys.iter().any(|k| key == k)))
        .collect();
    if rest.is_empty() {
        return None;
    }
    let comma = proc_macro2::Punct::new(',', proc_macro2::Spacing::Alone);
    let mut args_out = TokenStream::new();
    for (i, arg) in rest.into_iter().enumerate() {
        if i > 0 {
            args_out.extend([TokenTree::Punct(comma.clone())]);
        }
        args_out.extend(arg.iter().cloned());
    }
    let serde = proc_macro2::Ident::new("serde", proc_macro2::Span::call_site());
    let args = Group::new(Delimiter::Parenthesis, args_out);
    let mut new = Group::new(
        outer.delimiter(),
        [TokenTree::Ident(serde), TokenTree::Group(args)]
            .into_iter()
            .collect(),
    );
    new.set_span(outer.span());
    Some(TokenTree::Group(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_serdes() {
        let fields = [
            ("camelCase", "two_words", "twoWords"),
            ("camelCase", "a_b2_c", "aB2C"),
            ("PascalCase", "two_words", "TwoWords"),
            ("kebab-case", "two_words", "two-words"),
            ("SCREAMING-KEBAB-CASE", "two_words", "TWO-WORDS"),
            ("UPPERCASE", "two_words", "TWO_WORDS"),
            ("lowercase", "two_words", "two_words"),
        ];
        for (rule, field, wire) in fields {
            assert_eq!(field_name(rule, field), wire, "{rule} {field}");
        }
        let variants = [
            ("snake_case", "TwoWords", "two_words"),
            ("snake_case", "X2x", "x2x"),
            ("kebab-case", "ABc", "a-bc"),
            ("lowercase", "TwoWords", "twowords"),
            ("camelCase", "TwoWords", "twoWords"),
            ("SCREAMING_SNAKE_CASE", "TwoWords", "TWO_WORDS"),
            ("SCREAMING-KEBAB-CASE", "TwoWords", "TWO-WORDS"),
            ("UPPERCASE", "TwoWords", "TWOWORDS"),
        ];
        for (rule, variant, wire) in variants {
            assert_eq!(variant_name(rule, variant), wire, "{rule} {variant}");
        }
    }

    fn renamed(item: TokenStream) -> (Option<&'static str>, String) {
        let (attrs, text) = attrs_of(item);
        (attrs.rename_all, text)
    }

    fn attrs_of(item: TokenStream) -> (ContainerAttrs, String) {
        let mut trees: Vec<TokenTree> = item.into_iter().collect();
        let attrs = container_attrs(&mut trees, false);
        (
            attrs,
            trees.into_iter().collect::<TokenStream>().to_string(),
        )
    }

    #[test]
    fn a_rule_takes_the_renames_it_gives() {
        let (rule, text) = renamed(quote::quote! {
            pub struct X {
                #[serde(rename = "pageSize")]
                pub page_size: Option<i64>,
                #[serde(rename = "perPage", skip_serializing_if = "Option::is_none")]
                pub per_page: Option<::std::collections::BTreeMap<String, i64>>,
                pub query: String,
                #[serde(rename = "odd name")]
                pub odd_name: i64,
                #[serde(rename = "sortBy")]
                pub sort_by: i64,
            }
        });
        assert_eq!(rule, Some("camelCase"));
        assert_eq!(
            text,
            quote::quote! {
                pub struct X {
                    pub page_size: Option<i64>,
                    #[serde(skip_serializing_if = "Option::is_none")]
                    pub per_page: Option<::std::collections::BTreeMap<String, i64>>,
                    pub query: String,
                    #[serde(rename = "odd name")]
                    pub odd_name: i64,
                    pub sort_by: i64,
                }
            }
            .to_string()
        );
    }

    #[test]
    fn no_rule_renames_a_field_typify_left_alone() {
        // `page_size` is `page_size` on the wire: camelCase would move it.
        let (rule, _) = renamed(quote::quote! {
            pub struct X {
                #[serde(rename = "pageSize")]
                pub a_b: i64,
                #[serde(rename = "sortBy")]
                pub sort_by: i64,
                #[serde(rename = "perPage")]
                pub per_page: i64,
                pub page_size: i64,
            }
        });
        assert_eq!(rule, None);
        // One rename saved is no line saved.
        let (rule, _) = renamed(quote::quote! {
            pub enum E {
                #[serde(rename = "a")]
                A,
                B,
            }
        });
        assert_eq!(rule, None);
        let (rule, text) = renamed(quote::quote! {
            pub enum E {
                #[serde(rename = "fast-mode")]
                FastMode,
                #[serde(rename = "slow-mode")]
                SlowMode,
                #[serde(rename = "2x")]
                X2x,
            }
        });
        assert_eq!(rule, Some("kebab-case"));
        assert!(
            text.contains("\"2x\"") && !text.contains("fast-mode"),
            "{text}"
        );
    }

    #[test]
    fn skip_serializing_none_takes_the_option_skips() {
        let (attrs, text) = attrs_of(quote::quote! {
            pub struct X {
                #[serde(rename = "pageSize", skip_serializing_if = "::std::option::Option::is_none")]
                pub page_size: ::std::option::Option<i64>,
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub query: ::std::option::Option<::std::collections::BTreeMap<String, i64>>,
                #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
                pub tags: ::std::vec::Vec<::std::option::Option<String>>,
                pub id: String,
            }
        });
        assert_eq!(
            attrs,
            ContainerAttrs {
                rename_all: None,
                skip_serializing_none: true
            }
        );
        assert_eq!(
            text,
            quote::quote! {
                pub struct X {
                    #[serde(rename = "pageSize")]
                    pub page_size: ::std::option::Option<i64>,
                    pub query: ::std::option::Option<::std::collections::BTreeMap<String, i64>>,
                    #[serde(default, skip_serializing_if = "::std::vec::Vec::is_empty")]
                    pub tags: ::std::vec::Vec<::std::option::Option<String>>,
                    pub id: String,
                }
            }
            .to_string()
        );
    }

    #[test]
    fn a_required_nullable_field_keeps_the_skips() {
        let (attrs, text) = attrs_of(quote::quote! {
            pub struct X {
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub a: Option<i64>,
                #[serde(skip_serializing_if = "::std::option::Option::is_none")]
                pub b: Option<i64>,
                pub written_as_null: Option<i64>,
            }
        });
        assert_eq!(attrs, ContainerAttrs::default());
        assert_eq!(text.matches("skip_serializing_if").count(), 2);
    }
}
