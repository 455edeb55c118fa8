//! The rules for one JSON Schema against its next version: what a change
//! means for the values a client sends (an input schema) or receives (an
//! output schema).
//!
//! The comparison is structural, not textual: local `$ref`s are followed
//! (with their sibling keywords), `anyOf`/`oneOf` are compared branch by
//! branch (an unchanged branch matches wherever it moved), `type` arrays are
//! sets (`integer` is inside `number`), and `enum` values are sets. Each
//! constraint keyword is judged by whether the new schema accepts more
//! (loosened) or fewer (tightened) values, or neither (changed); the
//! direction then decides the class: a tightened input or a loosened output
//! can fail code written against the old schema.
//!
//! Every keyword the comparator looked at is recorded ([`SchemaCmp::examined`])
//! so that the caller can find the raw changes no rule explained.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::escape;
use super::finding::{Class, Finding, Message};
use mcpbind_model::lock::value_depth;

/// Which way values flow through a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The client sends values (`inputSchema`, prompt arguments).
    Input,
    /// The client receives values (`outputSchema`).
    Output,
}

/// What a keyword change does to the set of values a schema accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    /// The new schema accepts fewer values.
    Tightened,
    /// The new schema accepts more values.
    Loosened,
    /// Neither a subset nor a superset (or not decidable).
    Changed,
}

impl Effect {
    fn word(self) -> &'static str {
        match self {
            Effect::Tightened => "tightened",
            Effect::Loosened => "loosened",
            Effect::Changed => "changed",
        }
    }
}

impl Direction {
    /// The class of a change with `effect`: code that sends values breaks
    /// when fewer are accepted, code that receives them when more may come.
    pub(crate) fn class(self, effect: Effect) -> Class {
        match (self, effect) {
            (Direction::Input, Effect::Loosened) | (Direction::Output, Effect::Tightened) => {
                Class::Compatible
            }
            _ => Class::Breaking,
        }
    }
}

/// Keywords that only annotate: a change is for a human to read, or harmless.
const TEXT_KEYWORDS: [&str; 2] = ["description", "title"];
const HARMLESS_KEYWORDS: [&str; 6] = [
    "$schema",
    "$comment",
    "examples",
    "$id",
    "$anchor",
    "$dynamicAnchor",
];
/// Lower bounds: raising one accepts fewer values.
const LOWER_BOUNDS: [&str; 6] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Upper bounds: lowering one accepts fewer values.
const UPPER_BOUNDS: [&str; 6] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];
/// Keywords that, when present, can only reject values; their changes are
/// judged as added (tightened), removed (loosened) or changed.
const ASSERTIONS: [&str; 18] = [
    "additionalItems",
    "then",
    "else",
    "pattern",
    "format",
    "uniqueItems",
    "contentEncoding",
    "contentMediaType",
    "propertyNames",
    "patternProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "contains",
    "not",
    "if",
    "unevaluatedProperties",
    "unevaluatedItems",
];
/// Keywords handled by their own rule below.
const STRUCTURAL: [&str; 14] = [
    "$ref",
    "$defs",
    "definitions",
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "anyOf",
    "oneOf",
    "allOf",
];

/// How deep two schemas are compared, in schema levels (a property, an
/// item, a branch…), each `$ref` followed into a definition counting as the
/// level it stands for. Deeper than this, a change is `other-changed`
/// (review) at the JSON pointer where comparing stopped: never a stack
/// overflow, and memory bounded by this times the schema's size. A schema
/// mcpbind can generate code for is at most 128 levels (and 128 `$ref`
/// hops) deep, so every such schema is compared whole.
pub const MAX_COMPARE_DEPTH: usize = 256;

/// The stack, in levels, that classifying `old` against `new` needs: the
/// schema comparison recurses at most [`MAX_COMPARE_DEPTH`] levels (two
/// frames each), and each level may clone or compare a value as deep as
/// the definitions.
pub(super) fn compare_stack(old: &Value, new: &Value) -> usize {
    let depth = value_depth(old).max(value_depth(new));
    2 * (MAX_COMPARE_DEPTH + depth) + 64
}

/// Compares two versions of one schema (the `inputSchema` or `outputSchema`
/// of one entry), collecting findings.
pub(crate) struct SchemaCmp<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    /// Where the schema sits in its entry, e.g. `/inputSchema`.
    base: &'a str,
    dir: Direction,
    seen: HashSet<(String, String)>,
    /// Pointers (into the entry) of every keyword looked at.
    pub(crate) examined: Vec<String>,
    pub(crate) findings: Vec<Finding>,
    depth: usize,
}

/// A schema node and where it is in its entry.
#[derive(Clone)]
struct Node {
    value: Value,
    ptr: String,
}

