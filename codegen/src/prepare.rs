//! Schema preparation: tool schemas → schemas typify takes.
//!
//! Servers send JSON Schema 2020-12 (or draft-07) written by others; typify
//! takes a subset and panics on some of the rest. This module normalizes
//! each tool schema before [`crate::types`] hands it to typify:
//!
//! - internal `$ref`s (to `$defs`, `definitions`, any JSON pointer, `$id`,
//!   `$anchor`) are resolved and hoisted into server-wide definitions; a
//!   definition shared verbatim by several tools becomes one Rust type; a
//!   network or unresolvable `$ref`, and a `$ref` that only points at itself,
//!   become `serde_json::Value`, with a warning;
//! - keywords that types can't say (`pattern`, `format`, `not`, `if`…) are
//!   dropped, which makes a type looser than its schema, never stricter: the
//!   locked schema stays the full contract, checked before a call is sent;
//! - so are those that would make a type refuse legal values or calls:
//!   `additionalProperties: false` in an output (a server that adds an
//!   output field must not break a typed call; arguments stay closed), a
//!   positive `minimum` (it would make a `NonZeroU64`), a union with a
//!   branch that accepts anything;
//! - an `integer` is `i64`, `u64` when its lower bound is 0 or more, and
//!   `mcpbind::BigInt` (any size) only when its own bounds or `format`
//!   reach past 64 bits (`mcpbind_model::internal::integer`); a `default` its type
//!   can't hold is dropped;
//! - an optional property's `default` moves into its docs: the field stays
//!   an `Option`, and an unset field is not sent, so the server applies its
//!   own default;
//! - a missing `type` beside keywords that constrain one type
//!   (`properties` or `required` → object, `items` → array, `minimum`… →
//!   number) becomes every type, that one first: the keywords say nothing
//!   of other values, so those are legal too (a branch of a union beside a
//!   `type` takes that type instead);
//! - `unevaluatedProperties` beside keywords that evaluate properties
//!   elsewhere keeps the fields a struct doesn't name (a flattened map), so
//!   that the locked schema judges them instead of the type dropping them;
//! - names typify would make collide are settled first: properties whose
//!   field names clash (`fooBar`, `foo_bar`) get their own numbered field
//!   (or, where the placeholder can't be used, go to the flattened `extra`
//!   map); a string enum whose variant names clash gets numbered variants; a
//!   definition named like a prelude type (`String`, `Option`) gets a `Def`
//!   suffix.
//!
//! By concern: the walk over each subschema (`walk.rs`), `$ref`s resolved
//! and rewritten (`refs.rs`), keywords rewritten (`keywords.rs`), colliding
//! names settled (`collisions.rs`), and a tool's definitions merged into the
//! server's (`definitions.rs`).

mod collisions;
mod definitions;
mod keywords;
mod refs;
mod walk;

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

use crate::naming::ToolNames;
use crate::Warning;
use mcpbind_model::lock::ServerLock;

use definitions::{break_ref_cycles, merge_definitions};
pub(crate) use refs::{escape, refs_of, rewrite_refs};

/// A schema ready for typify: refs point at `#/$defs/<name>` of the
/// server-wide definitions, and `defs` lists every definition it needs.
#[derive(Debug, Clone)]
pub(crate) struct PreparedSchema {
    /// The Rust type name wanted for the root.
    pub(crate) name: String,
    /// The normalized root schema.
    pub(crate) root: Value,
    /// Where this schema is, for warnings: (tool, pointer prefix).
    pub(crate) tool: String,
    pub(crate) pointer: String,
}

/// The server-wide definitions.
#[derive(Debug, Default)]
pub(crate) struct Definitions {
    pub(crate) by_name: BTreeMap<String, Value>,
    /// Where each definition was first met: (tool, JSON pointer of the
    /// `$ref` that hoisted it), for warnings about its insides.
    pub(crate) origin: BTreeMap<String, (String, String)>,
    /// Whether colliding names may be renamed through placeholders (see
    /// [`PLACEHOLDER`]); off for a server whose schemas hold that character.
    pub(crate) placeholders: bool,
    /// The definitions made by [`crate::shapes`] (named by us, so renamed
    /// when typify names another type the same).
    pub(crate) shapes: BTreeSet<String>,
}

