//! Enforcing a [`Plan`] on Linux without root: under every sandbox a user,
//! PID and mount namespace (with an init of its own, see [`reap`]) and a
//! `/proc` of the server's own, locked by a nested user namespace
//! ([`Prepared::own_proc`]); Landlock for files, a network namespace for
//! the network, `setrlimit` for limits, and as root a pids cgroup for
//! `processes` (`cgroup.rs`). A step the kernel
//! refuses reaches the parent as an errno tagged with the step
//! ([`refusal`]), so the error names the setting.
//!
//! Everything that allocates or opens paths from the config (the Landlock
//! ruleset and its rules, the uid map text) is prepared in the parent
//! before the fork; the child, between fork and exec, only makes syscalls
//! on what was prepared ([`Prepared::apply`]), as `pre_exec` requires.
//!
//! Why a network namespace rather than Landlock's TCP rules for
//! `network = false`: Landlock (ABI 4 and later) filters TCP bind and
//! connect by port only, so UDP (DNS included) and other protocols would
//! stay open; a fresh network namespace has no interface but a loopback
//! that is down, so nothing leaves, whatever the protocol.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::path::Path;
use std::sync::Arc;

use super::cgroup;
use super::plan::{Plan, Unenforced};
use mcpbind_model::sandbox::Limits;

// Landlock's ABI (linux/landlock.h).
const CREATE_RULESET_VERSION: u32 = 1 << 0;
const RULE_PATH_BENEATH: libc::c_int = 1;
const ACCESS_EXECUTE: u64 = 1 << 0;
const ACCESS_WRITE_FILE: u64 = 1 << 1;
const ACCESS_READ_FILE: u64 = 1 << 2;
const ACCESS_READ_DIR: u64 = 1 << 3;
/// `REMOVE_DIR` up to `MAKE_SYM` (ABI 1).
const ACCESS_CHANGE_DIR: u64 = 0b1_1111_1111 << 4;
const ACCESS_REFER: u64 = 1 << 13;
const ACCESS_TRUNCATE: u64 = 1 << 14;
const ACCESS_IOCTL_DEV: u64 = 1 << 15;
/// The rights that apply to a file (not a directory).
const FILE_RIGHTS: u64 =
    ACCESS_EXECUTE | ACCESS_WRITE_FILE | ACCESS_READ_FILE | ACCESS_TRUNCATE | ACCESS_IOCTL_DEV;
const READ_RIGHTS: u64 = ACCESS_EXECUTE | ACCESS_READ_FILE | ACCESS_READ_DIR;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

/// ABI 6: no connecting to abstract unix sockets made outside the
/// sandbox, and no signals to processes outside it (the agent).
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The Landlock ABI version of the running kernel; 0 without Landlock.
pub(crate) fn landlock_abi() -> i64 {
    // SAFETY: a query with no attribute, as landlock(7) documents.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    abi.max(0)
}

/// All filesystem rights Landlock `abi` knows.
fn handled_rights(abi: i64) -> u64 {
    let mut rights = READ_RIGHTS | ACCESS_WRITE_FILE | ACCESS_CHANGE_DIR;
    if abi >= 2 {
        rights |= ACCESS_REFER;
    }
    if abi >= 3 {
        rights |= ACCESS_TRUNCATE;
    }
    if abi >= 5 {
        rights |= ACCESS_IOCTL_DEV;
    }
    rights
}

/// A prepared spawn: what the child applies, the proxy listener's way
/// back, the pids cgroup.
pub(crate) type Ready = (Prepared, Option<OwnedFd>, Option<cgroup::PidsCgroup>);

/// A preparation that failed: the setting, and why.
pub(crate) type Failed = (&'static str, io::Error);

/// What the child applies between fork and exec.
pub(crate) struct Prepared {
    ruleset: Option<OwnedFd>,
    /// `/proc/self` and the `/proc` files runtimes read, ruled readable in
    /// the child: after the mount of its own `/proc`, where they are its
    /// own (an `O_PATH` opened in the parent would be the agent's `/proc`).
    proc_rules: Vec<CString>,
    read_rights: u64,
    namespaces: libc::c_int,
    maps: Option<[(CString, CString); 3]>,
    limits: Vec<(libc::c_int, u64)>,
    /// What each step enforces, for [`refusal`]; index = step.
    steps: Arc<[Step]>,
    /// The allow-list's proxy listener, opened in the namespace.
    proxy: Option<ProxyListener>,
    /// `processes` as root: the pids cgroup's `cgroup.procs`, which the
    /// child joins before anything else (see [`cgroup`]).
    cgroup: Option<OwnedFd>,
}

/// One step of [`Prepared::apply`] that the kernel may refuse: the setting
/// it enforces and the call.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub(crate) setting: &'static str,
    pub(crate) call: String,
}

