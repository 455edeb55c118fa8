//! How deep the lockfile's JSON may nest, and running deep work safely.
//!
//! serde_json refuses input nested deeper than 128 levels, which a lockfile
//! reaches with a 60-level object schema (each level is an object plus its
//! `properties`, inside six levels of lockfile). So the lockfile is parsed
//! without that limit, and every recursive pass over a deep value (parsing,
//! hashing, printing, diffing) runs on a stack sized for the depth at hand.
//! [`MAX_DEPTH`] bounds what is read and written, so that the values handed
//! out stay safe to drop and compare on an ordinary thread.

use serde_json::Value;

/// The deepest JSON nesting mcpbind reads or writes in a lockfile, the
/// lockfile's own levels included: room for a 500-level nested object
/// schema. (A server can't send deeper: rmcp parses its messages with
/// serde_json's limit of 128.)
pub const MAX_DEPTH: usize = 1024;

/// The nesting of a tool definition inside the lockfile:
/// `{servers: {NAME: {tools: [{definition: …}]}}}`.
pub(crate) const TOOL_ENVELOPE: usize = 5;
/// The nesting of a server's `server_info`: `{servers: {NAME: {server_info: …}}}`.
pub(crate) const INFO_ENVELOPE: usize = 3;

/// Values up to this deep are handled on the caller's stack.
const SHALLOW: usize = 96;
/// Stack per level of nesting when handling a deep value: a debug build of
/// serde_json needs up to about 2 KiB per level to clone or compare, so
/// this leaves room for anything a pass over the value does.
const STACK_PER_LEVEL: usize = 8 * 1024;

/// Runs `f`, which recurses over values up to `depth` levels deep, on a
/// stack big enough for it: the caller's for a shallow value, else a
/// scoped thread's of the size needed (see `on_thread`).
pub fn on_deep_stack<R: Send>(depth: usize, f: impl FnOnce() -> R + Send) -> R {
    if depth <= SHALLOW {
        return f();
    }
    on_thread(1024 * 1024 + depth * STACK_PER_LEVEL, f)
}

/// Runs `f` on a scoped thread with a stack of `stack` bytes (a panic in
/// `f` goes on in the caller). With no thread to be had, `f` runs on the
/// caller's stack.
pub(crate) fn on_thread<R: Send>(stack: usize, f: impl FnOnce() -> R + Send) -> R {
    let mut slot = Some(f);
    let ran = std::thread::scope(|scope| {
        let slot = &mut slot;
        std::thread::Builder::new()
            .name("mcpbind-deep".into())
            .stack_size(stack)
            .spawn_scoped(scope, move || slot.take().map(|f| f()))
            .ok()
            .and_then(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
    });
    match (ran, slot) {
        (Some(value), _) => value,
        (None, Some(f)) => f(),
        (None, None) => unreachable!("the thread took `f` and returned its value"),
    }
}

/// The nesting depth of a value: 0 for a scalar, 1 for `{}` or `[]`.
/// Iterative, so any depth is safe to measure.
pub fn value_depth(value: &Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            Value::Object(map) => stack.extend(map.values().map(|child| (child, depth + 1))),
            Value::Array(items) => stack.extend(items.iter().map(|child| (child, depth + 1))),
            _ => continue,
        }
        max = max.max(depth + 1);
    }
    max
}

/// Whether `value` nests deeper than `limit` levels (`value_depth(value) >
/// limit`), without allocating: the walk goes no deeper than `limit`, so
/// any value is safe to check with a limit the stack can take (the
/// validator's 128).
#[doc(hidden)]
pub fn deeper_than(value: &Value, limit: usize) -> bool {
    match value {
        Value::Object(map) => limit == 0 || map.values().any(|v| deeper_than(v, limit - 1)),
        Value::Array(items) => limit == 0 || items.iter().any(|v| deeper_than(v, limit - 1)),
        _ => false,
    }
}

/// Drops a value of any depth without recursing (serde_json's own `Drop`
/// recurses, and overflows the stack on a deep enough value).
#[doc(hidden)]
pub fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// The nesting depth of JSON text, and the 1-based line where it first
/// goes past `limit` (if it does). A byte scan, so any depth is safe; the
/// text need not be valid JSON (the parser reports that). The lockfile
/// reader and the transports' message check share it.
#[doc(hidden)]
pub fn text_depth(text: &[u8], limit: usize) -> (usize, Option<usize>) {
    let (mut depth, mut max, mut line) = (0usize, 0usize, 1usize);
    let (mut in_string, mut escaped) = (false, false);
    let mut too_deep_at = None;
    for &byte in text {
        if byte == b'\n' {
            line += 1;
        }
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                max = max.max(depth);
                if depth > limit && too_deep_at.is_none() {
                    too_deep_at = Some(line);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (max, too_deep_at)
}

/// Parses JSON text of any depth up to `depth` (measured beforehand with
/// [`text_depth`]), without serde_json's recursion limit.
pub(crate) fn from_str_deep<T: serde::de::DeserializeOwned + Send>(
    text: &str,
    depth: usize,
) -> serde_json::Result<T> {
    on_deep_stack(depth, || {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        let value = T::deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object_schema(inner: Value) -> Value {
        let mut properties = serde_json::Map::new();
        properties.insert("a".into(), inner);
        let mut schema = serde_json::Map::new();
        schema.insert("type".into(), "object".into());
        schema.insert("properties".into(), Value::Object(properties));
        Value::Object(schema)
    }

    fn nested(levels: usize) -> Value {
        let mut v = serde_json::json!({"type": "string"});
        for _ in 0..levels {
            v = object_schema(v);
        }
        v
    }

    #[test]
    fn depths() {
        assert_eq!(value_depth(&Value::Null), 0);
        assert_eq!(value_depth(&serde_json::json!({"a": [1, {}]})), 3);
        assert_eq!(value_depth(&nested(3)), 7);
        assert_eq!(text_depth(br#"{"a": "[[[{", "b": [[]]}"#, 2), (3, Some(1)));
        assert_eq!(text_depth(b"{\n\"a\\\"[\": [\n[]]}", 5), (3, None));
    }

    #[test]
    fn deep_values_are_dropped_and_parsed_without_overflow() {
        let deep = nested(50_000);
        assert_eq!(value_depth(&deep), 100_001);
        drop_deep(deep);
        let text = format!("{}{}", "[".repeat(2000), "]".repeat(2000));
        let (depth, _) = text_depth(text.as_bytes(), MAX_DEPTH);
        let value: Value = from_str_deep(&text, depth).unwrap();
        assert_eq!(value_depth(&value), 2000);
        // The validator's check stops at its limit, however deep the value.
        assert!([0, 1, 128].iter().all(|&limit| deeper_than(&value, limit)));
        for value in [
            Value::Null,
            serde_json::json!({}),
            serde_json::json!({"a": [1, {}]}),
            nested(3),
        ] {
            for limit in 0..9 {
                assert_eq!(
                    deeper_than(&value, limit),
                    value_depth(&value) > limit,
                    "{value} {limit}"
                );
            }
        }
        drop_deep(value);
    }
}
