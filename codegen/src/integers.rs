//! The Rust type of an `integer` schema, one rule for the two places that
//! need it: schema preparation (which tells typify) and the walk that
//! decides a typed input needs no validation (`enforced`).
//!
//! As users write them (zod's `z.number().int()`, pydantic's `int`), integers
//! carry no `format`: such an integer is `i64`, and `u64` when its lower
//! bound is 0 or more, as typify and progenitor type them. Only a schema
//! whose own bounds or `format` reach beyond 64 bits is `mcpbind::BigInt`.
//! A value outside the type's range is refused when it is parsed (serde
//! never wraps or rounds an integer), with the tool and the JSON pointer.

use serde_json::{Map, Value};

/// What an integer schema is typed as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntegerType {
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
pub(crate) fn integer_type(obj: &Map<String, Value>) -> IntegerType {
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
    let within = |least: i128, greatest: i128| {
        low.is_none_or(|l| l >= least) && high.is_none_or(|h| h <= greatest)
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
pub(crate) fn holds(ty: IntegerType, default: &Value) -> bool {
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
            (json!({"minimum": 0, "exclusiveMaximum": u64::MAX}), Unsigned),
            (json!({"minimum": i64::MIN}), Signed),
            (json!({"exclusiveMinimum": i64::MIN}), Signed),
            (json!({"minimum": -9.3e18}), Big),
            (json!({"format": "uint128", "minimum": 0}), Big),
            (json!({"format": "email"}), Signed),
        ] {
            let obj = schema.as_object().unwrap();
            assert_eq!(integer_type(obj), want, "{schema}");
        }
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