impl Step {
    fn new(setting: &'static str, call: &str) -> Step {
        Step {
            setting,
            call: call.to_owned(),
        }
    }
}

// The steps, by index in `Prepared::steps` (limits follow, one each).
const UNSHARE: usize = 0;
const ID_MAP: usize = 1;
const REAPER: usize = 2;
const LANDLOCK: usize = 3;
const PROXY: usize = 4;
const MOUNT: usize = 5;
const CGROUP: usize = 6;
const LIMITS: usize = 7;

/// A step's failure as `pre_exec` can report it (std passes the child's
/// raw OS error to the parent, nothing else): the step in the high bits,
/// the errno in the low ones.
fn failed(step: usize, e: io::Error) -> io::Error {
    let errno = e.raw_os_error().unwrap_or(libc::EINVAL) & 0xffff;
    let step = i32::try_from(step + 1).unwrap_or(0);
    io::Error::from_raw_os_error((step << 16) | errno)
}

/// The setting a spawn error came from, and why, when a sandbox step was
/// refused (by seccomp, a container, an LSM).
pub(crate) fn refusal(steps: &[Step], error: &io::Error) -> Option<(&'static str, String)> {
    let code = error.raw_os_error()?;
    let step = steps.get(usize::try_from(code >> 16).ok()?.checked_sub(1)?)?;
    let errno = code & 0xffff;
    let cause = io::Error::from_raw_os_error(errno);
    Some((
        step.setting,
        format!(
            "{} was refused at spawn: {} ({cause})",
            step.call,
            errno_name(errno)
        ),
    ))
}

fn errno_name(errno: i32) -> String {
    let name = match errno {
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        libc::EINVAL => "EINVAL",
        libc::ENOSYS => "ENOSYS",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ENOSPC => "ENOSPC",
        libc::EUSERS => "EUSERS",
        libc::ENOMEM => "ENOMEM",
        libc::EAGAIN => "EAGAIN",
        libc::E2BIG => "E2BIG",
        _ => return format!("errno {errno}"),
    };
    name.to_owned()
}

/// Why a plan cannot be enforced here: the settings it needs that this
/// kernel lacks.
pub(crate) fn check(plan: &Plan, limits: &Limits) -> Vec<Unenforced> {
    let mut missing = Vec::new();
    if plan.read.is_some() && landlock_abi() < 1 {
        missing.push(Unenforced {
            setting: plan.files_setting,
            reason: "Landlock is not available in this kernel (or not enabled in `lsm=`)".into(),
        });
    }
    if limits.processes.is_some() && running_as_root() {
        if let Err(reason) = cgroup::Hierarchy::find() {
            missing.push(Unenforced {
                setting: "processes",
                reason,
            });
        }
    }
    if plan.user_namespace {
        if let Some(reason) = user_namespaces_off() {
            missing.push(Unenforced {
                setting: plan.namespace_setting,
                reason,
            });
        }
    }
    missing
}

/// Whether mcpbind runs as root, whom the kernel never holds to
/// `RLIMIT_NPROC` (fork(2) checks it for every kuid but 0).
fn running_as_root() -> bool {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() == 0 }
}

/// Why unprivileged user namespaces are off, when a sysctl says so.
fn user_namespaces_off() -> Option<String> {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
    };
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Some("user namespaces are disabled (user.max_user_namespaces = 0)".into());
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Some(
            "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)"
                .into(),
        );
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return Some("AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1)".into());
    }
    None
}

