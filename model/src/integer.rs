//! The Rust type of an `integer` schema, one rule for every place that
//! needs it: the generator's schema preparation (which tells typify), its
//! walk that decides a typed input needs no validation, and the runtime,
//! which names the JSON pointer of a server's integer that its type can't
//! hold ([`out_of_range`]). Not public API.
//!
//! As users write them (zod's `z.number().int()`, pydantic's `int`), integers
//! carry no `format`: such an integer is `i64`, and `u64` when its lower
//! bound is 0 or more, as typify and progenitor type them. Only a schema
//! whose own bounds or `format` reach beyond 64 bits is `mcpbind::BigInt`.
//! A value outside the type's range is refused when it is parsed (serde
//! never wraps or rounds an integer), with the tool and the JSON pointer.

use serde_json::{Map, Value};

use crate::Violation;

/// What an integer schema is typed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerType {
    /// `i64`: bounds within `i64`, or none.
    Signed,
    /// `u64`: a lower bound of 0 or more, and an upper one within `u64`.
    Unsigned,
    /// `mcpbind::BigInt`: the schema's bounds or `format` exceed 64 bits.
    Big,
}

/// The `format`s of a signed machine integer (typify's names, and
/// OpenAPI's `int32`/`int64`): within `i64`.
const SIGNED_FORMATS: &[&str] = &["int8", "int16", "int", "int32", "int64"];

/// The `format`s of an unsigned machine integer: within `u64`, never
/// negative.
const UNSIGNED_FORMATS: &[&str] = &["uint8", "uint16", "uint", "uint32", "uint64"];

/// The `format`s that say an integer is wider than 64 bits.
const WIDE_FORMATS: &[&str] = &["int128", "uint128", "bigint"];

/// The type of an integer schema (its `type` is not read: the caller knows
/// it is an integer), from its `format` and its bounds (`minimum`,
/// `exclusiveMinimum` in its number or draft-04 boolean form, and their
/// maximum twins).
pub fn integer_type(obj: &Map<String, Value>) -> IntegerType {
    let format = obj.get("format").and_then(Value::as_str);
    if format.is_some_and(|f| WIDE_FORMATS.contains(&f)) {
        return IntegerType::Big;
    }
    let (mut low, mut high) = bounds(obj);
    let mut cap = |least: i128, greatest: i128| {
        low = Some(low.map_or(least, |l| l.max(least)));
        high = Some(high.map_or(greatest, |h| h.min(greatest)));
    };
    if format.is_some_and(|f| UNSIGNED_FORMATS.contains(&f)) {
        cap(0, u64::MAX.into());
    } else if format.is_some_and(|f| SIGNED_FORMATS.contains(&f)) {
        cap(i64::MIN.into(), i64::MAX.into());
    }
    // Every integer the bounds allow is one of the type's (a bound past it
    // on either side, `minimum: 1e300`, allows none).
    let within = |least: i128, greatest: i128| {
        let inside = |n: i128| (least..=greatest).contains(&n);
        low.is_none_or(inside) && high.is_none_or(inside)
    };
    if low.is_some_and(|l| l >= 0) {
        if within(0, u64::MAX.into()) {
            IntegerType::Unsigned
        } else {
            IntegerType::Big
        }
    } else if within(i64::MIN.into(), i64::MAX.into()) {
        IntegerType::Signed
    } else {
        IntegerType::Big
    }
}

/// The narrower machine type whose range the schema's bounds are exactly
/// (`"minimum": 0, "maximum": 255` is `u8`), as typify types it: its name
/// and range. `None` for any other bounds.
pub fn narrow(obj: &Map<String, Value>) -> Option<(&'static str, i128, i128)> {
    const NARROW: &[(&str, i128, i128)] = &[
        ("i8", i8::MIN as i128, i8::MAX as i128),
        ("u8", 0, u8::MAX as i128),
        ("i16", i16::MIN as i128, i16::MAX as i128),
        ("u16", 0, u16::MAX as i128),
        ("i32", i32::MIN as i128, i32::MAX as i128),
        ("u32", 0, u32::MAX as i128),
    ];
    let (low, high) = bounds(obj);
    let (low, high) = (low?, high?);
    NARROW
        .iter()
        .find(|(_, least, greatest)| (*least, *greatest) == (low, high))
        .copied()
}

