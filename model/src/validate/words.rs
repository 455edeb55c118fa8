//! A validation error tree in [`Violation`]s: its leaves, each with the
//! keyword it breaks and a message in our words (`30 is greater than the
//! maximum of 10`), whatever the validator's own say.

use boon::{ErrorKind, ValidationError};
use serde_json::Value;

use super::MAX_VIOLATIONS;
use crate::violation::{small, Violation};

/// The longest a value is quoted in a message, in bytes of JSON; a longer
/// one is cut (the violation's `given` holds it whole, up to its own limit).
const MAX_QUOTED_BYTES: usize = 80;

/// Appends the leaves of `error` to `found`, depth first, until there are
/// [`MAX_VIOLATIONS`]. A group, a schema or a `$ref` only gathers its causes,
/// and so does `allOf` (each failing branch is a violation of its own);
/// `anyOf`, `oneOf` and `not` are one violation each, as no branch alone
/// says what was wanted.
pub(super) fn leaves(error: &ValidationError, instance: &Value, found: &mut Vec<Violation>) {
    if found.len() >= MAX_VIOLATIONS {
        return;
    }
    match &error.kind {
        ErrorKind::Group
        | ErrorKind::Schema { .. }
        | ErrorKind::Reference { .. }
        | ErrorKind::AllOf
            if !error.causes.is_empty() =>
        {
            for cause in &error.causes {
                leaves(cause, instance, found);
            }
        }
        ErrorKind::Required { want } => {
            for name in want {
                let message = format!("{} is a required property", quote_str(name));
                found.push(at(error, instance, "required", message));
            }
        }
        ErrorKind::Dependency { prop, missing }
        | ErrorKind::DependentRequired { prop, missing } => {
            let keyword = match error.kind {
                ErrorKind::Dependency { .. } => "dependencies",
                _ => "dependentRequired",
            };
            for name in missing {
                let message = format!(
                    "{} is a required property when {} is present",
                    quote_str(name),
                    quote_str(prop)
                );
                found.push(at(error, instance, keyword, message));
            }
        }
        kind => {
            let given = value_at(error, instance);
            let (keyword, message) = describe(kind, given);
            found.push(at(error, instance, keyword, message));
        }
    }
}

/// A violation of `keyword` where `error` is, saying `message`.
fn at(error: &ValidationError, instance: &Value, keyword: &str, message: String) -> Violation {
    Violation {
        given: small(value_at(error, instance)),
        ..Violation::new(error.instance_location.to_string(), keyword, message)
    }
}

/// The value where `error` is (`null` if it can't be found, which a
/// location the validator reports always can).
fn value_at<'v>(error: &ValidationError, instance: &'v Value) -> &'v Value {
    let pointer = error.instance_location.to_string();
    instance.pointer(&pointer).unwrap_or(&Value::Null)
}

/// The keyword a leaf breaks, and what is wrong in words.
fn describe(kind: &ErrorKind, given: &Value) -> (&'static str, String) {
    let g = quote(given);
    match kind {
        ErrorKind::Type { want, .. } => {
            let want: Vec<String> = want.iter().map(|t| format!("\"{t}\"")).collect();
            let types = if want.len() == 1 { "type" } else { "types" };
            ("type", format!("{g} is not of {types} {}", want.join(", ")))
        }
        ErrorKind::Enum { want } => ("enum", format!("{g} is not one of {}", quote_all(want))),
        ErrorKind::Const { want } => ("const", format!("{} was expected", quote(want))),
        ErrorKind::Format { want, .. } => ("format", format!("{g} is not a \"{want}\"")),
        ErrorKind::Minimum { got, want } => (
            "minimum",
            format!("{got} is less than the minimum of {want}"),
        ),
        ErrorKind::Maximum { got, want } => (
            "maximum",
            format!("{got} is greater than the maximum of {want}"),
        ),
        ErrorKind::ExclusiveMinimum { got, want } => (
            "exclusiveMinimum",
            format!("{got} is less than or equal to the minimum of {want}"),
        ),
        ErrorKind::ExclusiveMaximum { got, want } => (
            "exclusiveMaximum",
            format!("{got} is greater than or equal to the maximum of {want}"),
        ),
        ErrorKind::MultipleOf { got, want } => {
            ("multipleOf", format!("{got} is not a multiple of {want}"))
        }
        ErrorKind::MinLength { want, .. } => (
            "minLength",
            format!("{g} is shorter than {want} characters"),
        ),
        ErrorKind::MaxLength { want, .. } => {
            ("maxLength", format!("{g} is longer than {want} characters"))
        }
        ErrorKind::Pattern { want, .. } => {
            ("pattern", format!("{g} does not match {}", quote_str(want)))
        }
        _ => describe_structure(kind, &g),
    }
}

