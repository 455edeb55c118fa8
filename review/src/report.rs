//! The classified changes of several servers, and their three renderings:
//! text for a terminal, JSON for tools, Markdown for a pull-request comment.
//!
//! Server text (names, descriptions) is untrusted: the text rendering shows
//! control and bidirectional characters as `\u{..}` escapes (no terminal
//! escape sequence passes through), and the Markdown rendering escapes
//! every character Markdown or HTML would act on (no link, image, mention
//! or HTML tag passes through).

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::classify::ServerReview;
use super::finding::{Class, Finding, MessagePart};
use super::words::{word_diff, WordOp};
use mcpbind_model::lock::Lockfile;

/// The version of the JSON report's shape (`format_version`).
pub const REPORT_FORMAT_VERSION: u64 = 1;

/// The classified changes of a set of servers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Review {
    /// Per server, sorted by name.
    pub servers: Vec<ServerReview>,
}

impl Review {
    /// Classifies every change between two lockfiles, for every server in
    /// either (or only those named in `only`, when it is not empty).
    pub fn lockfiles(old: &Lockfile, new: &Lockfile, only: &[String]) -> Review {
        let mut names: Vec<&String> = old.servers.keys().chain(new.servers.keys()).collect();
        names.sort();
        names.dedup();
        let servers = names
            .into_iter()
            .filter(|n| only.is_empty() || only.contains(n))
            .map(|n| ServerReview::new(n, old.servers.get(n), new.servers.get(n)))
            .collect();
        Review { servers }
    }

    /// How many findings of `class`, over all servers.
    pub fn count(&self, class: Class) -> usize {
        self.servers.iter().map(|s| s.count(class)).sum()
    }

    /// The most severe class found, if anything changed.
    pub fn worst(&self) -> Option<Class> {
        self.servers.iter().filter_map(ServerReview::worst).min()
    }

    /// `2 breaking, 1 review, 3 compatible` (or `no changes`).
    pub fn summary(&self) -> String {
        summary_of(|c| self.count(c))
    }

    /// The human report: per server, its findings grouped by class, with
    /// word diffs of changed descriptions. With `color`, ANSI colours.
    pub fn to_text(&self, color: bool) -> String {
        let paint = |code: &str, text: &str| {
            if color {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text.to_owned()
            }
        };
        let mut out = String::new();
        for server in &self.servers {
            let summary = summary_of(|c| server.count(c));
            let _ = writeln!(
                out,
                "{}: {summary}",
                paint("1", &terminal_safe(&server.server))
            );
            for class in Class::ALL {
                let findings: Vec<&Finding> = server
                    .findings
                    .iter()
                    .filter(|f| f.class == class)
                    .collect();
                if findings.is_empty() {
                    continue;
                }
                let _ = writeln!(out, "  {}:", paint(class_color(class), class.as_str()));
                for f in findings {
                    let _ = writeln!(out, "    {}", terminal_safe(&f.to_string()));
                    if let Some((old, new)) = f.text_change() {
                        let mut diff = String::new();
                        for op in word_diff(old, new) {
                            match op {
                                WordOp::Same(t) => diff.push_str(&terminal_safe(&t)),
                                WordOp::Removed(t) => diff
                                    .push_str(&paint("31", &format!("[-{}-]", terminal_safe(&t)))),
                                WordOp::Added(t) => diff.push_str(&paint(
                                    "32",
                                    &format!("{{+{}+}}", terminal_safe(&t)),
                                )),
                            }
                        }
                        for line in diff.lines() {
                            let _ = writeln!(out, "        {line}");
                        }
                    }
                }
            }
        }
        let _ = writeln!(out, "{}", paint("1", &format!("total: {}", self.summary())));
        out
    }

