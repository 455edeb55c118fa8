//! A stdio server's `command`, as the platform's shell would find it, and
//! `allow_commands` matched against it: what the client's stdio transport
//! runs (`mcpbind-client`, `connect/stdio.rs`). With `is_safe_env`
//! (`config.rs`) it is the model's part of launching a server: rules of the
//! config, in plain std, tested on every platform.
//!
//! On Windows a bare command is found through `PATH` and `PATHEXT`. std's
//! `Command` finds only `NAME.exe` there, and the commands users write most
//! (`npx`, `uvx` from some installers, `pnpm`) are `NAME.cmd`, so `command =
//! "npx"` would fail to start. On Windows the spawn runs what [`launched`]
//! returns; elsewhere the program is left to `execvp`, which finds it as the
//! shell does. [`find`] and [`allows`] take `PATH`, `PATHEXT` and the file
//! probe as inputs: they are the same on every platform, and tested on
//! Linux.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// What std can start: `.exe` and `.com` through `CreateProcess`, `.bat` and
/// `.cmd` through `cmd.exe /c` (a `.vbs` or `.js` in `PATHEXT` needs
/// another host, and is skipped).
const RUNNABLE: [&str; 4] = [".com", ".exe", ".bat", ".cmd"];

/// `PATHEXT` when it is unset or lists nothing std can start.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// Whether `program` is a bare name (looked up on `PATH`) rather than a
/// path: no `/`, no `\` and no drive (`C:`).
pub(crate) fn is_bare(program: &str) -> bool {
    !program.is_empty() && !program.contains(['/', '\\', ':'])
}

/// The extensions of `PATHEXT` that std can start, lowercase, in its order.
fn extensions(pathext: Option<&str>) -> Vec<String> {
    let listed = |text: &str| -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for ext in text.split(';').map(|e| e.trim().to_ascii_lowercase()) {
            if RUNNABLE.contains(&ext.as_str()) && !found.contains(&ext) {
                found.push(ext);
            }
        }
        found
    };
    match pathext.map(listed) {
        Some(found) if !found.is_empty() => found,
        _ => listed(DEFAULT_PATHEXT),
    }
}

/// The runnable extension `name` already ends with, if any.
fn runnable_extension<'a>(name: &'a str, extensions: &[String]) -> Option<&'a str> {
    let dot = name.rfind('.')?;
    let ext = &name[dot..];
    extensions
        .iter()
        .any(|e| e.eq_ignore_ascii_case(ext))
        .then_some(ext)
}

/// The file a bare `program` names, as `cmd.exe` finds it: each directory
/// of `path` in order, and in each, `program` itself when it already ends
/// with an extension of `PATHEXT`, else `program` with each extension of
/// `PATHEXT` in order (`npx` → `npx.cmd`). `None` for a path, or when
/// nothing is found (std then reports the program missing).
pub(crate) fn find(
    program: &str,
    path: impl IntoIterator<Item = PathBuf>,
    pathext: Option<&str>,
    is_file: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    if !is_bare(program) {
        return None;
    }
    let extensions = extensions(pathext);
    let names: Vec<String> = match runnable_extension(program, &extensions) {
        Some(_) => vec![program.to_owned()],
        None => extensions
            .iter()
            .map(|ext| format!("{program}{ext}"))
            .collect(),
    };
    path.into_iter()
        .filter(|dir| !dir.as_os_str().is_empty())
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| is_file(candidate))
}

/// Whether `program` names a batch file (`.bat`, `.cmd`), which std starts
/// through `cmd.exe` and refuses to pass an argument it cannot quote
/// safely for it (CVE-2024-24576).
pub fn is_batch_file(program: &Path) -> bool {
    program
        .extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ext.eq_ignore_ascii_case("bat") || ext.eq_ignore_ascii_case("cmd"))
}

/// Whether the `allow_commands` entry `entry` allows `program` as Windows
/// finds commands: a bare name allows the same name in any case, with or
/// without an extension of `PATHEXT` (`npx` allows `npx`, `NPX` and
/// `npx.cmd`); a path allows that path alone.
pub(crate) fn allows(entry: &str, program: &str, pathext: Option<&str>) -> bool {
    if !(is_bare(entry) && is_bare(program)) {
        return entry == program;
    }
    let extensions = extensions(pathext);
    let strip = |name: &str| -> String {
        match runnable_extension(name, &extensions) {
            Some(ext) => name[..name.len() - ext.len()].to_owned(),
            None => name.to_owned(),
        }
    };
    strip(entry).eq_ignore_ascii_case(&strip(program))
}

/// Whether `program` is in `allowed` (`allow_commands`): an entry with a
/// `/` is an exact path, one without matches only that bare name (looked
/// up on `PATH`; on Windows in any case and with or without an extension
/// of `PATHEXT`, as the shell finds it: `npx` allows `npx.cmd`).
pub fn allowed(program: &str, allowed: &[String]) -> bool {
    let pathext = std::env::var("PATHEXT").ok();
    allowed.iter().any(|entry| {
        entry == program || (cfg!(windows) && allows(entry, program, pathext.as_deref()))
    })
}

