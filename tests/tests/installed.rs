//! Concerns all of whose tests need the pinned npm and PyPI servers
//! (`tests/servers/install.sh` installs them on first use); `--skip
//! installed::` leaves them out. A concern with only some such tests keeps
//! them in an `installed` module of its own (`toolbox::installed`).

#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod escape;
#[cfg(target_os = "linux")]
#[allow(clippy::disallowed_methods)] // Linux-only code: see clippy.toml
mod privilege;