    /// The JSON report (see the README, "Reviewing server changes"): stable
    /// keys, findings in the order of the text report.
    pub fn to_json(&self) -> Value {
        let counts = |count: &dyn Fn(Class) -> usize| {
            json!({
                "breaking": count(Class::Breaking),
                "review": count(Class::Review),
                "compatible": count(Class::Compatible),
            })
        };
        let servers: Vec<Value> = self
            .servers
            .iter()
            .map(|s| {
                let changes: Vec<Value> = s
                    .findings
                    .iter()
                    .map(|f| {
                        json!({
                            "class": f.class.as_str(),
                            "rule": f.rule,
                            "kind": f.entry.as_ref().map_or("server", |e| json_kind(e.kind)),
                            "name": f.entry.as_ref().map(|e| e.name.clone()),
                            "pointer": f.pointer,
                            "message": f.message.to_string(),
                            "old": f.old,
                            "new": f.new,
                        })
                    })
                    .collect();
                json!({
                    "server": s.server,
                    "summary": counts(&|c| s.count(c)),
                    "changes": changes,
                })
            })
            .collect();
        json!({
            "format_version": REPORT_FORMAT_VERSION,
            "summary": counts(&|c| self.count(c)),
            "servers": servers,
        })
    }

    /// The Markdown report, for a pull-request comment: a summary line, a
    /// table per server, and word diffs of changed descriptions.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### mcpbind: {}\n", self.summary());
        for server in &self.servers {
            let summary = summary_of(|c| server.count(c));
            let _ = writeln!(out, "#### {}: {summary}\n", md_code(&server.server));
            if server.findings.is_empty() {
                continue;
            }
            out.push_str("| class | entry | change |\n| --- | --- | --- |\n");
            for f in &server.findings {
                let entry = match &f.entry {
                    Some(e) => format!("{} {}", e.kind, md_code(&e.name)),
                    None => "server".to_owned(),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    md_class(f.class),
                    entry,
                    md_message(f)
                );
            }
            out.push('\n');
            let texts: Vec<&Finding> = server
                .findings
                .iter()
                .filter(|f| f.text_change().is_some())
                .collect();
            if texts.is_empty() {
                continue;
            }
            out.push_str("<details><summary>Changed text (what the model reads)</summary>\n\n");
            for f in texts {
                let (old, new) = f.text_change().unwrap_or_default();
                let entry = f.entry.as_ref().map_or("server".to_owned(), |e| {
                    format!("{} {}", e.kind, md_code(&e.name))
                });
                let _ = writeln!(out, "{entry}, {}:\n", md_message(f));
                let mut line = String::from(">");
                for op in word_diff(old, new) {
                    match op {
                        WordOp::Same(t) => line.push_str(&md_text(&t)),
                        WordOp::Removed(t) => {
                            let _ = write!(line, "<del>{}</del>", md_text(&t));
                        }
                        WordOp::Added(t) => {
                            let _ = write!(line, "<ins>{}</ins>", md_text(&t));
                        }
                    }
                }
                out.push_str(line.trim_end());
                out.push_str("\n\n");
            }
            out.push_str("</details>\n\n");
        }
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push('\n');
        out
    }
}

/// An entry's kind as a JSON identifier: `tool`, `prompt`,
/// `resource_template`.
fn json_kind(noun: &'static str) -> &'static str {
    match noun {
        "resource template" => "resource_template",
        other => other,
    }
}

fn summary_of(count: impl Fn(Class) -> usize) -> String {
    let parts: Vec<String> = Class::ALL
        .iter()
        .filter(|c| count(**c) > 0)
        .map(|c| format!("{} {}", count(*c), c.as_str()))
        .collect();
    if parts.is_empty() {
        "no changes".to_owned()
    } else {
        parts.join(", ")
    }
}

fn class_color(class: Class) -> &'static str {
    match class {
        Class::Breaking => "1;31",
        Class::Review => "1;33",
        Class::Compatible => "1;32",
    }
}

/// `text` safe to print on a terminal: control characters (but newlines
/// and tabs) and bidirectional or invisible formatting characters as
/// `\u{..}`, so that a server's names and descriptions can't move the
/// cursor, clear the screen or reorder what is shown.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let invisible = matches!(c,
            '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}');
        if (c.is_control() && c != '\n' && c != '\t') || invisible {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn md_class(class: Class) -> &'static str {
    match class {
        Class::Breaking => "🔴 breaking",
        Class::Review => "🟡 review",
        Class::Compatible => "🟢 compatible",
    }
}

