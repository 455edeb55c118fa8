//! The lockfile reader and the diff against inputs no test names: a seeded
//! generator (the same cases every run, so a failure reproduces) mutates a
//! real lockfile, as text for the reader and as schemas for the diff, and
//! checks that each ends in a value or a typed error, never a panic, in a
//! few seconds. (`codegen/fuzz` is the coverage-guided twin for the
//! generator; it needs a nightly toolchain CI doesn't have.)

use std::path::Path;

use serde_json::{json, Value};

use super::{classify_tool, ServerDiff};
use mcpbind_model::lock::{LockedTool, Lockfile};

/// xorshift64*: small, seeded, enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seed_lockfile() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/prompts.lock");
    std::fs::read_to_string(path).expect("tests/prompts.lock")
}

/// Text that a careless editor, a merge or a broken disk could leave.
fn mutate_text(text: &str, rng: &mut Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len());
    match rng.below(7) {
        0 => chars.truncate(at),
        1 => {
            let pick = [
                '{', '}', '[', ']', '"', ',', ':', '\\', '0', '\u{202e}', '\u{0}',
            ];
            chars[at] = pick[rng.below(pick.len())];
        }
        2 => insert(&mut chars, at, &"[".repeat(rng.below(5_000))),
        3 => insert(&mut chars, at, "<<<<<<< HEAD\n"),
        4 => insert(&mut chars, at, "1e999999"),
        5 => {
            let end = (at + rng.below(200)).min(chars.len());
            chars.drain(at..end);
        }
        _ => insert(&mut chars, at, ",\"lockfile_version\":2"),
    }
    chars.into_iter().collect()
}

fn insert(chars: &mut Vec<char>, at: usize, text: &str) {
    chars.splice(at..at, text.chars());
}

/// A schema changed somewhere deep, wide or oddly.
fn mutate_schema(schema: &mut Value, rng: &mut Rng) {
    // A random path of objects and arrays, as a JSON pointer.
    let mut pointer = String::new();
    let mut node = &*schema;
    for _ in 0..rng.below(6) {
        let step = match node {
            Value::Object(map) if !map.is_empty() => map
                .iter()
                .nth(rng.below(map.len()))
                .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v)),
            Value::Array(items) if !items.is_empty() => {
                let i = rng.below(items.len());
                Some((i.to_string(), &items[i]))
            }
            _ => None,
        };
        let Some((key, next)) = step else { break };
        pointer = format!("{pointer}/{key}");
        node = next;
    }
    let Some(node) = schema.pointer_mut(&pointer) else {
        return;
    };
    *node = match rng.below(6) {
        0 => json!({"type": ["string", "integer", "null"]}),
        1 => json!({"$ref": "#/$defs/missing"}),
        2 => {
            let mut deep = json!({"type": "string"});
            for _ in 0..rng.below(300) {
                deep = json!({"anyOf": [deep, {"items": {"type": "object"}}]});
            }
            deep
        }
        3 => json!({"$ref": "#"}),
        4 => json!(1e300),
        _ => Value::Null,
    };
}

#[test]
fn mutated_lockfiles_are_read_or_refused_never_a_panic() {
    let seed = seed_lockfile();
    let original = Lockfile::parse(&seed, Path::new("prompts.lock")).expect("the seed reads");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut read, mut refused) = (0, 0);
    for _ in 0..1_500 {
        let text = mutate_text(&seed, &mut rng);
        match Lockfile::parse(&text, Path::new("mutated.lock")) {
            Ok(lock) => {
                read += 1;
                for (name, server) in &lock.servers {
                    if let Some(old) = original.servers.get(name) {
                        let _ = ServerDiff::new(old, server).summary();
                    }
                }
            }
            Err(error) => {
                refused += 1;
                assert!(!error.to_string().is_empty());
            }
        }
    }
    // Both kinds of case were met: the generator is not a no-op.
    assert!(read > 0 && refused > 0, "read {read}, refused {refused}");
}

#[test]
fn mutated_schemas_are_classified_never_a_panic() {
    let seed = seed_lockfile();
    let original = Lockfile::parse(&seed, Path::new("prompts.lock")).expect("the seed reads");
    let tools: Vec<&LockedTool> = original.servers.values().flat_map(|s| &s.tools).collect();
    assert!(!tools.is_empty(), "the seed has tools");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..400 {
        let tool = tools[rng.below(tools.len())];
        let mut definition = tool.definition.clone();
        mutate_schema(&mut definition, &mut rng);
        let _ = classify_tool(&tool.definition, &definition);
        if let Some(changed) = LockedTool::new(definition) {
            let diff = ServerDiff::tools(std::slice::from_ref(tool), &[changed]);
            let _ = (diff.summary(), diff.drift_lines());
        }
    }
}
