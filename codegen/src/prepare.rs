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
//!   `additionalProperties: false` (a server that adds an output field must
//!   not break a typed call), a positive `minimum` (it would make a
//!   `NonZeroU64`), a union with a branch that accepts anything;
//! - an optional property's `default` moves into its docs: the field stays
//!   an `Option`, and an unset field is not sent, so the server applies its
//!   own default;
//! - a missing `type` is inferred from the keywords (`properties` or
//!   `required` → object, `items` → array, `minimum`… → number);
//! - names typify would make collide are settled first: properties whose
//!   field names clash (`fooBar`, `foo_bar`) get their own numbered field
//!   (or, where the placeholder can't be used, go to the flattened `extra`
//!   map); a string enum whose variant names clash gets numbered variants; a
//!   definition named like a prelude type (`String`, `Option`) gets a `Def`
//!   suffix.

use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};

use crate::naming::{is_xid_continue, sanitize, typify_sanitize, Case, ToolNames, SHADOWING};
use crate::{ServerLock, Warning};

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

/// Prepares every schema of a server, named after the naming plan, then
/// shares identical object shapes between them ([`crate::shapes`]).
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
    crate::shapes::share(&mut schemas, &mut defs);
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

/// Keywords dropped because no Rust type expresses them (the locked schema
/// still says them), and definitions (hoisted by then).
const DROPPED: &[&str] = &[
    "$defs",
    "definitions",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$recursiveAnchor",
    "$recursiveRef",
    "$comment",
    "$vocabulary",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "minContains",
    "maxContains",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "unevaluatedItems",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
    "discriminator",
    "title",
];

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
    local.normalize(&mut root, "");
    // Tool arguments are always an object.
    if let Some(obj) = root.as_object_mut() {
        obj.entry("type").or_insert_with(|| json!("object"));
    }

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

