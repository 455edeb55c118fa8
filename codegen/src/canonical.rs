//! Canonical JSON (RFC 8785) of schemas, written directly.
//!
//! The text is the same as `mcpbind_core::hash::canonical_json` (the
//! lockfile's hashes, which this must never disagree with; a test compares
//! the two on every fixture and the corpus), but written in one pass into
//! one buffer: the generator canonicalizes every tool definition (stored in
//! the generated code) and every object shape (compared in
//! [`crate::shapes`]), and the general serializer buffers every key and
//! value separately and parses each key again to sort it.
//!
//! What RFC 8785 asks, and how: object keys sorted by their UTF-16 code
//! units; strings escaped as serde_json's compact writer escapes them (`"`,
//! `\`, and controls below U+0020 as `\b \t \n \f \r` or `\u00xx`, nothing
//! else), which is what RFC 8785 prescribes; numbers as ECMAScript prints
//! them, which is left to the general serializer (numbers are few).

use serde_json::Value;

/// The RFC 8785 canonical form of `value`.
pub(crate) fn canonical_json(value: &Value) -> String {
    let mut out = String::with_capacity(256);
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(_) => out.push_str(&mcpbind_core::hash::canonical_json(value)),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Object(obj) => {
            let mut entries: Vec<(&String, &Value)> = obj.iter().collect();
            entries.sort_by(|a, b| utf16_order(a.0, b.0));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_value(value, out);
            }
            out.push('}');
        }
    }
}

/// Keys in the order of their UTF-16 code units (which differs from byte
/// order only between U+E000–U+FFFF and characters beyond U+FFFF).
fn utf16_order(a: &str, b: &str) -> std::cmp::Ordering {
    if a.is_ascii() && b.is_ascii() {
        a.cmp(b)
    } else {
        a.encode_utf16().cmp(b.encode_utf16())
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    let mut plain = 0;
    for (i, byte) in s.bytes().enumerate() {
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\x08' => "\\b",
            b'\x0c' => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        plain = i + 1;
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn same_as_core(value: &Value) {
        assert_eq!(
            canonical_json(value),
            mcpbind_core::hash::canonical_json(value),
            "{value}"
        );
    }

    #[test]
    fn agrees_with_the_lockfile_hashes() {
        same_as_core(&json!({
            "b": [1, 1.0, -0.0, 1e21, 1.5e-7, 12345678901234567890u64, -3, null, true, false],
            "a": "quote \" backslash \\ slash / controls \u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f} é \u{2028}",
            "\u{e000}": 1, "\u{1f600}": 2, "é": 3, "Z": 4, "": 5,
            "nested": {"y": {}, "x": []}
        }));
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut files: Vec<_> = std::fs::read_dir(dir.join("fixtures"))
            .expect("fixtures")
            .map(|e| e.expect("entry").path())
            .collect();
        files.push(dir.join("corpus/servers.lock"));
        for path in files {
            let text = std::fs::read_to_string(&path).expect("read");
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            same_as_core(&value);
        }
    }
}
