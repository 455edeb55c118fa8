//! Types: prepared schemas → one typify `TypeSpace` per server.
//!
//! Fast path: all of a server's schemas go into one space at once. Only when
//! typify rejects something (by error or panic) does a schema get checked
//! alone and repaired from the inside out: a definition or subschema that
//! can't be typed becomes `serde_json::Value`, a default that doesn't fit its
//! type is dropped, each with a warning naming its JSON pointer; a root that
//! stays untypeable falls back, whole, to a `serde_json` map.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::AssertUnwindSafe;

use proc_macro2::TokenStream;
use quote::quote;
use serde::Deserialize;
use serde_json::{json, Value};
use typify::{TypeSpace, TypeSpaceSettings};

use crate::prepare::{escape, refs_of, Definitions, PreparedSchema};
use crate::Warning;

/// The typify settings every server's types use.
pub(crate) fn type_space_settings() -> TypeSpaceSettings {
    let mut settings = TypeSpaceSettings::default();
    let big_integer = schemars::schema::SchemaObject {
        instance_type: Some(schemars::schema::InstanceType::Integer.into()),
        format: Some(crate::prepare::BIG_INTEGER_FORMAT.to_owned()),
        ..Default::default()
    };
    let any_number = schemars::schema::SchemaObject {
        instance_type: Some(schemars::schema::InstanceType::Number.into()),
        format: Some(crate::prepare::ANY_NUMBER_FORMAT.to_owned()),
        ..Default::default()
    };
    settings
        .with_type_mod("types")
        .with_struct_builder(false)
        .with_derive("PartialEq".to_owned())
        .with_map_type("::std::collections::BTreeMap")
        .with_conversion(
            big_integer,
            "::mcpbind::BigInt",
            [
                typify::TypeSpaceImpl::Display,
                typify::TypeSpaceImpl::FromStr,
                typify::TypeSpaceImpl::Default,
            ]
            .into_iter(),
        )
        .with_conversion(
            any_number,
            "::mcpbind::__private::serde_json::Number",
            [
                typify::TypeSpaceImpl::Display,
                typify::TypeSpaceImpl::FromStr,
            ]
            .into_iter(),
        );
    settings
}

/// The outcome of typing one server's schemas.
pub(crate) struct TypedSchemas {
    /// The type space, for type information (fields, variants).
    pub(crate) space: TypeSpace,
    /// The types, as typify emits them.
    pub(crate) tokens: TokenStream,
    /// For each prepared schema (by index): its type, or `None` when it fell
    /// back to a free-form object.
    pub(crate) ids: Vec<Option<typify::TypeId>>,
}

/// The names typify gave to more than one type (which would not compile).
pub(crate) fn duplicate_names(typed: &TypedSchemas) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    typed
        .space
        .iter_types()
        .map(|t| t.name())
        .filter(|name| !seen.insert(name.clone()))
        .collect()
}

/// Whether typify defines a type named `Map` or `Value` (then
/// `serde_json`'s keep their full paths: `postprocess::types_prelude`).
/// Read from the type space: every struct, enum and newtype in it is a
/// definition in its output, and nothing else there is named so.
pub(crate) fn defines_json_names(space: &TypeSpace) -> bool {
    space.iter_types().any(|t| {
        matches!(
            t.details(),
            typify::TypeDetails::Struct(_)
                | typify::TypeDetails::Enum(_)
                | typify::TypeDetails::Newtype(_)
        ) && matches!(t.name().as_str(), "Map" | "Value")
    })
}

/// The type of each prepared root schema, as the module template names it.
pub(crate) struct RootTypes {
    /// Aliases for roots typify didn't name as asked, and free-form maps for
    /// roots it couldn't type (both go in `mod types`).
    pub(crate) aliases: TokenStream,
    /// Per root: its path from the server module (`types::AddInput`).
    pub(crate) paths: Vec<String>,
    /// Per root: its struct, when typify made one of that name (the
    /// constructors are for those).
    pub(crate) structs: Vec<Option<typify::TypeId>>,
    /// Per root: whether it is the free-form map of a schema typify
    /// couldn't type (which enforces nothing of it).
    pub(crate) free_form: Vec<bool>,
}