impl<'a> SchemaCmp<'a> {
    pub(crate) fn new(
        old_root: &'a Value,
        new_root: &'a Value,
        base: &'a str,
        dir: Direction,
    ) -> Self {
        SchemaCmp {
            old_root,
            new_root,
            base,
            dir,
            seen: HashSet::new(),
            examined: Vec::new(),
            findings: Vec::new(),
            depth: 0,
        }
    }

    /// Compares the two roots.
    pub(crate) fn run(&mut self) {
        let old = Node {
            value: self.old_root.clone(),
            ptr: self.base.to_owned(),
        };
        let new = Node {
            value: self.new_root.clone(),
            ptr: self.base.to_owned(),
        };
        self.compare(old, new, "");
    }

    fn push(
        &mut self,
        class: Class,
        rule: &'static str,
        ptr: &str,
        message: Message,
        old: Option<&Value>,
        new: Option<&Value>,
    ) {
        self.examined.push(ptr.to_owned());
        self.findings.push(Finding {
            class,
            rule,
            entry: None,
            pointer: ptr.to_owned(),
            message,
            old: old.cloned(),
            new: new.cloned(),
        });
    }

    /// "param `a.b`" / "output field `a.b`", or the whole schema at the root.
    fn subject(&self, path: &str) -> Message {
        match (self.dir, path.is_empty()) {
            (Direction::Input, true) => Message::text("input schema"),
            (Direction::Output, true) => Message::text("output schema"),
            (Direction::Input, false) => Message::text("param ").code(path),
            (Direction::Output, false) => Message::text("output field ").code(path),
        }
    }

    /// Follows a local `$ref` (and the ref of its target…, however long the
    /// chain), merging the referring node's other keywords over the
    /// target's. A definition met twice is a cycle: the node reached is
    /// returned with its `$ref`, which then compares as a reference.
    fn resolve(&self, root: &Value, mut node: Node) -> Node {
        let mut visited = HashSet::new();
        loop {
            let Some(map) = node.value.as_object() else {
                return node;
            };
            let Some(fragment) = map.get("$ref").and_then(Value::as_str) else {
                return node;
            };
            let Some(pointer) = fragment.strip_prefix('#') else {
                return node;
            };
            let pointer = percent_decode(pointer);
            let Some(target) = root.pointer(&pointer) else {
                return node;
            };
            if !visited.insert(pointer.clone()) {
                return node;
            }
            let mut merged = match target {
                Value::Object(t) => t.clone(),
                Value::Bool(true) => Map::new(),
                other => {
                    return Node {
                        value: other.clone(),
                        ptr: format!("{}{pointer}", self.base),
                    }
                }
            };
            for (k, v) in map {
                if k != "$ref" {
                    merged.insert(k.clone(), v.clone());
                }
            }
            node = Node {
                value: Value::Object(merged),
                ptr: format!("{}{pointer}", self.base),
            };
        }
    }

    fn compare(&mut self, old: Node, new: Node, path: &str) {
        // The `$ref` keyword itself is accounted for by following it.
        self.examined.push(format!("{}/$ref", old.ptr));
        self.examined.push(format!("{}/$ref", new.ptr));
        let old = self.resolve(self.old_root, old);
        let new = self.resolve(self.new_root, new);
        // Equal text is an equal schema unless it refers elsewhere (the
        // definitions it names may have changed).
        let same = old.value == new.value && !has_ref(&old.value);
        if same {
            // Accounted for, wherever the references led.
            self.examined.push(old.ptr);
            self.examined.push(new.ptr);
            return;
        }
        if !self.seen.insert((old.ptr.clone(), new.ptr.clone())) {
            return;
        }
        if self.depth >= MAX_COMPARE_DEPTH {
            let message = self.subject(path).then(format!(
                ": nested deeper than {MAX_COMPARE_DEPTH} levels (each `$ref` followed counts), not compared"
            ));
            self.push(
                Class::Review,
                "other-changed",
                &new.ptr,
                message,
                None,
                None,
            );
            return;
        }
        self.depth += 1;
        match (old.value.as_object(), new.value.as_object()) {
            (Some(o), Some(n)) => {
                let (o, _) = type_union(o);
                let (n, union) = type_union(n);
                let type_key = union.unwrap_or("type");
                self.compare_objects(&o, &old.ptr, &n, &new.ptr, path, type_key)
            }
            _ => self.compare_booleans(&old, &new, path),
        }
        self.depth -= 1;
    }

