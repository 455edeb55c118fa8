//! `processes` when mcpbind runs as root: the kernel never holds root to
//! `RLIMIT_NPROC`, so each start of the server gets a pids cgroup of its
//! own (`mcpbind/SERVER-PID-N` under the pids hierarchy: cgroup v2 at
//! `/sys/fs/cgroup`, else v1's `/sys/fs/cgroup/pids`) whose `pids.max`
//! bounds the server and everything it forks, whatever their uid.
//!
//! The server is root in its user namespace and could write `pids.max`
//! (the file is root's): in the child, an empty read-only directory is
//! mounted over `/sys/fs/cgroup` before the mounts are locked
//! (`linux.rs`, `own_proc`), so the server sees no cgroup file at all.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;
const CGROUP_SUPER_MAGIC: i64 = 0x0027_e0eb;

/// The pids hierarchy mcpbind can make cgroups in.
#[derive(Debug)]
pub(crate) struct Hierarchy {
    root: PathBuf,
    v2: bool,
}

impl Hierarchy {
    /// The hierarchy, or why there is none.
    pub(crate) fn find() -> Result<Hierarchy, String> {
        let unified = Path::new("/sys/fs/cgroup");
        let v1 = unified.join("pids");
        let hierarchy = if fs_type(unified) == Some(CGROUP2_SUPER_MAGIC) {
            let controllers =
                std::fs::read_to_string(unified.join("cgroup.controllers")).unwrap_or_default();
            if !controllers.split_whitespace().any(|c| c == "pids") {
                return Err(no_cgroup(
                    "cgroup v2 at /sys/fs/cgroup has no pids controller",
                ));
            }
            Hierarchy {
                root: unified.to_owned(),
                v2: true,
            }
        } else if fs_type(&v1) == Some(CGROUP_SUPER_MAGIC) {
            Hierarchy {
                root: v1,
                v2: false,
            }
        } else {
            return Err(no_cgroup(
                "there is no pids cgroup (v2 at /sys/fs/cgroup, or v1 at /sys/fs/cgroup/pids)",
            ));
        };
        if !writable(&hierarchy.root) {
            return Err(no_cgroup(&format!(
                "{} is not writable",
                hierarchy.root.display()
            )));
        }
        Ok(hierarchy)
    }
}

fn no_cgroup(why: &str) -> String {
    format!("the kernel does not apply RLIMIT_NPROC to root, so mcpbind (running as root) bounds `processes` with a pids cgroup, but {why} (run the agent as another user, or leave `processes` out)")
}

fn fs_type(path: &Path) -> Option<i64> {
    use std::os::unix::ffi::OsStrExt as _;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statfs filled by the call, on a NUL-terminated path.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(c.as_ptr(), &mut st) } == 0).then_some(st.f_type as i64)
}

fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

/// One start's pids cgroup: removed (with whatever is still in it) when
/// dropped.
#[derive(Debug)]
pub(crate) struct PidsCgroup {
    dir: PathBuf,
    v2: bool,
}

impl PidsCgroup {
    /// A new cgroup for a start of `server`, holding at most `max`
    /// processes and threads.
    pub(crate) fn new(server: &str, max: u64) -> std::io::Result<PidsCgroup> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let hierarchy = Hierarchy::find().map_err(std::io::Error::other)?;
        let base = hierarchy.root.join("mcpbind");
        if let Err(e) = std::fs::create_dir(&base) {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(e);
            }
        }
        if hierarchy.v2 {
            // The controller, enabled for mcpbind's cgroups and theirs.
            std::fs::write(hierarchy.root.join("cgroup.subtree_control"), "+pids")?;
            std::fs::write(base.join("cgroup.subtree_control"), "+pids")?;
        }
        sweep(&base);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = base.join(format!("{server}-{}-{n}", std::process::id()));
        std::fs::create_dir(&dir)?;
        let cgroup = PidsCgroup {
            dir,
            v2: hierarchy.v2,
        };
        std::fs::write(cgroup.dir.join("pids.max"), max.to_string())?;
        Ok(cgroup)
    }

    /// Its `cgroup.procs`, open for writing (the child joins by writing
    /// `0`).
    pub(crate) fn procs(&self) -> std::io::Result<OwnedFd> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join("cgroup.procs"))?;
        Ok(file.into())
    }
}

/// Removes the cgroups of agents that have ended (an agent that was
/// killed leaves its cgroups behind, empty once their servers ended).
fn sweep(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let agent = name
            .to_str()
            .and_then(|n| n.rsplit('-').nth(1))
            .and_then(|pid| pid.parse::<u32>().ok());
        if agent.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

impl Drop for PidsCgroup {
    /// Kills what is left in the cgroup and removes it, on a thread of its
    /// own: the processes take a moment to leave it.
    fn drop(&mut self) {
        let dir = std::mem::take(&mut self.dir);
        let v2 = self.v2;
        std::thread::spawn(move || {
            if v2 {
                let _ = std::fs::write(dir.join("cgroup.kill"), "1");
            }
            for _ in 0..500 {
                if std::fs::remove_dir(&dir).is_ok() {
                    return;
                }
                for pid in std::fs::read_to_string(dir.join("cgroup.procs"))
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| l.parse::<libc::pid_t>().ok())
                {
                    // SAFETY: kill takes plain values.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        });
    }
}
