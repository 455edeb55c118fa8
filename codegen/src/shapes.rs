//! One Rust type per object shape of a server.
//!
//! Servers repeat shapes: the memory server's entity is the item of
//! `create_entities`' input and of `read_graph`'s and `open_nodes`' outputs.
//! Typed separately they would be three types, and a value read from one
//! tool could not be passed to another. So every object shape (an object
//! schema with properties, after [`crate::prepare`]) that occurs more than
//! once among a server's schemas, or equals a definition, becomes one
//! definition, and each occurrence a `$ref` to it. Shapes are compared by
//! their canonical JSON (RFC 8785), so key order doesn't matter.
//!
//! A shared shape is named after where it is first met: the property it is
//! the value of (`entities` → `Entity` for an array's items, `owner` →
//! `Owner`), numbered if the name is taken.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::naming::{sanitize, Case, SHADOWING};
use crate::prepare::{escape, rewrite_refs, Definitions, PreparedSchema};

/// Shares the repeated object shapes of `schemas` (see the module docs).
pub(crate) fn share(schemas: &mut [PreparedSchema], defs: &mut Definitions) {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for schema in schemas.iter() {
        for_each_child(&schema.root, &mut |child| count(child, &mut counts));
    }
    // A shape equal to a definition is that definition.
    let mut named: BTreeMap<String, String> = BTreeMap::new();
    for (name, body) in &defs.by_name {
        if is_shape(body) {
            named.entry(key(body)).or_insert_with(|| name.clone());
        }
    }
    counts.retain(|k, n| *n > 1 || named.contains_key(k));
    if counts.is_empty() {
        return;
    }
    let mut sharing = Sharing {
        shared: &counts,
        named,
        defs,
    };
    for schema in schemas.iter_mut() {
        let at = schema.pointer.clone();
        let tool = schema.tool.clone();
        sharing.children(&mut schema.root, &tool, &at, "Shape");
    }
}

struct Sharing<'a> {
    /// Canonical JSON of the shapes to share.
    shared: &'a BTreeMap<String, usize>,
    /// Canonical JSON → definition name, for shapes already hoisted.
    named: BTreeMap<String, String>,
    defs: &'a mut Definitions,
}

impl Sharing<'_> {
    /// Replaces shared shapes below `value` (not `value` itself).
    fn children(&mut self, value: &mut Value, tool: &str, at: &str, hint: &str) {
        let Value::Object(obj) = value else {
            return;
        };
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, sub) in props.iter_mut() {
                let at = format!("{at}/properties/{}", escape(name));
                self.node(sub, tool, &at, &sanitize(name, Case::Pascal));
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(sub) = obj.get_mut(key) {
                let hint = if key == "items" {
                    singular(hint)
                } else {
                    format!("{hint}Value")
                };
                self.node(sub, tool, &format!("{at}/{key}"), &hint);
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(subs)) = obj.get_mut(key) {
                for (i, sub) in subs.iter_mut().enumerate() {
                    self.node(sub, tool, &format!("{at}/{key}/{i}"), hint);
                }
            }
        }
    }

    fn node(&mut self, value: &mut Value, tool: &str, at: &str, hint: &str) {
        if is_shape(value) {
            let k = key(value);
            if self.shared.contains_key(&k) {
                let name = match self.named.get(&k) {
                    Some(name) => name.clone(),
                    None => self.hoist(value, k, tool, at, hint),
                };
                *value = json!({"$ref": format!("#/$defs/{name}")});
                return;
            }
        }
        self.children(value, tool, at, hint);
    }

    /// Makes `value` a definition (its own shapes shared first).
    fn hoist(&mut self, value: &Value, k: String, tool: &str, at: &str, hint: &str) -> String {
        let base = if SHADOWING.contains(&hint) {
            format!("{hint}Def")
        } else {
            hint.to_owned()
        };
        let mut name = base.clone();
        let mut n = 2;
        while self.defs.by_name.contains_key(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.named.insert(k, name.clone());
        self.defs.shapes.insert(name.clone());
        self.defs.by_name.insert(name.clone(), Value::Null);
        self.defs
            .origin
            .insert(name.clone(), (tool.to_owned(), at.to_owned()));
        let mut body = value.clone();
        self.children(&mut body, tool, at, hint);
        self.defs.by_name.insert(name.clone(), body);
        name
    }
}