/// One server's schemas, prepared: each tool's input schema, then its
/// output schema if it has one.
#[derive(Debug)]
pub(crate) struct PreparedServer {
    pub(crate) schemas: Vec<PreparedSchema>,
    pub(crate) defs: Definitions,
    /// Per tool (lockfile order): the index of its input schema in
    /// `schemas`, and of its output schema.
    pub(crate) slots: Vec<(usize, Option<usize>)>,
}

/// Prepares every schema of a server, named after the naming plan (the
/// generator then shares identical object shapes between them).
pub(crate) fn prepare_server(
    server: &ServerLock,
    names: &ToolNames,
    warnings: &mut Vec<Warning>,
) -> PreparedServer {
    let mut defs = Definitions {
        placeholders: !server
            .tools
            .iter()
            .any(|t| contains_char(&t.definition, PLACEHOLDER)),
        ..Definitions::default()
    };
    // Root names first, so that no `$defs` name takes one.
    for name in &names.names {
        for suffix in ["Input", "Output"] {
            defs.by_name
                .insert(format!("{}{suffix}", name.marker), Value::Null);
        }
    }
    let mut schemas = Vec::new();
    let mut slots = Vec::new();
    let empty = json!({"type": "object"});
    for (tool, name) in server.tools.iter().zip(&names.names) {
        let marker = &name.marker;
        let wire = tool.name.escape_default().to_string();
        let mut input = prepare(
            &tool.name,
            marker,
            "/inputSchema",
            format!("{marker}Input"),
            tool.input_schema().unwrap_or(&empty),
            &mut defs,
            warnings,
        );
        // The description's first line, unless it is (or holds) a code fence.
        let summary = tool
            .description()
            .and_then(|d| d.lines().find(|l| !l.trim().is_empty()))
            .filter(|l| !l.contains("```") && !l.contains("~~~"));
        let doc = match summary {
            Some(line) => format!("Arguments of the `{wire}` tool: {}", line.trim()),
            None => format!("Arguments of the `{wire}` tool."),
        };
        describe_root(&mut input.root, doc);
        schemas.push(input);
        let output = tool.output_schema().map(|schema| {
            let mut output = prepare(
                &tool.name,
                marker,
                "/outputSchema",
                format!("{marker}Output"),
                schema,
                &mut defs,
                warnings,
            );
            describe_root(
                &mut output.root,
                format!("Structured output of the `{wire}` tool."),
            );
            schemas.push(output);
            schemas.len() - 1
        });
        slots.push((schemas.len() - 1 - usize::from(output.is_some()), output));
    }
    PreparedServer {
        schemas,
        defs,
        slots,
    }
}

/// Puts `doc` first in a root schema's description.
fn describe_root(root: &mut Value, doc: String) {
    let Some(obj) = root.as_object_mut() else {
        return;
    };
    let text = match obj.get("description").and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => format!("{doc}\n\n{d}"),
        _ => doc,
    };
    obj.insert("description".into(), Value::String(text));
}

/// Whether any string (or key) in `value` contains `c`.
fn contains_char(value: &Value, c: char) -> bool {
    match value {
        Value::String(s) => s.contains(c),
        Value::Array(items) => items.iter().any(|v| contains_char(v, c)),
        Value::Object(obj) => obj
            .iter()
            .any(|(k, v)| k.contains(c) || contains_char(v, c)),
        _ => false,
    }
}

/// The `format` that marks an integer of any size, which typify types as
/// `mcpbind::BigInt` (`keywords::type_integers`, `types::type_space_settings`).
/// No server's `format` reaches typify (all are dropped), so none is taken
/// for it; and typify names a union's variant after its format, so this one
/// keeps the name `Integer`.
pub(crate) const BIG_INTEGER_FORMAT: &str = "integer";

