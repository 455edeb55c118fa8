//! A `SKILL.md`'s YAML frontmatter as JSON, to compare field by field with
//! the frontmatter of the skill's entry (SEP-2640 "Frontmatter
//! Verification").
//!
//! The file is the server's: the parse is bounded (no YAML aliases, which
//! could expand a small file into a huge value; a nesting limit; JSON-only
//! values), and every failure is a reason, never a panic.

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;
use yaml_rust2::Yaml;

/// How deep frontmatter may nest (Agent Skills frontmatter is flat but for
/// `metadata`).
const MAX_DEPTH: usize = 32;

/// The frontmatter block of `text`: what lies between a first line `---`
/// and the next line `---` (a UTF-8 byte order mark and `\r\n` line ends
/// are allowed).
pub(crate) fn block(text: &str) -> Result<&str, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not begin with a `---` line (YAML frontmatter)")?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end_matches([' ', '\t']) == "---" {
            return Ok(rest[..offset].trim_end_matches(['\n', '\r']));
        }
        offset += line.len();
    }
    Err("its frontmatter has no closing `---` line".to_owned())
}

/// The frontmatter of `text` (a `SKILL.md`) as a JSON object.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let yaml = block(text)?;
    match to_json(yaml)? {
        Value::Object(map) => Ok(map),
        Value::Null => Err("its frontmatter is empty".to_owned()),
        _ => Err("its frontmatter is not a YAML mapping".to_owned()),
    }
}

/// A container being built.
enum Open {
    Sequence(Vec<Value>),
    /// A mapping, and the key whose value comes next.
    Mapping(Map<String, Value>, Option<String>),
}

/// The first YAML document of `yaml` as JSON.
fn to_json(yaml: &str) -> Result<Value, String> {
    let mut parser = Parser::new_from_str(yaml);
    let mut stack: Vec<Open> = Vec::new();
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|e| format!("its frontmatter is not valid YAML: {e}"))?;
        let at = || format!("line {}", mark.line());
        let value = match event {
            Event::StreamStart | Event::DocumentStart | Event::Nothing => continue,
            Event::StreamEnd | Event::DocumentEnd => return Ok(Value::Null),
            Event::Alias(_) => {
                return Err(format!(
                    "its frontmatter uses a YAML alias ({}), which mcpbind does not expand",
                    at()
                ))
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(format!(
                        "its frontmatter nests deeper than {MAX_DEPTH} levels ({})",
                        at()
                    ));
                }
                stack.push(match event {
                    Event::SequenceStart(..) => Open::Sequence(Vec::new()),
                    _ => Open::Mapping(Map::new(), None),
                });
                continue;
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Open::Sequence(items)) => Value::Array(items),
                _ => return Err(format!("its frontmatter is malformed YAML ({})", at())),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Open::Mapping(map, None)) => Value::Object(map),
                _ => return Err(format!("its frontmatter is malformed YAML ({})", at())),
            },
            Event::Scalar(text, style, _, tag) => {
                let verbatim = style != TScalarStyle::Plain
                    || tag.is_some_and(|t| {
                        matches!(t.handle.as_str(), "!!" | "tag:yaml.org,2002:")
                            && t.suffix == "str"
                    });
                scalar(text, verbatim).map_err(|why| format!("{why} ({})", at()))?
            }
        };
        // Place the finished value in its container, or return it.
        match stack.last_mut() {
            None => return Ok(value),
            Some(Open::Sequence(items)) => items.push(value),
            Some(Open::Mapping(map, key)) => match key.take() {
                Some(key) => {
                    if map.contains_key(&key) {
                        return Err(format!(
                            "its frontmatter has the key `{key}` twice ({})",
                            at()
                        ));
                    }
                    map.insert(key, value);
                }
                None => {
                    *key = Some(match value {
                        Value::String(s) => s,
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        Value::Null => "null".to_owned(),
                        _ => {
                            return Err(format!(
                                "its frontmatter has a key that is not a scalar ({})",
                                at()
                            ))
                        }
                    })
                }
            },
        }
    }
}

/// A scalar as JSON: a quoted or block scalar (`verbatim`) is a string, a
/// plain one is resolved as YAML 1.2's core schema says.
fn scalar(text: String, verbatim: bool) -> Result<Value, String> {
    if verbatim {
        return Ok(Value::String(text));
    }
    Ok(match Yaml::from_str(&text) {
        Yaml::Null => Value::Null,
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Integer(i) => Value::Number(i.into()),
        real @ Yaml::Real(_) => match real.as_f64().and_then(Number::from_f64) {
            Some(n) => Value::Number(n),
            None => return Err(format!("the number `{text}` has no JSON form")),
        },
        _ => Value::String(text),
    })
}

