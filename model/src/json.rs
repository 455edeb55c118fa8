//! Parsing JSON into generated types, as the runtime does for arguments and
//! structured outputs.
//!
//! JSON Schema compares numbers by value: `1.0` is an integer, and `0` and
//! `0.0` are the same enum value. serde does not (an `i64` refuses `1.0`),
//! and models often write whole numbers as floats. So before deserializing,
//! every number with no fraction that fits an integer is written as that
//! integer; a float field still accepts it, and `1.5` for an integer field
//! stays an error. (serde_json's error names the value, not the field: a
//! `Value` has no positions. Validation against the locked schema, which
//! runs first unless switched off, names the field's JSON pointer.)

use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

/// Deserializes `value` into `T` after [`normalize_numbers`].
///
/// # Errors
///
/// serde_json's error when `value` does not deserialize into `T`.
pub fn from_value<T: DeserializeOwned>(mut value: Value) -> Result<T, serde_json::Error> {
    normalize_numbers(&mut value);
    serde_json::from_value(value)
}

/// Rewrites whole floats (`1.0`, `-3.0`, `1e3`) as integers, in place,
/// where they fit `i64` or `u64`.
pub fn normalize_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(int) = whole(n) {
                *n = int;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// `n` as an integer, when it is a float with no fraction that fits `i64`
/// or `u64` (the one rule, also used by the toolbox's schema-aware pass).
#[doc(hidden)]
pub fn whole(n: &Number) -> Option<Number> {
    let f = n.as_f64()?;
    if f.fract() != 0.0 || !f.is_finite() {
        return None;
    }
    // `as` saturates; the round trip tells whether the value fit.
    if f >= 0.0 {
        let u = f as u64;
        (u as f64 == f && f < 18_446_744_073_709_551_616.0).then(|| Number::from(u))
    } else {
        let i = f as i64;
        (i as f64 == f && f >= -9_223_372_036_854_775_808.0).then(|| Number::from(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_floats_become_integers() {
        let mut v = json!({"a": 1.0, "b": [10.0, -3.0, 1.5], "c": 1e300, "d": 0.0, "e": "1.0"});
        normalize_numbers(&mut v);
        assert_eq!(
            v,
            json!({"a": 1, "b": [10, -3, 1.5], "c": 1e300, "d": 0, "e": "1.0"})
        );
        assert!(v["a"].is_u64());
        assert!(v["b"][1].is_i64());
    }

    #[test]
    fn integer_types_accept_whole_floats_and_refuse_fractions() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct P {
            n: u32,
            x: f64,
        }
        let p: P = from_value(json!({"n": 3.0, "x": 2})).unwrap();
        assert_eq!(p, P { n: 3, x: 2.0 });
        let e = from_value::<P>(json!({"n": 1.5, "x": 2})).unwrap_err();
        assert!(e.to_string().contains("1.5"), "{e}");
    }
}
