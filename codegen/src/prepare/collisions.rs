//! Names typify would make collide: properties whose field names clash,
//! string enums whose variant names clash.

use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

use super::{escape, LocalRefs, PLACEHOLDER};
use crate::naming::{is_xid_continue, typify_sanitize, Case};

impl LocalRefs<'_> {
    /// Two properties whose Rust field names are the same (`fooBar` and
    /// `foo_bar`, or `🚀` and `""`, which typify both names `x`) would make a
    /// struct that doesn't compile. The first keeps its field; the others are
    /// sent and received through the struct's flattened `extra` map, so every
    /// call stays expressible.
    pub(super) fn separate_colliding_properties(&mut self, obj: &mut Map<String, Value>, at: &str) {
        let Some(Value::Object(props)) = obj.get("properties") else {
            return;
        };
        // typify adds a flattened `extra` field for a schema-valued
        // `additionalProperties`.
        let extra = obj
            .get("additionalProperties")
            .is_some_and(|a| !a.is_boolean());
        let mut fields: BTreeMap<String, String> = BTreeMap::new();
        if extra {
            fields.insert("extra".to_owned(), String::new());
        }
        let mut moved = Vec::new();
        for name in props.keys() {
            let field = typify_sanitize(name, Case::Snake);
            match fields.get(&field) {
                Some(first) => moved.push((name.clone(), first.clone())),
                None => {
                    fields.insert(field, name.clone());
                }
            }
        }
        if moved.is_empty() {
            return;
        }
        if self.placeholders {
            self.rename_colliding_properties(obj, at, moved, &mut fields);
            return;
        }
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, _) in &moved {
                props.remove(name);
            }
        }
        if let Some(Value::Array(required)) = obj.get_mut("required") {
            required.retain(|r| !moved.iter().any(|(name, _)| r.as_str() == Some(name)));
            if required.is_empty() {
                obj.remove("required");
            }
        }
        // The moved properties may not match a typed map's values: make it
        // any value.
        obj.insert("additionalProperties".into(), json!({}));
        for (name, first) in moved {
            let with = if first.is_empty() {
                "the map of additional properties".to_owned()
            } else {
                format!("property {:?}", first)
            };
            self.warn(
                format!("{at}/properties/{}", escape(&name)),
                &format!(
                    "property {name:?} has the same Rust field name as {with}; it is carried in the `extra` map as serde_json::Value"
                ),
            );
        }
    }

    /// Gives each colliding property its own field (`foo_bar_2`) whose serde
    /// name is still the property's.
    fn rename_colliding_properties(
        &mut self,
        obj: &mut Map<String, Value>,
        at: &str,
        moved: Vec<(String, String)>,
        fields: &mut BTreeMap<String, String>,
    ) {
        for (name, first) in moved {
            let (placeholder, field) = (2..)
                .map(|n| {
                    let p = format!("{name}{PLACEHOLDER}{n}");
                    let f = typify_sanitize(&p, Case::Snake);
                    (p, f)
                })
                .find(|(_, f)| !fields.contains_key(f))
                .unwrap_or_default();
            fields.insert(field.clone(), placeholder.clone());
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                if let Some(schema) = props.remove(&name) {
                    props.insert(placeholder.clone(), schema);
                }
            }
            if let Some(Value::Array(required)) = obj.get_mut("required") {
                for r in required.iter_mut() {
                    if r.as_str() == Some(&name) {
                        *r = Value::String(placeholder.clone());
                    }
                }
            }
            let with = if first.is_empty() {
                "the map of additional properties".to_owned()
            } else {
                format!("property {first:?}")
            };
            self.warn(
                format!("{at}/properties/{}", escape(&name)),
                &format!("property {name:?} has the same Rust field name as {with}; its field is `{field}`"),
            );
        }
    }

    /// typify names a string enum's variants after its values, and panics
    /// when two values give the same name (`a-b` and `a_b`, `A` and `a`); such
    /// an enum becomes a plain string.
    pub(super) fn loosen_colliding_enum(&mut self, obj: &mut Map<String, Value>, at: &str) {
        let Some(Value::Array(values)) = obj.get("enum") else {
            return;
        };
        if !values.iter().all(Value::is_string) || values.len() < 2 {
            return;
        }
        let unique = |f: &dyn Fn(&str) -> String| {
            let mut seen = BTreeSet::new();
            values
                .iter()
                .filter_map(Value::as_str)
                .all(|v| seen.insert(f(v)))
        };
        let plain = |v: &str| typify_sanitize(v, Case::Pascal);
        let xed = |v: &str| {
            typify_sanitize(
                &v.replace(|c: char| c == '_' || !is_xid_continue(c), "X"),
                Case::Pascal,
            )
        };
        if unique(&plain) || unique(&xed) {
            return;
        }
        if self.placeholders {
            // Each value keeps its own variant: the later of two that would
            // share `AB` becomes `AB2`, serialized as its own value.
            let mut seen = BTreeSet::new();
            let renamed: Vec<Value> = values
                .iter()
                .filter_map(Value::as_str)
                .map(|v| {
                    if seen.insert(plain(v)) {
                        return Value::String(v.to_owned());
                    }
                    let p = (2..)
                        .map(|n| format!("{v}{PLACEHOLDER}{n}"))
                        .find(|p| !seen.contains(&plain(p)))
                        .unwrap_or_default();
                    seen.insert(plain(&p));
                    Value::String(p)
                })
                .collect();
            obj.insert("enum".into(), Value::Array(renamed));
            // A default naming a renamed value no longer matches it.
            obj.remove("default");
            self.warn(
                format!("{at}/enum"),
                "enum values that give the same Rust variant name; later ones get a numbered variant",
            );
            return;
        }
        obj.remove("enum");
        obj.insert("type".into(), json!("string"));
        self.warn(
            format!("{at}/enum"),
            "enum values that give the same Rust variant name; using String",
        );
    }
}
