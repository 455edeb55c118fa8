//! Canonical JSON (RFC 8785) and the sha256 digests the lockfile stores.

use sha2::{Digest, Sha256};

/// The RFC 8785 (JCS) canonical form of a JSON value.
pub fn canonical_json(value: &serde_json::Value) -> String {
    // Serializing a `Value` cannot fail: its keys are strings and its numbers
    // are finite.
    serde_json_canonicalizer::to_string(value).expect("a serde_json::Value always canonicalizes")
}

/// The lower-case hex sha256 of a value's canonical JSON.
pub fn sha256_hex(value: &serde_json::Value) -> String {
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
