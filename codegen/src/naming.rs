//! Naming: the only place that decides a Rust name.
//!
//! - [`sanitize`] turns any string a server sent into an identifier of our
//!   own (methods, marker types, hoisted definitions): ASCII only, keywords
//!   escaped, never empty.
//! - [`typify_sanitize`] predicts the names typify gives to fields and enum
//!   variants (its sanitizer is private), so that collisions can be settled
//!   before typify sees the schema.
//! - [`ToolNames`] is the naming plan of one server's tools. A tool's names
//!   depend on its own wire name only: tools whose names collide (`get-user`
//!   and `get_user`) all get a suffix from the hash of their wire name, so a
//!   tool the server adds later can never take over a method that calls
//!   another tool; at worst a method disappears, which is a compile error.

use std::collections::BTreeMap;

use heck::{ToPascalCase, ToSnakeCase};
use sha2::{Digest, Sha256};

/// The case of a generated identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// `PascalCase`, for types.
    Pascal,
    /// `snake_case`, for methods and fields.
    Snake,
}

/// Turns any string a server sent into a Rust identifier of the given case.
///
/// Characters that can't appear in an identifier become word breaks;
/// non-ASCII letters are kept out (they would make idents that are hard to
/// type); a name that can't start an identifier gets a prefix; keywords get a
/// trailing `_` (as typify's `accept_as_ident` decides). The result is never
/// empty.
pub(crate) fn sanitize(input: &str, case: Case) -> String {
    let cleaned: String = input
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let mut out = match case {
        Case::Pascal => cleaned.to_pascal_case(),
        Case::Snake => cleaned.to_snake_case(),
    };
    if out.is_empty() {
        out = match case {
            Case::Pascal => "Unnamed".to_owned(),
            Case::Snake => "unnamed".to_owned(),
        };
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out = match case {
            Case::Pascal => format!("T{out}"),
            Case::Snake => format!("t_{out}"),
        };
    }
    let keyword = !typify::accept_as_ident(&out)
        || ["self", "Self", "crate", "super"].contains(&out.as_str());
    if keyword {
        match case {
            // `Self_` would trip `non_camel_case_types`.
            Case::Pascal => out.push_str("Tool"),
            Case::Snake => out.push('_'),
        }
    }
    out
}

/// The names of one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolName {
    /// The client and handler method (`snake_case`).
    pub(crate) method: String,
    /// The marker type in `tools` (`PascalCase`); the params type is
    /// `{marker}Input`, the output type `{marker}Output`.
    pub(crate) marker: String,
}

/// The naming plan of one server's tools, in lockfile order.
#[derive(Debug)]
pub(crate) struct ToolNames {
    pub(crate) names: Vec<ToolName>,
}

impl ToolNames {
    /// Names the tools; `reserved` are method names the client has already.
    pub(crate) fn new<'a>(tools: impl IntoIterator<Item = &'a str>, reserved: &[&str]) -> Self {
        let tools: Vec<&str> = tools.into_iter().collect();
        let methods = disambiguate(&tools, Case::Snake, reserved);
        let markers = disambiguate(&tools, Case::Pascal, &[]);
        let names = methods
            .into_iter()
            .zip(markers)
            .map(|(method, marker)| ToolName { method, marker })
            .collect();
        ToolNames { names }
    }
}

/// Each tool's sanitized name, with a hash suffix for every tool whose name
/// is shared (with another tool or a reserved name).
fn disambiguate(tools: &[&str], case: Case, reserved: &[&str]) -> Vec<String> {
    let bases: Vec<String> = tools.iter().map(|t| sanitize(t, case)).collect();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for base in bases
        .iter()
        .map(String::as_str)
        .chain(reserved.iter().copied())
    {
        *count.entry(base).or_default() += 1;
    }
    let mut out: Vec<String> = bases
        .iter()
        .zip(tools)
        .map(|(base, wire)| {
            if count[base.as_str()] == 1 {
                base.clone()
            } else {
                with_suffix(base, &hash_suffix(wire, 6), case)
            }
        })
        .collect();
    // A suffixed name that meets a plain one (a tool literally named
    // `get_user_1a2b3c`): lengthen the suffix of the suffixed ones.
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for name in &out {
        *taken.entry(name.clone()).or_default() += 1;
    }
    for (i, name) in out.iter_mut().enumerate() {
        if taken[name.as_str()] > 1 && *name != bases[i] {
            *name = with_suffix(&bases[i], &hash_suffix(tools[i], 16), case);
        }
    }
    out
}

fn with_suffix(base: &str, suffix: &str, case: Case) -> String {
    match case {
        // `self_` + `_1a2b3c` would make `self__1a2b3c`, which trips
        // `non_snake_case`.
        Case::Snake if base.ends_with('_') => format!("{base}{suffix}"),
        Case::Snake => format!("{base}_{suffix}"),
        Case::Pascal => format!("{base}{}", suffix.to_uppercase()),
    }
}

/// The first `len` hex digits of the sha256 of `text`.
pub(crate) fn hash_suffix(text: &str, len: usize) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex.truncate(len);
    hex
}

/// Prelude and serde names a definition must not take.
pub(crate) const SHADOWING: &[&str] = &[
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Deserialize",
    "Drop",
    "Eq",
    "Err",
    "Error",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromStr",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Serialize",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Vec",
    "WireStr",
];