/// Renames the shared shapes named in `taken` (typify named one of its own
/// types the same: a nested `ReleaseStage` of `Release`), to `{name}Shape`,
/// `{name}Shape2`… Returns whether it renamed any.
pub(crate) fn rename(
    schemas: &mut [PreparedSchema],
    defs: &mut Definitions,
    taken: &BTreeSet<String>,
) -> bool {
    let mut renames = BTreeMap::new();
    for old in defs.shapes.intersection(taken) {
        let base = format!("{old}Shape");
        let mut new = base.clone();
        let mut n = 2;
        while defs.by_name.contains_key(&new) || taken.contains(&new) {
            new = format!("{base}{n}");
            n += 1;
        }
        renames.insert(old.clone(), new);
    }
    for (old, new) in &renames {
        if let Some(body) = defs.by_name.remove(old) {
            defs.by_name.insert(new.clone(), body);
        }
        if let Some(origin) = defs.origin.remove(old) {
            defs.origin.insert(new.clone(), origin);
        }
        defs.shapes.remove(old);
        defs.shapes.insert(new.clone());
    }
    for body in defs.by_name.values_mut() {
        rewrite_refs(body, &renames);
    }
    for schema in schemas.iter_mut() {
        rewrite_refs(&mut schema.root, &renames);
    }
    !renames.is_empty()
}

/// An object schema with properties: what gets a struct.
fn is_shape(value: &Value) -> bool {
    value
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
        && value.get("type") == Some(&json!("object"))
}

fn key(value: &Value) -> String {
    mcpbind_model::hash::canonical_json(value)
}

/// Counts every shape at or below `value`.
fn count(value: &Value, counts: &mut BTreeMap<String, usize>) {
    if is_shape(value) {
        *counts.entry(key(value)).or_default() += 1;
    }
    for_each_child(value, &mut |child| count(child, counts));
}

fn for_each_child(value: &Value, f: &mut dyn FnMut(&Value)) {
    let Value::Object(obj) = value else {
        return;
    };
    if let Some(Value::Object(props)) = obj.get("properties") {
        props.values().for_each(&mut *f);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = obj.get(key) {
            f(sub);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(subs)) = obj.get(key) {
            subs.iter().for_each(&mut *f);
        }
    }
}

/// `Entities` → `Entity`, `Relations` → `Relation`, else `{name}Item`.
fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies").filter(|s| s.len() > 1) {
        format!("{stem}y")
    } else if let Some(stem) = name
        .strip_suffix('s')
        .filter(|s| s.len() > 1 && !s.ends_with('s'))
    {
        stem.to_owned()
    } else {
        format!("{name}Item")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(tool: &str, root: Value) -> PreparedSchema {
        PreparedSchema {
            name: format!("{tool}Input"),
            root,
            tool: tool.to_owned(),
            pointer: "/inputSchema".to_owned(),
        }
    }

    #[test]
    fn identical_shapes_become_one_definition() {
        let entity = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
        let mut schemas = vec![
            schema(
                "A",
                json!({"type": "object", "properties": {"entities": {"type": "array", "items": entity}}}),
            ),
            schema(
                "B",
                json!({"type": "object", "properties": {"entities": {"type": "array", "items": entity}, "one": {"type": "object", "properties": {"x": {"type": "integer"}}}}}),
            ),
        ];
        let mut defs = Definitions::default();
        share(&mut schemas, &mut defs);
        assert_eq!(
            schemas[0].root["properties"]["entities"]["items"],
            json!({"$ref": "#/$defs/Entity"})
        );
        assert_eq!(
            schemas[1].root["properties"]["entities"]["items"],
            json!({"$ref": "#/$defs/Entity"})
        );
        // A shape met once stays inline.
        assert_eq!(schemas[1].root["properties"]["one"]["type"], "object");
        assert_eq!(defs.by_name["Entity"], entity);
        assert_eq!(
            defs.origin["Entity"].1,
            "/inputSchema/properties/entities/items"
        );
    }

    #[test]
    fn names_from_properties() {
        assert_eq!(singular("Entities"), "Entity");
        assert_eq!(singular("Relations"), "Relation");
        assert_eq!(singular("Address"), "AddressItem");
        assert_eq!(singular("Data"), "DataItem");
    }
}
