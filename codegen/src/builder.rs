//! The `build.rs` helper, after prost-build's `Config`.

use std::path::{Path, PathBuf};

use mcpbind_model::lock::{
    config_beside, find_lockfile, lockfile_candidates, LockError, LOCKFILE_ENV, LOCKFILE_NAME,
};

use mcpbind_model::lock::Lockfile;

use crate::{write_file_if_changed, Error, GenerationSettings, Generator, Result};

/// The variable that makes a build re-snapshot the servers first.
pub const REFRESH_VAR: &str = "MCPBIND_REFRESH";

/// Generates bindings from `mcpbind.lock` in a build script.
///
/// Offline by default: it reads the lockfile and never starts a server.
/// With `MCPBIND_REFRESH=1` in the environment (and the `snapshot` feature
/// of `mcpbind-codegen`), it first re-locks the configured servers.
///
/// The config is the `mcpbind.toml` beside the lockfile, as cargo finds a
/// package's manifest, unless [`config`](Self::config) names another (or
/// [`config_beside_lockfile(false)`](Self::config_beside_lockfile) reads
/// none): its `annotations` keys decide what the bindings enforce, so a
/// server marked `annotations = "enforce"` is enforced whether or not the
/// build script names the file.
///
/// # Example `build.rs`
///
/// ```no_run
/// // build.rs: `fn main() {` … `}`
/// mcpbind_codegen::Builder::new()
///     .lockfile("mcpbind.lock")
///     .generate()
///     .unwrap();
/// ```
///
/// and in the crate: `mcpbind::include_bindings!();`.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    lockfile: Option<PathBuf>,
    config: Option<PathBuf>,
    /// Set: no config unless one is named (`config_beside_lockfile(false)`).
    no_default_config: bool,
    servers: Option<Vec<String>>,
    out_dir: Option<PathBuf>,
    out_file: Option<String>,
    refresh: bool,
}

impl Builder {
    /// A builder with default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// The lockfile to read (default: `mcpbind.lock`). It is looked for
    /// like everywhere else in mcpbind (see
    /// [`find_lockfile`](mcpbind_model::lock::find_lockfile)):
    /// `MCPBIND_LOCKFILE` if set, else this path in the crate's directory
    /// (`CARGO_MANIFEST_DIR`), else at the workspace root.
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// mcpbind_codegen::Builder::new().lockfile("bindings/mcpbind.lock").generate().unwrap();
    /// ```
    pub fn lockfile(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.lockfile = Some(path.into());
        self
    }

    /// The server config (default: the `mcpbind.toml` beside the
    /// lockfile, when there is one). The build fails if the lockfile no
    /// longer matches it (a server added or removed, a tool filter changed),
    /// and reruns when it changes; each server's `annotations` key decides
    /// whether its tools' annotations are enforced (a tool that may modify
    /// things then takes an `mcpbind::Approved`).
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// mcpbind_codegen::Builder::new().config("mcpbind.toml").generate().unwrap();
    /// ```
    pub fn config(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.config = Some(path.into());
        self
    }

    /// Whether to read the `mcpbind.toml` beside the lockfile when no
    /// [`config`](Self::config) is named (default: yes). With `false` and
    /// no config named, the bindings are advise-mode whatever a config
    /// says, and connecting them with a config that says `annotations =
    /// "enforce"` is refused.
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// mcpbind_codegen::Builder::new().config_beside_lockfile(false).generate().unwrap();
    /// ```
    pub fn config_beside_lockfile(&mut self, read: bool) -> &mut Self {
        self.no_default_config = !read;
        self
    }

    /// Binds only these servers.
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// mcpbind_codegen::Builder::new().servers(["github", "memory"]).generate().unwrap();
    /// ```
    pub fn servers<I, S>(&mut self, servers: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.servers = Some(servers.into_iter().map(Into::into).collect());
        self
    }