/// The program to start: on Windows a bare name as the shell finds it,
/// through the server's `PATH` (else ours) and `PATHEXT` (`npx` →
/// `C:\...\npx.cmd`, which std alone would not find); elsewhere `program`
/// itself, which `execvp` finds on `PATH`.
pub fn launched(program: &str, path: Option<&OsStr>) -> PathBuf {
    if cfg!(windows) {
        let path = path
            .map(OsString::from)
            .or_else(|| std::env::var_os("PATH"));
        let pathext = std::env::var("PATHEXT").ok();
        let dirs = path.iter().flat_map(std::env::split_paths);
        if let Some(found) = find(program, dirs, pathext.as_deref(), Path::is_file) {
            return found;
        }
    }
    PathBuf::from(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic PATH: `dirs` under a new temp dir, with `files` made in
    /// them (`"bin/npx.cmd"`).
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str, files: &[&str]) -> Tree {
            let root =
                std::env::temp_dir().join(format!("mcpbind-lookup-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for file in files {
                let file = root.join(file);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, "").unwrap();
            }
            Tree(root)
        }

        fn dirs(&self, dirs: &[&str]) -> Vec<PathBuf> {
            dirs.iter().map(|d| self.0.join(d)).collect()
        }

        fn find(&self, program: &str, dirs: &[&str], pathext: Option<&str>) -> Option<String> {
            let found = find(program, self.dirs(dirs), pathext, Path::is_file)?;
            let relative = found.strip_prefix(&self.0).unwrap();
            Some(relative.to_string_lossy().into_owned())
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const PATHEXT: Option<&str> = Some(".COM;.EXE;.BAT;.CMD;.VBS;.VBE;.JS;.JSE;.WSF;.WSH;.MSC");

    #[test]
    fn npx_is_found_as_npx_cmd() {
        let tree = Tree::new("npx", &["node/npx", "node/npx.cmd", "node/npx.ps1"]);
        assert_eq!(
            tree.find("npx", &["empty", "node"], PATHEXT).as_deref(),
            Some("node/npx.cmd")
        );
        // Not the extensionless shell script beside it (std would take it
        // for a program and fail).
        assert_ne!(
            tree.find("npx", &["node"], PATHEXT).as_deref(),
            Some("node/npx")
        );
    }

    #[test]
    fn path_order_comes_before_pathext_order() {
        let tree = Tree::new("order", &["a/tool.cmd", "b/tool.exe", "a/tool.bat"]);
        // In the first directory that has any: `.bat` before `.cmd`, as
        // PATHEXT lists them; `b/tool.exe` is in a later directory.
        assert_eq!(
            tree.find("tool", &["a", "b"], PATHEXT).as_deref(),
            Some("a/tool.bat")
        );
        assert_eq!(
            tree.find("tool", &["b", "a"], PATHEXT).as_deref(),
            Some("b/tool.exe")
        );
        assert_eq!(
            tree.find("tool", &["a"], Some(".CMD;.BAT")).as_deref(),
            Some("a/tool.cmd")
        );
    }

    #[test]
    fn an_extension_already_there_is_kept() {
        let tree = Tree::new(
            "ext",
            &["bin/npx.cmd", "bin/npx.cmd.exe", "bin/server.v2.exe"],
        );
        assert_eq!(
            tree.find("npx.cmd", &["bin"], PATHEXT).as_deref(),
            Some("bin/npx.cmd")
        );
        assert_eq!(
            tree.find("server.v2", &["bin"], PATHEXT).as_deref(),
            Some("bin/server.v2.exe")
        );
    }

    #[test]
    fn only_what_std_can_start_is_tried() {
        let tree = Tree::new(
            "runnable",
            &["bin/script.vbs", "bin/script.js", "bin/tool.exe"],
        );
        assert_eq!(tree.find("script", &["bin"], PATHEXT), None);
        // Unset, or listing nothing std can start: the default list.
        assert_eq!(
            tree.find("tool", &["bin"], None).as_deref(),
            Some("bin/tool.exe")
        );
        assert_eq!(
            tree.find("tool", &["bin"], Some(".VBS")).as_deref(),
            Some("bin/tool.exe")
        );
        assert_eq!(
            tree.find("tool", &["bin"], Some(" .exe ; ")).as_deref(),
            Some("bin/tool.exe")
        );
    }

    #[test]
    fn paths_and_directories_are_not_looked_up() {
        let tree = Tree::new("paths", &["bin/tool.exe", "bin/dir.exe/x"]);
        assert_eq!(tree.find("./tool", &["bin"], PATHEXT), None);
        assert_eq!(tree.find(r"bin\tool", &["bin"], PATHEXT), None);
        assert_eq!(tree.find("C:tool", &["bin"], PATHEXT), None);
        assert_eq!(tree.find("", &["bin"], PATHEXT), None);
        // A directory named like a program is not one.
        assert_eq!(tree.find("dir", &["bin"], PATHEXT), None);
        // An empty PATH entry is not the current directory.
        assert_eq!(find("tool", [PathBuf::new()], PATHEXT, |_| true), None);
    }

    #[test]
    fn a_bare_allowed_name_allows_what_the_shell_finds() {
        assert!(allows("npx", "npx", PATHEXT));
        assert!(allows("npx", "npx.cmd", PATHEXT));
        assert!(allows("npx", "NPX.CMD", PATHEXT));
        assert!(allows("npx.cmd", "npx", PATHEXT));
        assert!(!allows("npx", "npm", PATHEXT));
        assert!(!allows("npx", "npx.ps1", PATHEXT));
        assert!(!allows("npx", "npx.js", PATHEXT));
        // A path allows that path alone, and a bare name no path.
        assert!(!allows("npx", r".\npx.cmd", PATHEXT));
        assert!(!allows("npx", r"C:\tmp\npx.cmd", PATHEXT));
        assert!(allows(r"C:\node\npx.cmd", r"C:\node\npx.cmd", PATHEXT));
        assert!(!allows(r"C:\node\npx.cmd", "npx", PATHEXT));
    }

    #[test]
    fn batch_files_are_told_apart() {
        assert!(is_batch_file(Path::new(r"C:\node\npx.cmd")));
        assert!(is_batch_file(Path::new("setup.BAT")));
        assert!(!is_batch_file(Path::new("node.exe")));
        assert!(!is_batch_file(Path::new("npx")));
    }
}