/// The least and the greatest integer the bounds allow (`None`:
/// unbounded), exact for integers written as such. A bound that is no
/// number bounds nothing.
fn bounds(obj: &Map<String, Value>) -> (Option<i128>, Option<i128>) {
    // Draft-04: `exclusiveMinimum: true` makes `minimum` exclusive.
    let draft4 = |key: &str| obj.get(key) == Some(&Value::Bool(true));
    let low = [
        least_above(obj.get("minimum"), draft4("exclusiveMinimum")),
        least_above(obj.get("exclusiveMinimum"), true),
    ];
    let high = [
        greatest_below(obj.get("maximum"), draft4("exclusiveMaximum")),
        greatest_below(obj.get("exclusiveMaximum"), true),
    ];
    (
        low.into_iter().flatten().max(),
        high.into_iter().flatten().min(),
    )
}

/// The least integer at or above (`exclusive`: above) a bound.
fn least_above(bound: Option<&Value>, exclusive: bool) -> Option<i128> {
    let bound = bound?;
    let step = i128::from(exclusive);
    if let Some(n) = bound.as_i64() {
        return Some(i128::from(n) + step);
    }
    if let Some(n) = bound.as_u64() {
        return Some(i128::from(n) + step);
    }
    // `as` saturates: far beyond 64 bits either way, which is all that
    // matters here.
    let f = bound.as_f64()?;
    Some(if exclusive {
        f.floor() as i128 + 1
    } else {
        f.ceil() as i128
    })
}

/// The greatest integer at or below (`exclusive`: below) a bound.
fn greatest_below(bound: Option<&Value>, exclusive: bool) -> Option<i128> {
    let bound = bound?;
    let step = i128::from(exclusive);
    if let Some(n) = bound.as_i64() {
        return Some(i128::from(n) - step);
    }
    if let Some(n) = bound.as_u64() {
        return Some(i128::from(n) - step);
    }
    let f = bound.as_f64()?;
    Some(if exclusive {
        f.ceil() as i128 - 1
    } else {
        f.floor() as i128
    })
}

/// Whether `default` is a value of `ty` (a `default` the type can't hold
/// can't be its default either).
pub fn holds(ty: IntegerType, default: &Value) -> bool {
    match ty {
        IntegerType::Signed => default.is_i64(),
        IntegerType::Unsigned => default.is_u64(),
        IntegerType::Big => {
            default.is_i64()
                || default.is_u64()
                || default.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
    }
}

/// The deepest a schema is followed; deeper integers are not looked for.
const MAX_DEPTH: usize = 64;

/// The integers in `value` that the type generated for `schema` can't hold
/// (a `u64` given `-1`, an `i64` given `1e20`), each a [`Violation`] of
/// keyword `type` at its JSON pointer: what a server's result broke when it
/// validates against its locked schema (which sets no such bound) yet does
/// not parse. Whole floats count as the integers they are (as parsing reads
/// them). Only where the schema says unambiguously which subschema a value
/// is read by: properties, `additionalProperties`, `items`, local `$ref`s,
/// `allOf`, and the one branch of an `anyOf` or `oneOf` that takes the
/// value's JSON type.
pub fn out_of_range(schema: &Value, value: &Value) -> Vec<Violation> {
    let mut found = Vec::new();
    let walk = Walk { root: schema };
    walk.node(schema, value, &mut String::new(), 0, &mut found);
    found
}

struct Walk<'a> {
    root: &'a Value,
}

impl Walk<'_> {
    fn node(
        &self,
        schema: &Value,
        value: &Value,
        pointer: &mut String,
        depth: usize,
        found: &mut Vec<Violation>,
    ) {
        let Value::Object(node) = schema else {
            return;
        };
        if depth > MAX_DEPTH {
            return;
        }
        if let Some(target) = node.get("$ref").and_then(Value::as_str) {
            let resolved = target.strip_prefix('#').and_then(|p| self.root.pointer(p));
            if let Some(target) = resolved {
                self.node(target, value, pointer, depth + 1, found);
            }
        }
        for branch in node
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.node(branch, value, pointer, depth + 1, found);
        }
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = node.get(key) else {
                continue;
            };
            let mut taking = branches.iter().filter(|b| takes_kind(b, value));
            if let (Some(branch), None) = (taking.next(), taking.next()) {
                self.node(branch, value, pointer, depth + 1, found);
            }
        }
        match value {
            Value::Number(_) => integer(node, value, pointer, found),
            Value::Object(fields) => self.object(node, fields, pointer, depth, found),
            Value::Array(items) => {
                let Some(item) = node.get("items").filter(|i| i.is_object()) else {
                    return;
                };
                for (index, value) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{index}"));
                    self.node(item, value, pointer, depth + 1, found);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }

    fn object(
        &self,
        node: &Map<String, Value>,
        fields: &Map<String, Value>,
        pointer: &mut String,
        depth: usize,
        found: &mut Vec<Violation>,
    ) {
        let properties = node.get("properties").and_then(Value::as_object);
        let additional = node
            .get("additionalProperties")
            .filter(|_| !node.contains_key("patternProperties"));
        for (key, value) in fields {
            let Some(schema) = properties.and_then(|p| p.get(key)).or(additional) else {
                continue;
            };
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            self.node(schema, value, pointer, depth + 1, found);
            pointer.truncate(len);
        }
    }
}