    /// `true`/`false` schemas (or garbage) against anything.
    fn compare_booleans(&mut self, old: &Node, new: &Node, path: &str) {
        let accepts_all =
            |v: &Value| v == &Value::Bool(true) || v.as_object().is_some_and(Map::is_empty);
        let effect = if accepts_all(&old.value) || new.value == Value::Bool(false) {
            Effect::Tightened
        } else if accepts_all(&new.value) || old.value == Value::Bool(false) {
            Effect::Loosened
        } else {
            Effect::Changed
        };
        let message = self
            .subject(path)
            .then(format!(" {}: ", effect.word()))
            .code(short(&old.value))
            .then(" → ")
            .code(short(&new.value));
        let class = self.dir.class(effect);
        self.push(
            class,
            "schema-changed",
            &new.ptr,
            message,
            Some(&old.value),
            Some(&new.value),
        );
    }

    fn compare_objects(
        &mut self,
        o: &Map<String, Value>,
        optr: &str,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
        type_key: &str,
    ) {
        let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
        for key in keys {
            let (ov, nv) = (o.get(key.as_str()), n.get(key.as_str()));
            if ov != nv {
                let kptr = format!("{nptr}/{}", escape(key));
                self.compare_keyword(key, ov, nv, &kptr, path);
            }
        }
        // A `$ref` left after resolving points outside the schema: a
        // different one may mean anything.
        if o.get("$ref") != n.get("$ref") {
            let (ov, nv) = (o.get("$ref"), n.get("$ref"));
            let message = self
                .subject(path)
                .then(": reference")
                .then(changed_word(ov, nv));
            self.push(
                Class::Review,
                "other-changed",
                &format!("{nptr}/$ref"),
                message,
                ov,
                nv,
            );
        }
        self.compare_types(o, n, nptr, path, type_key);
        self.compare_enums(o, n, nptr, path);
        self.compare_properties(o, optr, n, nptr, path);
        self.compare_additional(o, optr, n, nptr, path);
        self.compare_items(o, optr, n, nptr, path);
        self.compare_branches(o, optr, n, nptr, path);
        self.compare_all_of(o, optr, n, nptr, path);
    }

    /// A keyword whose rule needs only its own old and new values.
    fn compare_keyword(
        &mut self,
        key: &str,
        ov: Option<&Value>,
        nv: Option<&Value>,
        kptr: &str,
        path: &str,
    ) {
        if TEXT_KEYWORDS.contains(&key) {
            let rule = if key == "title" {
                "title-changed"
            } else {
                "description-changed"
            };
            let message = if path.is_empty() {
                Message::text(format!("{key} of the {}", self.subject(path)))
            } else {
                Message::text(format!("{key} of ")).join(self.subject(path))
            }
            .then(changed_word(ov, nv));
            self.push(Class::Review, rule, kptr, message, ov, nv);
        } else if HARMLESS_KEYWORDS.contains(&key) {
            let message = self
                .subject(path)
                .then(": ")
                .code(key)
                .then(changed_word(ov, nv));
            self.push(
                Class::Compatible,
                "annotation-changed",
                kptr,
                message,
                ov,
                nv,
            );
        } else if key == "default" {
            let message = Message::text("default of ")
                .join(self.subject(path))
                .then(changed_word(ov, nv));
            self.push(Class::Review, "default-changed", kptr, message, ov, nv);
        } else if key == "deprecated" || key == "readOnly" || key == "writeOnly" {
            let message = self
                .subject(path)
                .then(": ")
                .code(key)
                .then(changed_word(ov, nv));
            self.push(Class::Review, "annotation-changed", kptr, message, ov, nv);
        } else if LOWER_BOUNDS.contains(&key) || UPPER_BOUNDS.contains(&key) {
            let effect = bound_effect(key, ov, nv);
            self.constraint(path, key, kptr, effect, ov, nv);
        } else if key == "multipleOf" {
            self.constraint(path, key, kptr, multiple_effect(ov, nv), ov, nv);
        } else if ASSERTIONS.contains(&key) {
            let effect = presence_effect(ov, nv, key == "uniqueItems");
            self.constraint(path, key, kptr, effect, ov, nv);
        } else if !STRUCTURAL.contains(&key) {
            // A keyword no rule knows: a human decides.
            let message = self
                .subject(path)
                .then(": ")
                .code(key)
                .then(changed_word(ov, nv));
            self.push(Class::Review, "other-changed", kptr, message, ov, nv);
        }
    }

    fn constraint(
        &mut self,
        path: &str,
        key: &str,
        ptr: &str,
        effect: Effect,
        old: Option<&Value>,
        new: Option<&Value>,
    ) {
        let mut message = self
            .subject(path)
            .then(": ")
            .code(key)
            .then(format!(" {}", effect.word()));
        message = match (old, new) {
            (Some(o), Some(n)) => message
                .then(" (")
                .code(short(o))
                .then(" → ")
                .code(short(n))
                .then(")"),
            (None, Some(n)) => message.then(" (added ").code(short(n)).then(")"),
            (Some(o), None) => message.then(" (removed ").code(short(o)).then(")"),
            (None, None) => message,
        };
        let class = self.dir.class(effect);
        self.push(class, "constraint-changed", ptr, message, old, new);
    }