impl Prepared {
    /// Builds the ruleset and everything else the child needs; with an
    /// allow-list, also the end of the socket the proxy's listener comes
    /// back on (see [`receive_listener`]); with `processes` as root, the
    /// pids cgroup (removed by the [`cgroup::PidsCgroup`] returned).
    pub(crate) fn new(plan: &Plan, limits: &Limits, server: &str) -> Result<Ready, Failed> {
        let abi = landlock_abi();
        let handled = handled_rights(abi);
        let ruleset = match &plan.read {
            Some(read) => Some(
                ruleset(abi, handled, read, &plan.write).map_err(|e| (plan.files_setting, e))?,
            ),
            None => None,
        };
        let mut namespaces = 0;
        let mut call = "unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS".to_owned();
        if plan.user_namespace {
            namespaces |= libc::CLONE_NEWUSER | libc::CLONE_NEWPID | libc::CLONE_NEWNS;
        }
        if plan.deny_network {
            namespaces |= libc::CLONE_NEWNET;
            call.push_str(" | CLONE_NEWNET");
        }
        call.push(')');
        let maps = plan.user_namespace.then(id_maps);
        let mut steps = steps(plan, &call);
        let pids = match limits.processes {
            Some(max) if running_as_root() && plan.user_namespace => {
                // The reaper and the init count too.
                let max = max.get().saturating_add(2);
                let pids = cgroup::PidsCgroup::new(server, max).map_err(|e| ("processes", e))?;
                Some(pids)
            }
            _ => None,
        };
        let cgroup = match &pids {
            Some(pids) => Some(pids.procs().map_err(|e| ("processes", e))?),
            None => None,
        };
        let rlimits = rlimits(limits, plan.user_namespace, &mut steps);
        let (proxy, back) = match plan.allow_list {
            Some(_) => {
                let (listener, back) = ProxyListener::new().map_err(|e| ("network", e))?;
                (Some(listener), Some(back))
            }
            None => (None, None),
        };
        let mut proc_rules = vec![c"/proc/self".to_owned()];
        if plan.read.is_some() {
            proc_rules.extend(PROC_READ.iter().map(|p| (*p).to_owned()));
        }
        let prepared = Prepared {
            ruleset,
            proc_rules,
            read_rights: READ_RIGHTS,
            namespaces,
            maps,
            limits: rlimits,
            steps: steps.into(),
            proxy,
            cgroup,
        };
        Ok((prepared, back, pids))
    }

    /// What each step enforces, for [`refusal`].
    pub(crate) fn steps(&self) -> Arc<[Step]> {
        Arc::clone(&self.steps)
    }

    /// Applies it to the calling process: run in the child between fork and
    /// exec. Only syscalls on prepared data (async-signal-safe).
    ///
    /// With namespaces, the process that mcpbind started stays outside as
    /// the reaper (see [`reap`]) and the server runs two forks down.
    pub(crate) fn apply(&self) -> io::Result<()> {
        if let Some(procs) = &self.cgroup {
            // "0": the writer itself; its children (the reaper's init, the
            // server) are forked into the cgroup.
            write_fd(procs, b"0").map_err(|e| failed(CGROUP, e))?;
        }
        if self.namespaces != 0 {
            // SAFETY: unshare takes flags only.
            check_rc(unsafe { libc::unshare(self.namespaces) }).map_err(|e| failed(UNSHARE, e))?;
        }
        if let Some(maps) = &self.maps {
            write_maps(maps).map_err(|e| failed(ID_MAP, e))?;
        }
        if let Some(proxy) = &self.proxy {
            proxy.open().map_err(|e| failed(PROXY, e))?;
        }
        if self.namespaces & libc::CLONE_NEWPID != 0 {
            reap().map_err(|e| failed(REAPER, e))?;
            self.own_proc().map_err(|e| failed(MOUNT, e))?;
        }
        for (i, &(resource, value)) in self.limits.iter().enumerate() {
            let limit = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            // SAFETY: a valid rlimit for a valid resource.
            check_rc(unsafe { libc::setrlimit(resource as _, &limit) })
                .map_err(|e| failed(LIMITS + i, e))?;
        }
        if let Some(ruleset) = &self.ruleset {
            self.restrict(ruleset).map_err(|e| failed(LANDLOCK, e))?;
        }
        Ok(())
    }