/// A number where `node` says `integer` (and not `number`, whose type
/// takes any number): a [`Violation`] when the integer's type can't hold it.
fn integer(node: &Map<String, Value>, value: &Value, pointer: &str, found: &mut Vec<Violation>) {
    let says = |kind: &str| match node.get("type") {
        Some(Value::String(t)) => t == kind,
        Some(Value::Array(types)) => types.iter().any(|t| t == kind),
        _ => false,
    };
    if !says("integer") || says("number") || node.contains_key("enum") || node.contains_key("const")
    {
        return;
    }
    let (rust, least, greatest) = match (integer_type(node), narrow(node)) {
        (IntegerType::Big, _) => return,
        (_, Some(narrow)) => narrow,
        (IntegerType::Unsigned, None) => ("u64", 0, u64::MAX.into()),
        (IntegerType::Signed, None) => ("i64", i64::MIN.into(), i64::MAX.into()),
    };
    // Whole floats are read as the integers they are; a fraction is the
    // schema's `type` to refuse, not a range.
    let whole = match (value.as_i64(), value.as_u64(), value.as_f64()) {
        (Some(n), _, _) => Some(i128::from(n)),
        (_, Some(n), _) => Some(i128::from(n)),
        // `as` saturates: far past 64 bits either way.
        (_, _, Some(f)) if f.fract() == 0.0 => Some(f as i128),
        _ => None,
    };
    if whole.is_none_or(|n| (least..=greatest).contains(&n)) {
        return;
    }
    let range = format!("from {least} to {greatest}");
    let mut violation = Violation::new(
        pointer,
        "type",
        format!(
            "{value} does not fit the integer's generated type `{rust}` (mcpbind neither wraps \
             nor rounds it)"
        ),
    );
    violation.expected = Some(format!("an integer {range}"));
    violation.given = Some(value.clone());
    found.push(violation);
}