/// Names every root `types::{wanted}`: typify's own type where it took the
/// name, else an alias to what it made, an empty struct for "no arguments",
/// or a free-form map for a root it couldn't type.
pub(crate) fn root_types(typed: &TypedSchemas, schemas: &[PreparedSchema]) -> RootTypes {
    let mut roots = RootTypes {
        aliases: TokenStream::new(),
        paths: Vec::with_capacity(schemas.len()),
        structs: Vec::with_capacity(schemas.len()),
        free_form: Vec::with_capacity(schemas.len()),
    };
    for (index, schema) in schemas.iter().enumerate() {
        let wanted = quote::format_ident!("{}", schema.name);
        let ty = typed.ids[index]
            .as_ref()
            .and_then(|id| Some((id, typed.space.get_type(id).ok()?)));
        let mut structure = None;
        roots
            .free_form
            .push(ty.is_none() && !takes_no_arguments(&schema.root));
        match ty {
            Some((id, ty)) if ty.name() == schema.name => {
                if matches!(ty.details(), typify::TypeDetails::Struct(_)) {
                    structure = Some(id.clone());
                }
            }
            _ if takes_no_arguments(&schema.root) => roots.aliases.extend(quote! {
                #[doc = " The tool takes no arguments."]
                #[derive(::serde::Deserialize, ::serde::Serialize, Clone, Debug, Default, PartialEq)]
                pub struct #wanted {}
            }),
            Some((_, ty)) => {
                let tokens = ty.ident();
                let target = if tokens.to_string().starts_with("::") {
                    tokens
                } else {
                    quote!(super::#tokens)
                };
                roots.aliases.extend(quote! {
                    #[doc = " Alias of the type generated for this schema."]
                    pub type #wanted = #target;
                });
            }
            None => roots.aliases.extend(quote! {
                #[doc = " A free-form object: mcpbind could not type this schema (see the build warnings)."]
                pub type #wanted = ::serde_json::Map<::std::string::String, ::serde_json::Value>;
            }),
        }
        roots.paths.push(format!("types::{wanted}"));
        roots.structs.push(structure);
    }
    roots
}

/// `{"type": "object", "properties": {}}` is how servers say "no
/// arguments": an empty struct. Anything that admits extra properties
/// (`additionalProperties: true`, no `properties` at all) stays a map, so no
/// legal call becomes inexpressible.
fn takes_no_arguments(root: &Value) -> bool {
    root.get("properties")
        .is_some_and(|p| p.as_object().is_some_and(|p| p.is_empty()))
        && root
            .get("additionalProperties")
            .is_none_or(|a| a == &Value::Bool(false))
        && root.get("type") == Some(&json!("object"))
        && ["anyOf", "oneOf", "allOf"]
            .iter()
            .all(|k| root.get(*k).is_none())
}

/// Feeds prepared schemas to typify.
///
/// All schemas first go into one space together: for the schemas servers
/// send, that is the whole job. Only when it fails is each schema tried
/// alone, and one that typify rejects (by error or panic) is repaired from
/// the inside out: a definition or subschema that can't be typed on its own
/// becomes `{}` (`serde_json::Value`), a default that doesn't fit its type is
/// dropped, each with a warning naming its JSON pointer. Only a root that
/// stays untypeable falls back, whole, to a `serde_json` map. Should the
/// space still fail (typify can fail on a combination), the schema at fault
/// falls back and the space is rebuilt without it, so that a half-added
/// schema can't leave broken types behind.
pub(crate) fn type_schemas(
    schemas: &[PreparedSchema],
    defs: &Definitions,
    server: &str,
    warnings: &mut Vec<Warning>,
) -> TypedSchemas {
    let mut failed = vec![false; schemas.len()];
    if let Ok(typed) = build_space(schemas, &defs.by_name, &failed) {
        return typed;
    }
    let mut schemas = schemas.to_vec();
    let mut repair = Repair {
        defs: defs.by_name.clone(),
        origin: &defs.origin,
        checked: BTreeSet::new(),
        server,
        warnings,
    };
    for (index, schema) in schemas.iter_mut().enumerate() {
        if let Err(reason) = repair.root(schema) {
            failed[index] = true;
            repair.warn_fallback(schema, &reason);
        }
    }
    loop {
        match build_space(&schemas, &repair.defs, &failed) {
            Ok(typed) => return typed,
            Err((index, reason)) => {
                failed[index] = true;
                repair.warn_fallback(&schemas[index], &reason);
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

    fn warn_fallback(&mut self, schema: &PreparedSchema, reason: &str) {
        self.warn(
            &schema.tool,
            schema.pointer.clone(),
            format!("cannot type this schema ({reason}); using a serde_json map"),
        );
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

type SpaceResult = Result<TypedSchemas, (usize, String)>;

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
            let empty = json!({});
            let body = defs.get(&name).unwrap_or(&empty);
            let parsed =
                to_schema(body).map_err(|e| (index, format!("definition `{name}`: {e}")))?;
            batch.push((name, parsed));
        }
        let root = to_schema(&schema.root).map_err(|e| (index, e))?;
        let name = schema.name.clone();
        let names: Vec<String> = batch.iter().map(|(n, _)| n.clone()).collect();
        let outcome = quiet(AssertUnwindSafe(|| -> Result<typify::TypeId, String> {
            if !batch.is_empty() {
                space.add_ref_types(batch).map_err(|e| e.to_string())?;
            }
            space
                .add_type_with_name(&root, Some(name))
                .map_err(|e| e.to_string())
        }));
        match outcome {
            Ok(Ok(id)) => {
                added.extend(names);
                ids.push(Some(id));
            }
            Ok(Err(e)) | Err(e) => return Err((index, e)),
        }
    }
    // Emitting can panic too; attribute it by elimination (the last schema).
    match quiet(AssertUnwindSafe(|| space.to_stream())) {
        Ok(tokens) => Ok(TypedSchemas { space, tokens, ids }),
        Err(e) => {
            let last = failed.iter().rposition(|f| !f).unwrap_or(0);
            Err((last, format!("{e}, while emitting")))
        }
    }
}

fn to_schema(value: &Value) -> Result<schemars::schema::Schema, String> {
    schemars::schema::Schema::deserialize(value).map_err(|e| format!("unreadable schema: {e}"))
}

/// Runs `f`, turning a panic into `Err` with its message: typify panics on
/// some odd schemas, which are reported as warnings instead.
///
/// The library installs no panic hook (that is process-wide state, which a
/// build script or a proc-macro must not touch), so the default hook may
/// print the panic; the proc-macro bridge hides it, cargo hides a build
/// script's stderr, and the `mcpbind` binary filters typify's panics.
fn quiet<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> Result<T, String> {
    let result = std::panic::catch_unwind(f);
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
    use crate::prepare::tests::prep;

    #[test]
    fn repairs_per_subschema() {
        let (p, defs, mut w) = prep(json!({
            "type": "object",
            "properties": {
                "bad": {"type": "object", "properties": {
                    "s": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}},
                          "required": ["a"], "default": {"a": "one"}}},
                    "t": {"type": "array", "items": {"type": "integer", "enum": [1, 2], "default": "three"}}
                }, "required": ["s", "t"]},
                "worse": {"type": "string", "enum": []},
                "good": {"type": "string"}
            }
        }));
        let typed = type_schemas(&[p], &defs, "s", &mut w);
        assert!(typed.ids[0].is_some(), "the tool keeps its struct");
        let pointers: Vec<_> = w.iter().map(|w| w.pointer.as_str()).collect();
        assert!(
            pointers
                .iter()
                .any(|p| p.starts_with("/inputSchema/properties/bad")),
            "{w:?}"
        );
        let text = typed.tokens.to_string();
        assert!(text.contains("pub good"), "{text}");
    }

    #[test]
    fn integers_are_machine_sized_unless_their_bounds_say_more() {
        let (p, defs, mut w) = prep(json!({
            "type": "object",
            "properties": {
                "any": {"type": "integer"},
                "natural": {"type": "integer", "minimum": 0},
                "positive": {"type": "integer", "exclusiveMinimum": 0},
                "nullable": {"type": ["integer", "null"]},
                "count": {"type": ["integer", "null"], "minimum": 0},
                "either": {"type": ["integer", "string"], "minimum": 0},
                "sized": {"type": "integer", "format": "int64"},
                "unsigned": {"type": "integer", "format": "uint32"},
                "bounded": {"type": "integer", "minimum": -5, "maximum": 5},
                "safe": {"type": "integer", "minimum": -9_007_199_254_740_991_i64, "maximum": 9_007_199_254_740_991_i64},
                "byte": {"type": "integer", "minimum": 0, "maximum": 255},
                "beyond": {"type": "integer", "minimum": 0, "maximum": 1e20},
                "wide": {"type": "integer", "format": "int128"},
                "listed": {"type": "integer", "enum": [1, 2]},
                "items": {"type": "array", "items": {"type": "integer", "default": "x"}},
                "halves": {"type": "integer", "minimum": 0, "default": -1}
            },
            "required": ["any", "natural", "positive", "sized", "unsigned", "bounded", "safe",
                         "byte", "beyond", "wide", "items", "halves"]
        }));
        let typed = type_schemas(&[p], &defs, "s", &mut w);
        assert!(w.is_empty(), "{w:?}");
        let text = typed.tokens.to_string().replace(' ', "");
        for field in [
            "pubany:i64",
            "pubnatural:u64",
            "pubpositive:u64",
            "pubnullable:::std::option::Option<i64>",
            "pubcount:::std::option::Option<u64>",
            "pubsized:i64",
            "pubunsigned:u64",
            "pubbounded:i64",
            "pubsafe:i64",
            "pubbyte:u8",
            "pubbeyond:::mcpbind::BigInt",
            "pubwide:::mcpbind::BigInt",
            "pubitems:::std::vec::Vec<i64>",
            "pubhalves:u64",
        ] {
            assert!(text.contains(field), "{field} in {text}");
        }
        assert!(!text.contains("publisted:::mcpbind::BigInt"), "{text}");
    }
}

