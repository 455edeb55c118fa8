//! Every `mcpbind …` command line of the README and the manual (`docs/`)
//! parses with this CLI: the lines of its `sh` blocks, and the inline code
//! spans that are whole commands. A renamed flag fails here, not in a
//! reader's terminal.

use clap::Parser as _;

// The README and the manual's listing, shared with the tests of their
// rust and toml blocks.
#[path = "../../tests/tests/util/documents.rs"]
mod documents;

/// A command line as the text shows it.
struct Line {
    number: usize,
    command: String,
    /// An inline code span of the prose, which may name a command without
    /// its operands (`mcpbind call`, `generate --out`): what it names must
    /// exist, what it leaves out may be missing. A shell block's line is
    /// whole.
    fragment: bool,
}

/// The command lines of `text`, from shell blocks (`sh`, `bash`,
/// `console`; a `$ ` prompt dropped) and from inline code spans outside
/// blocks. A span that shows a usage pattern (`[SERVER...]`, `lock |
/// check`) is not a command line.
fn command_lines(text: &str) -> Vec<Line> {
    let mut found = Vec::new();
    let mut fence: Option<bool> = None; // Some(is_shell) inside a block
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(matches!(info.trim(), "sh" | "bash" | "console" | "shell")),
            };
            continue;
        }
        match fence {
            Some(true) => {
                let line = line.trim_start();
                let line = line.strip_prefix("$ ").unwrap_or(line);
                if line.starts_with("mcpbind ") {
                    found.push(Line {
                        number,
                        command: line.to_owned(),
                        fragment: false,
                    });
                }
            }
            Some(false) => {}
            None => {
                for span in line.split('`').skip(1).step_by(2) {
                    let usage = ["[", "...", "…", "|", "<"].iter().any(|p| span.contains(p));
                    // `mcpbind = { version = … }` is a manifest's line.
                    let command = span.strip_prefix("mcpbind ").is_some_and(|rest| {
                        rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '-')
                    });
                    if command && !usage {
                        found.push(Line {
                            number,
                            command: span.to_owned(),
                            fragment: true,
                        });
                    }
                }
            }
        }
    }
    found
}

/// A command line's words as a POSIX shell splits them, up to the first
/// unquoted comment, pipe, list or redirection.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                w.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        c => w.push(c),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            '#' if word.is_none() => break,
            '|' | '&' | ';' | '>' | '<' => break,
            c if c.is_whitespace() => words.extend(word.take()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// Why `line` does not parse, if it doesn't: a whole line must parse; a
/// fragment may leave out operands and a flag's value, nothing else.
fn refusal(line: &Line) -> Option<String> {
    use clap::error::ErrorKind;
    let words = words(&line.command);
    let err = crate::Cli::try_parse_from(&words).err()?;
    let left_out = match err.kind() {
        ErrorKind::MissingRequiredArgument
        | ErrorKind::MissingSubcommand
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => true,
        // `generate --out`: the flag is named, its value left to the prose.
        ErrorKind::InvalidValue => words.last().is_some_and(|w| w.starts_with('-')),
        _ => false,
    };
    if line.fragment && left_out {
        return None;
    }
    let text = err.to_string();
    Some(text.lines().next().unwrap_or_default().to_owned())
}

#[test]
fn every_documented_command_line_parses() {
    let mut checked = 0;
    let mut failures = Vec::new();
    // The manual, and the contributor's pages.
    let pages = documents::read(["ARCHITECTURE.md", "CONTRIBUTING.md"].map(str::to_owned));
    for (name, text) in documents::manual().into_iter().chain(pages) {
        for line in command_lines(&text) {
            checked += 1;
            if let Some(why) = refusal(&line) {
                failures.push(format!("{name}:{}: `{}`: {why}", line.number, line.command));
            }
        }
    }
    assert!(checked >= 20, "only {checked} command lines found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn words_split_as_a_shell_does() {
    assert_eq!(
        words(r#"mcpbind call demo add '{"a": 1}' # one call"#),
        ["mcpbind", "call", "demo", "add", r#"{"a": 1}"#]
    );
    assert_eq!(words("mcpbind check | head -1"), ["mcpbind", "check"]);
    assert_eq!(words(r#"mcpbind lock "a b""#), ["mcpbind", "lock", "a b"]);
}

#[test]
fn a_renamed_flag_is_caught() {
    let block = &command_lines("```sh\nmcpbind generate --outt x.rs\n```\n")[0];
    assert!(refusal(block).unwrap().contains("--outt"));
    // A block's line is whole; a span may leave out operands, not flags.
    let block = &command_lines("```sh\nmcpbind call\n```\n")[0];
    assert!(refusal(block).is_some());
    let span = &command_lines("run `mcpbind call` or `mcpbind generate --out`")[..];
    assert!(span.iter().all(|l| refusal(l).is_none()));
    let span = &command_lines("run `mcpbind lokc demo`")[0];
    assert!(refusal(span).is_some());
    assert!(command_lines("`mcpbind lock [SERVER...]`").is_empty());
}