    /// In the server, first in its PID namespace: mounts a `/proc` of that
    /// namespace over the agent's (so no other process's entries are
    /// there), with the pids cgroup, an empty read-only directory over
    /// `/sys/fs/cgroup` (so its limit is out of sight); then enters a
    /// nested user and mount namespace, where those mounts are locked: the
    /// server, root there, cannot unmount them to find the agent's `/proc`
    /// below.
    fn own_proc(&self) -> io::Result<()> {
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        // SAFETY: mount and unshare on static NUL-terminated strings.
        unsafe {
            let none = std::ptr::null::<libc::c_char>();
            check_rc(libc::mount(
                none,
                c"/".as_ptr(),
                none,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            check_rc(libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                flags,
                std::ptr::null(),
            ))?;
            if self.cgroup.is_some() {
                check_rc(libc::mount(
                    c"tmpfs".as_ptr(),
                    c"/sys/fs/cgroup".as_ptr(),
                    c"tmpfs".as_ptr(),
                    flags | libc::MS_RDONLY,
                    c"mode=555,size=4k".as_ptr().cast(),
                ))?;
            }
            check_rc(libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS))?;
        }
        match &self.maps {
            Some(maps) => write_maps(maps),
            None => Ok(()),
        }
    }

    fn restrict(&self, ruleset: &OwnedFd) -> io::Result<()> {
        // The child's own /proc entries (not the agent's environ).
        for path in &self.proc_rules {
            let fd = match open_path(path) {
                Ok(fd) => fd,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            let rights = if path.as_bytes() == b"/proc/self" {
                self.read_rights
            } else {
                self.read_rights & FILE_RIGHTS
            };
            add_rule(ruleset, &fd, rights)?;
        }
        // SAFETY: prctl and landlock_restrict_self on a valid fd.
        check_rc(unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) })?;
        let rc =
            unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
        check_rc(rc as libc::c_int)
    }
}

/// The steps [`Prepared::apply`] may be refused at, by index (`UNSHARE`
/// and the rest; the limits follow), `call` being the `unshare`.
fn steps(plan: &Plan, call: &str) -> Vec<Step> {
    let namespace = plan.namespace_setting;
    let step = Step::new;
    vec![
        step(namespace, call),
        step(namespace, "writing the user namespace's uid_map"),
        step(namespace, "fork (the PID namespace's init)"),
        step(plan.files_setting, "landlock_restrict_self"),
        step(
            "network",
            "opening the allow-list proxy's listener in the namespace",
        ),
        step(
            namespace,
            "mounting a /proc of the server's own PID namespace",
        ),
        step("processes", "joining the server's pids cgroup"),
    ]
}

/// The `/proc` files runtimes read about the machine (CPUs, memory),
/// readable when files are confined.
const PROC_READ: [&std::ffi::CStr; 3] = [c"/proc/cpuinfo", c"/proc/meminfo", c"/proc/stat"];

/// Writes the user namespace's maps (`setgroups` first).
fn write_maps(maps: &[(CString, CString); 3]) -> io::Result<()> {
    for (path, text) in maps {
        write_file(path, text)?;
    }
    Ok(())
}

/// Writes `bytes` to an open descriptor, in one `write`.
fn write_fd(fd: &OwnedFd, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: a buffer of the length given, on an open descriptor.
    let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    check_rc(if n < 0 { -1 } else { 0 })
}

/// The limits to set, each with its step in `steps`.
fn rlimits(
    limits: &Limits,
    user_namespace: bool,
    steps: &mut Vec<Step>,
) -> Vec<(libc::c_int, u64)> {
    let mut rlimits = Vec::new();
    for (resource, value, setting, name) in [
        (libc::RLIMIT_DATA, limits.memory, "memory", "RLIMIT_DATA"),
        (libc::RLIMIT_CPU, limits.cpu_seconds, "cpu", "RLIMIT_CPU"),
        (
            libc::RLIMIT_NOFILE,
            limits.open_files,
            "open_files",
            "RLIMIT_NOFILE",
        ),
        (
            libc::RLIMIT_NPROC,
            limits.processes,
            "processes",
            "RLIMIT_NPROC",
        ),
        (
            libc::RLIMIT_FSIZE,
            limits.file_size,
            "file_size",
            "RLIMIT_FSIZE",
        ),
    ] {
        if let Some(value) = value {
            let mut value = value.get();
            if resource == libc::RLIMIT_NPROC && user_namespace {
                // The reaper and the init count in the namespace too.
                value = value.saturating_add(2);
            }
            rlimits.push((resource as libc::c_int, value));
            steps.push(Step::new(setting, &format!("setrlimit({name})")));
        }
    }
    rlimits
}