#[cfg(test)]
mod tests_json_names {
    use super::*;
    use crate::{GenerationSettings, Generator, Lockfile, ServerLock};

    fn generate(input: Value) -> String {
        let tool = json!({"name": "t", "inputSchema": input});
        let mut lockfile = Lockfile::new();
        let lock = ServerLock::new("s", "2025-06-18".into(), json!({}), vec![tool]).unwrap();
        lockfile.servers.insert("s".into(), lock);
        let mut generator = Generator::new(&GenerationSettings::new());
        let path = std::path::Path::new("mcpbind.lock");
        generator
            .generate_tokens(&lockfile, path)
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_type_named_value_keeps_full_json_paths() {
        for name in ["Value", "Map", "Other"] {
            let out = generate(json!({
                "type": "object",
                "properties": {
                    "v": {"$ref": format!("#/$defs/{name}")},
                    "any": {},
                    "m": {"type": "object", "additionalProperties": true}
                },
                "$defs": {name: {"type": "object", "properties": {"a": {"type": "string"}}}}
            }));
            let short =
                out.contains("use :: mcpbind :: __private :: serde_json :: { Map , Value }");
            assert_eq!(short, name == "Other", "{name}: {out}");
            assert_eq!(out.contains("pub any : Option < Value >"), short, "{out}");
        }
    }
}