    /// Where to write (default: `OUT_DIR`).
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// mcpbind_codegen::Builder::new().out_dir("src/generated").generate().unwrap();
    /// ```
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The file name to write (default: `mcpbind.rs`); include it with
    /// `mcpbind::include_bindings!("NAME")`.
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// mcpbind_codegen::Builder::new().out_file("tools.rs").generate().unwrap();
    /// ```
    pub fn out_file(&mut self, name: impl Into<String>) -> &mut Self {
        self.out_file = Some(name.into());
        self
    }

    /// Re-lock the configured servers before generating, as
    /// `MCPBIND_REFRESH=1` does (needs the `snapshot` feature). Off by
    /// default: a build reads the lockfile and starts no server.
    ///
    /// # Example `build.rs`
    ///
    /// ```no_run
    /// // Refresh when the crate's own feature says so.
    /// let refresh = std::env::var_os("CARGO_FEATURE_REFRESH_MCP").is_some();
    /// mcpbind_codegen::Builder::new().refresh(refresh).generate().unwrap();
    /// ```
    pub fn refresh(&mut self, yes: bool) -> &mut Self {
        self.refresh = yes;
        self
    }

    /// The crate's directory: `CARGO_MANIFEST_DIR`, or the current one.
    fn crate_dir() -> PathBuf {
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(PathBuf::new, PathBuf::from)
    }

    fn resolve(&self, path: &Path) -> PathBuf {
        Self::crate_dir().join(path)
    }

    /// The config to read, once the lockfile is found: the one named, else
    /// the `mcpbind.toml` beside the lockfile if there is one. Prints what
    /// makes the build rerun when it changes, or when the one beside the
    /// lockfile appears ([`watch_missing`]).
    fn config_path(&self, lockfile: &Path, out_dir: &Path) -> Option<PathBuf> {
        let config = match &self.config {
            Some(config) => self.resolve(config),
            None if self.no_default_config => return None,
            None => config_beside(lockfile),
        };
        if self.config.is_none() && std::fs::metadata(&config).is_err() {
            watch_missing(&config, out_dir);
            return None;
        }
        println!("cargo:rerun-if-changed={}", config.display());
        Some(config)
    }

    /// Finds the lockfile; when refreshing, a missing one is created where
    /// the lookup looks first.
    fn lockfile_path(&self, refresh: bool) -> Result<PathBuf> {
        let requested = self.lockfile.as_deref().unwrap_or(Path::new(LOCKFILE_NAME));
        match find_lockfile(requested, &Self::crate_dir()) {
            Err(LockError::Missing { .. }) if refresh => {
                Ok(lockfile_candidates(requested, &Self::crate_dir()).remove(0))
            }
            found => Ok(found?),
        }
    }

