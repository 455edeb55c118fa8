//! `-v` output: the runtime's `tracing` spans and events on stderr, with
//! every secret of the loaded config replaced by `***`.
//!
//! mcpbind's own events name servers and tools, never config values; rmcp
//! and reqwest (shown at `-vv`) may print a URL or a header as they got it.
//! So each event is formatted in full, then redacted, then written.

use std::io::Write;
use std::sync::RwLock;

use mcpbind::ServerSecrets;
use tracing_subscriber::fmt::MakeWriter;

/// The secrets to hide, longest first.
static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Hides the secrets of every server of `config` from log output from now on
/// (called whenever the CLI loads a config).
pub fn hide_secrets_of(config: &mcpbind::Config) {
    let mut all = SECRETS
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    all.extend(config.servers.values().flat_map(|s| s.secrets()));
    all.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    all.dedup();
}

/// `text` with every hidden secret replaced by `***`.
pub fn redact(text: &str) -> String {
    // A panic elsewhere while the list was written leaves it as it was.
    let secrets = SECRETS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    mcpbind::redact(text, &secrets)
}

/// Stderr for `tracing_subscriber::fmt`, redacted one event at a time.
#[derive(Debug, Clone, Copy, Default)]
pub struct RedactedStderr;

impl<'a> MakeWriter<'a> for RedactedStderr {
    type Writer = EventBuffer;

    fn make_writer(&'a self) -> EventBuffer {
        EventBuffer(Vec::new())
    }
}

/// One event's text; redacted and written to stderr when dropped (the fmt
/// layer makes one writer per event).
#[derive(Debug)]
pub struct EventBuffer(Vec<u8>);

impl Write for EventBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventBuffer {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let text = redact(&String::from_utf8_lossy(&self.0));
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The secret is a URL's password, which the config resolves without
    /// reading the environment (no `set_var`: other tests share the
    /// process). Which encodings of a secret are hidden is core's to test.
    #[test]
    fn events_are_redacted_before_they_are_written() {
        let config = mcpbind::Config::from_toml_str(
            "[servers.a]\nurl = \"http://user:s3cr3t%2Fvalue@h/mcp\"\n",
        )
        .unwrap();
        hide_secrets_of(&config);
        assert_eq!(
            redact("GET http://user:s3cr3t%2Fvalue@h/mcp (key=s3cr3t%2Fvalue)"),
            "GET http://user:***@h/mcp (key=***)"
        );
    }
}
