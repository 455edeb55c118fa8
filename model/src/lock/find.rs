//! Where the lockfile is: one lookup for the `build.rs` `Builder`, the
//! `mcp_tools!` macro and the CLI, in sqlx's order.

use std::path::{Path, PathBuf};

use super::LockError;

/// The lockfile's default name.
pub const LOCKFILE_NAME: &str = "mcpbind.lock";

/// The environment variable that overrides which lockfile is read (and, by
/// `mcpbind lock`, written).
pub const LOCKFILE_ENV: &str = "MCPBIND_LOCKFILE";

/// The config's default name.
pub(crate) const CONFIG_NAME: &str = "mcpbind.toml";

/// The config that goes with `lockfile` when none is named: the
/// `mcpbind.toml` beside it, as cargo finds a package's manifest (one rule
/// for the `build.rs` `Builder`, `mcp_tools!` and `mcpbind generate`).
/// Whether it exists is the caller's to see: without one, bindings are
/// advise-mode.
pub fn config_beside(lockfile: &Path) -> PathBuf {
    lockfile.with_file_name(CONFIG_NAME)
}

/// Finds the lockfile, looking in this order (sqlx's, for its query cache):
///
/// 1. `MCPBIND_LOCKFILE`, when set: it overrides `path`, and a relative
///    value is relative to `crate_dir`;
/// 2. `path` itself when it is absolute, else `crate_dir/path` (the
///    crate's `CARGO_MANIFEST_DIR` for the `Builder` and the macro; for the
///    CLI, the config file's directory, or the current directory when
///    `--lockfile` names the file);
/// 3. `path` relative to the workspace root: the nearest directory above
///    `crate_dir` whose `Cargo.toml` has a `[workspace]` table.
///
/// `path` is usually [`LOCKFILE_NAME`].
///
/// # Errors
///
/// [`LockError::Missing`], listing every place it looked.
pub fn find_lockfile(path: &Path, crate_dir: &Path) -> Result<PathBuf, LockError> {
    find_lockfile_in(path, crate_dir, lockfile_env().as_deref())
}

/// `MCPBIND_LOCKFILE`, when set and not empty: read once per lookup, so
/// that the lookup itself ([`find_lockfile_in`]) is a function of its
/// arguments.
fn lockfile_env() -> Option<std::ffi::OsString> {
    std::env::var_os(LOCKFILE_ENV).filter(|v| !v.is_empty())
}

/// [`find_lockfile`] with the variable's value given.
fn find_lockfile_in(
    path: &Path,
    crate_dir: &Path,
    env: Option<&std::ffi::OsStr>,
) -> Result<PathBuf, LockError> {
    let looked = candidates_in(path, crate_dir, env);
    // Whatever is there (a directory, a FIFO) is found, and then refused
    // by the reader with what it is, rather than called missing.
    if let Some(found) = looked.iter().find(|p| std::fs::metadata(p).is_ok()) {
        return Ok(found.clone());
    }
    Err(LockError::Missing {
        path: env.map_or_else(|| path.to_owned(), PathBuf::from),
        looked,
    })
}

/// The places [`find_lockfile`] looks, in order. The first is where a new
/// lockfile goes.
pub fn lockfile_candidates(path: &Path, crate_dir: &Path) -> Vec<PathBuf> {
    candidates_in(path, crate_dir, lockfile_env().as_deref())
}

/// [`lockfile_candidates`] with the variable's value given.
fn candidates_in(path: &Path, crate_dir: &Path, env: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    if let Some(env) = env {
        return vec![crate_dir.join(env)];
    }
    let first = crate_dir.join(path);
    if path.is_absolute() {
        return vec![first];
    }
    let mut looked = vec![first];
    if let Some(root) = workspace_root(crate_dir) {
        let at_root = root.join(path);
        if absolute(&at_root) != absolute(&looked[0]) {
            looked.push(at_root);
        }
    }
    looked
}

/// The nearest directory at or above `dir` whose `Cargo.toml` has a
/// `[workspace]` table.
pub fn workspace_root(dir: &Path) -> Option<PathBuf> {
    absolute(dir).ancestors().find_map(|dir| {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        let table: toml::Table = manifest.parse().ok()?;
        table.contains_key("workspace").then(|| dir.to_owned())
    })
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_owned();
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workspace with a member crate; the lockfile at the root only.
    #[test]
    fn crate_dir_then_workspace_root() {
        // The lookup with the variable unset, whatever this process has
        // (the override is tested below, and through the CLI in
        // tests/tests/cli.rs).
        let find_lockfile = |path: &Path, dir: &Path| find_lockfile_in(path, dir, None);
        let root = std::env::temp_dir().join(format!("mcpbind-find-{}", std::process::id()));
        let member = root.join("crates/app");
        std::fs::create_dir_all(&member).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/app\"]\n",
        )
        .unwrap();
        std::fs::write(member.join("Cargo.toml"), "[package]\nname = \"app\"\n").unwrap();
        let name = Path::new(LOCKFILE_NAME);

        let err = find_lockfile(name, &member).unwrap_err();
        let LockError::Missing { looked, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(looked, &[member.join(name), root.join(name)]);
        assert_eq!(
            err.to_string(),
            format!(
                "mcpbind.lock not found (looked at {}, {})",
                member.join(name).display(),
                root.join(name).display()
            )
        );

        std::fs::write(root.join(name), "{}").unwrap();
        assert_eq!(find_lockfile(name, &member).unwrap(), root.join(name));
        std::fs::write(member.join(name), "{}").unwrap();
        assert_eq!(find_lockfile(name, &member).unwrap(), member.join(name));
        assert_eq!(workspace_root(&member).unwrap(), root);

        // The variable overrides both, relative to the crate dir; a missing
        // override names the variable's value and looks nowhere else.
        let other = std::ffi::OsStr::new("other.lock");
        assert_eq!(
            candidates_in(name, &member, Some(other)),
            [member.join("other.lock")]
        );
        let err = find_lockfile_in(name, &member, Some(other)).unwrap_err();
        let LockError::Missing { path, looked } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(path, Path::new("other.lock"));
        assert_eq!(looked, &[member.join("other.lock")]);
        std::fs::write(member.join("other.lock"), "{}").unwrap();
        assert_eq!(
            find_lockfile_in(name, &member, Some(other)).unwrap(),
            member.join("other.lock")
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
