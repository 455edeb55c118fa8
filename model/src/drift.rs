//! Drift as data: each locked entry (a tool, a prompt, a resource template)
//! that no longer matches what the server lists, and what changed in it.
//!
//! The runtime's pin check reports these (`Client::check_pins`'s answer,
//! `Error::Drift`, `Notice::Drift`); each displays as the one line the
//! runtime has always printed for it, e.g. ``tool `add` changed (sha256
//! 1f2e3d4c5b6a locked, 0a9b8c7d6e5f live): input schema``. A program decides
//! on the fields ([`Drift::kind`], [`Drift::name`], [`DriftChange`],
//! [`DefinitionPart`]), never on that text.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::diff::{Change, ServerDiff, ToolDiff};
use crate::lock::EntryKind;

/// One locked entry that no longer matches the server.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Drift {
    /// A tool, a prompt or a resource template.
    #[serde(serialize_with = "serialize_noun")]
    pub kind: EntryKind,
    /// Its name (a tool's wire name).
    pub name: String,
    /// What happened to it.
    pub change: DriftChange,
}

/// What happened to a drifted entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DriftChange {
    /// The server lists it and the lock does not have it.
    Added,
    /// The lock has it and the server no longer lists it.
    Removed,
    /// Its definition differs from the locked one.
    #[non_exhaustive]
    Changed {
        /// The sha256 of its locked definition (hex).
        locked_sha256: String,
        /// The sha256 of its live definition (hex).
        live_sha256: String,
        /// Which parts of the definition changed, in order, each once
        /// (at least one: [`DefinitionPart::Other`] for a digest that changed
        /// with an equal definition, a lock edited by hand).
        parts: Vec<DefinitionPart>,
        /// Each difference, by JSON pointer into the definition.
        #[serde(serialize_with = "serialize_changes")]
        changes: Vec<Change>,
    },
}

/// A part of a definition that changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DefinitionPart {
    /// `inputSchema`.
    InputSchema,
    /// `outputSchema`.
    OutputSchema,
    /// `description`.
    Description,
    /// `title`.
    Title,
    /// `annotations`.
    Annotations,
    /// A prompt's `arguments`.
    Arguments,
    /// Anything else (`uriTemplate`, `_meta`, `execution`…): the changes'
    /// pointers say what.
    Other,
}

impl DefinitionPart {
    /// The part a JSON pointer into a definition is in
    /// (`/inputSchema/properties/city` is in [`DefinitionPart::InputSchema`]).
    pub fn of_pointer(pointer: &str) -> DefinitionPart {
        let first = pointer
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or("");
        match first {
            "inputSchema" => DefinitionPart::InputSchema,
            "outputSchema" => DefinitionPart::OutputSchema,
            "description" => DefinitionPart::Description,
            "title" => DefinitionPart::Title,
            "annotations" => DefinitionPart::Annotations,
            "arguments" => DefinitionPart::Arguments,
            _ => DefinitionPart::Other,
        }
    }

    /// The part in words: `input schema`, `description`, `definition` (for
    /// [`DefinitionPart::Other`]).
    pub fn words(self) -> &'static str {
        match self {
            DefinitionPart::InputSchema => "input schema",
            DefinitionPart::OutputSchema => "output schema",
            DefinitionPart::Description => "description",
            DefinitionPart::Title => "title",
            DefinitionPart::Annotations => "annotations",
            DefinitionPart::Arguments => "arguments",
            DefinitionPart::Other => "definition",
        }
    }

    /// The parts `changes` touch, in order, each once; `[Other]` when there
    /// are none.
    pub(crate) fn of_changes(changes: &[Change]) -> Vec<DefinitionPart> {
        let mut parts: Vec<DefinitionPart> = Vec::new();
        for change in changes {
            let part = DefinitionPart::of_pointer(&change.pointer);
            if !parts.contains(&part) {
                parts.push(part);
            }
        }
        if parts.is_empty() {
            parts.push(DefinitionPart::Other);
        }
        parts
    }
}

