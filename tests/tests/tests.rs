//! End-to-end tests against real MCP servers: the bundled demo server and the
//! pinned npm servers (installed by `tests/servers/install.sh`).

mod env;
mod util;

mod agent;
mod api;
mod auth_grants;
mod build;
mod calls;
mod claims;
mod cli;
mod compile;
mod config;
mod derive;
mod discover_http;
mod discover_stdio;
mod double;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod durability;
mod effects;
mod elicit;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod escape;
mod lean;
mod lifecycle;
mod listen;
mod lock;
mod long_running;
mod misbehave;
mod oauth;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod privilege;
mod prompts;
mod readme;
mod review;
mod roundtrip;
mod status;
mod testing;
mod toolbox;
mod toolbox_content;
