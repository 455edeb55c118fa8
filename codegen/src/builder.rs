//! The `build.rs` helper, after prost-build's `Config`.

use std::path::{Path, PathBuf};

use mcpbind_model::lock::{
    find_lockfile, lockfile_candidates, LockError, LOCKFILE_ENV, LOCKFILE_NAME,
};

use crate::{write_file_if_changed, Error, GenerationSettings, Generator, Lockfile, Result};

/// The variable that makes a build re-snapshot the servers first.
pub const REFRESH_VAR: &str = "MCPBIND_REFRESH";

/// Generates bindings from `mcpbind.lock` in a build script.
///
/// Offline by default: it reads the lockfile and never starts a server.
/// With `MCPBIND_REFRESH=1` in the environment (and the `snapshot` feature
/// of `mcpbind-codegen`), it first re-locks the configured servers.
///
/// # Example `build.rs`
///
/// ```no_run
/// // build.rs: `fn main() {` … `}`
/// mcpbind_codegen::Builder::new()
///     .lockfile("mcpbind.lock")
///     .config("mcpbind.toml")
///     .generate()
///     .unwrap();
/// ```
///
/// and in the crate: `mcpbind::include_bindings!();`.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    lockfile: Option<PathBuf>,
    config: Option<PathBuf>,
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

    /// The server config. When set, the build fails if the lockfile no
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
        let config = self.config.as_deref().map(|p| self.resolve(p));
        if let Some(config) = &config {
            println!("cargo:rerun-if-changed={}", config.display());
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Build {
                    message: "OUT_DIR environment variable is not set".into(),
                    help: Some("run it from a build script, or set `Builder::out_dir`".into()),
                })?,
        };

        if refresh {
            let config = config
                .clone()
                .unwrap_or_else(|| self.resolve(Path::new("mcpbind.toml")));
            self.relock(&config, &lockfile)?;
        }
        println!("cargo:rerun-if-changed={}", lockfile.display());
        let lock = Lockfile::read(&lockfile)?;
        let mut settings = self.settings();
        if let Some(config) = &config {
            let parsed = mcpbind_model::Config::load(config)?;
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
    pub fn generate_string(&self, lockfile: &Path) -> Result<String> {
        let lock = Lockfile::read(lockfile)?;
        self.generate_from(&lock, lockfile)
    }

    fn generate_from(&self, lock: &Lockfile, path: &Path) -> Result<String> {
        Self::generate_with(&self.settings(), lock, path)
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
        let parsed = mcpbind_model::Config::load(config)?;
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
