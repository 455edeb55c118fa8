//! Secrets hidden in what mcpbind shows: every configured secret (a
//! `${VAR}`'s value, a URL's password) replaced by `***`. The client side
//! redacts errors, results, stderr tails, events and log lines with it
//! (`mcpbind-client`'s `redact.rs`), and OAuth its errors
//! (`mcpbind-auth`).

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
