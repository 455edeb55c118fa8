//! Projects the CLI's tests run `mcpbind` in: one locked against the demo
//! server (its lockfile then edited to differ from the server), and
//! servers of `tests/servers/durability.py`.

use std::path::Path;

use super::{bin, mcpbind, tests_dir, toml_str, Output};

/// An `mcpbind.toml` with the demo server over stdio, and `extra` keys in
/// its table.
pub fn demo_config(extra: &str) -> String {
    format!(
        "[servers.demo]\ncommand = {}\n{extra}",
        toml_str(&bin("mcpbind-demo-server").display().to_string())
    )
}

/// A project locked against the demo server over stdio.
pub fn demo_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("mcpbind.toml"), demo_config("")).unwrap();
    let out = mcpbind(dir.path(), &["lock"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    dir
}

/// `mcpbind lock` in `dir` with `config` as its `mcpbind.toml`; whatever it
/// says, it does not panic.
pub fn lock_with(dir: &Path, config: &str) -> Output {
    std::fs::write(dir.join("mcpbind.toml"), config).unwrap();
    let out = mcpbind(dir, &["lock"]);
    assert!(!out.stderr.contains("panicked"), "{out:?}");
    out
}

/// Edits the lockfile's JSON (re-hashing every tool of `demo`).
pub fn edit_lock(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = dir.join("mcpbind.lock");
    let mut lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut lock);
    for tool in lock["servers"]["demo"]["tools"].as_array_mut().unwrap() {
        tool["sha256"] = mcpbind::hash::sha256_hex(&tool["definition"]).into();
    }
    std::fs::write(&path, serde_json::to_string_pretty(&lock).unwrap()).unwrap();
}

/// The locked `add` calls its first parameter `augend`; the live server
/// says `a`: a breaking change (a required param added).
pub fn break_add(dir: &Path) {
    edit_lock(dir, |lock| {
        let add = lock["servers"]["demo"]["tools"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|t| t["name"] == "add")
            .unwrap();
        let props = add["definition"]["inputSchema"]["properties"]
            .as_object_mut()
            .unwrap();
        let a = props.remove("a").unwrap();
        props.insert("augend".into(), a);
    });
}

/// The `mcpbind.toml` table of server `name`: `durability.py MODE ARG`.
pub fn durability_server(name: &str, mode: &str, arg: &str) -> String {
    let script = tests_dir().join("servers/durability.py");
    format!(
        "[servers.{name}]\ncommand = \"python3\"\nargs = [{}, {}, {}]\n\n",
        toml_str(&script.display().to_string()),
        toml_str(mode),
        toml_str(arg)
    )
}
