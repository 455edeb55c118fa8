//! Applying a sandbox to the one spawn of a stdio server
//! (`connect/stdio.rs`): the checks, the warnings of `required = false`,
//! and the scratch directories that live as long as the process.

use std::path::PathBuf;

use super::plan::{Plan, Target, Unenforced};
use crate::Error;
use mcpbind_model::sandbox::{Limits, SandboxConfig};

/// The directories made for one start of a server (its isolated HOME and
/// temp dir, and as root with `processes` its pids cgroup): removed when
/// the process is dropped.
#[derive(Debug, Default)]
pub struct Scratch {
    dirs: Vec<PathBuf>,
    #[cfg(target_os = "linux")]
    _cgroup: Option<super::cgroup::PidsCgroup>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        for dir in &self.dirs {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// What a spawn confined by [`confine`] keeps: its directories, and how to
/// tell a sandbox step the kernel refused from another spawn error.
#[derive(Debug, Default)]
pub struct Confined {
    /// The directories made for the spawn (removed when dropped).
    pub scratch: Scratch,
    #[cfg(target_os = "linux")]
    steps: std::sync::Arc<[super::linux::Step]>,
    /// With an allow-list: the hosts, and where the proxy's listener comes
    /// back from the namespace.
    #[cfg(target_os = "linux")]
    proxy: Option<(Vec<String>, std::os::fd::OwnedFd)>,
}

impl Confined {
    /// The setting whose step the kernel refused at spawn, and why (the
    /// call and the errno), when `error` is such a refusal.
    pub fn refusal(&self, error: &std::io::Error) -> Option<(&'static str, String)> {
        #[cfg(target_os = "linux")]
        return super::linux::refusal(&self.steps, error);
        #[cfg(not(target_os = "linux"))]
        {
            let _ = error;
            None
        }
    }

    /// After the spawn: starts the allow-list's proxy, if there is one. It
    /// runs until dropped.
    ///
    /// # Errors
    ///
    /// a [`SandboxError`](mcpbind_model::sandbox::SandboxError) (setting `network`) when the proxy's listener can't
    /// be received from the namespace or served.
    pub fn start_proxy(&self, server: &str) -> Result<Option<super::Proxy>, Error> {
        #[cfg(target_os = "linux")]
        if let Some((hosts, back)) = &self.proxy {
            let failed = |e: std::io::Error| {
                Error::new(
                    server.to_owned(),
                    "network",
                    format!("starting the allow-list proxy failed: {e}"),
                )
            };
            let listener = super::linux::receive_listener(back).map_err(failed)?;
            return super::proxy::serve(server, listener, hosts)
                .map(Some)
                .map_err(failed);
        }
        let _ = server;
        Ok(None)
    }
}

/// Confines `cmd` as `sandbox` says, less the settings in `relaxed` (refused
/// at an earlier spawn, `required = false`), or fails with
/// a [`SandboxError`](mcpbind_model::sandbox::SandboxError) naming the first setting this platform cannot enforce
/// (a warning per setting instead, when `required = false`).
///
/// # Errors
///
/// a [`SandboxError`](mcpbind_model::sandbox::SandboxError) naming the setting, when preparing it fails or (with
/// `required`) this platform cannot enforce it.
pub fn confine(
    sandbox: &SandboxConfig,
    target: &Target<'_>,
    relaxed: &[&str],
    cmd: &mut tokio::process::Command,
) -> Result<Confined, Error> {
    let server = target.server;
    let failed = |setting: &str, e: std::io::Error| {
        Error::new(
            server.to_owned(),
            setting.to_owned(),
            format!("preparing it failed: {e}"),
        )
    };
    let mut plan = Plan::new(sandbox, target).map_err(|e| failed("home", e))?;
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
    let mut scratch = Scratch {
        dirs: std::mem::take(&mut plan.scratch),
        #[cfg(target_os = "linux")]
        _cgroup: None,
    };
    let mut limits = sandbox.limits;
    let mut unenforced = std::mem::take(&mut plan.unenforced);
    unenforced.extend(platform_gaps(sandbox, &plan, &limits));
    for gap in unenforced {
        if sandbox.required {
            return Err(Error::new(
                server.to_owned(),
                gap.setting.to_owned(),
                gap.reason,
            ));
        }
        tracing::warn!(server, setting = gap.setting, reason = %gap.reason, "sandbox setting not enforced (`required = false`)");
        relax(&mut plan, &mut limits, gap.setting);
    }
    for setting in relaxed {
        relax(&mut plan, &mut limits, setting);
    }
    for (key, value) in &plan.env {
        cmd.env(key, value);
    }
    #[cfg_attr(not(target_os = "linux"), allow(clippy::let_unit_value))]
    let _enforced =
        enforce(&plan, &limits, server, cmd).map_err(|(setting, e)| failed(setting, e))?;
    #[cfg(target_os = "linux")]
    let (steps, back) = {
        let (steps, back, cgroup) = _enforced;
        scratch._cgroup = cgroup;
        (steps, back)
    };
    Ok(Confined {
        scratch,
        #[cfg(target_os = "linux")]
        steps,
        #[cfg(target_os = "linux")]
        proxy: plan.allow_list.zip(back),
    })
}

/// Drops a setting that cannot be enforced (`required = false`).
fn relax(plan: &mut Plan, limits: &mut Limits, setting: &str) {
    match setting {
        "read" | "write" | "home" => plan.read = None,
        "network" => {
            plan.deny_network = false;
            plan.allow_list = None;
            plan.env.retain(|(var, _)| {
                !super::plan::PROXY_VARIABLES.contains(var) && *var != "NODE_USE_ENV_PROXY"
            });
        }
        "processes" => limits.processes = None,
        "memory" => limits.memory = None,
        "cpu" => limits.cpu_seconds = None,
        "open_files" => limits.open_files = None,
        "file_size" => limits.file_size = None,
        _ => {}
    }
    // A refused namespace is reported as this setting: without it, there
    // is none (the agent's processes are then in reach, unless files are
    // confined: Landlock grants no other process's `/proc`).
    if setting == plan.namespace_setting {
        plan.user_namespace = false;
        plan.deny_network = false;
        plan.allow_list = None;
    }
}

/// The settings this platform cannot enforce: off Linux, the table of
/// `platform.rs`; on Linux, what this kernel lacks.
fn platform_gaps(sandbox: &SandboxConfig, plan: &Plan, limits: &Limits) -> Vec<Unenforced> {
    #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
    let mut gaps = super::platform::gaps(super::platform::Platform::CURRENT, sandbox);
    #[cfg(target_os = "linux")]
    gaps.extend(super::linux::check(plan, limits));
    #[cfg(not(target_os = "linux"))]
    let _ = (plan, limits);
    gaps
}

/// What enforcing a plan keeps on Linux: the steps (for
/// [`Confined::refusal`]), the proxy listener's way back, the pids cgroup.
#[cfg(target_os = "linux")]
type Enforced = (
    std::sync::Arc<[super::linux::Step]>,
    Option<std::os::fd::OwnedFd>,
    Option<super::cgroup::PidsCgroup>,
);

/// A preparation that failed: the setting, and why.
type Failed = (&'static str, std::io::Error);

#[cfg(target_os = "linux")]
fn enforce(
    plan: &Plan,
    limits: &Limits,
    server: &str,
    cmd: &mut tokio::process::Command,
) -> Result<Enforced, Failed> {
    let (prepared, back, cgroup) = super::linux::Prepared::new(plan, limits, server)?;
    let steps = prepared.steps();
    // SAFETY: `apply` only makes syscalls on data prepared before the fork.
    unsafe {
        cmd.pre_exec(move || prepared.apply());
    }
    Ok((steps, back, cgroup))
}

#[cfg(all(unix, not(target_os = "linux")))]
fn enforce(
    _: &Plan,
    limits: &Limits,
    _: &str,
    cmd: &mut tokio::process::Command,
) -> Result<(), Failed> {
    let limits = *limits;
    // SAFETY: setrlimit only.
    unsafe {
        cmd.pre_exec(move || {
            for (resource, value) in [
                (libc::RLIMIT_DATA, limits.memory),
                (libc::RLIMIT_CPU, limits.cpu_seconds),
                (libc::RLIMIT_NOFILE, limits.open_files),
                (libc::RLIMIT_FSIZE, limits.file_size),
            ] {
                if let Some(value) = value.map(std::num::NonZeroU64::get) {
                    let limit = libc::rlimit {
                        rlim_cur: value as _,
                        rlim_max: value as _,
                    };
                    if libc::setrlimit(resource, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
            }
            Ok(())
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn enforce(_: &Plan, _: &Limits, _: &str, _: &mut tokio::process::Command) -> Result<(), Failed> {
    Ok(())
}