/// Merges a tool's definitions into the server's: a definition identical
/// to the server's one of that name is shared, unless it refers to one that
/// isn't; the others get a tool-specific name. Returns the renames.
fn merge_definitions(
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
fn break_ref_cycles(
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

impl LocalRefs<'_> {
    fn warn(&mut self, at: String, message: &str) {
        self.warnings.push(Warning {
            server: String::new(),
            tool: self.tool.to_owned(),
            pointer: format!("{}{}", self.pointer, at),
            message: message.to_owned(),
        });
    }

    /// Normalizes a subschema in place; `at` is its pointer in the tool
    /// schema (for warnings).
    fn normalize(&mut self, schema: &mut Value, at: &str) {
        let Value::Object(obj) = schema else {
            if !schema.is_boolean() {
                self.warn(
                    at.to_owned(),
                    "a subschema is neither an object nor a boolean; using any value",
                );
                *schema = json!({});
            }
            return;
        };

        if let Some(reference) = obj.get("$ref").cloned() {
            self.normalize_ref(schema, &reference, at);
            return;
        }
        // The keywords present, removed in `DROPPED`'s order (one pass over
        // the few keys an object has, rather than a lookup per keyword).
        let mut dropped: Vec<(usize, String)> = obj
            .keys()
            .filter_map(|k| Some((DROPPED.iter().position(|d| d == k)?, k.clone())))
            .collect();
        dropped.sort_unstable();
        for (_, key) in dropped {
            obj.remove(&key);
        }
        // The keys first, then each removed in that order (with
        // `preserve_order`, `remove` moves the last key into the gap, so the
        // order of removals decides the order of what is left).
        let dropped: Vec<String> = obj
            .iter()
            .filter(|(k, v)| k.starts_with("x-") || (*k == "description" && !v.is_string()))
            .map(|(k, _)| k.clone())
            .collect();
        for k in dropped {
            obj.remove(&k);
        }
        // Descriptions become doc comments: a lone CR or a NUL is not legal
        // there, whatever form the formatter picks.
        if let Some(Value::String(d)) = obj.get_mut("description") {
            if d.contains(['\r', '\0']) {
                *d = d
                    .replace("\r\n", "\n")
                    .replace('\r', "\n")
                    .replace('\0', "");
            }
        }
        drop_constraint_only_branches(obj);
        // Tuples: typify's mapping is wrong for `prefixItems` and brittle for
        // draft-07 array `items`; an array of any value is always right.
        if obj.remove("prefixItems").is_some() || obj.get("items").is_some_and(Value::is_array) {
            obj.remove("items");
            obj.remove("additionalItems");
        }
        if obj.contains_key("patternProperties") {
            obj.remove("patternProperties");
            obj.insert("additionalProperties".into(), json!({}));
        }

        type_mixed_enum(obj);
        normalize_type(obj);
        // `minimum: 1` makes typify pick `NonZeroU64`, which no literal
        // converts to; `u64` is looser, and the schema is checked anyway.
        if obj.get("type") == Some(&json!("integer"))
            && obj.get("minimum").and_then(Value::as_f64) == Some(1.0)
        {
            obj.insert("minimum".into(), json!(0));
        }
        tidy_values(obj);
        open_closed_object(obj);
        defaults_to_docs(obj);
        self.separate_colliding_properties(obj, at);
        self.loosen_colliding_enum(obj, at);

        self.normalize_children(obj, at);
        drop_accept_all_unions(obj);
    }

    /// A schema with `$ref`: the reference, resolved and hoisted, with the
    /// siblings that matter kept.
    fn normalize_ref(&mut self, schema: &mut Value, reference: &Value, at: &str) {
        let Value::Object(obj) = schema else {
            return;
        };
        let target = match reference.as_str() {
            Some(r) => self.resolve(r, at),
            None => None,
        };
        match target {
            Some(name) => {
                // Siblings of `$ref` (a description, a default) are kept by
                // wrapping: typify reads `allOf: [ref]` as the ref.
                let mut siblings: Map<String, Value> = std::mem::take(obj);
                siblings.remove("$ref");
                let description = siblings.remove("description");
                let default = siblings.remove("default");
                obj.insert("$ref".into(), json!(format!("#/$defs/{name}")));
                if description.is_some() || default.is_some() {
                    let reference = Value::Object(std::mem::take(obj));
                    obj.insert("allOf".into(), json!([reference]));
                    if let Some(d) = description {
                        obj.insert("description".into(), d);
                    }
                    if let Some(d) = default {
                        obj.insert("default".into(), d);
                    }
                }
            }
            None => {
                self.warn(
                    format!("{at}/$ref"),
                    &format!("cannot resolve $ref {reference}; using serde_json::Value"),
                );
                *schema = json!({});
            }
        }
    }

    /// Normalizes the subschemas of an object schema.
    fn normalize_children(&mut self, obj: &mut Map<String, Value>, at: &str) {
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, sub) in props.iter_mut() {
                self.normalize(sub, &format!("{at}/properties/{}", escape(name)));
            }
        }
        for key in ["additionalProperties", "items"] {
            if let Some(sub) = obj.get_mut(key) {
                self.normalize(sub, &format!("{at}/{key}"));
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            match obj.get_mut(key) {
                Some(Value::Array(subs)) if !subs.is_empty() => {
                    for (i, sub) in subs.iter_mut().enumerate() {
                        self.normalize(sub, &format!("{at}/{key}/{i}"));
                    }
                }
                Some(_) => {
                    obj.remove(key);
                }
                None => {}
            }
        }
    }

    /// Resolves a `$ref` to a local definition name, hoisting its target.
    fn resolve(&mut self, reference: &str, at: &str) -> Option<String> {
        let (key, target) = if let Some(pointer) = reference.strip_prefix('#') {
            if pointer.is_empty() || pointer.starts_with('/') {
                let decoded = percent_decode(pointer);
                (decoded.clone(), self.original.pointer(&decoded)?.clone())
            } else {
                // `#anchor`
                (
                    reference.to_owned(),
                    find_by(self.original, "$anchor", pointer)?.clone(),
                )
            }
        } else {
            // `$id`-named subschemas; anything else would be a fetch.
            (
                reference.to_owned(),
                find_by(self.original, "$id", reference)?.clone(),
            )
        };
        if let Some(name) = self.names.get(&key) {
            return Some(name.clone());
        }
        let base = key
            .rsplit('/')
            .find(|s| !s.is_empty())
            .map(|s| sanitize(&s.replace("~1", "/").replace("~0", "~"), Case::Pascal))
            .unwrap_or_else(|| "Root".to_owned());
        // A definition named like a prelude type would shadow it in the
        // generated module, where typify's code names some of them bare.
        let base = if SHADOWING.contains(&base.as_str()) {
            format!("{base}Def")
        } else {
            base
        };
        let mut name = base.clone();
        let mut n = 2;
        while !self.taken.insert(name.clone()) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.names.insert(key, name.clone());
        self.origins.insert(name.clone(), format!("{at}/$ref"));
        let mut body = target;
        self.normalize(&mut body, &format!("{at}/$ref"));
        self.bodies.insert(name.clone(), body);
        Some(name)
    }
}

