//! What classifying finds: a [`Finding`] per change, of a [`Class`], with a
//! [`Message`] that sets server text apart. Shared by every rule
//! (`classify.rs`, `prompts.rs`, `schema.rs`) and the reports (`report.rs`).

use std::fmt;

use serde_json::Value;

/// How a change affects code written against the old snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Code that compiled against the old lock can fail to compile or fail
    /// at run time.
    Breaking,
    /// The code still works, but a human should read the change (what the
    /// model is told, retry safety, the server's identity).
    Review,
    /// Nothing that worked stops working.
    Compatible,
}

impl Class {
    /// The class's name in reports: `breaking`, `review`, `compatible`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Breaking => "breaking",
            Class::Review => "review",
            Class::Compatible => "compatible",
        }
    }

    /// All classes, most severe first.
    pub const ALL: [Class; 3] = [Class::Breaking, Class::Review, Class::Compatible];
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a finding is about: a server entry (a tool, a prompt, a resource
/// template), or the server itself when `None`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The kind of entry, in words ([`EntryKind::noun`](mcpbind_model::lock::EntryKind::noun)): `tool`, `prompt`
    /// or `resource template`.
    pub kind: &'static str,
    /// Its name on the wire.
    pub name: String,
}

/// A message of a finding: text with names and values set apart (as code),
/// so that each output format can quote server text safely.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Message(pub Vec<MessagePart>);

/// One part of a [`Message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessagePart {
    /// Words of mcpbind's own.
    Text(String),
    /// A name or value that came from a server, shown as code.
    Code(String),
}

impl Message {
    /// A message starting with `text`.
    pub fn text(text: impl Into<String>) -> Message {
        Message(vec![MessagePart::Text(text.into())])
    }

    /// Appends words.
    pub fn then(mut self, text: impl Into<String>) -> Message {
        self.0.push(MessagePart::Text(text.into()));
        self
    }

    /// Appends a name or value from the server.
    pub fn code(mut self, code: impl Into<String>) -> Message {
        self.0.push(MessagePart::Code(code.into()));
        self
    }

    /// Appends another message.
    pub fn join(mut self, other: Message) -> Message {
        self.0.extend(other.0);
        self
    }
}

impl fmt::Display for Message {
    /// Plain text, names in backticks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for part in &self.0 {
            match part {
                MessagePart::Text(t) => f.write_str(t)?,
                MessagePart::Code(c) => write!(f, "`{c}`")?,
            }
        }
        Ok(())
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Breaking, review or compatible.
    pub class: Class,
    /// The rule that classified it (a stable id, e.g. `required-param-added`;
    /// the README lists them).
    pub rule: &'static str,
    /// The entry it is about; `None` for the server itself.
    pub entry: Option<Entry>,
    /// Where, as a JSON pointer into the entry's definition (into the new
    /// one, or the old one for what was removed); into the server's lock
    /// entry for server changes.
    pub pointer: String,
    /// What changed, in words.
    pub message: Message,
    /// The old value, if any.
    pub old: Option<Value>,
    /// The new value, if any.
    pub new: Option<Value>,
}

impl Finding {
    /// A finding about the server itself (`entry` is `None`; callers set it
    /// for an entry).
    pub(super) fn new(
        class: Class,
        rule: &'static str,
        pointer: &str,
        message: Message,
        old: Option<&Value>,
        new: Option<&Value>,
    ) -> Finding {
        Finding {
            class,
            rule,
            entry: None,
            pointer: pointer.to_owned(),
            message,
            old: old.cloned(),
            new: new.cloned(),
        }
    }

    /// Whether the change is to text a model reads (a description or a
    /// title): reports show it as a word diff.
    pub fn text_change(&self) -> Option<(&str, &str)> {
        if self.rule != "description-changed" && self.rule != "title-changed" {
            return None;
        }
        let old = self.old.as_ref().and_then(Value::as_str).unwrap_or("");
        let new = self.new.as_ref().and_then(Value::as_str).unwrap_or("");
        Some((old, new))
    }
}

impl fmt::Display for Finding {
    /// The finding as one line, naming its entry: ``prompt `p`: argument
    /// `a` removed``.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.entry {
            Some(e) => write!(f, "{} `{}`: {}", e.kind, e.name, self.message),
            None => write!(f, "{}", self.message),
        }
    }
}
