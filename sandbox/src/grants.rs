//! What a confined server is granted on its own, beyond its config: the
//! scripts it runs (each alone, or its package), everything but HOME when
//! `home = "isolated"` is the only file setting, and package-manager caches
//! of its own.

use std::path::{Path, PathBuf};

/// The agent's HOME, through symlinks; `None` when unset, relative or `/`
/// (nothing to hide).
pub(crate) fn agent_home() -> Option<PathBuf> {
    let home = PathBuf::from(std::env::var_os("HOME")?);
    if !home.is_absolute() {
        return None;
    }
    let real = std::fs::canonicalize(&home).unwrap_or(home);
    (real != Path::new("/")).then_some(real)
}

/// Everything but `home`, as Landlock rules can say it (it only allows):
/// each entry of each directory along HOME's path, except the one leading
/// to HOME. Fixed at spawn: an entry made later in `/` or `/home` is not
/// granted, and those directories themselves cannot be listed. `/proc` is
/// left out too (other processes' entries, their environments among them;
/// the server keeps its own, `/proc/self`).
pub(crate) fn all_but(home: &Path) -> Vec<PathBuf> {
    let mut granted = Vec::new();
    for dir in home.ancestors().skip(1) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if home.starts_with(&path) || path == Path::new("/proc") {
                continue;
            }
            // A symlink into HOME would lead back into it.
            if std::fs::canonicalize(&path).is_ok_and(|real| real.starts_with(home)) {
                continue;
            }
            granted.push(path);
        }
    }
    granted
}

/// The server's working directory when it is inside `home` (a project
/// there), but not HOME itself.
pub(crate) fn cwd_in(home: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    let cwd = match cwd {
        Some(cwd) => cwd.to_owned(),
        None => std::env::current_dir().ok()?,
    };
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    (cwd.starts_with(home) && cwd != home).then_some(cwd)
}

/// What running `path` (a script) needs: its package (see [`package_of`]),
/// else the script alone, not its folder; for the path as given and
/// through its symlinks (a `node_modules/.bin` entry).
pub(crate) fn script(path: &Path) -> Vec<PathBuf> {
    let mut grants = Vec::new();
    let real = std::fs::canonicalize(path).ok();
    for path in std::iter::once(path).chain(real.as_deref()) {
        match package_of(path) {
            Some(package) => grants.extend(package),
            None => grants.push(path.to_owned()),
        }
    }
    grants
}

/// The package a script belongs to: the venv it is in (a `pyvenv.cfg`
/// above it); for JavaScript, the nearest directory above it with a
/// `package.json` (not past a `node_modules`, so a `.bin` link is not a
/// package) and every `node_modules` Node resolves from, the hoisted ones
/// above the package included. `None` for a script on its own; HOME and
/// `/` are never a package.
fn package_of(script: &Path) -> Option<Vec<PathBuf>> {
    let home = agent_home();
    let ancestors = || {
        script
            .ancestors()
            .skip(1)
            .take_while(|dir| *dir != Path::new("/") && Some(*dir) != home.as_deref())
    };
    if let Some(venv) = ancestors().find(|dir| dir.join("pyvenv.cfg").is_file()) {
        return Some(vec![venv.to_owned()]);
    }
    if !is_javascript(script) {
        return None;
    }
    let root = ancestors()
        .take_while(|dir| dir.file_name().is_none_or(|n| n != "node_modules"))
        .find(|dir| dir.join("package.json").is_file())?;
    let mut grants = vec![root.to_owned()];
    grants.extend(
        root.ancestors()
            .map(|dir| dir.join("node_modules"))
            .filter(|dir| dir.is_dir()),
    );
    Some(grants)
}

fn is_javascript(script: &Path) -> bool {
    let ext = script.extension().and_then(|e| e.to_str());
    matches!(ext, Some("js" | "mjs" | "cjs"))
        || script.components().any(|c| c.as_os_str() == "node_modules")
}

