//! The `build.rs` helper, after prost-build's `Config`.

use std::path::{Path, PathBuf};

use crate::{write_file_if_changed, Error, GenerationSettings, Generator, Lockfile, Result};

/// Generates bindings from `mcpbind.lock` in a build script.
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
    servers: Option<Vec<String>>,
    out_dir: Option<PathBuf>,
    out_file: Option<String>,
}

impl Builder {
    /// A builder with default settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// The lockfile to read (default: `mcpbind.lock` in the crate's
    /// directory). A relative path is relative to `CARGO_MANIFEST_DIR`.
    pub fn lockfile(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.lockfile = Some(path.into());
        self
    }

    /// Binds only these servers.
    pub fn servers<I, S>(&mut self, servers: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.servers = Some(servers.into_iter().map(Into::into).collect());
        self
    }

    /// Where to write (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The file name to write (default: `mcpbind.rs`).
    pub fn out_file(&mut self, name: impl Into<String>) -> &mut Self {
        self.out_file = Some(name.into());
        self
    }

    /// Reads the lockfile, generates, and writes the bindings if they
    /// changed. Prints `cargo:rerun-if-changed` for the lockfile and a
    /// `cargo:warning` for each schema it had to loosen. Returns the path
    /// written.
    ///
    /// # Errors
    ///
    /// A missing, malformed or outdated lockfile, or a missing `OUT_DIR`.
    /// It's expected that this function call be `unwrap`ed in a `build.rs`.
    pub fn generate(&self) -> Result<PathBuf> {
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let lockfile = match (&self.lockfile, &manifest_dir) {
            (Some(p), Some(dir)) if p.is_relative() => dir.join(p),
            (Some(p), _) => p.clone(),
            (None, Some(dir)) => crate::lock::default_lockfile_path(dir),
            (None, None) => PathBuf::from("mcpbind.lock"),
        };
        println!("cargo:rerun-if-changed={}", lockfile.display());
        println!("cargo:rerun-if-env-changed=MCPBIND_LOCKFILE");
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Build("OUT_DIR environment variable is not set".into()))?,
        };
        let text = self.generate_string(&lockfile)?;
        let path = out_dir.join(self.out_file.as_deref().unwrap_or("mcpbind.rs"));
        write_file_if_changed(&path, text.as_bytes())?;
        Ok(path)
    }

    /// Generates the bindings of `lockfile` in memory, printing warnings as
    /// `cargo:warning` lines.
    pub fn generate_string(&self, lockfile: &Path) -> Result<String> {
        let lock = Lockfile::read(lockfile)?;
        let mut settings = GenerationSettings::new();
        if let Some(servers) = &self.servers {
            settings.with_servers(servers.clone());
        }
        let mut generator = Generator::new(&settings);
        let text = generator.generate_text(&lock, lockfile)?;
        for warning in generator.warnings() {
            println!("cargo:warning=mcpbind: {warning}");
        }
        Ok(text)
    }
}