/// The user namespace's maps: the agent's own uid and gid, nothing else.
fn id_maps() -> [(CString, CString); 3] {
    // SAFETY: getuid and getgid cannot fail.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    let c = |s: String| CString::new(s).unwrap_or_default();
    [
        (c("/proc/self/setgroups".into()), c("deny".into())),
        (c("/proc/self/uid_map".into()), c(format!("{uid} {uid} 1"))),
        (c("/proc/self/gid_map".into()), c(format!("{gid} {gid} 1"))),
    ]
}

/// After `unshare(CLONE_NEWPID)`, which moves only the caller's children
/// into the new namespace: forks its init, which forks the server. Returns
/// in the server only.
///
/// - The caller (the process mcpbind started and watches) stays outside:
///   it waits for the init and exits as it did, so mcpbind sees the
///   server's status; killed, it takes the init with it (`PDEATHSIG`).
/// - The init (pid 1 inside) reaps every orphan and, once the server has
///   ended, exits as it did; the kernel then kills whatever is left in
///   the namespace, a `setsid` daemon included.
///
/// Neither execs: both close every descriptor they inherited (std's
/// error pipe included, which would otherwise keep the spawn waiting).
fn reap() -> io::Result<()> {
    // SAFETY: fork, then only async-signal-safe calls in both processes.
    let init = unsafe { libc::fork() };
    check_rc(init)?;
    if init > 0 {
        close_inherited();
        exit_as(wait_for(init));
    }
    // SAFETY: prctl takes plain values.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) };
    // SAFETY: as above.
    let server = unsafe { libc::fork() };
    check_rc(server)?;
    if server == 0 {
        return Ok(());
    }
    close_inherited();
    loop {
        let mut status = 0;
        // SAFETY: waitpid on any child, with a valid status pointer.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == server
            || (pid < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD))
        {
            exit_as(status);
        }
    }
}

/// Waits for `pid`; its wait status.
fn wait_for(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    // SAFETY: waitpid with a valid status pointer; EINTR retried.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break;
        }
    }
    status
}

/// Exits as a child with wait status `status` did (128 + n for a signal).
fn exit_as(status: libc::c_int) -> ! {
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    };
    // SAFETY: _exit ends the process without running anything else.
    unsafe { libc::_exit(code) }
}

/// Closes every descriptor a reaper inherited (stdio included).
fn close_inherited() {
    // SAFETY: close_range takes plain values.
    unsafe { libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) };
}

/// The proxy's listener: opened in the child, on the new namespace's
/// loopback, and sent to mcpbind over a socket pair (`SCM_RIGHTS`), so no
/// socket path is shared with the server.
struct ProxyListener {
    /// The child's end of the pair.
    back: OwnedFd,
    address: libc::sockaddr_in,
}

impl ProxyListener {
    fn new() -> io::Result<(ProxyListener, OwnedFd)> {
        let mut fds = [0; 2];
        // SAFETY: socketpair fills two descriptors.
        check_rc(unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        })?;
        // SAFETY: two new descriptors nothing else owns.
        let (ours, theirs) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: a zeroed sockaddr_in, then filled.
        let mut address: libc::sockaddr_in = unsafe { std::mem::zeroed() };
        address.sin_family = libc::AF_INET as libc::sa_family_t;
        address.sin_port = super::proxy::PORT.to_be();
        address.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        Ok((
            ProxyListener {
                back: theirs,
                address,
            },
            ours,
        ))
    }

    /// In the child, in the new network namespace: brings its loopback up,
    /// listens on it and sends the listener back.
    fn open(&self) -> io::Result<()> {
        // SAFETY: socket, ioctl, bind, listen and sendmsg on prepared data.
        unsafe {
            let sock = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            check_rc(sock)?;
            let sock = OwnedFd::from_raw_fd(sock);
            let mut ifr: libc::ifreq = std::mem::zeroed();
            ifr.ifr_name[0] = b'l' as libc::c_char;
            ifr.ifr_name[1] = b'o' as libc::c_char;
            ifr.ifr_ifru.ifru_flags = (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            check_rc(libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS, &ifr))?;
            let address = &self.address as *const libc::sockaddr_in;
            check_rc(libc::bind(
                sock.as_raw_fd(),
                address.cast(),
                std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
            ))?;
            check_rc(libc::listen(sock.as_raw_fd(), 128))?;
            send_fd(&self.back, &sock)
        }
    }
}

