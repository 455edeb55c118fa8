//! [`BigInt`]: an integer of any size, what generated types use for a
//! schema's `{"type": "integer"}` whose own bounds or `format` (`int128`)
//! reach past 64 bits (any other integer is `i64`, or `u64` from a
//! `minimum` of 0: `internal::integer`).
//!
//! JSON has no limit on integers, and servers take ones beyond `i64` and
//! `u64` (Python's `int` has none; JavaScript's numbers reach `1e308`). A
//! `BigInt` holds any of them exactly, as decimal digits. On the wire it is
//! as exact as serde_json is: an integer that fits `i64` or `u64` is written
//! as one; a larger one exactly when serde_json's `arbitrary_precision`
//! feature is on somewhere in the build, and otherwise as the nearest `f64`
//! (what a `serde_json::Value` can hold without that feature, so what a
//! call's arguments carry anyway). mcpbind doesn't turn the feature on
//! itself: it would change every user's `serde_json`.
//!
//! Reading, it takes any JSON integer, and a float with no fraction
//! (`1.0`, `1e300`: JSON Schema compares numbers by value); a fraction, a
//! string or anything else is an error.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::de::{self, Deserializer, MapAccess, Unexpected, Visitor};
use serde::ser::{Error as _, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// An integer of any size, held exactly (see the module docs for how it is
/// written as JSON).
///
/// Made from any Rust integer (`BigInt::from(5)`, `5.into()`), parsed from
/// decimal text (`"-123".parse()`), and read back with [`BigInt::as_i64`]
/// and friends, which say `None` when the value doesn't fit.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BigInt {
    /// Canonical decimal: `-` for a negative value, then digits without
    /// leading zeros (`0` for zero, never `-0`).
    text: Box<str>,
}

/// The error of parsing a [`BigInt`]: the text is not a decimal integer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseBigIntError(());

impl fmt::Display for ParseBigIntError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a decimal integer")
    }
}

impl std::error::Error for ParseBigIntError {}

impl BigInt {
    /// `value` when it is a whole, finite float (`1.0`, `-3e20`): the
    /// integer it is exactly. `None` for a fraction, an infinity or NaN.
    pub fn from_f64(value: f64) -> Option<BigInt> {
        if !value.is_finite() || value.fract() != 0.0 {
            return None;
        }
        // `Display` writes a float's shortest exact-round-trip digits, never
        // an exponent; `-0` is zero.
        let text = format!("{value}");
        Some(BigInt::canonical(&text))
    }

    /// The value as `i64`, when it fits.
    pub fn as_i64(&self) -> Option<i64> {
        self.text.parse().ok()
    }

    /// The value as `u64`, when it fits.
    pub fn as_u64(&self) -> Option<u64> {
        self.text.parse().ok()
    }

    /// The value as `i128`, when it fits.
    pub fn as_i128(&self) -> Option<i128> {
        self.text.parse().ok()
    }

    /// The value as `u128`, when it fits.
    pub fn as_u128(&self) -> Option<u128> {
        self.text.parse().ok()
    }

    /// The nearest `f64` (an infinity beyond `f64::MAX`).
    pub fn to_f64(&self) -> f64 {
        self.text.parse().unwrap_or(f64::NAN)
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.text.starts_with('-')
    }

    /// The value as decimal text (`-123`), as [`fmt::Display`] writes it.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Digits with an optional `-`, already checked, made canonical.
    fn canonical(text: &str) -> BigInt {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(digits) => (true, digits),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let digits = digits.trim_start_matches('0');
        let text = match (digits.is_empty(), negative) {
            (true, _) => "0".to_owned(),
            (false, true) => format!("-{digits}"),
            (false, false) => digits.to_owned(),
        };
        BigInt { text: text.into() }
    }