/// What a confined package manager gets instead of the agent's caches.
#[derive(Debug, Default)]
pub(crate) struct Caches {
    pub(crate) env: Vec<(&'static str, PathBuf)>,
    pub(crate) write: Vec<PathBuf>,
    pub(crate) read: Vec<PathBuf>,
}

/// Caches of the server's own for `npx`/`npm` and `uvx`/`uv`, kept between
/// its starts (under `$XDG_CACHE_HOME/mcpbind/sandbox/`, one per server
/// and command): a confined server can write only there, never into the
/// agent's `~/.npm` or `~/.cache/uv`, which unconfined runs execute from.
/// The agent's uv-managed Pythons stay readable (not writable).
pub(crate) fn private_caches(
    server: &str,
    program: &str,
    args: &[String],
    home: Option<&Path>,
) -> std::io::Result<Caches> {
    let name = Path::new(program).file_name().and_then(|n| n.to_str());
    let dirs: &[(&str, &str)] = match name {
        Some("npx" | "npm") => &[("npm_config_cache", "npm")],
        Some("uvx" | "uv") => &[("UV_CACHE_DIR", "uv-cache"), ("UV_TOOL_DIR", "uv-tools")],
        _ => return Ok(Caches::default()),
    };
    let root = cache_root(home).join(format!("{server}-{:016x}", fingerprint(program, args)));
    let mut caches = Caches::default();
    for (var, sub) in dirs {
        let dir = root.join(sub);
        std::fs::create_dir_all(&dir)?;
        caches.env.push((var, dir.clone()));
        caches.write.push(dir);
    }
    if name.is_some_and(|n| n.starts_with("uv")) {
        if let Some(home) = home {
            caches.read.push(home.join(".local/share/uv/python"));
        }
    }
    Ok(caches)
}

/// `$XDG_CACHE_HOME/mcpbind/sandbox` (else `~/.cache/…`, else the temp
/// dir).
fn cache_root(home: Option<&Path>) -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home.map(|h| h.join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("mcpbind").join("sandbox")
}

/// FNV-1a of the command: a server whose command changes gets a new cache.
fn fingerprint(program: &str, args: &[String]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in std::iter::once(program).chain(args.iter().map(String::as_str)) {
        for byte in part.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandbox_grants_a_script_alone_and_a_package_with_its_node_modules() {
        let dir = tempfile_dir("grants");
        let lone = dir.join("tools/server.py");
        let pkg = dir.join("app/node_modules/@s/srv");
        for d in [
            lone.parent().unwrap(),
            &pkg.join("dist"),
            &pkg.join("node_modules"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&lone, "print()").unwrap();
        std::fs::write(pkg.join("package.json"), "{}").unwrap();
        std::fs::write(dir.join("app/package.json"), "{}").unwrap();
        std::fs::write(pkg.join("dist/index.js"), "").unwrap();
        assert_eq!(script(&lone), [lone.clone(), lone.clone()]);
        let grants = script(&pkg.join("dist/index.js"));
        assert_eq!(
            grants[..3],
            [
                pkg.clone(),
                pkg.join("node_modules"),
                dir.join("app/node_modules")
            ]
        );
        // A `.bin` link is not a package: `app/package.json` is past it.
        let bin = dir.join("app/node_modules/.bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("srv"), "").unwrap();
        assert_eq!(script(&bin.join("srv"))[0], bin.join("srv"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sandbox_grants_everything_but_home_along_its_path() {
        let dir = tempfile_dir("all-but");
        let home = dir.join("home/alice");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(dir.join("home/bob")).unwrap();
        std::fs::create_dir_all(dir.join("usr")).unwrap();
        let granted = all_but(&home);
        assert!(granted.contains(&dir.join("home/bob")), "{granted:?}");
        assert!(granted.contains(&dir.join("usr")), "{granted:?}");
        assert!(!granted.iter().any(|p| home.starts_with(p)), "{granted:?}");
        assert!(!granted.contains(&PathBuf::from("/proc")), "{granted:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sandbox_gives_npx_and_uvx_caches_of_their_own() {
        let home = tempfile_dir("caches");
        for (program, vars) in [
            ("npx", &["npm_config_cache"][..]),
            ("/usr/bin/uvx", &["UV_CACHE_DIR", "UV_TOOL_DIR"][..]),
        ] {
            let args = ["-y".to_owned(), format!("pkg-{}", std::process::id())];
            let caches = private_caches("srv", program, &args, Some(&home)).unwrap();
            let names: Vec<&str> = caches.env.iter().map(|(var, _)| *var).collect();
            assert_eq!(names, vars, "{program}");
            for (_, dir) in &caches.env {
                assert!(dir.is_dir() && caches.write.contains(dir), "{dir:?}");
                assert!(
                    !dir.starts_with(home.join(".npm")) && !dir.starts_with(home.join(".cache/uv"))
                );
                let root = dir.parent().unwrap();
                assert!(root
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .starts_with("srv-"));
                assert!(root.parent().unwrap().ends_with("mcpbind/sandbox"));
            }
            let _ = std::fs::remove_dir_all(caches.env[0].1.parent().unwrap());
        }
        assert!(private_caches("srv", "node", &[], Some(&home))
            .unwrap()
            .env
            .is_empty());
        std::fs::remove_dir_all(&home).unwrap();
    }

    fn tempfile_dir(what: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcpbind-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::canonicalize(dir).unwrap()
    }
}
