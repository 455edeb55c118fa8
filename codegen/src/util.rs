//! Naming helpers: every generated identifier goes through [`sanitize`].

use std::collections::BTreeSet;

use heck::{ToPascalCase, ToSnakeCase};

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

/// Hands out identifiers, appending `_2`, `_3`… to names already taken.
#[derive(Debug, Default)]
pub(crate) struct UniqueNames {
    taken: BTreeSet<String>,
}

impl UniqueNames {
    /// Reserves a name up front (e.g. `connect` on the client).
    pub(crate) fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }

    /// The first free name among `base`, `base_2`, `base_3`…
    pub(crate) fn unique(&mut self, base: String, case: Case) -> String {
        if self.taken.insert(base.clone()) {
            return base;
        }
        // `self_` + `_2` would make `self__2`, which trips `non_snake_case`.
        let sep = if case == Case::Snake && !base.ends_with('_') {
            "_"
        } else {
            ""
        };
        (2..)
            .map(|n| format!("{base}{sep}{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .unwrap_or(base)
    }
}

/// Makes text safe as rustdoc: fenced code blocks become `text` blocks (so a
/// server's example never compiles as a doctest), an unclosed fence is
/// closed, and NULs are dropped.
pub(crate) fn doc_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_fence: Option<String> = None;
    let text = text
        .replace('\0', "")
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    for line in text.lines() {
        let trimmed = line.trim_start();
        let fence: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        let is_fence = fence.len() >= 3
            && fence
                .chars()
                .all(|c| c == fence.chars().next().unwrap_or('`'));
        match &in_fence {
            None if is_fence => {
                let indent = &line[..line.len() - trimmed.len()];
                out.push_str(indent);
                out.push_str(&fence);
                out.push_str("text");
                in_fence = Some(fence);
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
    out.trim_end().to_owned()
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
    fn unique_names() {
        let mut names = UniqueNames::default();
        names.reserve("connect");
        assert_eq!(names.unique("connect".into(), Case::Snake), "connect_2");
        assert_eq!(names.unique("a".into(), Case::Snake), "a");
        assert_eq!(names.unique("a".into(), Case::Snake), "a_2");
        assert_eq!(names.unique("A".into(), Case::Pascal), "A");
        assert_eq!(names.unique("A".into(), Case::Pascal), "A2");
    }

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
}