impl LocalRefs<'_> {
    /// Two properties whose Rust field names are the same (`fooBar` and
    /// `foo_bar`, or `🚀` and `""`, which typify both names `x`) would make a
    /// struct that doesn't compile. The first keeps its field; the others are
    /// sent and received through the struct's flattened `extra` map, so every
    /// call stays expressible.
    fn separate_colliding_properties(&mut self, obj: &mut Map<String, Value>, at: &str) {
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
    fn loosen_colliding_enum(&mut self, obj: &mut Map<String, Value>, at: &str) {
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

/// Deduplicates `enum`, drops numeric bounds that aren't numbers, and
/// declares `required` names that aren't properties (untyped, so that the
/// call stays expressible).
fn tidy_values(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        let mut seen = Vec::new();
        values.retain(|v| {
            let new = !seen.contains(v);
            if new {
                seen.push(v.clone());
            }
            new
        });
        if values.is_empty() {
            obj.remove("enum");
        }
    } else {
        obj.remove("enum");
    }
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if obj.get(key).is_some_and(|v| !v.is_number()) {
            obj.remove(key);
        }
    }
    // `required` names that aren't properties: declare them, untyped, so
    // the call stays expressible.
    match obj.get("required") {
        Some(Value::Array(names)) => {
            let mut unique: Vec<Value> = Vec::new();
            for n in names.iter().filter(|n| n.is_string()) {
                if !unique.contains(n) {
                    unique.push(n.clone());
                }
            }
            if unique.is_empty() {
                obj.remove("required");
            } else {
                let props = obj.entry("properties").or_insert_with(|| json!({}));
                if let Some(props) = props.as_object_mut() {
                    for n in &unique {
                        if let Some(n) = n.as_str() {
                            props.entry(n).or_insert_with(|| json!({}));
                        }
                    }
                }
                obj.insert("required".into(), Value::Array(unique));
            }
        }
        Some(_) => {
            obj.remove("required");
        }
        None => {}
    }
    if obj.get("properties").is_some_and(|p| !p.is_object()) {
        obj.remove("properties");
    }
}

/// An `enum` whose values are of several JSON types (`[1, "two", true]`)
/// is typed by those types (typify has no enum of mixed values).
fn type_mixed_enum(obj: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = obj.get("enum") else {
        return;
    };
    let mut types: Vec<&str> = Vec::new();
    for v in values {
        let t = match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_f64() => "number",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        if !types.contains(&t) {
            types.push(t);
        }
    }
    // `null` beside one type is typify's business (an `Option`).
    if types.iter().filter(|t| **t != "null").count() > 1 {
        if types.contains(&"number") {
            types.retain(|t| *t != "integer");
        }
        obj.remove("enum");
        obj.insert("type".into(), json!(types));
    }
}

/// Whether a (normalized) subschema accepts every value: `true`, `{}`, or
/// only annotations.
fn accepts_anything(schema: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(obj) => obj
            .keys()
            .all(|k| matches!(k.as_str(), "description" | "title" | "default" | "examples")),
        _ => false,
    }
}

/// A union with a branch that accepts anything accepts anything: the union
/// is dropped (`anyOf: [{}, {"type": "string"}]` is `serde_json::Value`),
/// and an `allOf` branch that accepts anything adds nothing.
fn drop_accept_all_unions(obj: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(subs)) = obj.get(key) {
            if subs.iter().any(accepts_anything) {
                obj.remove(key);
            }
        }
    }
    if let Some(Value::Array(subs)) = obj.get_mut("allOf") {
        subs.retain(|s| !accepts_anything(s));
        if subs.is_empty() {
            obj.remove("allOf");
        }
    }
}

/// `anyOf`/`oneOf` beside a base type whose branches only constrain it
/// (`{"type": "object", "properties": …, "anyOf": [{"required": ["a"]},
/// {"required": ["b"]}]}`) is a rule types can't say: the base type is kept,
/// the branches dropped (the locked schema still checks them).
fn drop_constraint_only_branches(obj: &mut Map<String, Value>) {
    const SHAPING: &[&str] = &[
        "type",
        "properties",
        "items",
        "prefixItems",
        "$ref",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "additionalProperties",
    ];
    if !obj.contains_key("type") && !obj.contains_key("properties") {
        return;
    }
    for key in ["anyOf", "oneOf"] {
        let constraint_only = match obj.get(key) {
            Some(Value::Array(subs)) => subs.iter().all(|s| {
                s.as_object()
                    .is_some_and(|s| !s.keys().any(|k| SHAPING.contains(&k.as_str())))
            }),
            _ => false,
        };
        if constraint_only {
            obj.remove(key);
        }
    }
}