    fn compare_types(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
        type_key: &str,
    ) {
        // Where the new types are written: `type`, or the `anyOf` of bare
        // types that stands for it.
        self.examined.push(format!("{nptr}/type"));
        let kptr = format!("{nptr}/{type_key}");
        self.examined.push(kptr.clone());
        let (ot, nt) = (type_set(o.get("type")), type_set(n.get("type")));
        if ot == nt {
            return;
        }
        let effect = match (&ot, &nt) {
            (None, Some(_)) => Effect::Tightened,
            (Some(_), None) => Effect::Loosened,
            (Some(a), Some(b)) if types_within(a, b) => Effect::Loosened,
            (Some(a), Some(b)) if types_within(b, a) => Effect::Tightened,
            _ => Effect::Changed,
        };
        let show = |t: &Option<BTreeSet<String>>| match t {
            None => "any".to_owned(),
            Some(set) => set.iter().cloned().collect::<Vec<_>>().join(" | "),
        };
        let word = match effect {
            Effect::Loosened => "widened",
            Effect::Tightened => "narrowed",
            Effect::Changed => "changed",
        };
        let message = Message::text("type of ")
            .join(self.subject(path))
            .then(format!(" {word}: "))
            .code(show(&ot))
            .then(" → ")
            .code(show(&nt));
        let class = self.dir.class(effect);
        self.push(
            class,
            "type-changed",
            &kptr,
            message,
            o.get("type"),
            n.get("type"),
        );
    }

