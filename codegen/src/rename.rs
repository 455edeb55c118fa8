//! `#[serde(rename_all = "…")]` for the items that take mcpbind's lean
//! derives: where a struct's fields (or an enum's variants) are renamed by
//! one of serde's rules, as `camelCase` APIs are, the container says so once
//! and the fields' own `rename`s go, as a hand-written type would have it.
//!
//! A rule is chosen only where every field without a `rename` keeps its name
//! under it (so nothing that typify left alone changes on the wire), and
//! only where it takes away more `#[serde(rename = …)]` lines than the one
//! it adds. Renames the rule doesn't give stay. The names the rules give are
//! serde's (`serde_derive`'s `case.rs`), which `mcpbind-derive` applies.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

use crate::postprocess::{is_attribute_at, string_value};
use crate::prepare::strip_placeholders;

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
    flatten: bool,
}

/// Chooses a rule for the item at the start of `item` (its attributes,
/// `pub`, `struct`/`enum`, name and body), takes out of its body the
/// renames the rule gives, and returns the rule; `None` leaves the item as
/// it is.
pub(crate) fn rename_all(item: &mut [TokenTree], placeholders: bool) -> Option<&'static str> {
    let mut j = 0;
    while is_attribute_at(item, j) {
        j += 2;
    }
    let keyword = item[j..].iter().find_map(|t| match t {
        TokenTree::Ident(id) if id == "struct" || id == "enum" => Some(id == "enum"),
        _ => None,
    })?;
    let body = item[j..]
        .iter_mut()
        .find(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))?;
    let TokenTree::Group(group) = body else {
        return None;
    };
    let mut tokens: Vec<TokenTree> = group.stream().into_iter().collect();
    let entries = entries(&mut tokens, placeholders);
    let name = |rule: &str, e: &Entry| match keyword {
        true => variant_name(rule, &e.name),
        false => field_name(rule, &e.name),
    };
    let rules = if keyword { VARIANT_RULES } else { FIELD_RULES };
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
            |best: Option<(&str, usize)>, (rule, saved)| match best {
                Some((_, most)) if most >= saved => best,
                _ => Some((rule, saved)),
            },
        )?;
    // The container's attribute is a line: it must save at least two.
    if saved < 2 {
        return None;
    }
    let given: Vec<usize> = entries
        .iter()
        .filter_map(|e| match &e.rename {
            Some((to, at)) if *to == name(rule, e) => Some(*at),
            _ => None,
        })
        .collect();
    let mut kept = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        if given.contains(&k) {
            if let Some(rest) = without_rename(&tokens[k + 1]) {
                kept.extend([tokens[k].clone(), rest]);
            }
            k += 2;
        } else {
            kept.push(tokens[k].clone());
            k += 1;
        }
    }
    let span = group.span();
    *group = Group::new(Delimiter::Brace, kept.into_iter().collect());
    group.set_span(span);
    Some(rule)
}

/// The fields (or variants) of a body, with their renames.
fn entries(tokens: &mut [TokenTree], placeholders: bool) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        let (mut rename, mut flatten) = (None, false);
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
                    ("flatten", _) => flatten = true,
                    _ => {}
                }
            }
            k += 2;
        }
        let mut name = None;
        // The name is the first identifier but `pub`, then the type (whose
        // generics may hold commas) runs to the next comma outside `<>`.
        let mut depth = 0usize;
        while k < tokens.len() {
            match &tokens[k] {
                TokenTree::Ident(id) if name.is_none() && id != "pub" => {
                    name = Some(id.to_string().trim_start_matches("r#").to_owned());
                }
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

/// The attribute `[serde(…)]` without its `rename = "…"`; `None` when that
/// was all it said.
fn without_rename(attr: &TokenTree) -> Option<TokenTree> {
    let (TokenTree::Group(outer), Some(args)) = (attr, serde_group(attr)) else {
        return Some(attr.clone());
    };
    let tokens: Vec<TokenTree> = args.stream().into_iter().collect();
    let rest: Vec<&[TokenTree]> = tokens
        .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .filter(|arg| !arg.is_empty())
        .filter(|arg| !matches!(arg.first(), Some(TokenTree::Ident(key)) if key == "rename"))
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
        let mut trees: Vec<TokenTree> = item.into_iter().collect();
        let rule = rename_all(&mut trees, false);
        (rule, trees.into_iter().collect::<TokenStream>().to_string())
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
}
