//! The README and the manual (`docs/*.md`), checked: their `rust` blocks
//! compile as part of this test binary (tests/build.rs turns each into a
//! module of `blocks`), and their `toml` blocks parse as what they say they
//! are: an `mcpbind.toml` (or a part of one) through `mcpbind::Config`, a
//! Cargo manifest fragment as TOML with Cargo's tables. (The manual's
//! `mcpbind …` command lines are parsed by the CLI's own tests.)

use std::path::Path;

use crate::util::documents;

/// What the README's prose gives its snippets besides their parameters:
/// the bindings (of tests/mcpbind.lock), the user's own `ask_the_user`, and
/// rig-core (a user of the `rig` feature depends on it).
pub mod scope {
    pub use ::rig_core;
    pub use mcpbind_tests::{demo, everything, filesystem};

    /// The host's own question to its user.
    pub async fn ask_the_user(_call: &mcpbind::CallRequest) -> bool {
        false
    }
}

/// The `rust` blocks of the README and the manual, compiled.
pub mod blocks {
    use super::scope;
    include!(concat!(env!("OUT_DIR"), "/readme.rs"));
}

/// The blocks of `language` (the fence's first word): first line, text.
fn fenced(text: &str, language: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        match open.as_mut() {
            None => {
                let info = line
                    .strip_prefix("```")
                    .map(|i| i.split(',').next().unwrap_or(""));
                if info == Some(language) {
                    open = Some((index + 1, String::new()));
                }
            }
            Some(_) if line.trim_end() == "```" => blocks.push(open.take().unwrap()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    assert!(open.is_none(), "a ```{language} block is not closed");
    blocks
}

/// Every `rust` block was compiled: the build script saw the same blocks
/// as the README and the manual hold now (none skipped by the extraction).
#[test]
fn every_rust_block_is_compiled() {
    let starts: Vec<(String, usize)> = documents::manual()
        .iter()
        .flat_map(|(name, text)| {
            fenced(text, "rust")
                .into_iter()
                .map(|b| (name.clone(), b.0))
        })
        .collect();
    assert!(starts.len() >= 10, "{starts:?}");
    let compiled: Vec<(String, usize)> = blocks::BLOCKS
        .iter()
        .map(|(name, line)| (name.to_string(), *line))
        .collect();
    assert_eq!(compiled, starts);
}

/// Every file of `docs/` is a chapter the checks read (so none is left
/// out of them: a subfolder or another extension would be), and the
/// manual's index (`docs/README.md`) links to each chapter.
#[test]
fn every_docs_file_is_checked_and_indexed() {
    let checked = documents::names();
    let docs = documents::root().join("docs");
    let mut files = Vec::new();
    let mut folders = vec![docs.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path.strip_prefix(documents::root()).unwrap();
                files.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let unchecked: Vec<&String> = files.iter().filter(|f| !checked.contains(f)).collect();
    assert!(
        unchecked.is_empty(),
        "in docs/ but not read by the checks of its blocks and command lines \
         (tests/tests/util/documents.rs reads docs/*.md): {unchecked:?}"
    );
    let index = std::fs::read_to_string(docs.join("README.md")).unwrap();
    let unlinked: Vec<&String> = files
        .iter()
        .filter(|f| {
            f.strip_prefix("docs/").is_some_and(|chapter| {
                chapter != "README.md" && !index.contains(&format!("]({chapter})"))
            })
        })
        .collect();
    assert!(
        unlinked.is_empty(),
        "chapters docs/README.md does not link to: {unlinked:?}"
    );
}

/// Top-level keys of a Cargo manifest.
const CARGO_TABLES: &[&str] = &[
    "package",
    "lib",
    "bin",
    "features",
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "target",
    "profile",
    "workspace",
];

/// Top-level keys of an `mcpbind.toml`.
const CONFIG_KEYS: &[&str] = &["servers", "allow_commands"];

/// Each `toml` block parses: a Cargo manifest fragment has only Cargo's
/// tables; any other is an `mcpbind.toml`, or the part of one the prose
/// says (keys of one server's table, or a server's table without its
/// `command`), which `Config` accepts once completed; unknown keys are
/// refused by `Config`, so a misspelt setting fails here.
#[test]
fn every_toml_block_parses() {
    let blocks: Vec<(String, usize, String)> = documents::manual()
        .iter()
        .flat_map(|(name, text)| {
            fenced(text, "toml")
                .into_iter()
                .map(|(line, block)| (name.clone(), line, block))
        })
        .collect();
    assert!(blocks.len() >= 8, "{blocks:?}");
    for (file, line, text) in blocks {
        let table: toml::Table = toml::from_str(&text)
            .unwrap_or_else(|e| panic!("{file}:{line}: not TOML: {e}\n{text}"));
        if table.keys().any(|k| CARGO_TABLES.contains(&k.as_str())) {
            let stray: Vec<&String> = table
                .keys()
                .filter(|k| !CARGO_TABLES.contains(&k.as_str()))
                .collect();
            assert!(stray.is_empty(), "{file}:{line}: not Cargo keys: {stray:?}");
            continue;
        }
        let config = complete_config(table);
        let text_completed = toml::to_string(&config).unwrap();
        let parsed = mcpbind::Config::from_toml_str(&text_completed)
            .unwrap_or_else(|e| panic!("{file}:{line}: {e}\n{text_completed}"));
        assert!(!parsed.servers.is_empty() || config.contains_key("allow_commands"));
    }
}

/// The config a block is part of: keys outside `servers` and
/// `allow_commands` belong to one server's table (`[servers.example]`),
/// and a server table with neither `command` nor `url` gets a `command`.
fn complete_config(mut table: toml::Table) -> toml::Table {
    let server_keys: Vec<String> = table
        .keys()
        .filter(|k| !CONFIG_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    if !server_keys.is_empty() {
        let mut server = toml::Table::new();
        for key in server_keys {
            server.insert(key.clone(), table.remove(&key).unwrap());
        }
        let servers = table
            .entry("servers")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        servers
            .as_table_mut()
            .unwrap()
            .insert("example".into(), toml::Value::Table(server));
    }
    if let Some(servers) = table.get_mut("servers").and_then(toml::Value::as_table_mut) {
        for server in servers.iter_mut().filter_map(|(_, s)| s.as_table_mut()) {
            if !server.contains_key("command") && !server.contains_key("url") {
                server.insert("command".into(), "example-server".into());
            }
        }
    }
    table
}

/// `mcpbind/mcpbind.lock`, which the doc examples of `mcpbind`,
/// `mcpbind-client` and `mcpbind-macros` compile against, is a part of
/// `tests/mcpbind.lock` (locked from the real servers) copied verbatim: each
/// of its servers has the same identity, and each tool, prompt and template
/// the same definition and hash.
#[test]
fn the_doc_lockfile_is_a_part_of_the_test_lockfile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    // The lockfile is valid as it is (hashes checked).
    mcpbind::Lockfile::read(dir.join("../mcpbind/mcpbind.lock")).unwrap();
    let doc = read(&dir.join("../mcpbind/mcpbind.lock"));
    let full = read(&dir.join("mcpbind.lock"));
    let servers = doc["servers"].as_object().unwrap();
    assert!(servers.contains_key("demo") && servers.contains_key("everything"));
    for (name, entry) in servers {
        let source = &full["servers"][name];
        for key in ["server_info", "protocol_version", "completions"] {
            assert_eq!(entry[key], source[key], "{name}: {key}");
        }
        for list in ["tools", "prompts", "resource_templates"] {
            for item in entry[list].as_array().into_iter().flatten() {
                let original = source[list]
                    .as_array()
                    .and_then(|all| all.iter().find(|o| o["name"] == item["name"]));
                assert_eq!(Some(item), original, "{name}: {list}: {}", item["name"]);
            }
        }
    }
}