    /// A JSON number's text (`12`, `1.0`, `1.5e1`, `-2E+3`) as the integer
    /// it is exactly; `None` for a fraction or text that isn't a number.
    /// What `arbitrary_precision` hands over is read this way.
    fn from_json_number(text: &str) -> Option<BigInt> {
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], text[at + 1..].parse::<i64>().ok()?),
            None => (text, 0),
        };
        let (sign, unsigned) = match mantissa.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", mantissa),
        };
        let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !all_digits(whole) || !all_digits(fraction) {
            return None;
        }
        let digits = format!("{whole}{fraction}");
        let shift = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
        let digits = if shift >= 0 {
            // A number of a million digits is no argument anyone sends.
            let zeros = usize::try_from(shift).ok().filter(|z| *z <= 1_000_000)?;
            let significant = digits.trim_start_matches('0');
            if significant.is_empty() {
                "0".to_owned()
            } else {
                format!("{significant}{}", "0".repeat(zeros))
            }
        } else {
            let cut = usize::try_from(shift.unsigned_abs()).ok()?;
            let (kept, dropped) = digits.split_at(digits.len().saturating_sub(cut));
            if dropped.bytes().any(|b| b != b'0') {
                return None;
            }
            kept.to_owned()
        };
        Some(BigInt::canonical(&format!("{sign}{digits}")))
    }
}

impl FromStr for BigInt {
    type Err = ParseBigIntError;

    /// Decimal digits with an optional sign (`-12`, `+7`, `0042`).
    fn from_str(text: &str) -> Result<BigInt, ParseBigIntError> {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseBigIntError(()));
        }
        Ok(BigInt::canonical(text))
    }
}

macro_rules! from_integers {
    ($($t:ty),*) => {$(
        impl From<$t> for BigInt {
            fn from(value: $t) -> BigInt {
                BigInt { text: value.to_string().into() }
            }
        }
    )*};
}

from_integers!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Default for BigInt {
    fn default() -> BigInt {
        BigInt::from(0u8)
    }
}

impl fmt::Display for BigInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&self.text)
    }
}

impl fmt::Debug for BigInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Ord for BigInt {
    fn cmp(&self, other: &BigInt) -> Ordering {
        let magnitude = |n: &BigInt| {
            let digits = n.text.trim_start_matches('-');
            (digits.len(), digits.to_owned())
        };
        match (self.is_negative(), other.is_negative()) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => magnitude(self).cmp(&magnitude(other)),
            (true, true) => magnitude(other).cmp(&magnitude(self)),
        }
    }
}

impl PartialOrd for BigInt {
    fn partial_cmp(&self, other: &BigInt) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// serde_json's name for a number kept as text (`arbitrary_precision`).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Whether serde_json keeps numbers as text in this build (its
/// `arbitrary_precision` feature, which another crate may turn on): a
/// number past `u64` then comes back as written.
fn arbitrary_precision() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    const PAST_U64: &str = "18446744073709551616";
    *ON.get_or_init(|| {
        PAST_U64
            .parse::<serde_json::Number>()
            .is_ok_and(|n| n.to_string() == PAST_U64)
    })
}

impl Serialize for BigInt {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let Some(small) = self.as_i64() {
            return serializer.serialize_i64(small);
        }
        if let Some(small) = self.as_u64() {
            return serializer.serialize_u64(small);
        }
        if arbitrary_precision() {
            let mut number = serializer.serialize_struct(NUMBER_TOKEN, 1)?;
            number.serialize_field(NUMBER_TOKEN, &*self.text)?;
            return number.end();
        }
        let nearest = self.to_f64();
        if !nearest.is_finite() {
            return Err(S::Error::custom(format_args!(
                "the integer {self} is beyond what a JSON number holds without \
                 serde_json's `arbitrary_precision` feature"
            )));
        }
        serializer.serialize_f64(nearest)
    }
}

struct BigIntVisitor;

