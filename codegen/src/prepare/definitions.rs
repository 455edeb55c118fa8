//! A tool's hoisted definitions merged into the server-wide ones, after
//! definitions that only refer to themselves are broken.

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

use super::{refs_of, rewrite_refs, Definitions};
use crate::Warning;

/// Merges a tool's definitions into the server's: a definition identical
/// to the server's one of that name is shared, unless it refers to one that
/// isn't; the others get a tool-specific name. Returns the renames.
pub(super) fn merge_definitions(
    tool: &str,
    tool_pascal: &str,
    pointer: &str,
    bodies: BTreeMap<String, Value>,
    origins: &BTreeMap<String, String>,
    defs: &mut Definitions,
) -> BTreeMap<String, String> {
    let mut shared: BTreeSet<String> = bodies
        .iter()
        .filter(|(name, body)| defs.by_name.get(*name) == Some(*body))
        .map(|(name, _)| name.clone())
        .collect();
    loop {
        let keep: BTreeSet<String> = shared
            .iter()
            .filter(|name| refs_of(&bodies[*name]).iter().all(|r| shared.contains(r)))
            .cloned()
            .collect();
        if keep.len() == shared.len() {
            break;
        }
        shared = keep;
    }
    let mut rename = BTreeMap::new();
    for name in bodies.keys().filter(|n| !shared.contains(*n)) {
        let mut global = name.clone();
        if defs.by_name.contains_key(&global) {
            global = format!("{tool_pascal}{name}");
            let base = global.clone();
            let mut n = 2;
            while defs.by_name.contains_key(&global) {
                global = format!("{base}{n}");
                n += 1;
            }
        }
        defs.by_name.insert(global.clone(), Value::Null);
        rename.insert(name.clone(), global);
    }
    for (name, mut body) in bodies {
        if let Some(global) = rename.get(&name) {
            if let Some(at) = origins.get(&name) {
                defs.origin
                    .insert(global.clone(), (tool.to_owned(), format!("{pointer}{at}")));
            }
            rewrite_refs(&mut body, &rename);
            defs.by_name.insert(global.clone(), body);
        }
    }
    rename
}

/// A definition that is only a reference to itself, directly or through
/// other bare references (`{"$defs": {"s": {"$ref": "#/$defs/s"}}}`, or
/// `#/properties/o` from inside `o`), says nothing: it becomes `{}` (any
/// value), with a warning. (Left alone, it would be a type alias of itself.)
pub(super) fn break_ref_cycles(
    bodies: &mut BTreeMap<String, Value>,
    origins: &BTreeMap<String, String>,
    tool: &str,
    pointer: &str,
    warnings: &mut Vec<Warning>,
) {
    let bare_ref = |body: &Value| -> Option<String> {
        let obj = body.as_object()?;
        let target = match obj.get("allOf") {
            Some(Value::Array(all)) if all.len() == 1 => all[0].get("$ref")?,
            _ => obj.get("$ref")?,
        };
        target.as_str()?.strip_prefix("#/$defs/").map(str::to_owned)
    };
    let mut cyclic = BTreeSet::new();
    for start in bodies.keys() {
        let mut seen = BTreeSet::new();
        let mut at = start.clone();
        while let Some(next) = bodies.get(&at).and_then(bare_ref) {
            if !seen.insert(at.clone()) {
                break;
            }
            if next == *start {
                cyclic.insert(start.clone());
                break;
            }
            at = next;
        }
    }
    for name in cyclic {
        bodies.insert(name.clone(), json!({}));
        warnings.push(Warning {
            server: String::new(),
            tool: tool.to_owned(),
            pointer: format!("{pointer}{}", origins.get(&name).map_or("", String::as_str)),
            message: "this $ref refers only to itself; using serde_json::Value".to_owned(),
        });
    }
}
