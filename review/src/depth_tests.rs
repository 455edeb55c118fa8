//! Reviewing schemas nested past what can be compared: a finding at the
//! JSON pointer where comparing stopped, never a stack overflow.

use serde_json::{json, Map, Value};

use super::schema::MAX_COMPARE_DEPTH;
use super::{Class, ServerReview};
use mcpbind_model::lock::ServerLock;

/// `levels` wrappers around `{"type": leaf}`, each made by `wrap` from the
/// one inside (moved in: `json!` would copy it recursively).
fn nest(levels: usize, leaf: &str, wrap: impl Fn(Value) -> Value) -> Value {
    let mut v = json!({ "type": leaf });
    for _ in 0..levels {
        v = wrap(v);
    }
    v
}

fn object(inner: Value) -> Value {
    let mut properties = Map::new();
    properties.insert("a".into(), inner);
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    Value::Object(schema)
}

fn items(inner: Value) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), "array".into());
    schema.insert("items".into(), inner);
    Value::Object(schema)
}

fn any_of(inner: Value) -> Value {
    let mut schema = Map::new();
    schema.insert(
        "anyOf".into(),
        Value::Array(vec![inner, json!({"type": "null"})]),
    );
    Value::Object(schema)
}

/// The findings of tool `t`'s input schema changing from `old` to `new`,
/// as `(class, rule, pointer, message)`.
pub(super) fn review(old: Value, new: Value) -> Vec<(Class, &'static str, String, String)> {
    let server = |schema: Value| {
        let mut tool = Map::new();
        tool.insert("name".into(), "t".into());
        tool.insert("inputSchema".into(), schema);
        ServerLock::new(
            "s",
            "2025-11-25".into(),
            json!({"name": "s"}),
            vec![Value::Object(tool)],
        )
        .unwrap()
    };
    let review = ServerReview::new("s", Some(&server(old)), Some(&server(new)));
    review
        .findings
        .iter()
        .map(|f| (f.class, f.rule, f.pointer.clone(), f.message.to_string()))
        .collect()
}

#[test]
fn deep_objects_within_the_limit_are_classified() {
    let (old, new) = (nest(135, "string", object), nest(135, "integer", object));
    let found = review(old, new);
    let pointer = format!("/inputSchema{}/type", "/properties/a".repeat(135));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), (Class::Breaking, "type-changed"));
    assert_eq!(found[0].2, pointer);
}

#[test]
fn past_the_limit_a_change_is_for_review_at_its_pointer() {
    let (old, new) = (nest(1000, "string", items), nest(1000, "integer", items));
    let found = review(old, new);
    let pointer = format!("/inputSchema{}", "/items".repeat(MAX_COMPARE_DEPTH));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0, found[0].1), (Class::Review, "other-changed"));
    assert_eq!(found[0].2, pointer);
    assert!(
        found[0].3.ends_with(
            "`: nested deeper than 256 levels (each `$ref` followed counts), not compared"
        ),
        "{}",
        found[0].3
    );

    // 500 nested `anyOf`s: two JSON levels each, one comparison level.
    let (old, new) = (nest(500, "string", any_of), nest(500, "integer", any_of));
    let found = review(old, new);
    let pointer = format!("/inputSchema{}", "/anyOf/0".repeat(MAX_COMPARE_DEPTH));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0, found[0].1, &found[0].2),
        (Class::Review, "other-changed", &pointer)
    );
}

/// `{"a": {"$ref": "#/$defs/d0000"}}` and `n` definitions, each made by
/// `link` from the name of the next; the last is `{"type": last}`.
fn chain(n: usize, last: &str, link: impl Fn(String) -> Value) -> Value {
    let mut defs = Map::new();
    for i in 0..n {
        defs.insert(format!("d{i:04}"), link(format!("#/$defs/d{:04}", i + 1)));
    }
    defs.insert(format!("d{n:04}"), json!({ "type": last }));
    json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/d0000"}}, "$defs": defs})
}

#[test]
fn long_ref_chains_are_followed_to_their_end() {
    // Each definition only refers to the next (an alias chain), 100 long:
    // once given up on after 32 hops, so the change was only `other-changed`.
    let alias = |next: String| json!({ "$ref": next });
    let found = review(chain(100, "string", alias), chain(100, "integer", alias));
    assert_eq!(
        found
            .iter()
            .map(|f| (f.0, f.1, f.2.as_str()))
            .collect::<Vec<_>>(),
        [(
            Class::Breaking,
            "type-changed",
            "/inputSchema/$defs/d0100/type"
        )]
    );

    // Each definition an object whose property refers to the next, 60
    // long: once given up on at 43 levels ("nested too deeply").
    let nested = |next: String| json!({"type": "object", "properties": {"next": {"$ref": next}}});
    let found = review(chain(60, "string", nested), chain(60, "integer", nested));
    assert_eq!(
        found
            .iter()
            .map(|f| (f.0, f.1, f.2.as_str()))
            .collect::<Vec<_>>(),
        [(
            Class::Breaking,
            "type-changed",
            "/inputSchema/$defs/d0060/type"
        )]
    );
    let message = &found[0].3;
    let path = format!("a{}", ".next".repeat(60));
    assert_eq!(
        message,
        &format!("type of param `{path}` changed: `string` → `integer`")
    );
}

#[test]
fn a_ref_cycle_ends_the_chain() {
    // `a` → `b` → `a`: a cycle, which compares as the reference it is; the
    // change beside it is still found.
    let schema = |t: &str| {
        json!({
            "type": "object",
            "properties": {"loop": {"$ref": "#/$defs/a"}, "x": {"type": t}},
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
        })
    };
    let found = review(schema("string"), schema("integer"));
    assert_eq!(
        found
            .iter()
            .map(|f| (f.0, f.1, f.2.as_str()))
            .collect::<Vec<_>>(),
        [(
            Class::Breaking,
            "type-changed",
            "/inputSchema/properties/x/type"
        )]
    );
}
