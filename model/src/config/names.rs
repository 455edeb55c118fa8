//! The config's named values (`transport`, `pin_policy`, `annotations`, `auth`,
//! `signing_algorithm`, sandbox `home`…) read straight into their enums,
//! with one message for a name that is none of them.

use serde::Deserialize;

/// An enum whose values the config writes as names.
pub(super) trait Named: Sized + Copy + 'static {
    /// The key, for the message (`transport`).
    const KEY: &'static str;
    /// Each name and its value; the first name of a value is the one the
    /// message lists, the others are accepted spellings.
    const NAMES: &'static [(&'static str, Self)];
}

/// A value of `T`, read from its name: an unknown name is an error that
/// says the key and the names it takes, at the value's line and column.
pub(super) struct Name<T>(pub(super) T);

/// `T`'s value for `name`, or the error that lists what it could be.
pub(super) fn parse<T: Named + PartialEq>(name: &str) -> Result<T, String> {
    if let Some((_, value)) = T::NAMES.iter().find(|(n, _)| *n == name) {
        return Ok(*value);
    }
    let mut listed: Vec<&str> = Vec::new();
    for (n, value) in T::NAMES {
        if !T::NAMES
            .iter()
            .take_while(|(m, _)| m != n)
            .any(|(_, v)| v == value)
        {
            listed.push(n);
        }
    }
    let listed: Vec<String> = listed.iter().map(|n| format!("`{n}`")).collect();
    Err(format!(
        "unknown {} `{name}`, expected one of {}",
        T::KEY,
        listed.join(", ")
    ))
}

impl<'de, T: Named + PartialEq> Deserialize<'de> for Name<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        parse(&name).map(Name).map_err(serde::de::Error::custom)
    }
}

/// How a server is reached (`transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transport {
    Stdio,
    StreamableHttp,
    Sse,
}

impl Named for Transport {
    const KEY: &'static str = "transport";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("stdio", Transport::Stdio),
        ("streamable-http", Transport::StreamableHttp),
        ("sse", Transport::Sse),
        ("http", Transport::StreamableHttp),
        // The spellings of `mcpServers` JSON files (`type`).
        ("streamableHttp", Transport::StreamableHttp),
        ("streamable_http", Transport::StreamableHttp),
    ];
}

impl Named for super::PinPolicy {
    const KEY: &'static str = "pin_policy";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("warn", super::PinPolicy::Warn),
        ("refuse", super::PinPolicy::Refuse),
        ("ignore", super::PinPolicy::Ignore),
    ];
}

impl Named for super::Annotations {
    const KEY: &'static str = "annotations";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("advise", super::Annotations::Advise),
        ("enforce", super::Annotations::Enforce),
    ];
}

impl Named for super::SigningAlgorithm {
    const KEY: &'static str = "signing_algorithm";
    const NAMES: &'static [(&'static str, Self)] = &[
        ("RS256", super::SigningAlgorithm::RS256),
        ("RS384", super::SigningAlgorithm::RS384),
        ("RS512", super::SigningAlgorithm::RS512),
        ("ES256", super::SigningAlgorithm::ES256),
        ("ES384", super::SigningAlgorithm::ES384),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_list_each_value_once() {
        assert_eq!(
            parse::<Transport>("grpc").unwrap_err(),
            "unknown transport `grpc`, expected one of `stdio`, `streamable-http`, `sse`"
        );
        assert_eq!(parse::<Transport>("http"), Ok(Transport::StreamableHttp));
        assert_eq!(
            parse::<super::super::PinPolicy>("maybe").unwrap_err(),
            "unknown pin_policy `maybe`, expected one of `warn`, `refuse`, `ignore`"
        );
        assert_eq!(
            parse::<super::super::Annotations>("strict").unwrap_err(),
            "unknown annotations `strict`, expected one of `advise`, `enforce`"
        );
        assert_eq!(
            parse::<super::super::Annotations>("enforce"),
            Ok(super::super::Annotations::Enforce)
        );
    }
}