    fn compare_enums(
        &mut self,
        o: &Map<String, Value>,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
    ) {
        for key in ["enum", "const"] {
            self.examined.push(format!("{nptr}/{key}"));
        }
        let (oe, ne) = (enum_values(o), enum_values(n));
        if oe == ne {
            return;
        }
        let kptr =
            if n.contains_key("const") || (o.contains_key("const") && !n.contains_key("enum")) {
                format!("{nptr}/const")
            } else {
                format!("{nptr}/enum")
            };
        let (old_json, new_json) = (
            o.get("enum").or(o.get("const")),
            n.get("enum").or(n.get("const")),
        );
        match (oe, ne) {
            (None, Some(_)) => {
                self.constraint(path, "enum", &kptr, Effect::Tightened, None, new_json)
            }
            (Some(_), None) => {
                self.constraint(path, "enum", &kptr, Effect::Loosened, old_json, None)
            }
            (Some(a), Some(b)) => {
                let removed: Vec<&String> = a.iter().filter(|v| !b.contains(*v)).collect();
                let added: Vec<&String> = b.iter().filter(|v| !a.contains(*v)).collect();
                let list = |vals: &[&String]| {
                    vals.iter()
                        .map(|v| v.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                for (values, change, effect, rule) in [
                    (
                        &removed,
                        " removed from ",
                        Effect::Tightened,
                        "enum-value-removed",
                    ),
                    (&added, " added to ", Effect::Loosened, "enum-value-added"),
                ] {
                    if values.is_empty() {
                        continue;
                    }
                    let message = Message::text("enum value")
                        .then(if values.len() > 1 { "s " } else { " " })
                        .code(list(values))
                        .then(change)
                        .join(self.subject(path));
                    let class = self.dir.class(effect);
                    self.push(class, rule, &kptr, message, old_json, new_json);
                }
                if removed.is_empty() && added.is_empty() {
                    // Same values, reordered or switched between `enum` and `const`.
                    self.examined.push(kptr);
                }
            }
            (None, None) => {}
        }
    }

    fn compare_properties(
        &mut self,
        o: &Map<String, Value>,
        optr: &str,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
    ) {
        self.examined.push(format!("{nptr}/required"));
        self.examined.push(format!("{optr}/required"));
        let empty = Map::new();
        let (op, np) = (
            o.get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
            n.get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
        );
        let (or, nr) = (required_set(o), required_set(n));
        let names: BTreeSet<&String> = op
            .keys()
            .chain(np.keys())
            .chain(or.iter())
            .chain(nr.iter())
            .collect();
        for name in names {
            let child = join_path(path, name);
            let optr_p = format!("{optr}/properties/{}", escape(name));
            let nptr_p = format!("{nptr}/properties/{}", escape(name));
            let is_req = nr.contains(name);
            match (op.get(name), np.get(name)) {
                (Some(old), None) => self.property_removed(&child, &optr_p, old),
                (None, Some(new)) => self.property_added(&child, &nptr_p, new, is_req),
                (old, new) => {
                    if let (Some(old), Some(new)) = (old, new) {
                        let old = Node {
                            value: old.clone(),
                            ptr: optr_p,
                        };
                        let new = Node {
                            value: new.clone(),
                            ptr: nptr_p,
                        };
                        self.compare(old, new, &child);
                    }
                    if or.contains(name) != is_req {
                        let required = (o.get("required"), n.get("required"));
                        self.required_changed(
                            &child,
                            &format!("{nptr}/required"),
                            is_req,
                            required,
                        );
                    }
                }
            }
        }
    }

    fn property_removed(&mut self, child: &str, ptr: &str, old: &Value) {
        let (rule, what) = match self.dir {
            Direction::Input => ("param-removed", "param "),
            Direction::Output => ("output-field-removed", "output field "),
        };
        let message = Message::text(what).code(child).then(" removed");
        self.push(Class::Breaking, rule, ptr, message, Some(old), None);
    }

    fn property_added(&mut self, child: &str, ptr: &str, new: &Value, required: bool) {
        let (class, rule, what) = match (self.dir, required) {
            (Direction::Input, true) => {
                (Class::Breaking, "required-param-added", "required param ")
            }
            (Direction::Input, false) => {
                (Class::Compatible, "optional-param-added", "optional param ")
            }
            (Direction::Output, _) => (Class::Compatible, "output-field-added", "output field "),
        };
        let message = Message::text(what).code(child).then(" added");
        self.push(class, rule, ptr, message, None, Some(new));
    }

    fn required_changed(
        &mut self,
        child: &str,
        ptr: &str,
        now_required: bool,
        (old, new): (Option<&Value>, Option<&Value>),
    ) {
        let (class, rule, what) = match (self.dir, now_required) {
            (Direction::Input, true) => (Class::Breaking, "param-made-required", "param "),
            (Direction::Input, false) => (Class::Compatible, "param-made-optional", "param "),
            (Direction::Output, false) => (
                Class::Breaking,
                "output-field-made-optional",
                "output field ",
            ),
            (Direction::Output, true) => (
                Class::Compatible,
                "output-field-made-required",
                "output field ",
            ),
        };
        let word = if now_required {
            " made required"
        } else {
            " made optional"
        };
        let message = Message::text(what).code(child).then(word);
        self.push(class, rule, ptr, message, old, new);
    }

    fn compare_additional(
        &mut self,
        o: &Map<String, Value>,
        optr: &str,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
    ) {
        let key = "additionalProperties";
        let kptr = format!("{nptr}/{key}");
        self.examined.push(kptr.clone());
        let (ov, nv) = (o.get(key), n.get(key));
        if ov == nv {
            return;
        }
        let open = |v: Option<&Value>| v.is_none() || v == Some(&Value::Bool(true));
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        let effect = if open(ov) && open(nv) {
            return;
        } else if open(ov) || closed(nv) {
            Effect::Tightened
        } else if open(nv) || closed(ov) {
            Effect::Loosened
        } else {
            // Two schemas for the extra properties.
            let child = join_path(path, "*");
            let (ov, nv) = (
                ov.cloned().unwrap_or_default(),
                nv.cloned().unwrap_or_default(),
            );
            self.compare(
                Node {
                    value: ov,
                    ptr: format!("{optr}/{key}"),
                },
                Node {
                    value: nv,
                    ptr: kptr,
                },
                &child,
            );
            return;
        };
        let word = match (effect, closed(ov) || closed(nv)) {
            (Effect::Tightened, true) => " closed (`additionalProperties: false`)",
            (Effect::Loosened, true) => " opened (`additionalProperties` no longer false)",
            (Effect::Tightened, false) => " now constrains extra properties",
            _ => " no longer constrains extra properties",
        };
        let mut class = self.dir.class(effect);
        if self.dir == Direction::Output && effect == Effect::Loosened && open(nv) {
            // Generated output types ignore fields they don't know.
            class = Class::Compatible;
        }
        let message = self.subject(path).then(word);
        self.push(
            class,
            "additional-properties-changed",
            &kptr,
            message,
            ov,
            nv,
        );
    }

    /// `items` as one schema for every item; `prefixItems` (or a draft-4
    /// `items` array) by position.
    fn compare_items(
        &mut self,
        o: &Map<String, Value>,
        optr: &str,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
    ) {
        for key in ["items", "prefixItems"] {
            self.examined.push(format!("{nptr}/{key}"));
            self.examined.push(format!("{optr}/{key}"));
        }
        let (ot, nt) = (tuple_items(o, optr), tuple_items(n, nptr));
        let single = |m: &Map<String, Value>| m.get("items").filter(|v| !v.is_array()).cloned();
        let (optr_i, nptr_i) = (format!("{optr}/items"), format!("{nptr}/items"));
        match (single(o), single(n)) {
            (Some(ov), Some(nv)) => {
                let (old, new) = (node(ov, optr_i), node(nv, nptr_i));
                self.compare(old, new, &format!("{path}[]"));
            }
            (None, Some(nv)) if ot.is_none() => {
                self.constraint(path, "items", &nptr_i, Effect::Tightened, None, Some(&nv))
            }
            (Some(ov), None) if nt.is_none() => {
                self.constraint(path, "items", &nptr_i, Effect::Loosened, Some(&ov), None)
            }
            _ => {}
        }
        match (ot, nt) {
            (None, None) => {}
            (Some((a, ap)), Some((b, bp))) => {
                self.compare_positions("prefixItems", (&a, &ap), (&b, &bp), path, true)
            }
            (a, b) => {
                let effect = if a.is_some() {
                    Effect::Loosened
                } else {
                    Effect::Tightened
                };
                let (av, bv) = (
                    a.map(|(v, _)| Value::Array(v)),
                    b.map(|(v, _)| Value::Array(v)),
                );
                let kptr = format!("{nptr}/prefixItems");
                self.constraint(path, "prefixItems", &kptr, effect, av.as_ref(), bv.as_ref());
            }
        }
    }

    /// Two lists of schemas compared by position (`prefixItems`, `allOf`):
    /// one more in the new list tightens, one fewer loosens. `items` says
    /// whether entry `i` is the schema of item `i` (else of the value).
    fn compare_positions(
        &mut self,
        key: &str,
        (a, ap): (&[Value], &str),
        (b, bp): (&[Value], &str),
        path: &str,
        items: bool,
    ) {
        for i in 0..a.len().max(b.len()) {
            match (a.get(i), b.get(i)) {
                (Some(x), Some(y)) => {
                    let child = if items {
                        format!("{path}[{i}]")
                    } else {
                        path.to_owned()
                    };
                    let (x, y) = (
                        node(x.clone(), format!("{ap}/{i}")),
                        node(y.clone(), format!("{bp}/{i}")),
                    );
                    self.compare(x, y, &child);
                }
                (x, y) => {
                    let effect = if x.is_some() {
                        Effect::Loosened
                    } else {
                        Effect::Tightened
                    };
                    self.constraint(path, key, &format!("{bp}/{i}"), effect, x, y);
                }
            }
        }
    }

    /// `anyOf`/`oneOf`, branch by branch: equal branches match wherever they
    /// moved; the rest pair up by their type; what is left was added or
    /// removed.
    fn compare_branches(
        &mut self,
        o: &Map<String, Value>,
        optr: &str,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
    ) {
        let branches = |m: &Map<String, Value>, ptr: &str| -> Option<(&'static str, Vec<Node>)> {
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(items)) = m.get(key) {
                    let nodes = items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| node(v.clone(), format!("{ptr}/{key}/{i}")))
                        .collect();
                    return Some((key, nodes));
                }
            }
            None
        };
        for key in ["anyOf", "oneOf"] {
            self.examined.push(format!("{nptr}/{key}"));
            self.examined.push(format!("{optr}/{key}"));
        }
        let (ob, nb) = (branches(o, optr), branches(n, nptr));
        let (ok, old_branches, nk, new_branches) = match (ob, nb) {
            (None, None) => return,
            (Some((ok, ob)), Some((nk, nb))) => (ok, ob, nk, nb),
            (ob, nb) => {
                let effect = if ob.is_some() {
                    Effect::Loosened
                } else {
                    Effect::Tightened
                };
                let key = ob.as_ref().or(nb.as_ref()).map_or("anyOf", |(k, _)| *k);
                let kptr = format!("{nptr}/{key}");
                self.constraint(path, key, &kptr, effect, o.get(key), n.get(key));
                return;
            }
        };
        if ok != nk {
            self.push_branch_keyword_change(ok, nk, nptr, path);
        }
        let (pairs, old_left, new_left) = self.match_branches(&old_branches, &new_branches);
        for (i, j) in pairs {
            self.compare(old_branches[i].clone(), new_branches[j].clone(), path);
        }
        self.push_removed_branches(ok, &old_branches, old_left, path);
        self.push_added_branches(nk, &new_branches, new_left, path);
    }

    /// The finding for `anyOf` that became `oneOf` (tightened) or the
    /// reverse (loosened).
    fn push_branch_keyword_change(&mut self, ok: &str, nk: &str, nptr: &str, path: &str) {
        let effect = if ok == "oneOf" {
            Effect::Loosened
        } else {
            Effect::Tightened
        };
        let message = self
            .subject(path)
            .then(": ")
            .code(ok)
            .then(" became ")
            .code(nk);
        let class = self.dir.class(effect);
        self.push(
            class,
            "constraint-changed",
            &format!("{nptr}/{nk}"),
            message,
            None,
            None,
        );
    }

    /// The findings for the old `ok` branches (`left`, by index) that no
    /// new branch matched: removed.
    fn push_removed_branches(
        &mut self,
        ok: &str,
        old_branches: &[Node],
        left: Vec<usize>,
        path: &str,
    ) {
        let subject = self.subject(path);
        for i in left {
            let branch = self.resolve(self.old_root, old_branches[i].clone());
            let message = Message::text("")
                .code(ok)
                .then(" branch ")
                .code(short(&branch.value))
                .then(" removed from ")
                .join(subject.clone());
            let class = self.dir.class(Effect::Tightened);
            let (ptr, old) = (&old_branches[i].ptr, &old_branches[i].value);
            self.push(class, "branch-removed", ptr, message, Some(old), None);
        }
    }

    /// The findings for the new `nk` branches (`left`, by index) that no
    /// old branch matched: added.
    fn push_added_branches(
        &mut self,
        nk: &str,
        new_branches: &[Node],
        left: Vec<usize>,
        path: &str,
    ) {
        let subject = self.subject(path);
        for j in left {
            let branch = self.resolve(self.new_root, new_branches[j].clone());
            let message = Message::text("")
                .code(nk)
                .then(" branch ")
                .code(short(&branch.value))
                .then(" added to ")
                .join(subject.clone());
            let class = self.dir.class(Effect::Loosened);
            let (ptr, new) = (&new_branches[j].ptr, &new_branches[j].value);
            self.push(class, "branch-added", ptr, message, None, Some(new));
        }
    }

    /// Pairs old branches with new ones: equal branches wherever they moved
    /// (one that refers elsewhere is still compared: its definitions may
    /// differ), then the rest by their type. Returns the pairs to compare,
    /// and the old and new branches left unpaired.
    fn match_branches(
        &mut self,
        old: &[Node],
        new: &[Node],
    ) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
        let old: Vec<Node> = old
            .iter()
            .map(|b| self.resolve(self.old_root, b.clone()))
            .collect();
        let new: Vec<Node> = new
            .iter()
            .map(|b| self.resolve(self.new_root, b.clone()))
            .collect();
        let mut new_left: Vec<usize> = (0..new.len()).collect();
        let mut old_left = Vec::new();
        let mut pairs = Vec::new();
        for (i, ob) in old.iter().enumerate() {
            match new_left.iter().position(|&j| new[j].value == ob.value) {
                Some(at) => {
                    let j = new_left.remove(at);
                    if has_ref(&ob.value) {
                        pairs.push((i, j));
                    } else {
                        self.examined.push(ob.ptr.clone());
                        self.examined.push(new[j].ptr.clone());
                    }
                }
                None => old_left.push(i),
            }
        }
        old_left.retain(|&i| {
            let key = branch_key(&old[i].value);
            match new_left
                .iter()
                .position(|&j| branch_key(&new[j].value) == key)
            {
                Some(at) => {
                    pairs.push((i, new_left.remove(at)));
                    false
                }
                None => true,
            }
        });
        (pairs, old_left, new_left)
    }

    fn compare_all_of(
        &mut self,
        o: &Map<String, Value>,
        optr: &str,
        n: &Map<String, Value>,
        nptr: &str,
        path: &str,
    ) {
        let (oa, na) = (format!("{optr}/allOf"), format!("{nptr}/allOf"));
        self.examined.push(oa.clone());
        self.examined.push(na.clone());
        let list = |m: &Map<String, Value>| {
            m.get("allOf")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let (a, b) = (list(o), list(n));
        self.compare_positions("allOf", (&a, &oa), (&b, &na), path, false);
    }
}

