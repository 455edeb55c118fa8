//! What `mcpbind-derive`'s `Deserialize` expands to calls: the generic work
//! of reading a struct or a unit enum, compiled once here rather than once
//! per generated type (see that crate's docs for why and what it supports).
//! Not public API.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// A JSON object being taken apart into a struct's fields.
pub struct Object<E> {
    map: Map<String, Value>,
    error: PhantomData<E>,
}

impl<E: de::Error> Object<E> {
    /// Reads an object; `expecting` names the type in errors ("struct X").
    ///
    /// # Errors
    ///
    /// The deserializer's error when the value is not an object.
    pub fn new<'de, D>(deserializer: D, expecting: &'static str) -> Result<Self, E>
    where
        D: Deserializer<'de, Error = E>,
    {
        let map = deserializer.deserialize_map(ObjectVisitor(expecting))?;
        Ok(Object {
            map,
            error: PhantomData,
        })
    }

    /// A field: missing is `None` for an `Option`, an error otherwise.
    ///
    /// # Errors
    ///
    /// `E` when the field is missing or does not deserialize into `T`.
    pub fn field<T: DeserializeOwned>(&mut self, key: &'static str) -> Result<T, E> {
        match self.map.shift_remove(key) {
            Some(value) => T::deserialize(value).map_err(E::custom),
            None => T::deserialize(Missing(key)).map_err(E::custom),
        }
    }

    /// A field with a default for when it is missing.
    ///
    /// # Errors
    ///
    /// `E` when the field does not deserialize into `T`.
    pub fn field_or<T: DeserializeOwned>(
        &mut self,
        key: &'static str,
        default: impl FnOnce() -> T,
    ) -> Result<T, E> {
        match self.map.shift_remove(key) {
            Some(value) => T::deserialize(value).map_err(E::custom),
            None => Ok(default()),
        }
    }

    /// A field read by `with` (`deserialize_with`); it must be present.
    ///
    /// # Errors
    ///
    /// `E` when the field is missing or `with` refuses it.
    pub fn field_with<T>(
        &mut self,
        key: &'static str,
        with: impl FnOnce(Value) -> Result<T, serde_json::Error>,
    ) -> Result<T, E> {
        match self.map.shift_remove(key) {
            Some(value) => with(value).map_err(E::custom),
            None => Err(E::missing_field(key)),
        }
    }

    /// A field read by `with`, with a default for when it is missing.
    ///
    /// # Errors
    ///
    /// `E` when `with` refuses the field.
    pub fn field_with_or<T>(
        &mut self,
        key: &'static str,
        with: impl FnOnce(Value) -> Result<T, serde_json::Error>,
        default: impl FnOnce() -> T,
    ) -> Result<T, E> {
        match self.map.shift_remove(key) {
            Some(value) => with(value).map_err(E::custom),
            None => Ok(default()),
        }
    }

    /// The flattened field: every field no other field took.
    ///
    /// # Errors
    ///
    /// `E` when the remaining fields do not deserialize into `T`.
    pub fn rest<T: DeserializeOwned>(&mut self) -> Result<T, E> {
        T::deserialize(Value::Object(std::mem::take(&mut self.map))).map_err(E::custom)
    }

    /// `deny_unknown_fields`: an error if a field is left.
    ///
    /// # Errors
    ///
    /// `E` naming the first field that is none of `fields`.
    pub fn deny_unknown(&self, fields: &'static [&'static str]) -> Result<(), E> {
        match self.map.keys().next() {
            Some(key) => Err(E::unknown_field(key, fields)),
            None => Ok(()),
        }
    }
}

struct ObjectVisitor(&'static str);

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
        let mut map = Map::new();
        while let Some((key, mut value)) = access.next_entry::<String, Value>()? {
            // `1.0` is an integer (JSON Schema compares numbers by value):
            // whole floats become integers before any field reads them, so
            // an integer field takes `1.0` and still refuses `1.5`, with
            // serde_json alone as with `mcpbind::json::from_value`.
            crate::json::normalize_numbers(&mut value);
            map.insert(key, value);
        }
        Ok(map)
    }
}

/// The deserializer of a missing field: `None` for an `Option`, "missing
/// field" for anything else (what serde_derive does).
struct Missing(&'static str);

impl<'de> Deserializer<'de> for Missing {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A unit variant: the index in `names` of the string read.
///
/// # Errors
///
/// The deserializer's error when the value is not a string or is none of
/// `variants`.
pub fn variant<'de, D: Deserializer<'de>>(
    deserializer: D,
    expecting: &'static str,
    names: &'static [&'static str],
) -> Result<usize, D::Error> {
    deserializer.deserialize_str(VariantVisitor { expecting, names })
}

struct VariantVisitor {
    expecting: &'static str,
    names: &'static [&'static str],
}

impl Visitor<'_> for VariantVisitor {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<usize, E> {
        self.names
            .iter()
            .position(|name| *name == value)
            .ok_or_else(|| E::unknown_variant(value, self.names))
    }
}

/// The error of a generated type's `FromStr` or `TryFrom` (the value is not
/// one the type allows). Every server's `types::error::ConversionError` is
/// this type.
pub struct ConversionError(std::borrow::Cow<'static, str>);

impl std::error::Error for ConversionError {}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl From<&'static str> for ConversionError {
    fn from(value: &'static str) -> Self {
        Self(value.into())
    }
}

impl From<String> for ConversionError {
    fn from(value: String) -> Self {
        Self(value.into())
    }
}
