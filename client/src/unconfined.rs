//! The sandbox's stand-ins in a build without the `sandbox` feature: a
//! spawn keeps nothing, and a server with a `[sandbox]` table is refused
//! with an error that names the feature (never spawned unconfined).

use std::ffi::OsString;
use std::path::Path;

use crate::Error;
use mcpbind_model::sandbox::SandboxConfig;

/// What a sandbox would be planned for (the `sandbox` feature's
/// `Target`); only the server is read here.
#[allow(dead_code)] // the fields the `sandbox` feature reads
pub(crate) struct Target<'a> {
    pub(crate) server: &'a str,
    pub(crate) program: &'a str,
    pub(crate) args: &'a [String],
    pub(crate) cwd: Option<&'a Path>,
    pub(crate) path: Option<OsString>,
}

/// No directories are made for a spawn.
#[derive(Debug, Default)]
pub(crate) struct Scratch;

/// No proxy runs.
pub(crate) enum Proxy {}

/// What an unconfined spawn keeps: nothing.
#[derive(Debug, Default)]
pub(crate) struct Confined {
    pub(crate) scratch: Scratch,
}

impl Confined {
    /// No sandbox step can be refused.
    pub(crate) fn refusal(&self, _error: &std::io::Error) -> Option<(&'static str, String)> {
        None
    }

    /// No proxy to start.
    pub(crate) fn start_proxy(&self, _server: &str) -> Result<Option<Proxy>, Error> {
        Ok(None)
    }
}

/// A `[sandbox]` table in a build without the feature: refused.
pub(crate) fn confine(
    _sandbox: &SandboxConfig,
    target: &Target<'_>,
    _relaxed: &[&str],
    _cmd: &mut tokio::process::Command,
) -> Result<Confined, Error> {
    Err(Error::Feature {
        server: target.server.to_owned(),
        setting: "sandbox".into(),
        feature: "sandbox",
    })
}