fn node(value: Value, ptr: String) -> Node {
    Node { value, ptr }
}

/// `prefixItems`, or a draft-4 `items` array, and where it is.
fn tuple_items(m: &Map<String, Value>, ptr: &str) -> Option<(Vec<Value>, String)> {
    match (m.get("prefixItems"), m.get("items")) {
        (Some(Value::Array(a)), _) => Some((a.clone(), format!("{ptr}/prefixItems"))),
        (_, Some(Value::Array(a))) => Some((a.clone(), format!("{ptr}/items"))),
        _ => None,
    }
}

/// A union of bare types (`anyOf: [{type: string}, {type: null}]`, as
/// pydantic writes `str | None`) as the `type` array it means
/// (`type: [string, null]`), so that switching between the two spellings
/// is no change.
///
/// Borrowed when it is not such a union: comparing a deep schema clones no
/// subtree per level.
fn type_union(map: &Map<String, Value>) -> (Cow<'_, Map<String, Value>>, Option<&'static str>) {
    if map.contains_key("type") {
        return (Cow::Borrowed(map), None);
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = map.get(key) else {
            continue;
        };
        let mut types = BTreeSet::new();
        for branch in branches {
            let bare = branch.as_object().filter(|b| b.len() == 1);
            match bare.and_then(|b| type_set(b.get("type"))) {
                Some(set) => types.extend(set),
                None => return (Cow::Borrowed(map), None),
            }
        }
        // `oneOf` [integer, number] rejects 1 (it matches both): not a union.
        let overlap = key == "oneOf" && types.contains("integer") && types.contains("number");
        if types.is_empty() || overlap {
            return (Cow::Borrowed(map), None);
        }
        let mut map = map.clone();
        map.remove(key);
        let types = types.into_iter().map(Value::String).collect();
        map.insert("type".into(), Value::Array(types));
        return (Cow::Owned(map), Some(key));
    }
    (Cow::Borrowed(map), None)
}