/// The `format` of a schema without `type` whose keywords constrain one
/// type (`{"properties": …}`, `{"minimum": 1}`): it takes every value, and
/// its `number` branch is typed `serde_json::Number`, which keeps `12` an
/// integer and `1e30` as parsed (`keywords::normalize_type`,
/// `types::type_space_settings`). Named so that the branch stays `Number`.
pub(crate) const ANY_NUMBER_FORMAT: &str = "number";

/// Marks a renamed wire name: `fooBar` and `foo_bar` both want the field
/// `foo_bar`, so the second is given to typify as `foo_bar\u{1}2` (field
/// `foo_bar_2`), and the generated code's string literals are cut back to
/// `foo_bar` afterwards by [`strip_placeholders`]. A control character, so
/// that no real name is mistaken for one (servers that use it don't get
/// renames).
pub(crate) const PLACEHOLDER: char = '\u{1}';

/// Removes placeholder suffixes (`\u{1}` and the digits after it).
pub(crate) fn strip_placeholders(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == PLACEHOLDER {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Prepares one tool schema: resolves its refs into `defs`, normalizes it.
pub(crate) fn prepare(
    tool: &str,
    tool_pascal: &str,
    pointer: &str,
    name: String,
    schema: &Value,
    defs: &mut Definitions,
    warnings: &mut Vec<Warning>,
) -> PreparedSchema {
    let mut local = LocalRefs {
        original: schema,
        names: BTreeMap::new(),
        bodies: BTreeMap::new(),
        origins: BTreeMap::new(),
        taken: BTreeSet::new(),
        placeholders: defs.placeholders,
        tool,
        pointer,
        warnings,
    };
    let mut root = schema.clone();
    if !root.is_object() {
        local.warn(
            String::new(),
            "the schema is not an object; using a free-form object",
        );
        root = json!({"type": "object"});
    }
    // Tool arguments are always an object.
    if let Some(obj) = root.as_object_mut() {
        obj.entry("type").or_insert_with(|| json!("object"));
    }
    local.normalize(&mut root, "");

    let LocalRefs {
        mut bodies,
        origins,
        warnings,
        ..
    } = local;
    break_ref_cycles(&mut bodies, &origins, tool, pointer, warnings);
    let rename = merge_definitions(tool, tool_pascal, pointer, bodies, &origins, defs);
    rewrite_refs(&mut root, &rename);
    PreparedSchema {
        name,
        root,
        tool: tool.to_owned(),
        pointer: pointer.to_owned(),
    }
}

struct LocalRefs<'a> {
    original: &'a Value,
    /// JSON pointer (or `$id`/`$anchor` key) → local definition name.
    names: BTreeMap<String, String>,
    /// Local definition name → normalized body.
    bodies: BTreeMap<String, Value>,
    /// Local definition name → pointer (in the tool schema) of the `$ref`
    /// that hoisted it.
    origins: BTreeMap<String, String>,
    taken: BTreeSet<String>,
    /// See [`Definitions::placeholders`].
    placeholders: bool,
    tool: &'a str,
    pointer: &'a str,
    warnings: &'a mut Vec<Warning>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Prepares one schema as tool `t`'s input (shared with `types` tests).
    pub(crate) fn prep(schema: Value) -> (PreparedSchema, Definitions, Vec<Warning>) {
        let mut defs = Definitions::default();
        let mut warnings = Vec::new();
        let p = prepare(
            "t",
            "T",
            "/inputSchema",
            "TInput".into(),
            &schema,
            &mut defs,
            &mut warnings,
        );
        (p, defs, warnings)
    }

    #[test]
    fn hoists_defs_and_pointers() {
        let (p, defs, w) = prep(json!({
            "type": "object",
            "$defs": {"Shape": {"type": "object", "properties": {"r": {"type": "number"}}}},
            "properties": {
                "a": {"$ref": "#/$defs/Shape"},
                "b": {"$ref": "#/properties/a"},
                "c": {"$ref": "https://example.com/schema.json"}
            }
        }));
        assert_eq!(p.root["properties"]["a"]["$ref"], "#/$defs/Shape");
        assert!(defs.by_name.contains_key("Shape"));
        assert_eq!(p.root["properties"]["c"], json!({}));
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].pointer, "/inputSchema/properties/c/$ref");
        assert!(refs_of(&p.root).contains(&"Shape".to_owned()));
    }

    #[test]
    fn infers_types_and_drops_what_types_cannot_say() {
        let (p, _, _) = prep(json!({
            "properties": {
                "n": {"minimum": 2},
                "s": {"type": "string", "pattern": "^a", "format": "email", "maxLength": 2.0},
                "t": {"type": ["string", "string", "null"]}
            },
            "required": ["n", "ghost", "n"]
        }));
        assert_eq!(p.root["type"], "object");
        // `minimum` constrains numbers only: any other value is legal.
        assert_eq!(
            p.root["properties"]["n"],
            json!({
                "type": ["number", "object", "array", "string", "boolean", "null"],
                "format": ANY_NUMBER_FORMAT
            })
        );
        assert_eq!(p.root["properties"]["s"], json!({"type": "string"}));
        assert_eq!(p.root["properties"]["t"]["type"], json!(["string", "null"]));
        assert_eq!(p.root["properties"]["ghost"], json!({}));
        assert_eq!(p.root["required"], json!(["n", "ghost"]));
    }

    #[test]
    fn shares_identical_defs_and_renames_different_ones() {
        let mut defs = Definitions::default();
        let mut w = Vec::new();
        let a = json!({"type": "object", "$defs": {"X": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/X"}}});
        let b = json!({"type": "object", "$defs": {"X": {"type": "integer"}}, "properties": {"x": {"$ref": "#/$defs/X"}}});
        prepare("a", "A", "", "AInput".into(), &a, &mut defs, &mut w);
        let same = prepare("a2", "A2", "", "A2Input".into(), &a, &mut defs, &mut w);
        let other = prepare("b", "B", "", "BInput".into(), &b, &mut defs, &mut w);
        assert_eq!(same.root["properties"]["x"]["$ref"], "#/$defs/X");
        assert_eq!(other.root["properties"]["x"]["$ref"], "#/$defs/BX");
        assert_eq!(defs.by_name.len(), 2);
    }

    #[test]
    fn separates_colliding_properties_and_enums() {
        let (p, _, w) = prep(json!({
            "type": "object",
            "properties": {
                "fooBar": {"type": "string"},
                "foo_bar": {"type": "integer"},
                "e": {"type": "string", "enum": ["a-b", "a_b"]},
                "ok": {"type": "string", "enum": ["a-b", "c"]}
            },
            "required": ["fooBar", "foo_bar"],
            "additionalProperties": false
        }));
        assert!(p.root["properties"].get("foo_bar").is_none());
        assert_eq!(p.root["required"], json!(["fooBar"]));
        assert_eq!(p.root["additionalProperties"], json!({}));
        assert_eq!(p.root["properties"]["e"], json!({"type": "string"}));
        assert_eq!(p.root["properties"]["ok"]["enum"], json!(["a-b", "c"]));
        let pointers: Vec<_> = w.iter().map(|w| w.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/inputSchema/properties/foo_bar",
                "/inputSchema/properties/e/enum"
            ]
        );
    }

    #[test]
    fn renames_definitions_that_shadow_the_prelude() {
        let (p, defs, _) = prep(json!({
            "type": "object",
            "$defs": {"String": {"type": "integer"}},
            "properties": {"s": {"$ref": "#/$defs/String"}}
        }));
        assert_eq!(p.root["properties"]["s"]["$ref"], "#/$defs/StringDef");
        assert!(defs.by_name.contains_key("StringDef"));
    }
}