impl fmt::Display for DefinitionPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.words())
    }
}

impl Drift {
    /// The entry `name` of `kind`, with `change`.
    pub fn new(kind: EntryKind, name: impl Into<String>, change: DriftChange) -> Drift {
        Drift {
            kind,
            name: name.into(),
            change,
        }
    }

    /// The parts of the definition that changed (empty for an entry added
    /// or removed).
    pub fn parts(&self) -> &[DefinitionPart] {
        match &self.change {
            DriftChange::Changed { parts, .. } => parts,
            _ => &[],
        }
    }

    /// Whether the entry's definition changed (rather than it being added
    /// or removed).
    pub fn is_changed(&self) -> bool {
        matches!(self.change, DriftChange::Changed { .. })
    }

    /// Calls `hide` on each text the server sent (the name, the changes'
    /// pointers and the strings in their values), for redaction.
    #[doc(hidden)]
    pub fn for_each_text(&mut self, hide: &mut dyn FnMut(&mut String)) {
        fn visit(value: &mut Value, hide: &mut dyn FnMut(&mut String)) {
            match value {
                Value::String(s) => hide(s),
                Value::Array(items) => items.iter_mut().for_each(|v| visit(v, hide)),
                Value::Object(map) => map.values_mut().for_each(|v| visit(v, hide)),
                _ => {}
            }
        }
        hide(&mut self.name);
        if let DriftChange::Changed { changes, .. } = &mut self.change {
            for change in changes {
                hide(&mut change.pointer);
                for value in [&mut change.old, &mut change.new].into_iter().flatten() {
                    visit(value, hide);
                }
            }
        }
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (noun, name) = (self.kind.noun(), &self.name);
        let short = |sha: &str| sha.chars().take(12).collect::<String>();
        match &self.change {
            DriftChange::Added => write!(f, "{noun} `{name}` is new"),
            DriftChange::Removed => write!(f, "{noun} `{name}` is gone"),
            DriftChange::Changed {
                locked_sha256,
                live_sha256,
                parts,
                ..
            } => {
                write!(
                    f,
                    "{noun} `{name}` changed (sha256 {} locked, {} live)",
                    short(locked_sha256),
                    short(live_sha256)
                )?;
                for (i, part) in parts.iter().enumerate() {
                    f.write_str(if i == 0 { ": " } else { ", " })?;
                    f.write_str(part.words())?;
                }
                Ok(())
            }
        }
    }
}

impl ServerDiff {
    /// One [`Drift`] per entry that differs, taking the diff's entries to be
    /// of `kind`: the changed ones first, then the removed ones, then the
    /// added ones (what the runtime's pin check reports).
    pub fn drift(&self, kind: EntryKind) -> Vec<Drift> {
        let changed = self.changed.iter().map(|entry| {
            Drift::new(
                kind,
                entry.name.clone(),
                DriftChange::Changed {
                    locked_sha256: entry.old_sha256.clone(),
                    live_sha256: entry.new_sha256.clone(),
                    parts: DefinitionPart::of_changes(&entry.changes),
                    changes: entry.changes.clone(),
                },
            )
        });
        let removed =
            (self.removed.iter()).map(|name| Drift::new(kind, name, DriftChange::Removed));
        let added = (self.added.iter()).map(|name| Drift::new(kind, name, DriftChange::Added));
        changed.chain(removed).chain(added).collect()
    }

    /// One line per drifted tool, with digests: what the runtime's pin
    /// check reports, e.g. ``tool `add` changed (sha256 1f2e3d4c5b6a locked,
    /// 0a9b8c7d6e5f live): input schema``.
    pub fn drift_lines(&self) -> Vec<String> {
        (self.drift(EntryKind::Tool).iter())
            .map(ToString::to_string)
            .collect()
    }
}

impl ToolDiff {
    /// Which parts of the definition changed (`input schema`,
    /// `description`…), in order, each once. A digest that changed with an
    /// equal definition (a lock edited by hand) is `definition`.
    pub fn parts(&self) -> Vec<&'static str> {
        (DefinitionPart::of_changes(&self.changes).into_iter())
            .map(DefinitionPart::words)
            .collect()
    }
}