/// Whether a schema holds a `$ref` anywhere (iterative: any depth is safe).
fn has_ref(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.contains_key("$ref") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

fn join_path(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

fn changed_word(old: Option<&Value>, new: Option<&Value>) -> &'static str {
    match (old, new) {
        (None, Some(_)) => " added",
        (Some(_), None) => " removed",
        _ => " changed",
    }
}

/// A value for a message: compact JSON, cut at 60 characters.
pub(crate) fn short(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// The `type` keyword as a set; `None` when absent (any type).
fn type_set(value: Option<&Value>) -> Option<BTreeSet<String>> {
    match value? {
        Value::String(t) => Some(BTreeSet::from([t.clone()])),
        Value::Array(items) => Some(
            items
                .iter()
                .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_owned))
                .collect(),
        ),
        other => Some(BTreeSet::from([other.to_string()])),
    }
}

/// Whether every type in `a` is in `b` (`integer` is within `number`).
fn types_within(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    a.iter()
        .all(|t| b.contains(t) || (t == "integer" && b.contains("number")))
}

/// `enum` (or `const`) as a set of canonical JSON texts.
fn enum_values(m: &Map<String, Value>) -> Option<BTreeSet<String>> {
    if let Some(Value::Array(values)) = m.get("enum") {
        return Some(values.iter().map(|v| v.to_string()).collect());
    }
    m.get("const").map(|v| BTreeSet::from([v.to_string()]))
}