/// `additionalProperties: false` on an object with properties: the struct
/// ignores unknown fields instead of refusing them, so an output field a
/// server adds later (a compatible change) doesn't break a typed call.
fn open_closed_object(obj: &mut Map<String, Value>) {
    let has_properties = obj
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_properties && obj.get("additionalProperties") == Some(&Value::Bool(false)) {
        obj.remove("additionalProperties");
    }
}

/// A property's `default` becomes a line of its docs: the field stays
/// optional, and an unset field is left off the wire so that the server
/// applies its own default (which may change) rather than ours.
fn defaults_to_docs(obj: &mut Map<String, Value>) {
    let Some(Value::Object(props)) = obj.get_mut("properties") else {
        return;
    };
    for sub in props.values_mut() {
        let Some(sub) = sub.as_object_mut() else {
            continue;
        };
        let Some(default) = sub.remove("default") else {
            continue;
        };
        let line = format!("Default: `{}`.", default.to_string().replace('`', "'"));
        let doc = match sub.get("description").and_then(Value::as_str) {
            Some(d) if !d.trim().is_empty() => format!("{}\n\n{line}", d.trim_end()),
            _ => line,
        };
        sub.insert("description".into(), Value::String(doc));
    }
}

/// Makes `type` something typify takes: deduplicated, and inferred from the
/// keywords when missing.
fn normalize_type(obj: &mut Map<String, Value>) {
    const TYPES: &[&str] = &[
        "string", "number", "integer", "boolean", "object", "array", "null",
    ];
    match obj.get("type").cloned() {
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
        Some(Value::Array(types)) => {
            let mut unique: Vec<Value> = Vec::new();
            for t in types {
                if t.as_str().is_some_and(|t| TYPES.contains(&t)) && !unique.contains(&t) {
                    unique.push(t);
                }
            }
            match unique.len() {
                0 => {
                    obj.remove("type");
                }
                1 => {
                    obj.insert("type".into(), unique.remove(0));
                }
                _ => {
                    obj.insert("type".into(), Value::Array(unique));
                }
            }
        }
        Some(_) => {
            obj.remove("type");
        }
        None => {
            let has = |keys: &[&str]| keys.iter().any(|k| obj.contains_key(*k));
            let combinator = has(&["anyOf", "oneOf", "allOf", "enum", "const", "$ref"]);
            let inferred = if combinator {
                None
            } else if has(&["properties", "required", "additionalProperties"]) {
                Some("object")
            } else if has(&["items"]) {
                Some("array")
            } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
                Some("number")
            } else {
                None
            };
            if let Some(t) = inferred {
                obj.insert("type".into(), json!(t));
            }
        }
    }
    // Numeric bounds on a non-numeric type confuse typify.
    let numeric = match obj.get("type") {
        Some(Value::String(t)) => t == "number" || t == "integer",
        _ => false,
    };
    if !numeric {
        for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
            obj.remove(key);
        }
    }
}

fn find_by<'v>(schema: &'v Value, key: &str, wanted: &str) -> Option<&'v Value> {
    match schema {
        Value::Object(obj) => {
            if obj.get(key).and_then(Value::as_str) == Some(wanted) {
                return Some(schema);
            }
            obj.values().find_map(|v| find_by(v, key, wanted))
        }
        Value::Array(items) => items.iter().find_map(|v| find_by(v, key, wanted)),
        _ => None,
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The definition names a schema refers to.
pub(crate) fn refs_of(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_refs(schema, &mut out);
    out
}

fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(obj) => {
            if let Some(name) = obj
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                out.push(name.to_owned());
            }
            obj.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

pub(crate) fn rewrite_refs(schema: &mut Value, rename: &BTreeMap<String, String>) {
    match schema {
        Value::Object(obj) => {
            if let Some(Value::String(r)) = obj.get_mut("$ref") {
                if let Some(new) = r.strip_prefix("#/$defs/").and_then(|n| rename.get(n)) {
                    *r = format!("#/$defs/{new}");
                }
            }
            obj.values_mut().for_each(|v| rewrite_refs(v, rename));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, rename)),
        _ => {}
    }
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
        assert_eq!(
            p.root["properties"]["n"],
            json!({"type": "number", "minimum": 2})
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
