#![cfg_attr(docsrs, feature(doc_cfg))]
//! Enforcing `[servers.NAME.sandbox]` (the model's
//! [`mcpbind_model::sandbox::SandboxConfig`]) on the spawn of a stdio
//! server: under every setting a user, PID and mount namespace with a
//! `/proc` of the server's own (the agent's processes out of reach),
//! Landlock for files, a network namespace for the network, `setrlimit`
//! for limits (Linux, no root; as root, a pids cgroup for `processes`). A setting the platform
//! cannot enforce fails the spawn with a [`SandboxError`], or is reported as
//! a warning when `required = false`. Use it through `mcpbind`: the client
//! side (`mcpbind-client`) calls [`confine`] for each server it starts.
#![deny(missing_docs)]

#[cfg(doc)]
use mcpbind_model::sandbox::SandboxError;

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

// The one error of a sandbox, the model's: the client's `Error::Sandbox`
// carries it as it is.
use mcpbind_model::sandbox::SandboxError as Error;
