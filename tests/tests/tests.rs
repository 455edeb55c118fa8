//! End-to-end tests against real MCP servers: the bundled demo server, test
//! servers of our own (`tests/servers/*.py`, `tests/src/bin/`), and the
//! pinned npm and PyPI servers (installed by `tests/servers/install.sh`).
//!
//! A test that needs the pinned servers has a module named `installed` in
//! its path (`installed::escape::…`, `toolbox::installed::…`), so that
//! `--skip installed::` leaves out all of them and nothing else
//! (CONTRIBUTING.md, the fast loop); `util::servers_dir` fails a test that
//! needs them without the mark.

mod env;
mod util;

mod agent;
// Concerns all of whose tests need the pinned servers.
mod installed;

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
mod drift;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod durability;
mod effects;
mod elicit;
mod lean;
mod lifecycle;
mod listen;
mod lock;
mod long_running;
mod misbehave;
mod oauth;
mod prompts;
mod readme;
mod review;
mod roundtrip;
mod scope;
mod status;
mod testing;
mod toolbox;
mod toolbox_content;