fn required_set(m: &Map<String, Value>) -> BTreeSet<String> {
    m.get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Lower bound raised or upper bound lowered: tightened.
fn bound_effect(key: &str, old: Option<&Value>, new: Option<&Value>) -> Effect {
    let lower = LOWER_BOUNDS.contains(&key);
    match (old, new) {
        (None, Some(_)) => Effect::Tightened,
        (Some(_), None) => Effect::Loosened,
        (Some(Value::Bool(a)), Some(Value::Bool(b))) => {
            // Draft-4 boolean `exclusiveMinimum`/`exclusiveMaximum`.
            if !a && *b {
                Effect::Tightened
            } else {
                Effect::Loosened
            }
        }
        (Some(a), Some(b)) => match (a.as_f64(), b.as_f64()) {
            (Some(a), Some(b)) if (b > a) == lower && a != b => Effect::Tightened,
            (Some(a), Some(b)) if a != b => Effect::Loosened,
            _ => Effect::Changed,
        },
        (None, None) => Effect::Changed,
    }
}

fn multiple_effect(old: Option<&Value>, new: Option<&Value>) -> Effect {
    match (old.and_then(Value::as_f64), new.and_then(Value::as_f64)) {
        (None, Some(_)) => Effect::Tightened,
        (Some(_), None) => Effect::Loosened,
        (Some(a), Some(b)) if b != 0.0 && (a / b).fract() == 0.0 => Effect::Loosened,
        (Some(a), Some(b)) if a != 0.0 && (b / a).fract() == 0.0 => Effect::Tightened,
        _ => Effect::Changed,
    }
}

/// An assertion added tightens, removed loosens; for `uniqueItems`, `false`
/// is the same as absent.
fn presence_effect(old: Option<&Value>, new: Option<&Value>, flag: bool) -> Effect {
    let absent = |v: Option<&Value>| v.is_none() || (flag && v == Some(&Value::Bool(false)));
    match (absent(old), absent(new)) {
        (true, false) => Effect::Tightened,
        (false, true) => Effect::Loosened,
        _ => Effect::Changed,
    }
}

/// What pairs a changed branch with its new version: its types, or its
/// `const`, or the keys it has.
fn branch_key(value: &Value) -> String {
    let Some(m) = value.as_object() else {
        return value.to_string();
    };
    if let Some(types) = type_set(m.get("type")) {
        return types.into_iter().collect::<Vec<_>>().join("|");
    }
    let mut keys: BTreeMap<&str, ()> = BTreeMap::new();
    for k in m.keys() {
        if !TEXT_KEYWORDS.contains(&k.as_str()) {
            keys.insert(k, ());
        }
    }
    keys.into_keys().collect::<Vec<_>>().join(",")
}
