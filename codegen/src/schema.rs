//! Tool schemas → one typify `TypeSpace` per server.
//!
//! Servers send JSON Schema 2020-12 (or draft-07) written by others; typify
//! takes a subset and panics on some of the rest. This module puts a
//! normalising layer in front of it:
//!
//! - internal `$ref`s (to `$defs`, `definitions`, any JSON pointer, `$id`,
//!   `$anchor`) are resolved and hoisted into server-wide definitions; a
//!   definition shared verbatim by several tools becomes one Rust type;
//!   a network or unresolvable `$ref` becomes `serde_json::Value`, with a
//!   warning;
//! - keywords that types can't say (`pattern`, `format`, `not`, `if`…) are
//!   dropped, which makes a type looser than its schema, never stricter: the
//!   locked schema stays the full contract;
//! - names typify would make collide are settled first: properties whose
//!   field names clash (`fooBar`, `foo_bar`) keep the first as a field and
//!   carry the others in the flattened `extra` map; a string enum whose
//!   variant names clash becomes `String`; a definition named like a prelude
//!   type (`String`, `Option`) gets a `Def` suffix;
//! - anything typify still rejects is repaired per subschema: a definition
//!   or subschema it can't type becomes `serde_json::Value`, a default that
//!   doesn't fit its type is dropped, each with a warning naming the JSON
//!   pointer; only a root that stays untypeable falls back, whole, to a
//!   `serde_json` map.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::AssertUnwindSafe;

use proc_macro2::TokenStream;
use serde_json::{json, Map, Value};
use typify::{TypeSpace, TypeSpaceSettings};

use crate::util::{sanitize, Case};
use crate::Warning;

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

/// Keywords dropped because no Rust type expresses them; the locked schema
/// still says them.
const DROPPED: &[&str] = &[
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

    // Merge the tool's definitions into the server's: a definition identical
    // to the server's one of that name is shared, unless it refers to one that
    // isn't; the others get a tool-specific name.
    let LocalRefs {
        bodies, origins, ..
    } = local;
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
            return;
        }

        obj.remove("$defs");
        obj.remove("definitions");
        for key in DROPPED {
            obj.remove(*key);
        }
        for (k, v) in obj.clone() {
            if k.starts_with("x-") || (k == "description" && !v.is_string()) {
                obj.remove(&k);
            }
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

        normalize_type(obj);
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
        self.separate_colliding_properties(obj, at);
        self.loosen_colliding_enum(obj, at);

        // Recurse into subschemas.
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

/// Prelude and serde names a definition must not take.
const SHADOWING: &[&str] = &[
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Deserialize",
    "Drop",
    "Eq",
    "Err",
    "Error",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromStr",
    "Hash",
    "Into",
    "IntoIterator",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Serialize",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Vec",
];

/// typify's own identifier sanitizer (`typify-impl` `util::sanitize`, not
/// public), replicated to predict the names it will give.
fn typify_sanitize(input: &str, case: Case) -> String {
    use heck::{ToPascalCase, ToSnakeCase};
    let to_case = |s: &str| match case {
        Case::Pascal => s.to_pascal_case(),
        Case::Snake => s.to_snake_case(),
    };
    let out = match input {
        "+1" => "plus1".to_owned(),
        "-1" => "minus1".to_owned(),
        _ => to_case(
            &input
                .replace('\'', "")
                .replace(|c: char| !is_xid_continue(c), "-"),
        ),
    };
    let out = match out.chars().next() {
        None => to_case("x"),
        Some(c) if is_xid_start(c) => out,
        Some(_) => format!("{}{out}", to_case("x")),
    };
    if typify::accept_as_ident(&out) {
        out
    } else {
        format!("{out}_")
    }
}

fn is_xid_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    syn::parse_str::<syn::Ident>(c.encode_utf8(&mut [0; 4])).is_ok()
}