/// Sends `fd` over the socket `via` (`SCM_RIGHTS`).
fn send_fd(via: &OwnedFd, fd: &OwnedFd) -> io::Result<()> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // Room for one descriptor's control message (CMSG_SPACE(4) is 24).
    let mut control = [0u64; 4];
    // SAFETY: a msghdr over the buffers above, one SCM_RIGHTS message.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(4) as _;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(4) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>(), fd.as_raw_fd());
        let n = libc::sendmsg(via.as_raw_fd(), &msg, 0);
        check_rc(if n < 0 { -1 } else { 0 })
    }
}

/// The proxy's listener, once the spawn succeeded (it was sent before the
/// server was exec'd, so it is waiting).
pub(crate) fn receive_listener(via: &OwnedFd) -> io::Result<std::net::TcpListener> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = [0u64; 4];
    // SAFETY: a msghdr over the buffers above; the descriptor received is
    // new and ours.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        let flags = libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC;
        if libc::recvmsg(via.as_raw_fd(), &mut msg, flags) < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return Err(io::Error::other("no listener came back from the namespace"));
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<libc::c_int>());
        Ok(std::net::TcpListener::from_raw_fd(fd))
    }
}

/// A Landlock ruleset handling `handled`, allowing `read` and `write`
/// (paths that do not exist are skipped: there is nothing to allow).
fn ruleset(
    abi: i64,
    handled: u64,
    read: &[std::path::PathBuf],
    write: &[std::path::PathBuf],
) -> io::Result<OwnedFd> {
    let attr = RulesetAttr {
        handled_access_fs: handled,
        handled_access_net: 0,
        scoped: SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL,
    };
    // Before ABI 6 the kernel knows only the first field.
    let size = if abi >= 6 {
        std::mem::size_of::<RulesetAttr>()
    } else {
        std::mem::size_of::<u64>()
    };
    // SAFETY: attr is a valid landlock_ruleset_attr of at least `size` bytes.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            size,
            0u32,
        )
    };
    check_rc(fd as libc::c_int)?;
    // SAFETY: a new fd that nothing else owns.
    let ruleset = unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) };
    let rules = read
        .iter()
        .map(|p| (p, READ_RIGHTS))
        .chain(write.iter().map(|p| (p, handled)));
    for (path, rights) in rules {
        let Some(fd) = open_existing(path)? else {
            continue;
        };
        let rights = if path.is_dir() {
            rights
        } else {
            rights & FILE_RIGHTS
        };
        add_rule(&ruleset, &fd, rights & handled)?;
    }
    Ok(ruleset)
}

fn open_existing(path: &Path) -> io::Result<Option<OwnedFd>> {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
        return Ok(None);
    };
    match open_path(&c) {
        Ok(fd) => Ok(Some(fd)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

fn open_path(path: &CString) -> io::Result<OwnedFd> {
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
    check_rc(fd)?;
    // SAFETY: a new fd that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn add_rule(ruleset: &OwnedFd, path: &OwnedFd, rights: u64) -> io::Result<()> {
    let attr = PathBeneathAttr {
        allowed_access: rights,
        parent_fd: path.as_raw_fd(),
    };
    // SAFETY: a valid path-beneath attribute and ruleset fd.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    check_rc(rc as libc::c_int)
}

fn write_file(path: &CString, text: &CString) -> io::Result<()> {
    // SAFETY: NUL-terminated path; a buffer of the length given.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    check_rc(fd)?;
    let bytes = text.as_bytes();
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    let result = if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    };
    unsafe { libc::close(fd) };
    result
}

fn check_rc(rc: libc::c_int) -> io::Result<()> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
