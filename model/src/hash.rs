//! Canonical JSON (RFC 8785) and the sha256 digests the lockfile stores.
//!
//! The canonical text is written in one pass into one buffer (a general
//! serializer buffers every key and value separately and parses each key
//! again to sort it): the lockfile's reader hashes every definition, and
//! the generator stores every definition and compares object shapes by
//! this text. What RFC 8785 asks, and how: object keys sorted by their
//! UTF-16 code units; strings escaped as serde_json's compact writer
//! escapes them (`"`, `\`, and controls below U+0020 as `\b \t \n \f \r`
//! or `\u00xx`, nothing else), which is what RFC 8785 prescribes; numbers
//! as ECMAScript prints them, by `serde_json_canonicalizer`. A test checks
//! the whole text against that crate on every fixture and the corpus.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The RFC 8785 (JCS) canonical form of a JSON value.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::with_capacity(256);
    write_value(value, &mut out);
    out
}

fn write_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // ECMAScript's number printing, which RFC 8785 asks for, is the
        // canonicalizer crate's (numbers are few).
        Value::Number(_) => out.push_str(
            &serde_json_canonicalizer::to_string(value)
                .expect("a serde_json number always canonicalizes"),
        ),
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

/// The lower-case hex sha256 of a value's canonical JSON.
pub fn sha256_hex(value: &Value) -> String {
    sha256_hex_of_text(&canonical_json(value))
}

/// The lower-case hex sha256 of a text (a value's canonical JSON already).
pub fn sha256_hex_of_text(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn same_as_jcs(value: &Value) {
        assert_eq!(
            canonical_json(value),
            serde_json_canonicalizer::to_string(value).unwrap(),
            "{value}"
        );
    }

    #[test]
    fn agrees_with_the_jcs_crate() {
        same_as_jcs(&json!({
            "b": [1, 1.0, -0.0, 1e21, 1.5e-7, 12345678901234567890u64, -3, null, true, false],
            "a": "quote \" backslash \\ slash / controls \u{0}\u{8}\t\n\u{b}\u{c}\r\u{1f}\u{7f} é \u{2028}",
            "\u{e000}": 1, "\u{1f600}": 2, "é": 3, "Z": 4, "": 5,
            "nested": {"y": {}, "x": []}
        }));
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests");
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
            same_as_jcs(&value);
        }
    }

    #[test]
    fn canonical_form_sorts_keys_and_normalizes_numbers() {
        let v = json!({"b": 1.0, "a": [true, null, "é"], "c": {"z": 1e21, "y": 0.1}});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":[true,null,"é"],"b":1,"c":{"y":0.1,"z":1e+21}}"#
        );
    }

    #[test]
    fn digest_is_independent_of_key_order() {
        let a = json!({"name": "x", "inputSchema": {"type": "object"}});
        let b: serde_json::Value =
            serde_json::from_str(r#"{"inputSchema":{"type":"object"},"name":"x"}"#).unwrap();
        assert_eq!(sha256_hex(&a), sha256_hex(&b));
        assert_eq!(sha256_hex(&json!({})).len(), 64);
        assert_eq!(
            sha256_hex(&json!("")),
            // sha256 of the two bytes `""`
            "12ae32cb1ec02d01eda3581b127c1fee3b0dc53572ed6baf239721a03d82e126"
        );
    }
}