/// Where `file` (a `SKILL.md`'s frontmatter) and `entry` (the skill's
/// entry's `frontmatter`) differ, field by field; empty when they agree.
/// Numbers compare by value (`1` and `1.0` agree).
pub(crate) fn differences(file: &Map<String, Value>, entry: &Map<String, Value>) -> Vec<String> {
    let mut keys: Vec<&String> = file.keys().chain(entry.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| {
            let (a, b) = (file.get(key), entry.get(key));
            let same = match (a, b) {
                (Some(a), Some(b)) => same_value(a, b),
                // An absent field and `null` are the same content.
                (Some(Value::Null), None) | (None, Some(Value::Null)) => true,
                _ => false,
            };
            (!same).then(|| {
                let shown = |v: Option<&Value>| v.map_or("absent".to_owned(), shorten);
                format!("`{key}`: the file has {}, the entry {}", shown(a), shown(b))
            })
        })
        .collect()
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// A value as an error shows it: JSON, cut to 80 characters.
fn shorten(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(text: &str) -> Result<Value, String> {
        parse(text).map(Value::Object)
    }

    #[test]
    fn frontmatter_parses_to_json() {
        let text = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: 'Apache-2.0'\nversion: 2\nratio: 1.5\nbeta: true\nnothing: ~\nallowed-tools: [Read, \"Bash(git:*)\"]\nmetadata:\n  author: acme\n  tags:\n    - a\n    - b\nquoted: \"007\"\nblock: |\n  two\n  lines\n---\n\n# Body\n";
        assert_eq!(
            parsed(text).unwrap(),
            json!({
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents",
                "license": "Apache-2.0",
                "version": 2,
                "ratio": 1.5,
                "beta": true,
                "nothing": null,
                "allowed-tools": ["Read", "Bash(git:*)"],
                "metadata": {"author": "acme", "tags": ["a", "b"]},
                "quoted": "007",
                "block": "two\nlines\n"
            })
        );
        // A byte order mark and CRLF line ends.
        let crlf = "\u{feff}---\r\nname: x\r\ndescription: y\r\n---\r\nbody";
        assert_eq!(
            parsed(crlf).unwrap(),
            json!({"name": "x", "description": "y"})
        );
    }

    #[test]
    fn bad_frontmatter_says_why_and_never_panics() {
        let cases = [
            (
                "# no frontmatter\n",
                "it does not begin with a `---` line (YAML frontmatter)",
            ),
            (
                "---\nname: x\n",
                "its frontmatter has no closing `---` line",
            ),
            ("---\n---\n", "its frontmatter is empty"),
            (
                "---\n- a\n- b\n---\n",
                "its frontmatter is not a YAML mapping",
            ),
            (
                "---\na: &x [1]\nb: *x\n---\n",
                "its frontmatter uses a YAML alias",
            ),
            (
                "---\na: 1\na: 2\n---\n",
                "its frontmatter has the key `a` twice",
            ),
            (
                "---\n? [a]\n: 1\n---\n",
                "its frontmatter has a key that is not a scalar",
            ),
            ("---\na: .inf\n---\n", "the number `.inf` has no JSON form"),
            ("---\na: [\n---\n", "its frontmatter is not valid YAML"),
        ];
        for (text, why) in cases {
            let error = parse(text).unwrap_err();
            assert!(error.starts_with(why), "{text:?}: {error}");
        }
        let deep = format!("---\na: {}{}\n---\n", "[".repeat(100), "]".repeat(100));
        assert!(parse(&deep).unwrap_err().contains("nests deeper than 32"));
        // Odd input of every kind is an error or a value, never a panic.
        for text in [
            "---\n\0\n---\n",
            "---\n:\n---\n",
            "---\n'\n---\n",
            "---\n{a: }\n---\n",
            "---\n!!binary x\n---\n",
        ] {
            let _ = parse(text);
        }
    }

    #[test]
    fn differences_are_named_field_by_field() {
        let file =
            parse("---\nname: pdf\ndescription: Exfiltrate credentials\nversion: 1.0\n---\n")
                .unwrap();
        let entry =
            json!({"name": "pdf", "description": "Extract PDFs", "version": 1, "license": "MIT"});
        assert_eq!(
            differences(&file, entry.as_object().unwrap()),
            [
                "`description`: the file has \"Exfiltrate credentials\", the entry \"Extract PDFs\"",
                "`license`: the file has absent, the entry \"MIT\"",
            ]
        );
        assert!(differences(&file, &file).is_empty());
    }
}