fn md_message(f: &Finding) -> String {
    let mut out = String::new();
    for part in &f.message.0 {
        match part {
            MessagePart::Text(t) => out.push_str(&md_text(t)),
            MessagePart::Code(c) => out.push_str(&md_code(c)),
        }
    }
    out
}

/// Text with every ASCII punctuation character Markdown could act on
/// escaped, `@` defused (no mentions), and line breaks as spaces (table
/// cells are one line).
fn md_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in terminal_safe(text).chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '@' => out.push_str("&#64;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c if c.is_ascii_punctuation()
                && !matches!(
                    c,
                    ',' | '.' | ';' | ':' | '?' | '\'' | '"' | '/' | '%' | '=' | '(' | ')' | '!'
                ) =>
            {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span that holds any text: a backtick span when the text is
/// plain, else HTML-escaped inside `<code>` (a backtick span can't hold
/// every string, and `|` would end a table cell).
fn md_code(text: &str) -> String {
    let safe = terminal_safe(text);
    let plain = !safe.is_empty()
        && !safe.starts_with(' ')
        && !safe.ends_with(' ')
        && !safe.contains(['`', '|', '\n', '\r', '\t']);
    if plain {
        return format!("`{safe}`");
    }
    let mut out = String::from("<code>");
    for c in terminal_safe(text).chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' => out.push_str("&#124;"),
            '@' => out.push_str("&#64;"),
            '`' => out.push_str("&#96;"),
            '\\' => out.push_str("&#92;"),
            '*' | '_' | '[' | ']' | '~' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push_str("</code>");
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use mcpbind_model::lock::ServerLock;

    fn review(old_description: &str, new_description: &str, name: &str) -> Review {
        let tool =
            |d: &str| json!({"name": name, "description": d, "inputSchema": {"type": "object"}});
        let lock = |d: &str| {
            ServerLock::new(
                "s",
                "2025-11-25".into(),
                json!({"name": "s"}),
                vec![tool(d)],
            )
            .unwrap()
        };
        Review {
            servers: vec![ServerReview::new(
                "s",
                Some(&lock(old_description)),
                Some(&lock(new_description)),
            )],
        }
    }

    /// A hostile description can't inject Markdown, HTML or mentions into a
    /// pull-request comment, nor escape sequences into a terminal.
    #[test]
    fn server_text_is_quoted_safely() {
        let r = review(
            "Reads files.",
            "Reads files. <img src=x onerror=alert(1)> [click](https://evil.example) @admin | ![x](y) \x1b[2J",
            "read|`file`",
        );
        let md = r.to_markdown();
        for bad in ["<img", "[click](", "@admin", "![x]", "\x1b"] {
            assert!(!md.contains(bad), "{bad} in {md}");
        }
        assert!(
            md.contains("| tool <code>read&#124;&#96;file&#96;</code> | description changed |"),
            "{md}"
        );
        assert!(md.contains("<ins> &lt;img src=x onerror=alert(1)&gt; \\[click\\](https://evil.example) &#64;admin \\| !\\[x\\](y) \\\\u\\{1b\\}\\[2J</ins>"), "{md}");
        let text = r.to_text(false);
        assert!(!text.contains('\x1b'), "{text}");
        assert!(text.contains("\\u{1b}[2J+}"), "{text}");
    }

    #[test]
    fn summaries_count_by_class() {
        let r = review("a", "b", "t");
        assert_eq!(r.summary(), "1 review");
        assert_eq!(r.worst(), Some(Class::Review));
        let same = review("a", "a", "t");
        assert_eq!(same.summary(), "no changes");
        assert_eq!(same.to_text(false), "s: no changes\ntotal: no changes\n");
        assert_eq!(
            same.to_markdown(),
            "### mcpbind: no changes\n\n#### `s`: no changes\n"
        );
        assert_eq!(same.to_json()["servers"][0]["changes"], json!([]));
    }
}