impl<'de> Visitor<'de> for BigIntVisitor {
    type Value = BigInt;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer")
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<BigInt, E> {
        Ok(value.into())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<BigInt, E> {
        Ok(value.into())
    }

    fn visit_i128<E: de::Error>(self, value: i128) -> Result<BigInt, E> {
        Ok(value.into())
    }

    fn visit_u128<E: de::Error>(self, value: u128) -> Result<BigInt, E> {
        Ok(value.into())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<BigInt, E> {
        BigInt::from_f64(value).ok_or_else(|| E::invalid_type(Unexpected::Float(value), &self))
    }

    /// A number kept as text (`arbitrary_precision`): `{TOKEN: "123"}`.
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<BigInt, A::Error> {
        match access.next_key::<String>()? {
            Some(key) if key == NUMBER_TOKEN => {
                let text: String = access.next_value()?;
                BigInt::from_json_number(&text)
                    .ok_or_else(|| de::Error::invalid_value(Unexpected::Str(&text), &self))
            }
            _ => Err(de::Error::invalid_type(Unexpected::Map, &self)),
        }
    }
}

impl<'de> Deserialize<'de> for BigInt {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BigInt, D::Error> {
        deserializer.deserialize_any(BigIntVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BIG: &str = "12345678910111213141516171819202122232425262728293031";

    #[test]
    fn holds_any_integer_exactly() {
        let big: BigInt = BIG.parse().unwrap();
        assert_eq!(big.to_string(), BIG);
        assert_eq!(big.as_i64(), None);
        assert_eq!("-0042".parse::<BigInt>().unwrap().to_string(), "-42");
        assert_eq!("-0".parse::<BigInt>().unwrap(), BigInt::default());
        assert_eq!("+7".parse::<BigInt>().unwrap().as_u64(), Some(7));
        for bad in ["", "-", "1.0", "1e3", " 1", "0x1", "１"] {
            assert!(bad.parse::<BigInt>().is_err(), "{bad:?}");
        }
        assert_eq!(BigInt::from(u128::MAX).as_u128(), Some(u128::MAX));
        assert_eq!(BigInt::from(i64::MIN).as_i64(), Some(i64::MIN));
    }

    #[test]
    fn orders_by_value() {
        let mut values: Vec<BigInt> = ["10", "-2", "9", "-10", "0", BIG]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        values.sort();
        let text: Vec<String> = values.iter().map(BigInt::to_string).collect();
        assert_eq!(text, ["-10", "-2", "0", "9", "10", BIG]);
    }

    #[test]
    fn reads_integers_and_whole_floats_only() {
        let read = |v: serde_json::Value| serde_json::from_value::<BigInt>(v);
        assert_eq!(read(json!(-3)).unwrap(), BigInt::from(-3));
        assert_eq!(read(json!(u64::MAX)).unwrap(), BigInt::from(u64::MAX));
        assert_eq!(read(json!(1.0)).unwrap(), BigInt::from(1));
        assert_eq!(
            read(json!(1e20)).unwrap().to_string(),
            "100000000000000000000"
        );
        assert_eq!(read(json!(1e308)).unwrap().to_string().len(), 309);
        for bad in [json!(1.5), json!("1"), json!(null), json!(true), json!([1])] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
        // From text, through serde_json's parser (a float past u64).
        let big: BigInt = serde_json::from_str(BIG).unwrap();
        assert_eq!(big.to_f64(), BIG.parse::<f64>().unwrap());
    }

    #[test]
    fn writes_integers_as_integers_and_larger_ones_as_near_as_json_can() {
        assert_eq!(serde_json::to_value(BigInt::from(-5)).unwrap(), json!(-5));
        assert_eq!(
            serde_json::to_string(&BigInt::from(u64::MAX)).unwrap(),
            u64::MAX.to_string()
        );
        let big: BigInt = BIG.parse().unwrap();
        let written = serde_json::to_value(&big).unwrap();
        assert_eq!(written.as_f64(), Some(big.to_f64()));
        let beyond: BigInt = format!("1{}", "0".repeat(400)).parse().unwrap();
        assert!(serde_json::to_value(&beyond).is_err());
    }

    #[test]
    fn reads_exact_number_text() {
        let read = |s: &str| BigInt::from_json_number(s).map(|n| n.to_string());
        assert_eq!(read("12").as_deref(), Some("12"));
        assert_eq!(read("-1.0").as_deref(), Some("-1"));
        assert_eq!(read("1.5e1").as_deref(), Some("15"));
        assert_eq!(read("2E+3").as_deref(), Some("2000"));
        assert_eq!(read("1200e-2").as_deref(), Some("12"));
        assert_eq!(read("0.0e5").as_deref(), Some("0"));
        assert_eq!(read(BIG).as_deref(), Some(BIG));
        for bad in ["1.5", "1e-1", "", ".5", "abc", "1e99999999"] {
            assert_eq!(read(bad), None, "{bad:?}");
        }
    }
}