/// [`describe`] for the keywords of objects, arrays and combinators.
fn describe_structure(kind: &ErrorKind, g: &str) -> (&'static str, String) {
    match kind {
        ErrorKind::MinItems { want, .. } => ("minItems", format!("{g} has less than {want} items")),
        ErrorKind::MaxItems { want, .. } => ("maxItems", format!("{g} has more than {want} items")),
        ErrorKind::UniqueItems { got: [i, j] } => (
            "uniqueItems",
            format!("{g} has non-unique elements (items {i} and {j} are equal)"),
        ),
        ErrorKind::Contains => (
            "contains",
            format!("no item of {g} matches the 'contains' schema"),
        ),
        ErrorKind::MinContains { got, want } => (
            "minContains",
            format!(
                "{g} has {} items that match the 'contains' schema, fewer than {want}",
                got.len()
            ),
        ),
        ErrorKind::MaxContains { got, want } => (
            "maxContains",
            format!(
                "{g} has {} items that match the 'contains' schema, more than {want}",
                got.len()
            ),
        ),
        ErrorKind::AdditionalItems { got } => (
            "additionalItems",
            format!("additional items are not allowed ({got} unexpected)"),
        ),
        ErrorKind::MinProperties { want, .. } => (
            "minProperties",
            format!("{g} has less than {want} properties"),
        ),
        ErrorKind::MaxProperties { want, .. } => (
            "maxProperties",
            format!("{g} has more than {want} properties"),
        ),
        ErrorKind::AdditionalProperties { got } => {
            let names: Vec<String> = got.iter().map(|n| quote_str(n)).collect();
            let verb = if names.len() == 1 { "was" } else { "were" };
            let names = names.join(", ");
            let message =
                format!("additional properties are not allowed ({names} {verb} unexpected)");
            ("additionalProperties", message)
        }
        ErrorKind::PropertyName { prop } => (
            "propertyNames",
            format!(
                "property name {} does not match the 'propertyNames' schema",
                quote_str(prop)
            ),
        ),
        _ => describe_logic(kind, g),
    }
}

/// [`describe`] for combinators and what is left.
fn describe_logic(kind: &ErrorKind, g: &str) -> (&'static str, String) {
    let none_of = |keyword: &'static str| {
        let message =
            format!("{g} is not valid under any of the schemas listed in the '{keyword}' keyword");
        (keyword, message)
    };
    match kind {
        ErrorKind::AnyOf => none_of("anyOf"),
        ErrorKind::OneOf(None) => none_of("oneOf"),
        ErrorKind::OneOf(Some((i, j))) => (
            "oneOf",
            format!("{g} is valid under more than one of the schemas listed in the 'oneOf' keyword (schemas {i} and {j})"),
        ),
        ErrorKind::AllOf => (
            "allOf",
            format!("{g} is not valid under all of the schemas listed in the 'allOf' keyword"),
        ),
        ErrorKind::Not => ("not", format!("{g} is valid under the 'not' schema, which it must not be")),
        ErrorKind::FalseSchema => ("false", format!("false schema does not allow {g}")),
        ErrorKind::RefCycle { .. } => (
            "$ref",
            "the schema refers to itself without reading any of the value".to_owned(),
        ),
        ErrorKind::ContentEncoding { want, .. } => {
            ("contentEncoding", format!("{g} is not \"{want}\" encoded"))
        }
        ErrorKind::ContentMediaType { want, .. } => {
            ("contentMediaType", format!("{g} is not of media type \"{want}\""))
        }
        ErrorKind::ContentSchema => ("contentSchema", format!("{g} does not match the 'contentSchema' schema")),
        // A group, schema or `$ref` with no causes, which boon does not
        // report; said plainly rather than dropped.
        _ => ("schema", format!("{g} is not valid")),
    }
}

/// `value` as JSON, cut after [`MAX_QUOTED_BYTES`] (at a character); a
/// large value is not written out whole to be cut.
fn quote(value: &Value) -> String {
    /// Keeps the first bytes written, then refuses the rest.
    struct Head(Vec<u8>);
    impl std::io::Write for Head {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = MAX_QUOTED_BYTES + 4 - self.0.len();
            self.0.extend_from_slice(&buf[..buf.len().min(room)]);
            if buf.len() > room {
                return Err(std::io::Error::other("long enough"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut head = Head(Vec::new());
    let _ = serde_json::to_writer(&mut head, value);
    cut(String::from_utf8_lossy(&head.0).into_owned())
}

/// `text` as a JSON string, cut like [`quote`].
fn quote_str(text: &str) -> String {
    quote(&Value::from(text))
}

/// `values` as a JSON array, cut like [`quote`].
fn quote_all(values: &[Value]) -> String {
    quote(&Value::from(values.to_vec()))
}

/// `json` cut after [`MAX_QUOTED_BYTES`], at a character, with `…`.
fn cut(mut json: String) -> String {
    if json.len() > MAX_QUOTED_BYTES {
        let mut end = MAX_QUOTED_BYTES;
        while !json.is_char_boundary(end) {
            end -= 1;
        }
        json.truncate(end);
        json.push('…');
    }
    json
}
