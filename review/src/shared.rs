//! The rules every kind of entry shares (tools, prompts and resource
//! templates): the text rules (`description`, `title`) and the catch-all,
//! which turns each raw difference no rule explained into a finding.

use serde_json::Value;

use super::finding::{Class, Finding, Message};
use super::{diff_values, Change};

/// The text rules, shared by every kind of entry (and a prompt's
/// arguments): a changed `description` or `title` at `base` is for review
/// (what the model reads), shown as a word diff.
pub(super) fn classify_texts(
    base: &str,
    old: &Value,
    new: &Value,
    out: &mut Vec<Finding>,
    examined: &mut Vec<String>,
) {
    let get = |v: &Value, k: &str| v.get(k).filter(|v| !v.is_null()).cloned();
    for key in ["description", "title"] {
        let pointer = format!("{base}/{key}");
        examined.push(pointer.clone());
        let (o, n) = (get(old, key), get(new, key));
        if o != n {
            let rule = if key == "title" {
                "title-changed"
            } else {
                "description-changed"
            };
            let word = match (&o, &n) {
                (None, _) => " added",
                (_, None) => " removed",
                _ => " changed",
            };
            out.push(Finding::new(
                Class::Review,
                rule,
                &pointer,
                Message::text(format!("{key}{word}")),
                o.as_ref(),
                n.as_ref(),
            ));
        }
    }
}

/// The catch-all, shared by every kind of entry: each raw difference
/// between `old` and `new` that no rule examined or reported becomes an
/// `other-changed` finding; a definition that differs only in form
/// (nothing found) is `same-meaning`.
pub(super) fn classify_unexplained(
    old: &Value,
    new: &Value,
    mut examined: Vec<String>,
    out: &mut Vec<Finding>,
) {
    examined.sort();
    examined.dedup();
    let mut raw = Vec::new();
    diff_values("", Some(old), Some(new), &mut raw);
    let explained = |c: &Change| {
        examined
            .iter()
            .any(|e| covers(e, &c.pointer) || covers(&c.pointer, e))
            || out.iter().any(|f| covers(&f.pointer, &c.pointer))
    };
    let unexplained: Vec<Change> = raw.into_iter().filter(|c| !explained(c)).collect();
    out.extend(unexplained.iter().map(other_changed));
    if out.is_empty() && old != new {
        out.push(Finding::new(
            Class::Compatible,
            "same-meaning",
            "",
            Message::text(
                "definition rewritten with the same meaning (keys reordered, references renamed)",
            ),
            None,
            None,
        ));
    }
}

/// Whether pointer `outer` is `inner` or one of its ancestors.
pub(super) fn covers(outer: &str, inner: &str) -> bool {
    inner == outer || (inner.starts_with(outer) && inner[outer.len()..].starts_with('/'))
}

/// A change no rule explains: `other-changed`, for review.
pub(super) fn other_changed(c: &Change) -> Finding {
    let message = Message::text("")
        .code(&c.pointer)
        .then(match (&c.old, &c.new) {
            (None, _) => " added",
            (_, None) => " removed",
            _ => " changed",
        });
    Finding::new(
        Class::Review,
        "other-changed",
        &c.pointer,
        message,
        c.old.as_ref(),
        c.new.as_ref(),
    )
}