fn serialize_noun<S: Serializer>(kind: &EntryKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.noun())
}

fn serialize_changes<S: Serializer>(changes: &[Change], serializer: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Shown<'a> {
        pointer: &'a str,
        old: Option<&'a Value>,
        new: Option<&'a Value>,
    }
    serializer.collect_seq(changes.iter().map(|c| Shown {
        pointer: &c.pointer,
        old: c.old.as_ref(),
        new: c.new.as_ref(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::LockedEntry;
    use serde_json::json;

    fn tool(description: &str, city: &str) -> LockedEntry {
        LockedEntry::new(json!({
            "name": "get_forecast",
            "description": description,
            "inputSchema": {"type": "object", "properties": {city: {"type": "string"}}},
        }))
        .unwrap()
    }

    #[test]
    fn drift_is_data_and_displays_as_the_pin_check_line() {
        let gone = LockedEntry::new(json!({"name": "gone"})).unwrap();
        let fresh = LockedEntry::new(json!({"name": "fresh"})).unwrap();
        let old = [tool("Forecast.", "city"), gone];
        let new = [tool("The forecast.", "town"), fresh];
        let drift = ServerDiff::tools(&old, &new).drift(EntryKind::Tool);
        assert_eq!(drift.len(), 3);
        assert_eq!(drift[0].kind, EntryKind::Tool);
        assert_eq!(drift[0].name, "get_forecast");
        assert_eq!(
            drift[0].parts(),
            [DefinitionPart::Description, DefinitionPart::InputSchema]
        );
        let DriftChange::Changed {
            locked_sha256,
            live_sha256,
            changes,
            ..
        } = &drift[0].change
        else {
            panic!("{drift:?}");
        };
        assert_eq!(locked_sha256, &old[0].sha256);
        assert_eq!(live_sha256, &new[0].sha256);
        assert!(changes
            .iter()
            .any(|c| c.pointer == "/inputSchema/properties/town" && c.old.is_none()));
        assert_eq!(
            drift[0].to_string(),
            format!(
                "tool `get_forecast` changed (sha256 {} locked, {} live): description, input schema",
                &old[0].sha256[..12],
                &new[0].sha256[..12]
            )
        );
        assert_eq!(
            (&drift[1].change, drift[1].to_string().as_str()),
            (&DriftChange::Removed, "tool `gone` is gone")
        );
        assert_eq!(
            (&drift[2].change, drift[2].to_string().as_str()),
            (&DriftChange::Added, "tool `fresh` is new")
        );
        let prompt = ServerDiff::tools(&old[1..], &[]).drift(EntryKind::ResourceTemplate);
        assert_eq!(prompt[0].to_string(), "resource template `gone` is gone");
    }

    #[test]
    fn drift_serializes_its_fields() {
        let drift = ServerDiff::tools(&[tool("a", "city")], &[tool("b", "city")])
            .drift(EntryKind::Prompt)
            .remove(0);
        let json = serde_json::to_value(&drift).unwrap();
        assert_eq!(json["kind"], "prompt");
        assert_eq!(json["name"], "get_forecast");
        assert_eq!(json["change"]["kind"], "changed");
        assert_eq!(json["change"]["parts"], json!(["description"]));
        assert_eq!(
            json["change"]["changes"],
            json!([{"pointer": "/description", "old": "a", "new": "b"}])
        );
    }

    #[test]
    fn a_digest_changed_by_hand_is_a_change_of_the_definition() {
        let mut edited = tool("a", "city");
        edited.sha256 = "0".repeat(64);
        let drift = ServerDiff::tools(&[edited], &[tool("a", "city")]).drift(EntryKind::Tool);
        assert_eq!(drift[0].parts(), [DefinitionPart::Other]);
        assert!(drift[0].to_string().ends_with(" live): definition"));
    }
}