/// typify's own identifier sanitizer (`typify-impl` `util::sanitize`, not
/// public), replicated to predict the names it will give.
pub(crate) fn typify_sanitize(input: &str, case: Case) -> String {
    use heck::{ToPascalCase, ToSnakeCase};
    let to_case = |s: &str| match case {
        Case::Pascal => s.to_pascal_case(),
        Case::Snake => s.to_snake_case(),
    };
    let out = match input {
        "+1" => "plus1".to_owned(),
        "-1" => "minus1".to_owned(),
        _ => to_case(
            &input
                .replace('\'', "")
                .replace(|c: char| !is_xid_continue(c), "-"),
        ),
    };
    let out = match out.chars().next() {
        None => to_case("x"),
        Some(c) if is_xid_start(c) => out,
        Some(_) => format!("{}{out}", to_case("x")),
    };
    if typify::accept_as_ident(&out) {
        out
    } else {
        format!("{out}_")
    }
}

fn is_xid_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    syn::parse_str::<syn::Ident>(c.encode_utf8(&mut [0; 4])).is_ok()
}

pub(crate) fn is_xid_continue(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    syn::parse_str::<syn::Ident>(&format!("a{c}")).is_ok()
}

/// The string literal `proc_macro2::Literal::string(value)` makes, with the same text
/// (so the same output), made faster for long texts (a definition is a few
/// KB): proc_macro2 escapes one `char::escape_debug` at a time, while here
/// printable ASCII is copied as is and only the rest goes through
/// `escape_debug` (as proc_macro2 does it), and the lexer reads the text
/// back.
pub(crate) fn str_literal(value: &str) -> proc_macro2::Literal {
    str_repr(value)
        .parse()
        .unwrap_or_else(|_| proc_macro2::Literal::string(value))
}

/// The text of [`str_literal`], quotes included.
pub(crate) fn str_repr(value: &str) -> String {
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
    repr
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_sanitize() {
        assert_eq!(sanitize("get-weather", Case::Snake), "get_weather");
        assert_eq!(sanitize("get-weather", Case::Pascal), "GetWeather");
        assert_eq!(sanitize("getWeather", Case::Snake), "get_weather");
        assert_eq!(sanitize("type", Case::Snake), "type_");
        assert_eq!(sanitize("self", Case::Snake), "self_");
        assert_eq!(sanitize("Self", Case::Pascal), "SelfTool");
        assert_eq!(sanitize("crate", Case::Snake), "crate_");
        assert_eq!(sanitize("123abc", Case::Snake), "t_123abc");
        assert_eq!(sanitize("123", Case::Pascal), "T123");
        assert_eq!(sanitize("__", Case::Snake), "unnamed");
        assert_eq!(sanitize("🚀", Case::Pascal), "Unnamed");
        assert_eq!(sanitize("r#type", Case::Snake), "r_type");
        assert_eq!(sanitize("slow mode", Case::Pascal), "SlowMode");
    }

    #[test]
    fn predicts_typify_names() {
        assert_eq!(typify_sanitize("fooBar", Case::Snake), "foo_bar");
        assert_eq!(typify_sanitize("foo-bar", Case::Snake), "foo_bar");
        assert_eq!(typify_sanitize("🚀", Case::Snake), "x");
        assert_eq!(typify_sanitize("", Case::Snake), "x");
        assert_eq!(typify_sanitize("type", Case::Snake), "type_");
        assert_eq!(typify_sanitize("123", Case::Snake), "x123");
        assert_eq!(typify_sanitize("a-b", Case::Pascal), "AB");
        assert_eq!(typify_sanitize("café", Case::Snake), "café");
    }

    fn plan(tools: &[&str]) -> Vec<(String, String)> {
        ToolNames::new(tools.iter().copied(), &["connect", "new"])
            .names
            .into_iter()
            .map(|n| (n.method, n.marker))
            .collect()
    }

    #[test]
    fn names_depend_only_on_the_tools_own_wire_name() {
        let alone = plan(&["get-user", "list"]);
        assert_eq!(alone[0], ("get_user".into(), "GetUser".into()));
        // A second tool with the same Rust name: both are suffixed by their
        // own hash, so neither takes the other's method.
        let two = plan(&["get-user", "get_user", "list"]);
        let h1 = hash_suffix("get-user", 6);
        let h2 = hash_suffix("get_user", 6);
        assert_eq!(two[0].0, format!("get_user_{h1}"));
        assert_eq!(two[1].0, format!("get_user_{h2}"));
        assert_eq!(two[0].1, format!("GetUser{}", h1.to_uppercase()));
        // Adding a third leaves the first two as they were.
        let three = plan(&["get-user", "get_user", "get.user"]);
        assert_eq!(three[0], two[0]);
        assert_eq!(three[1], two[1]);
        assert_ne!(three[2].0, three[0].0);
        // Reserved client methods are never taken.
        let reserved = plan(&["connect"]);
        assert_eq!(
            reserved[0].0,
            format!("connect_{}", hash_suffix("connect", 6))
        );
        assert_eq!(reserved[0].1, "Connect");
        // Keywords keep their escape.
        assert_eq!(
            plan(&["self", "self!"])[0].0,
            format!("self_{}", hash_suffix("self", 6))
        );
    }

    #[test]
    fn a_tool_named_like_a_suffixed_one_still_gets_a_distinct_name() {
        let h = hash_suffix("a-b", 6);
        let names = plan(&["a-b", "a_b", &format!("a_b_{h}")]);
        let methods: std::collections::BTreeSet<_> = names.iter().map(|n| &n.0).collect();
        assert_eq!(methods.len(), 3, "{names:?}");
    }
}
