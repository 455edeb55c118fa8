//! What `mcpbind-derive`'s `Serialize` expands to calls (see that crate's
//! docs). Not public API.

use serde::ser::{Error as _, SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;

/// A struct being written as a JSON object.
pub struct Object<M>(M);

impl<M: SerializeMap> Object<M> {
    /// Starts the object.
    ///
    /// # Errors
    ///
    /// The serializer's error.
    pub fn new<S>(serializer: S) -> Result<Self, S::Error>
    where
        S: Serializer<SerializeMap = M, Error = M::Error>,
    {
        serializer.serialize_map(None).map(Object)
    }

    /// Writes a field.
    ///
    /// # Errors
    ///
    /// The serializer's error.
    pub fn field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        self.0.serialize_entry(key, value)
    }

    /// Writes the entries of a flattened field (an object) inline.
    ///
    /// # Errors
    ///
    /// The serializer's error, also when `value` is not a map.
    pub fn flatten<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), M::Error> {
        match serde_json::to_value(value).map_err(M::Error::custom)? {
            Value::Object(map) => map
                .iter()
                .try_for_each(|(key, value)| self.0.serialize_entry(key, value)),
            Value::Null => Ok(()),
            other => Err(M::Error::custom(format_args!(
                "a flattened field must be an object, not {other}"
            ))),
        }
    }

    /// Ends the object.
    ///
    /// # Errors
    ///
    /// The serializer's error.
    pub fn end(self) -> Result<M::Ok, M::Error> {
        self.0.end()
    }
}
