//! A [`Violation`]: one way a value breaks a locked schema, as data. Always
//! here (errors carry them); finding them (`validate`) needs the feature of
//! that name.

use serde_json::Value;

/// One way a value breaks a locked schema (arguments, structured output),
/// from the validator's own error: where, which keyword, what it says,
/// and the value found there.
/// It displays as `<JSON pointer>: <message>`, with what the schema accepts
/// there when the message does not say it:
/// `/unit: "kelvin" is not valid under any of the schemas listed in the 'anyOf' keyword (expected one of "c", "f" or null)`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Violation {
    /// Where in the value, as a JSON pointer (`/` for the whole value).
    pub pointer: String,
    /// The JSON Schema keyword the value breaks (`type`, `enum`, `maximum`,
    /// `required`, `anyOf`…), as the validator names it; `depth` for a
    /// value nested deeper than is validated or sent.
    pub keyword: String,
    /// What is wrong, in words (the validator's message, e.g.
    /// `30 is greater than the maximum of 10`).
    pub message: String,
    /// What the schema accepts at `pointer`, in words, when the message
    /// does not say it (a union, an enum behind a `$ref`): `one of "a", "b"
    /// or null`.
    pub expected: Option<String>,
    /// The value found at `pointer`, when it is at most 1 KiB as JSON (a
    /// larger one is left out: the message names it).
    pub given: Option<Value>,
}

/// The largest value, as JSON, a [`Violation`] carries as `given`.
#[cfg_attr(not(feature = "validate"), allow(dead_code))]
pub(crate) const MAX_GIVEN_BYTES: usize = 1024;

/// `value`, when it is at most [`MAX_GIVEN_BYTES`] as JSON.
#[cfg_attr(not(feature = "validate"), allow(dead_code))]
pub(crate) fn small(value: &Value) -> Option<Value> {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            if self.0 > MAX_GIVEN_BYTES {
                return Err(std::io::Error::other("too large"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(Counter(0), value)
        .ok()
        .map(|()| value.clone())
}

impl Violation {
    /// A violation at `pointer` of `keyword`, saying `message`.
    pub fn new(
        pointer: impl Into<String>,
        keyword: impl Into<String>,
        message: impl Into<String>,
    ) -> Violation {
        let pointer = pointer.into();
        Violation {
            pointer: if pointer.is_empty() {
                "/".to_owned()
            } else {
                pointer
            },
            keyword: keyword.into(),
            message: message.into(),
            expected: None,
            given: None,
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pointer, self.message)?;
        if let Some(expected) = &self.expected {
            write!(f, " (expected {expected})")?;
        }
        Ok(())
    }
}

/// Violations joined with `; `, for a message.
pub fn join(violations: &[Violation]) -> String {
    let shown: Vec<String> = violations.iter().map(Violation::to_string).collect();
    shown.join("; ")
}
