#![cfg_attr(docsrs, feature(doc_cfg))]
//! Enforcing `[servers.NAME.sandbox]` (the model's
//! [`mcpbind_model::sandbox::SandboxConfig`]) on the spawn of a stdio
//! server: under every setting a user, PID and mount namespace with a
//! `/proc` of the server's own (the agent's processes out of reach),
//! Landlock for files, a network namespace for the network, `setrlimit`
//! for limits (Linux, no root; as root, a pids cgroup for `processes`). A setting the platform
//! cannot enforce fails the spawn with [`Error::Sandbox`], or is reported as
//! a warning when `required = false`. Use it through `mcpbind`: the client
//! side (`mcpbind-client`) calls [`confine`] for each server it starts.
#![deny(missing_docs)]

#[cfg(target_os = "linux")]
mod cgroup;
mod grants;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod linux;
mod plan;
mod platform;
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
mod proxy;
mod spawn;
pub use plan::Target;
pub use proxy::Proxy;
pub use spawn::{confine, Confined, Scratch};

pub use error::Error;

mod error {
    /// Why a sandbox cannot be applied.
    #[derive(Debug, thiserror::Error)]
    pub enum Error {
        /// A setting this platform cannot enforce (and `required` is not
        /// `false`), or preparing it failed.
        #[error("cannot sandbox server `{server}`: `{setting}` cannot be enforced here: {reason}")]
        Sandbox {
            /// The server.
            server: String,
            /// The setting, as in `[servers.NAME.sandbox]` (`network`,
            /// `read`, `processes`).
            setting: String,
            /// Why.
            reason: String,
        },
    }
}
