//! Secrets hidden in what mcpbind shows: every configured secret (a
//! `${VAR}`'s value, a URL's password) replaced by `***`. The client side
//! redacts errors, results, stderr tails, events and log lines with it
//! (`mcpbind-client`'s `redact.rs`), and OAuth its errors
//! (`mcpbind-auth`). Its variants (text cut at its start, every string of a
//! JSON value, a secret replaced by its label `${VAR}` in events) are here
//! too, through `internal::redact`: secrets are hidden in one place.

use serde_json::Value;

/// `text` with every secret replaced by `***`, in order: pass them longest
/// first (as `ServerSecrets::secrets` gives
/// them), so that a secret containing another is replaced whole. For a log
/// line that a lower layer (rmcp, reqwest) may have filled with them.
pub fn redact(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        if !secret.is_empty() && text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), "***");
        }
    }
    text
}

/// [`redact`] for text cut at its start: a start that is the end of a
/// secret (the rest of it was dropped) is replaced by `***` too.
pub fn redact_cut(text: &str, secrets: &[String]) -> String {
    let text = redact(text, secrets);
    let cut = secrets
        .iter()
        .filter_map(|secret| {
            // A cut leaving fewer than 4 bytes of a secret would hide any
            // tail that starts with one of its last letters.
            (1..secret.len().saturating_sub(3))
                .filter(|&i| secret.is_char_boundary(i))
                .map(|i| &secret[i..])
                .find(|end| text.starts_with(end))
        })
        .map(str::len)
        .max();
    match cut {
        Some(len) => format!("***{}", &text[len..]),
        None => text,
    }
}

/// Every string in `value` redacted.
pub fn redact_value(value: &mut Value, secrets: &[String]) {
    each_string(value, &mut |s| *s = redact(s, secrets));
}

/// Applies `f` to every string in `value`, keys left as they are.
fn each_string(value: &mut Value, f: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| each_string(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| each_string(v, f)),
        _ => {}
    }
}

/// `text` with each secret replaced by its label.
pub fn redact_labelled(text: &str, secrets: &[(String, String)]) -> String {
    let mut text = text.to_owned();
    for (secret, label) in secrets {
        if text.contains(secret.as_str()) {
            text = text.replace(secret.as_str(), label);
        }
    }
    text
}

/// Every string in `value` with each secret replaced by its label.
pub fn redact_labelled_value(value: &mut Value, secrets: &[(String, String)]) {
    each_string(value, &mut |s| *s = redact_labelled(s, secrets));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_cut_inside_a_secret_hides_what_is_left_of_it() {
        let secrets = ["tok-5ecret-value".to_owned()];
        assert_eq!(
            redact_cut("5ecret-value and tok-5ecret-value", &secrets),
            "*** and ***"
        );
        assert_eq!(redact_cut("value is cut", &secrets), "*** is cut");
        assert_eq!(redact_cut("ue is too short", &secrets), "ue is too short");
        assert_eq!(redact_cut("nothing here", &secrets), "nothing here");
    }

    #[test]
    fn longer_secrets_first_and_labels_in_values() {
        let secrets = ["tok-secret".to_owned(), "secret".to_owned()];
        assert_eq!(redact("tok-secret and secret", &secrets), "*** and ***");
        let mut value = serde_json::json!({"a": ["k3y", {"b": "x k3y"}], "n": 1});
        redact_labelled_value(&mut value, &[("k3y".to_owned(), "${KEY}".to_owned())]);
        assert_eq!(
            value,
            serde_json::json!({"a": ["${KEY}", {"b": "x ${KEY}"}], "n": 1})
        );
    }
}