fn is_xid_continue(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    syn::parse_str::<syn::Ident>(&format!("a{c}")).is_ok()
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

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The definition names a schema refers to.
fn refs_of(schema: &Value) -> Vec<String> {
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

fn rewrite_refs(schema: &mut Value, rename: &BTreeMap<String, String>) {
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

/// The typify settings every server's types use.
pub(crate) fn type_space_settings() -> TypeSpaceSettings {
    let mut settings = TypeSpaceSettings::default();
    settings
        .with_type_mod("types")
        .with_struct_builder(false)
        .with_derive("PartialEq".to_owned())
        .with_map_type("::std::collections::BTreeMap");
    settings
}

/// The outcome of typing one server's schemas.
pub(crate) struct TypedSchemas {
    /// The types, as typify emits them.
    pub(crate) tokens: TokenStream,
    /// For each prepared schema (by index): the Rust type to use, or `None`
    /// when it fell back to a free-form object.
    pub(crate) types: Vec<Option<TokenStream>>,
}

/// Feeds prepared schemas to typify.
///
/// Each schema is first tried alone. One that typify rejects (by error or
/// panic) is repaired from the inside out: a definition or subschema that
/// can't be typed on its own becomes `{}` (`serde_json::Value`), a default
/// that doesn't fit its type is dropped, each with a warning naming its JSON
/// pointer. Only a root that stays untypeable falls back, whole, to a
/// `serde_json` map. Then all schemas go into one space; should that still
/// fail (typify can fail on a combination), the schema at fault falls back
/// and the space is rebuilt without it, so that a half-added schema can't
/// leave broken types behind.
pub(crate) fn type_schemas(
    schemas: &[PreparedSchema],
    defs: &Definitions,
    server: &str,
    warnings: &mut Vec<Warning>,
) -> TypedSchemas {
    let mut schemas = schemas.to_vec();
    let mut repair = Repair {
        defs: defs.by_name.clone(),
        origin: &defs.origin,
        checked: BTreeSet::new(),
        server,
        warnings,
    };
    let mut failed = vec![false; schemas.len()];
    for (index, schema) in schemas.iter_mut().enumerate() {
        if let Err(reason) = repair.root(schema) {
            failed[index] = true;
            repair.warnings.push(Warning {
                server: server.to_owned(),
                tool: schema.tool.clone(),
                pointer: schema.pointer.clone(),
                message: format!("cannot type this schema ({reason}); using a serde_json map"),
            });
        }
    }
    let Repair { defs, warnings, .. } = repair;
    loop {
        match build_space(&schemas, &defs, &failed) {
            Ok((space, ids)) => {
                let types = ids
                    .iter()
                    .map(|id| {
                        id.as_ref()
                            .and_then(|id| space.get_type(id).ok())
                            .map(|t| t.ident())
                    })
                    .collect();
                let tokens = quiet(AssertUnwindSafe(|| space.to_stream())).unwrap_or_default();
                return TypedSchemas { tokens, types };
            }
            Err((index, reason)) => {
                failed[index] = true;
                let schema = &schemas[index];
                warnings.push(Warning {
                    server: server.to_owned(),
                    tool: schema.tool.clone(),
                    pointer: schema.pointer.clone(),
                    message: format!("cannot type this schema ({reason}); using a serde_json map"),
                });
            }
        }
    }
}

/// Repairs schemas that typify rejects, per subschema.
struct Repair<'a> {
    /// The server-wide definitions, repaired as they are met.
    defs: BTreeMap<String, Value>,
    origin: &'a BTreeMap<String, (String, String)>,
    /// Definitions already checked (and repaired if needed).
    checked: BTreeSet<String>,
    server: &'a str,
    warnings: &'a mut Vec<Warning>,
}

impl Repair<'_> {
    /// Checks a root schema alone and repairs what it can; `Err` if the
    /// root itself stays untypeable.
    fn root(&mut self, schema: &mut PreparedSchema) -> Result<(), String> {
        let name = schema.name.clone();
        if check(&schema.root, &name, &self.defs).is_ok() {
            return Ok(());
        }
        let tool = schema.tool.clone();
        let pointer = schema.pointer.clone();
        self.repair(&mut schema.root, &name, &tool, &pointer, true)
    }

    /// Repairs `value` (at `pointer` of `tool`) from the inside out; on
    /// return it types, unless it is the root and `Err` says why not.
    fn repair(
        &mut self,
        value: &mut Value,
        name: &str,
        tool: &str,
        pointer: &str,
        is_root: bool,
    ) -> Result<(), String> {
        // The definitions it uses, each on its own.
        for def in needed_defs(value, &self.defs) {
            if !self.checked.insert(def.clone()) {
                continue;
            }
            let Some(mut body) = self.defs.get(&def).cloned() else {
                continue;
            };
            if check(&body, &def, &self.defs).is_ok() {
                continue;
            }
            let (def_tool, def_pointer) = self
                .origin
                .get(&def)
                .cloned()
                .unwrap_or_else(|| (tool.to_owned(), pointer.to_owned()));
            // `repair` of a non-root never fails: at worst it is `{}`.
            let _ = self.repair(&mut body, &def, &def_tool, &def_pointer, false);
            self.defs.insert(def, body);
        }
        let mut outcome = check(value, name, &self.defs);
        if outcome.is_err() {
            // Its subschemas, each on its own.
            for (suffix, child) in children(value) {
                let child_name = format!("{name}Sub");
                if check(child, &child_name, &self.defs).is_err() {
                    let at = format!("{pointer}{suffix}");
                    let _ = self.repair(child, &child_name, tool, &at, false);
                }
            }
            outcome = check(value, name, &self.defs);
        }
        // Defaults that typify finds don't fit: it checks them only in
        // context, as struct fields, so each property is tried in a struct
        // of its own.
        if outcome.is_err() {
            if let Some(Value::Object(props)) = value.get_mut("properties") {
                for (prop, sub) in props.iter_mut() {
                    if sub.get("default").is_none() {
                        continue;
                    }
                    let alone = json!({"type": "object", "properties": {prop.as_str(): &*sub}});
                    let probe = format!("{name}Default");
                    if let Err(reason) = check(&alone, &probe, &self.defs) {
                        if let Some(obj) = sub.as_object_mut() {
                            obj.remove("default");
                        }
                        let at = format!("{pointer}/properties/{}/default", escape(prop));
                        self.warn(
                            tool,
                            at,
                            format!("dropped a default that doesn't fit its type ({reason})"),
                        );
                    }
                }
                outcome = check(value, name, &self.defs);
            }
        }
        while let Err(reason) = &outcome {
            let Some(at) = drop_one_default(value) else {
                break;
            };
            self.warn(
                tool,
                format!("{pointer}{at}/default"),
                format!("dropped a default that doesn't fit its type ({reason})"),
            );
            outcome = check(value, name, &self.defs);
        }
        match outcome {
            Ok(()) => Ok(()),
            Err(reason) if is_root => Err(reason),
            Err(reason) => {
                self.warn(
                    tool,
                    pointer.to_owned(),
                    format!("cannot type this subschema ({reason}); using serde_json::Value"),
                );
                *value = json!({});
                Ok(())
            }
        }
    }

    fn warn(&mut self, tool: &str, pointer: String, message: String) {
        self.warnings.push(Warning {
            server: self.server.to_owned(),
            tool: tool.to_owned(),
            pointer,
            message,
        });
    }
}

/// The direct subschemas of a schema, with their pointer suffixes.
fn children(value: &mut Value) -> Vec<(String, &mut Value)> {
    let mut out = Vec::new();
    let Value::Object(obj) = value else {
        return out;
    };
    for (key, sub) in obj.iter_mut() {
        match (key.as_str(), sub) {
            ("properties", Value::Object(props)) => {
                for (name, sub) in props.iter_mut() {
                    out.push((format!("/properties/{}", escape(name)), sub));
                }
            }
            ("items" | "additionalProperties", sub @ Value::Object(_)) => {
                out.push((format!("/{key}"), sub));
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(subs)) => {
                for (i, sub) in subs.iter_mut().enumerate() {
                    out.push((format!("/{key}/{i}"), sub));
                }
            }
            _ => {}
        }
    }
    out
}

/// Removes one `default` (its own first, then its properties'), returning
/// the pointer suffix of the schema that held it.
fn drop_one_default(value: &mut Value) -> Option<String> {
    let obj = value.as_object_mut()?;
    if obj.remove("default").is_some() {
        return Some(String::new());
    }
    let props = obj.get_mut("properties")?.as_object_mut()?;
    props.iter_mut().find_map(|(name, sub)| {
        sub.as_object_mut()?.remove("default")?;
        Some(format!("/properties/{}", escape(name)))
    })
}

/// The definitions a schema needs, transitively, in a stable order.
fn needed_defs(root: &Value, defs: &BTreeMap<String, Value>) -> BTreeSet<String> {
    let mut needed = BTreeSet::new();
    let mut queue = refs_of(root);
    while let Some(name) = queue.pop() {
        if needed.insert(name.clone()) {
            if let Some(body) = defs.get(&name) {
                queue.extend(refs_of(body));
            }
        }
    }
    needed
}

/// Whether typify takes `root` (with the definitions it needs) and emits it.
fn check(root: &Value, name: &str, defs: &BTreeMap<String, Value>) -> Result<(), String> {
    let mut batch = Vec::new();
    for def in needed_defs(root, defs) {
        let body = defs.get(&def).cloned().unwrap_or_else(|| json!({}));
        batch.push((def.clone(), to_schema(&body)?));
    }
    let root = to_schema(root)?;
    quiet(AssertUnwindSafe(|| -> Result<(), String> {
        let mut space = TypeSpace::new(&type_space_settings());
        if !batch.is_empty() {
            space.add_ref_types(batch).map_err(|e| e.to_string())?;
        }
        space
            .add_type_with_name(&root, Some(name.to_owned()))
            .map_err(|e| e.to_string())?;
        space.to_stream();
        Ok(())
    }))?
}

type SpaceResult = Result<(TypeSpace, Vec<Option<typify::TypeId>>), (usize, String)>;

fn build_space(
    schemas: &[PreparedSchema],
    defs: &BTreeMap<String, Value>,
    failed: &[bool],
) -> SpaceResult {
    let mut space = TypeSpace::new(&type_space_settings());
    let mut added = BTreeSet::new();
    let mut ids = Vec::with_capacity(schemas.len());
    for (index, schema) in schemas.iter().enumerate() {
        if failed[index] {
            ids.push(None);
            continue;
        }
        let mut batch = Vec::new();
        for name in needed_defs(&schema.root, defs) {
            if added.contains(&name) {
                continue;
            }
            let body = defs.get(&name).cloned().unwrap_or_else(|| json!({}));
            let parsed =
                to_schema(&body).map_err(|e| (index, format!("definition `{name}`: {e}")))?;
            batch.push((name, parsed));
        }
        let root = to_schema(&schema.root).map_err(|e| (index, e))?;
        let name = schema.name.clone();
        let outcome = quiet(AssertUnwindSafe(|| -> Result<typify::TypeId, String> {
            if !batch.is_empty() {
                space
                    .add_ref_types(batch.clone())
                    .map_err(|e| e.to_string())?;
            }
            space
                .add_type_with_name(&root, Some(name))
                .map_err(|e| e.to_string())
        }));
        match outcome {
            Ok(Ok(id)) => {
                added.extend(batch.into_iter().map(|(n, _)| n));
                ids.push(Some(id));
            }
            Ok(Err(e)) | Err(e) => return Err((index, e)),
        }
    }
    // Emitting can panic too; attribute it by elimination (the last schema).
    if let Err(e) = quiet(AssertUnwindSafe(|| space.to_stream())) {
        let last = failed.iter().rposition(|f| !f).unwrap_or(0);
        return Err((last, format!("{e}, while emitting")));
    }
    Ok((space, ids))
}

fn to_schema(value: &Value) -> Result<schemars::schema::Schema, String> {
    serde_json::from_value(value.clone()).map_err(|e| format!("unreadable schema: {e}"))
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic into `Err` with its message, without printing
/// it: typify's panics on odd schemas are expected here and reported as
/// warnings instead.
fn quiet<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> Result<T, String> {
    // One hook for the process, silent only on a thread inside `quiet`:
    // swapping hooks per call would race between threads.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = std::panic::catch_unwind(f);
    QUIET.with(|q| q.set(was));
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let message = message.lines().next().unwrap_or_default();
        let message: String = message.chars().take(200).collect();
        if message.is_empty() {
            "the type generator panicked".to_owned()
        } else {
            format!("the type generator panicked: {message}")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prep(schema: Value) -> (PreparedSchema, Definitions, Vec<Warning>) {
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
        assert!(needed_defs(&p.root, &defs.by_name).contains("Shape"));
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
    fn predicts_typify_names() {
        assert_eq!(typify_sanitize("fooBar", Case::Snake), "foo_bar");
        assert_eq!(typify_sanitize("foo-bar", Case::Snake), "foo_bar");
        assert_eq!(typify_sanitize("🚀", Case::Snake), "x");
        assert_eq!(typify_sanitize("", Case::Snake), "x");
        assert_eq!(typify_sanitize("type", Case::Snake), "type_");
        assert_eq!(typify_sanitize("123", Case::Snake), "x123");
        assert_eq!(typify_sanitize("a-b", Case::Pascal), "AB");
        assert_eq!(typify_sanitize("café", Case::Snake), "café");
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

    #[test]
    fn repairs_per_subschema() {
        let (p, defs, mut w) = prep(json!({
            "type": "object",
            "properties": {
                "bad": {"enum": [1, "two", true]},
                "n": {"type": "integer", "default": "three"},
                "good": {"type": "string"}
            }
        }));
        let typed = type_schemas(&[p], &defs, "s", &mut w);
        assert!(typed.types[0].is_some(), "the tool keeps its struct");
        let pointers: Vec<_> = w.iter().map(|w| w.pointer.as_str()).collect();
        assert!(pointers.contains(&"/inputSchema/properties/bad"), "{w:?}");
        assert!(
            pointers.contains(&"/inputSchema/properties/n/default"),
            "{w:?}"
        );
        let text = typed.tokens.to_string();
        assert!(text.contains("pub good"), "{text}");
    }
}