    /// Reads the lockfile (re-locking first under `MCPBIND_REFRESH=1` or
    /// [`refresh`](Self::refresh)),
    /// checks it against the config, generates, and writes the bindings if
    /// they changed. Prints `cargo:rerun-if-changed` for every input and a
    /// `cargo:warning` for each schema it had to loosen. Returns the path
    /// written.
    ///
    /// # Errors
    ///
    /// A missing, malformed or stale lockfile, or a missing `OUT_DIR`.
    /// It's expected that this function call be `unwrap`ed in a `build.rs`.
    pub fn generate(&self) -> Result<PathBuf> {
        println!("cargo:rerun-if-env-changed={LOCKFILE_ENV}");
        println!("cargo:rerun-if-env-changed={REFRESH_VAR}");
        let refresh = self.refresh
            || std::env::var_os(REFRESH_VAR).is_some_and(|v| !v.is_empty() && v != "0");
        let lockfile = self.lockfile_path(refresh)?;
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Build {
                    message: "OUT_DIR environment variable is not set".into(),
                    help: Some("run it from a build script, or set `Builder::out_dir`".into()),
                })?,
        };
        let config = self.config_path(&lockfile, &out_dir);

        if refresh {
            let config = config.clone().unwrap_or_else(|| config_beside(&lockfile));
            self.relock(&config, &lockfile)?;
        }
        println!("cargo:rerun-if-changed={}", lockfile.display());
        let lock = Lockfile::read(&lockfile)?;
        let mut settings = self.settings();
        if let Some(config) = &config {
            let parsed = mcpbind_model::config::Config::load(config)?;
            lock.check_config(&parsed, self.servers.as_deref(), &lockfile)?;
            settings.with_config(&parsed);
        }
        let text = Self::generate_with(&settings, &lock, &lockfile)?;
        let path = out_dir.join(self.out_file.as_deref().unwrap_or("mcpbind.rs"));
        write_file_if_changed(&path, text.as_bytes())?;
        Ok(path)
    }

    /// Generates the bindings of `lockfile` in memory, printing warnings as
    /// `cargo:warning` lines.
    ///
    /// # Errors
    ///
    /// A missing or malformed lockfile, a schema the generator cannot turn into
    /// Rust ([`Error`]).
    /// The config is found as [`generate`](Self::generate) finds it (the
    /// one named, else the `mcpbind.toml` beside `lockfile`), and its
    /// `annotations` keys are followed.
    pub fn generate_string(&self, lockfile: &Path) -> Result<String> {
        let lock = Lockfile::read(lockfile)?;
        let mut settings = self.settings();
        let config = match &self.config {
            Some(config) => Some(self.resolve(config)),
            None if self.no_default_config => None,
            None => Some(config_beside(lockfile)).filter(|c| std::fs::metadata(c).is_ok()),
        };
        if let Some(config) = config {
            settings.with_config(&mcpbind_model::config::Config::load(&config)?);
        }
        Self::generate_with(&settings, &lock, lockfile)
    }

    /// The settings of this builder (the config's `annotations` are added
    /// once it is read).
    fn settings(&self) -> GenerationSettings {
        let mut settings = GenerationSettings::new();
        settings.all_cores();
        if let Some(servers) = &self.servers {
            settings.with_servers(servers.clone());
        }
        settings
    }

    fn generate_with(
        settings: &GenerationSettings,
        lock: &Lockfile,
        path: &Path,
    ) -> Result<String> {
        let mut generator = Generator::new(settings);
        let text = generator.generate_text(lock, path)?;
        for warning in generator.warnings() {
            println!("cargo:warning=mcpbind: {warning}");
        }
        Ok(text)
    }

    #[cfg(feature = "snapshot")]
    fn relock(&self, config: &Path, lockfile: &Path) -> Result<()> {
        let parsed = mcpbind_model::config::Config::load(config)?;
        let mut lock = match Lockfile::read(lockfile) {
            Ok(lock) => lock,
            Err(_) => Lockfile::new(),
        };
        let names = self.servers.clone().unwrap_or_default();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Build {
                message: format!("failed to start a runtime to refresh the lockfile: {e}"),
                help: None,
            })?;
        let refreshed = runtime.block_on(mcpbind_client::snapshot::refresh(
            &parsed, &mut lock, &names,
        ));
        for line in &refreshed.skipped {
            println!("cargo:warning={}", line.replace(['\n', '\r'], " "));
        }
        if let Some((server, err)) = refreshed.failures.into_iter().next() {
            return Err(Error::Refresh {
                server,
                source: Box::new(Error::Runtime(err)),
            });
        }
        lock.write(lockfile)?;
        Ok(())
    }

    #[cfg(not(feature = "snapshot"))]
    fn relock(&self, _config: &Path, _lockfile: &Path) -> Result<()> {
        Err(Error::Build {
            message: format!(
                "a refresh was asked ({REFRESH_VAR} or `Builder::refresh`), but mcpbind-codegen was built without its `snapshot` feature"
            ),
            help: Some(
                "run `mcpbind lock`, or add `features = [\"snapshot\"]` to mcpbind-codegen in [build-dependencies]".into(),
            ),
        })
    }
}

