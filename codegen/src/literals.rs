//! Long string literals set aside while a server's module is formatted.
//!
//! A tool's definition is a string literal of a few KB in the marker's
//! metadata (5 MB for a large lockfile). Going through tokens, syn and
//! prettyplease, each is lexed back, unescaped by syn and copied by the
//! printer, and none of that changes it: it is printed as written. So
//! [`generate_text`](crate::Generator::generate_text) puts a short
//! placeholder in its place, still longer than a line (so that the layout
//! is the same), and writes the literal into the formatted text.
//!
//! A placeholder is `"\u{E000}N\u{E000}xx…"`. No literal the generator
//! writes holds a raw U+E000 (a private-use character, which string
//! literals escape), but a doc comment could (it is the server's text,
//! printed as is); so the text is restored only if every placeholder is
//! found exactly once, in the form written, and otherwise the caller
//! formats again without placeholders.

use std::cell::RefCell;

use proc_macro2::Literal;

use crate::tool::str_literal;

const MARK: char = '\u{E000}';
/// The length of a placeholder, above prettyplease's line width (89): any
/// literal that long gets a line of its own, whatever its length.
const WIDTH: usize = 120;

/// The literals of one server's module, by placeholder number.
#[derive(Default)]
pub(crate) struct LongLiterals {
    reprs: RefCell<Vec<String>>,
}

impl LongLiterals {
    /// A string literal of `value`, or a placeholder for it if it is long.
    pub(crate) fn literal(&self, value: &str) -> Literal {
        if value.len() <= WIDTH {
            return str_literal(value);
        }
        let mut reprs = self.reprs.borrow_mut();
        reprs.push(str_literal(value).to_string());
        let mut placeholder = format!("\"{MARK}{}{MARK}", reprs.len() - 1);
        while placeholder.len() < WIDTH {
            placeholder.push('x');
        }
        placeholder.push('"');
        // Always a literal: the text is a quoted string of plain characters.
        placeholder.parse().unwrap_or_else(|_| str_literal(value))
    }

    /// `text` with every placeholder replaced by its literal; `None` if the
    /// placeholders are not each there once, as written.
    pub(crate) fn restore(&self, text: &str) -> Option<String> {
        let reprs = self.reprs.borrow();
        if reprs.is_empty() {
            return Some(text.to_owned());
        }
        let extra: usize = reprs.iter().map(String::len).sum();
        let mut out = String::with_capacity(text.len() + extra);
        let mut seen = vec![false; reprs.len()];
        let mut rest = text;
        let opening = format!("\"{MARK}");
        while let Some(at) = rest.find(&opening) {
            out.push_str(&rest[..at]);
            let after = &rest[at + opening.len()..];
            let (number, tail) = after.split_once(MARK)?;
            let n: usize = number.parse().ok()?;
            let padding = tail.find('"')?;
            // As written: padded with `x` to `WIDTH` (before the closing quote).
            let written = opening.len() + number.len() + MARK.len_utf8() + padding;
            if tail[..padding].bytes().any(|b| b != b'x') || written != WIDTH {
                return None;
            }
            if std::mem::replace(seen.get_mut(n)?, true) {
                return None;
            }
            out.push_str(&reprs[n]);
            rest = &tail[padding + 1..];
        }
        out.push_str(rest);
        seen.iter().all(|s| *s).then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_come_back_as_the_literals() {
        let long = LongLiterals::default();
        let value = format!(
            "{{\"description\":\"a \\\"quote\\\"\",\"x\":\"{}\"}}",
            "y".repeat(200)
        );
        let short = long.literal("short");
        assert_eq!(short.to_string(), "\"short\"");
        let placeholder = long.literal(&value).to_string();
        assert!(placeholder.len() >= WIDTH, "{placeholder}");
        let text = format!("const A: &str = {placeholder};\n");
        let restored = long.restore(&text).unwrap();
        assert_eq!(
            restored,
            format!("const A: &str = {};\n", Literal::string(&value))
        );
        // A placeholder missing, or twice (a server's doc comment holding
        // one): not restored.
        assert_eq!(long.restore("const A: &str = \"\";\n"), None);
        assert_eq!(long.restore(&text.repeat(2)), None);
        let forged = format!("/// \"{MARK}0{MARK}\"\n{text}");
        assert_eq!(long.restore(&forged), None);
    }
}