/// Whether a branch's `type` takes a value of `value`'s JSON type (a
/// branch without `type` takes any).
fn takes_kind(branch: &Value, value: &Value) -> bool {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let takes = |t: &Value| t == kind || (kind == "number" && t == "integer");
    match branch.get("type") {
        None => branch.is_object() || branch == &Value::Bool(true),
        Some(Value::String(t)) => takes(&Value::String(t.clone())),
        Some(Value::Array(types)) => types.iter().any(takes),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{integer_type, IntegerType::*};
    use serde_json::json;

    #[test]
    fn unformatted_integers_are_machine_sized_unless_their_bounds_say_more() {
        for (schema, want) in [
            (json!({}), Signed),
            (json!({"minimum": -5, "maximum": 5}), Signed),
            // zod's `.int()`: ± Number.MAX_SAFE_INTEGER.
            (
                json!({"minimum": -9_007_199_254_740_991_i64, "maximum": 9_007_199_254_740_991_i64}),
                Signed,
            ),
            (json!({"maximum": 10}), Signed),
            (json!({"minimum": -1}), Signed),
            (json!({"exclusiveMinimum": -2}), Signed),
            (json!({"minimum": 0}), Unsigned),
            (json!({"minimum": 1}), Unsigned),
            (json!({"minimum": 0.5}), Unsigned),
            (json!({"minimum": 0, "maximum": 1e19}), Unsigned),
            (json!({"minimum": 0, "maximum": 1.8446744073709552e19}), Big),
            (json!({"exclusiveMinimum": 0}), Unsigned),
            (json!({"exclusiveMinimum": -1}), Unsigned),
            (json!({"exclusiveMinimum": -1.5}), Signed),
            (json!({"minimum": -1, "exclusiveMinimum": true}), Unsigned),
            (json!({"minimum": 0, "maximum": 1e20}), Big),
            (json!({"maximum": 1e19}), Big),
            (json!({"minimum": -1e19}), Big),
            (json!({"minimum": -1, "maximum": 1e19}), Big),
            (json!({"minimum": "0"}), Signed),
            (json!({"format": "int32"}), Signed),
            (json!({"format": "int64", "maximum": 1e30}), Signed),
            (json!({"format": "int32", "minimum": 0}), Unsigned),
            (json!({"format": "uint64"}), Unsigned),
            (json!({"format": "uint8", "minimum": -3}), Unsigned),
            (json!({"format": "int128"}), Big),
            (json!({"maximum": i64::MAX}), Signed),
            (json!({"maximum": u64::MAX}), Big),
            (json!({"minimum": 0, "maximum": u64::MAX}), Unsigned),
            (
                json!({"minimum": 0, "exclusiveMaximum": u64::MAX}),
                Unsigned,
            ),
            (json!({"minimum": i64::MIN}), Signed),
            (json!({"exclusiveMinimum": i64::MIN}), Signed),
            (json!({"minimum": -9.3e18}), Big),
            (json!({"minimum": 1e300}), Big),
            (json!({"maximum": -1e300}), Big),
            (json!({"exclusiveMinimum": u64::MAX}), Big),
            (json!({"format": "uint128", "minimum": 0}), Big),
            (json!({"format": "email"}), Signed),
        ] {
            let obj = schema.as_object().unwrap();
            assert_eq!(integer_type(obj), want, "{schema}");
        }
    }

    #[test]
    fn out_of_range_names_the_pointer_of_each_integer_its_type_cannot_hold() {
        use super::out_of_range;
        let schema = json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 0},
                "delta": {"type": "integer"},
                "big": {"type": "integer", "maximum": 1e30},
                "ratio": {"type": "number"},
                "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
                "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "a/b": {"type": "integer"}
            },
            "additionalProperties": {"type": "integer", "minimum": 0},
            "$defs": {"Row": {"type": "object", "properties": {"id": {"type": "integer", "minimum": 0}}}}
        });
        let value = json!({
            "count": -1, "delta": 1e20, "big": 1e30, "ratio": 1e30,
            "rows": [{"id": 3}, {"id": -4}], "maybe": u64::MAX, "a/b": 1.5,
            "extra": -2, "fine": 2.0
        });
        let found = out_of_range(&schema, &value);
        let pointers: Vec<&str> = found.iter().map(|v| v.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            ["/count", "/delta", "/rows/1/id", "/maybe", "/extra"],
            "{found:#?}"
        );
        assert_eq!(found[0].keyword, "type");
        assert!(found[0].message.contains("`u64`"), "{}", found[0].message);
        assert_eq!(found[0].given, Some(json!(-1)));
        assert!(out_of_range(&schema, &json!({"count": u64::MAX, "delta": i64::MIN})).is_empty());
    }

    #[test]
    fn bounds_of_a_narrower_machine_type_keep_it() {
        use super::narrow;
        let of = |schema: serde_json::Value| narrow(schema.as_object().unwrap()).map(|n| n.0);
        assert_eq!(of(json!({"minimum": 0, "maximum": 255})), Some("u8"));
        assert_eq!(of(json!({"minimum": -128, "maximum": 127})), Some("i8"));
        assert_eq!(
            of(json!({"minimum": 0, "exclusiveMaximum": 65536})),
            Some("u16")
        );
        assert_eq!(of(json!({"minimum": 0, "maximum": 100})), None);
        assert_eq!(of(json!({"minimum": 0})), None);
        let schema = json!({"type": "object", "properties": {"b": {"type": "integer", "minimum": 0, "maximum": 255}}});
        let found = super::out_of_range(&schema, &json!({"b": 256}));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("`u8`"), "{}", found[0].message);
    }

    #[test]
    fn a_default_is_kept_only_when_the_type_holds_it() {
        use super::holds;
        assert!(holds(Signed, &json!(-3)));
        assert!(!holds(Signed, &json!(1.5)));
        assert!(!holds(Signed, &json!(u64::MAX)));
        assert!(holds(Unsigned, &json!(u64::MAX)));
        assert!(!holds(Unsigned, &json!(-1)));
        assert!(holds(Big, &json!(1e30)));
        assert!(!holds(Big, &json!("7")));
    }
}