/// Makes the build rerun when the missing `config` appears, where that is
/// cheap. Cargo reruns a build script whose `rerun-if-changed` file is
/// missing on every build, so the file itself cannot be named; a
/// directory is watched with everything below it (cargo takes the newest
/// mtime under it), and a file created in it changes the directory's. So
/// the directory is watched, unless the build's own output (`out_dir`,
/// inside the target directory) is below it: then every build would
/// change it and rerun the script. There (a package whose lockfile sits at
/// its root beside `target/`) nothing is watched; `mcpbind lock`, which
/// needs a config, rewrites the lockfile, and generated clients refuse a
/// config whose mode differs at connect.
fn watch_missing(config: &Path, out_dir: &Path) {
    if let Some(dir) = watched_dir(config, out_dir) {
        println!("cargo:rerun-if-changed={}", dir.display());
    }
}

/// The directory [`watch_missing`] watches, if any.
fn watched_dir(config: &Path, out_dir: &Path) -> Option<PathBuf> {
    let dir = absolute(config.parent()?);
    (!absolute(out_dir).starts_with(&dir)).then_some(dir)
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing config's directory is watched unless the build's output
    /// is below it (every build would then rerun the script).
    #[test]
    fn a_missing_config_is_watched_through_its_directory_unless_target_is_in_it() {
        let config = Path::new("/work/app/mcpbind.toml");
        let workspace_target = Path::new("/work/target/debug/build/app-1/out");
        assert_eq!(
            watched_dir(config, workspace_target),
            Some(PathBuf::from("/work/app"))
        );
        let own_target = Path::new("/work/app/target/debug/build/app-1/out");
        assert_eq!(watched_dir(config, own_target), None);
        // A sibling whose name starts the same is not inside.
        let sibling = Path::new("/work/app-target/out");
        assert_eq!(
            watched_dir(config, sibling),
            Some(PathBuf::from("/work/app"))
        );
    }

    /// The `annotations` mode the generated client of `text` records.
    fn mode(text: &str) -> &str {
        let at = "pub const ANNOTATIONS: ::mcpbind::Annotations = ::mcpbind::Annotations::";
        let start = text.find(at).expect("a generated client") + at.len();
        let rest = &text[start..];
        &rest[..rest.find(';').unwrap()]
    }

    /// With no config named, the `mcpbind.toml` beside the lockfile is
    /// read (issue 44 §1): the quickstart's, with `annotations =
    /// "enforce"` added, makes enforced bindings through `generate` (a
    /// build script's path) and `generate_string`; with
    /// `config_beside_lockfile(false)` none is read.
    #[test]
    fn the_config_beside_the_lockfile_is_read_when_none_is_named() {
        let quickstart = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/quickstart");
        let dir = std::env::temp_dir().join(format!("mcpbind-beside-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lockfile = dir.join(LOCKFILE_NAME);
        std::fs::copy(quickstart.join(LOCKFILE_NAME), &lockfile).unwrap();
        let config = std::fs::read_to_string(quickstart.join("mcpbind.toml"))
            .unwrap()
            .replace(
                "timeout = 10\n",
                "timeout = 10\nannotations = \"enforce\"\n",
            );
        assert!(config.contains("annotations = \"enforce\""), "{config}");
        std::fs::write(dir.join("mcpbind.toml"), config).unwrap();

        let written = Builder::new().lockfile(&lockfile).out_dir(&dir).generate();
        let built = written.map(|path| std::fs::read_to_string(path).unwrap());
        let string = Builder::new().generate_string(&lockfile);
        let opted_out = Builder::new()
            .config_beside_lockfile(false)
            .generate_string(&lockfile);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(mode(&built.unwrap()), "Enforce");
        assert_eq!(mode(&string.unwrap()), "Enforce");
        assert_eq!(mode(&opted_out.unwrap()), "Advise");
    }
}
