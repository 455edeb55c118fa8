//! A server that tries to escape its sandbox (`tests/servers/escape.py`):
//! each escape is tried by the server itself, and each refusal is asserted
//! with its cause. Where this machine lacks what a refusal needs (or the
//! tests run as root), the test fails or asserts what holds instead, with
//! the reason: it never passes silently.

use std::os::fd::{FromRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};

use mcpbind::{CallOptions, Client, Config, SandboxBuilder, ServerConfig};
use serde_json::{json, Value};

use crate::util;

/// The venv's Python (the test servers' installation).
fn python() -> String {
    util::servers_dir()
        .join(".venv/bin/python")
        .display()
        .to_string()
}

fn escape_script() -> PathBuf {
    util::tests_dir().join("servers/escape.py")
}

/// A config with `script` as server `escape`, and `sandbox` (if any) as
/// its `[servers.escape.sandbox]`.
fn config_for(script: &Path, sandbox: Option<SandboxBuilder>) -> Config {
    let server = ServerConfig::stdio(python()).arg(script.display().to_string());
    let server = match sandbox {
        Some(sandbox) => server.sandbox(sandbox),
        None => server,
    };
    Config::new().server("escape", server).unwrap()
}

/// The escape server, with `sandbox` as its `[servers.escape.sandbox]`.
fn escape_config(sandbox: SandboxBuilder) -> Config {
    config_for(&escape_script(), Some(sandbox))
}

/// A sandbox with `read = []`.
fn read_nothing() -> SandboxBuilder {
    SandboxBuilder::new().read(Vec::<PathBuf>::new())
}

/// Calls `tool`: whether it failed, and its text.
async fn call(client: &Client, tool: &str, arguments: Value) -> (bool, String) {
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let result = client
        .call_raw(tool, arguments, &CallOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e:#}"));
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<String>();
    (result.is_error == Some(true), text)
}

/// Asserts that `tool` was refused with `errno`.
async fn refused(client: &Client, tool: &str, arguments: Value, errno: &str) {
    let (failed, text) = call(client, tool, arguments.clone()).await;
    assert!(
        failed && text.starts_with(&format!("errno {errno}")),
        "{tool} {arguments}: expected errno {errno}, got {text:?}"
    );
}

/// A process the test watches: a pidfd, readable once the process ended.
struct Watched {
    pid: i32,
    fd: OwnedFd,
}

impl Watched {
    /// The process whose pid the server wrote to `pidfile`.
    fn from_pidfile(pidfile: &Path) -> Watched {
        let text = std::fs::read_to_string(pidfile).unwrap();
        let pid: i32 = text.trim().parse().unwrap();
        // SAFETY: pidfd_open takes plain values.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        assert!(
            fd >= 0,
            "pidfd_open({pid}): {}",
            std::io::Error::last_os_error()
        );
        Watched {
            pid,
            // SAFETY: a new descriptor nothing else owns.
            fd: unsafe { OwnedFd::from_raw_fd(fd as i32) },
        }
    }

    /// Whether the process has ended, waiting for it up to `millis`.
    fn ended_within(&self, millis: i32) -> bool {
        use std::os::fd::AsRawFd as _;
        let mut poll = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // A signal (a child's SIGCHLD, say) interrupts the wait: wait
        // again (the bound only keeps a failure from hanging the suite).
        let n = loop {
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut poll, 1, millis) };
            let error = std::io::Error::last_os_error();
            if n >= 0 || error.kind() != std::io::ErrorKind::Interrupted {
                assert!(n >= 0, "poll: {error}");
                break n;
            }
        };
        n == 1
    }

    /// Asserts that the process ends (a generous bound: it is only there
    /// so that a failure does not hang the suite).
    fn assert_ends(&self, what: &str) {
        assert!(
            self.ended_within(60_000),
            "{what} (pid {}) is still running a minute after the server was closed",
            self.pid
        );
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // A test that failed leaves nothing running.
        if !self.ended_within(0) {
            // SAFETY: a pidfd of a process this test had started.
            unsafe {
                libc::syscall(
                    libc::SYS_pidfd_send_signal,
                    self.fd_raw(),
                    libc::SIGKILL,
                    0,
                    0,
                )
            };
        }
    }
}

impl Watched {
    fn fd_raw(&self) -> i32 {
        use std::os::fd::AsRawFd as _;
        self.fd.as_raw_fd()
    }
}

/// A child the server forked, that stays in its process group and ignores
/// SIGHUP and SIGTERM, ends when the client is closed: the group is killed
/// after the grace period.
#[tokio::test]
async fn a_forked_child_ends_when_the_client_closes() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let config = config_for(&escape_script(), None);
    let client = Client::connect(&config, "escape").await.unwrap();
    let (failed, text) = call(&client, "fork", json!({"pidfile": pidfile})).await;
    assert!(!failed, "{text}");
    let child = Watched::from_pidfile(&pidfile);
    assert!(!child.ended_within(0), "the child ended on its own");
    client.close().await;
    child.assert_ends("the forked child");
}

/// The same when the client is dropped without being closed.
#[tokio::test]
async fn a_forked_child_ends_when_the_client_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let config = config_for(&escape_script(), None);
    let client = Client::connect(&config, "escape").await.unwrap();
    let (failed, text) = call(&client, "fork", json!({"pidfile": pidfile})).await;
    assert!(!failed, "{text}");
    let child = Watched::from_pidfile(&pidfile);
    assert!(!child.ended_within(0), "the child ended on its own");
    drop(client);
    child.assert_ends("the forked child");
}

/// Landlock must be there: a kernel without it fails the tests that need
/// it, with this message, rather than skipping them.
fn require_landlock() {
    // SAFETY: the version query of landlock_create_ruleset(2).
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    assert!(
        abi >= 1,
        "these tests need Landlock (Linux 5.13+ with landlock in `lsm=`): landlock_create_ruleset says {abi} ({})",
        std::io::Error::last_os_error()
    );
}

/// The agent's HOME (the test process's).
fn agent_home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").expect("HOME is set for the tests"))
}

/// `home = "isolated"` alone: the agent's HOME is neither readable nor
/// writable by absolute path, while the rest of the files stay open.
#[tokio::test]
async fn isolated_home_hides_the_agents_home_by_path() {
    require_landlock();
    let home = tempfile::tempdir_in(agent_home()).unwrap();
    let secret = home.path().join("id_test");
    std::fs::write(&secret, "agent private key").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("open.txt"), "not in HOME").unwrap();
    let client = Client::connect(
        &escape_config(SandboxBuilder::new().home("isolated")),
        "escape",
    )
    .await
    .unwrap();
    refused(&client, "read", json!({"path": secret}), "EACCES").await;
    let planted = home.path().join("planted");
    refused(
        &client,
        "write",
        json!({"path": planted, "text": "x"}),
        "EACCES",
    )
    .await;
    assert!(!planted.exists());
    // Files outside HOME are not confined by `home` alone.
    assert_eq!(
        call(
            &client,
            "read",
            json!({"path": outside.path().join("open.txt")})
        )
        .await,
        (false, "not in HOME".to_owned())
    );
    let written = outside.path().join("written.txt");
    assert_eq!(
        call(&client, "write", json!({"path": written, "text": "x"})).await,
        (false, "written".to_owned())
    );
}

/// A script granted by the command line grants the script, not its folder:
/// a file beside it is refused.
#[tokio::test]
async fn a_file_beside_the_script_is_refused() {
    require_landlock();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("server.py");
    std::fs::copy(escape_script(), &script).unwrap();
    let beside = dir.path().join("beside.txt");
    std::fs::write(&beside, "next to the script").unwrap();
    let config = config_for(&script, Some(read_nothing()));
    let client = Client::connect(&config, "escape").await.unwrap();
    refused(&client, "read", json!({"path": beside}), "EACCES").await;
    // Without a sandbox the same read succeeds: the refusal is the sandbox's.
    let open = Client::connect(&config_for(&script, None), "escape")
        .await
        .unwrap();
    assert_eq!(
        call(&open, "read", json!({"path": beside})).await,
        (false, "next to the script".to_owned())
    );
}

/// A `tools/call` answered with text containing `wanted`.
async fn answers(client: &Client, tool: &str, arguments: Value, wanted: &str) {
    let (failed, text) = call(client, tool, arguments).await;
    assert!(!failed && text.contains(wanted), "{tool}: {text}");
}

/// A locally installed npm server, run from its `node_modules/.bin` entry
/// and from its script, starts under `read = []`: its package and the
/// hoisted `node_modules` it resolves its dependencies from are granted.
#[tokio::test]
async fn an_installed_npm_server_starts_under_read_nothing() {
    require_landlock();
    let modules = util::servers_dir().join("node_modules");
    let bin = modules.join(".bin/mcp-server-everything");
    let script = modules.join("@modelcontextprotocol/server-everything/dist/index.js");
    for (command, args) in [
        (bin.display().to_string(), vec![]),
        ("node".to_owned(), vec![script.display().to_string()]),
    ] {
        let every = ServerConfig::stdio(&command)
            .args(&args)
            .sandbox(read_nothing().network(false));
        let config = Config::new().server("every", every).unwrap();
        let client = Client::connect(&config, "every")
            .await
            .unwrap_or_else(|e| panic!("{command} {args:?}: {e:#}"));
        answers(&client, "echo", json!({"message": "confined"}), "confined").await;
    }
}

/// A Python entry point in a venv starts under `read = []`.
#[tokio::test]
async fn a_venv_entry_point_starts_under_read_nothing() {
    require_landlock();
    let bin = util::servers_dir().join(".venv/bin/mcp-server-time");
    let time = ServerConfig::stdio(bin.display().to_string())
        .args(["--local-timezone", "UTC"])
        .sandbox(read_nothing().network(false));
    let config = Config::new().server("time", time).unwrap();
    let client = Client::connect(&config, "time").await.unwrap();
    answers(
        &client,
        "get_current_time",
        json!({"timezone": "UTC"}),
        "UTC",
    )
    .await;
}

/// The escape server packed as an npm package (a tarball `npx` installs
/// from, offline), with `escape-server` as its bin.
fn escape_package(dir: &Path) -> PathBuf {
    let package = dir.join("package");
    std::fs::create_dir(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "escape-server", "version": "1.0.0", "bin": {"escape-server": "escape.py"}}"#,
    )
    .unwrap();
    std::fs::copy(escape_script(), package.join("escape.py")).unwrap();
    let tarball = dir.join("escape-server-1.0.0.tgz");
    let status = std::process::Command::new("tar")
        .arg("czf")
        .arg(&tarball)
        .arg("-C")
        .arg(dir)
        .arg("package")
        .status()
        .unwrap();
    assert!(status.success(), "tar");
    tarball
}

/// The agent's npm cache (`npm config get cache`), created if missing.
fn agent_npm_cache() -> PathBuf {
    let out = std::process::Command::new("npm")
        .args(["config", "get", "cache"])
        .output()
        .unwrap();
    assert!(out.status.success(), "npm config get cache: {out:?}");
    let cache = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    std::fs::create_dir_all(&cache).unwrap();
    cache
}

/// A confined `npx -y` server starts under `read` = its package alone,
/// installs into a cache of its own, and cannot write the agent's npm
/// cache (which unconfined `npx` runs execute from).
#[tokio::test]
async fn a_confined_npx_server_cannot_write_the_agents_cache() {
    require_landlock();
    let dir = tempfile::tempdir().unwrap();
    let tarball = escape_package(dir.path());
    let escape = ServerConfig::stdio("npx")
        .args(["--yes", "--offline", "--package"])
        .arg(tarball.display().to_string())
        .arg("escape-server")
        .env("PATH", "/usr/bin:/bin")
        .sandbox(
            SandboxBuilder::new()
                .read([&tarball])
                .home("isolated")
                .network(false),
        );
    let config = Config::new().server("escape", escape).unwrap();
    let client = Client::connect(&config, "escape").await.unwrap();
    let (failed, env) = call(&client, "env", json!({})).await;
    assert!(!failed, "{env}");
    let env: Value = serde_json::from_str(&env).unwrap();
    let own = env["npm_config_cache"]
        .as_str()
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("no npm_config_cache in {env}"));
    let agent = agent_npm_cache();
    assert!(
        !own.starts_with(&agent),
        "{own:?} is in the agent's {agent:?}"
    );
    assert!(
        own.join("_npx").is_dir(),
        "npx did not install into {own:?}"
    );
    let poison = agent.join("mcpbind-escape-poison");
    refused(
        &client,
        "write",
        json!({"path": poison, "text": "x"}),
        "EACCES",
    )
    .await;
    assert!(!poison.exists());
    client.close().await;
    // The cache is kept between starts; this test's command is new each run.
    std::fs::remove_dir_all(own.parent().unwrap()).unwrap();
}

/// A daemon the server double-forked with `setsid` (a session and process
/// group of its own, ignoring SIGHUP and SIGTERM) ends with the server
/// under `network = false`: the server runs in a PID namespace whose init
/// exits with it, and the kernel kills what is left in the namespace.
#[tokio::test]
async fn a_setsid_daemon_ends_with_a_namespaced_server() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("daemon.pid");
    let client = Client::connect(
        &escape_config(SandboxBuilder::new().network(false)),
        "escape",
    )
    .await
    .unwrap();
    let (failed, text) = call(&client, "daemon", json!({"pidfile": pidfile})).await;
    assert!(!failed, "{text}");
    let daemon = Watched::from_pidfile(&pidfile);
    assert!(!daemon.ended_within(0), "the daemon ended on its own");
    // It left the server's process group: only the namespace can end it.
    // SAFETY: getpgid takes a pid.
    let group = unsafe { libc::getpgid(daemon.pid) };
    let server = client.process_id().await.unwrap();
    assert_ne!(u32::try_from(group).ok(), Some(server), "not a daemon");
    client.close().await;
    daemon.assert_ends("the setsid daemon");
}

/// Runs `body` on a thread of its own, under a seccomp filter that makes
/// `syscall` fail with EPERM (as a container's profile does); the filter
/// is the thread's alone (no TSYNC) and ends with it.
fn under_seccomp<F, T>(syscall: libc::c_long, body: F) -> T
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    std::thread::spawn(move || {
        refuse_syscall(syscall);
        body()
    })
    .join()
    .unwrap()
}

fn refuse_syscall(syscall: libc::c_long) {
    #[cfg(target_arch = "x86_64")]
    const ARCH: u32 = 0xc000_003e;
    #[cfg(target_arch = "aarch64")]
    const ARCH: u32 = 0xc000_00b7;
    let stmt = |code: u16, k: u32| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |k: u32, jt: u8, jf: u8| libc::sock_filter {
        code: 0x15, // BPF_JMP | BPF_JEQ | BPF_K
        jt,
        jf,
        k,
    };
    let load = 0x20; // BPF_LD | BPF_W | BPF_ABS
    let ret = 0x06; // BPF_RET | BPF_K
    let mut program = [
        stmt(load, 4), // seccomp_data.arch
        jump(ARCH, 0, 3),
        stmt(load, 0), // seccomp_data.nr
        jump(u32::try_from(syscall).unwrap(), 0, 1),
        stmt(ret, 0x0005_0000 | libc::EPERM as u32), // SECCOMP_RET_ERRNO
        stmt(ret, 0x7fff_0000),                      // SECCOMP_RET_ALLOW
    ];
    let prog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_mut_ptr(),
    };
    // SAFETY: prctl with a valid filter program for this thread.
    unsafe {
        assert_eq!(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
        assert_eq!(
            libc::prctl(libc::PR_SET_SECCOMP, 2, &prog as *const libc::sock_fprog),
            0,
            "seccomp: {}",
            std::io::Error::last_os_error()
        );
    }
}

/// Connects to the escape server with `sandbox`, on a current-thread
/// runtime (the spawn forks from this thread), and tries one TCP connect
/// to a local listener: the error, or whether the connect was refused.
fn connect_and_dial(sandbox: SandboxBuilder) -> Result<bool, mcpbind::Error> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = Client::connect(&escape_config(sandbox), "escape").await?;
        let (failed, _) = call(&client, "tcp", json!({"host": "127.0.0.1", "port": port})).await;
        Ok(failed)
    })
}

/// A namespace the kernel refuses at spawn (here seccomp, as in a
/// container) is `Error::Sandbox` naming the setting, the call and the
/// errno; with `required = false` it is a warning and the server runs
/// without it.
#[test]
fn a_refused_unshare_names_the_setting_and_the_errno() {
    let error = under_seccomp(libc::SYS_unshare, || {
        connect_and_dial(SandboxBuilder::new().network(false)).unwrap_err()
    });
    let mcpbind::Error::Sandbox {
        server,
        setting,
        reason,
    } = &error
    else {
        panic!("{error:#}")
    };
    assert_eq!((server.as_str(), setting.as_str()), ("escape", "network"));
    assert!(
        reason.starts_with(
            "unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET) was refused at spawn: EPERM"
        ),
        "{reason}"
    );
    let refused = under_seccomp(libc::SYS_unshare, || {
        connect_and_dial(SandboxBuilder::new().network(false).required(false)).unwrap()
    });
    assert!(!refused, "the network was confined after all");
}

/// The same for Landlock: `landlock_restrict_self` refused at spawn.
#[test]
fn a_refused_landlock_names_the_setting_and_the_errno() {
    require_landlock();
    let error = under_seccomp(libc::SYS_landlock_restrict_self, || {
        connect_and_dial(read_nothing()).unwrap_err()
    });
    let mcpbind::Error::Sandbox {
        setting, reason, ..
    } = &error
    else {
        panic!("{error:#}")
    };
    assert_eq!(setting, "read");
    assert!(
        reason.starts_with("landlock_restrict_self was refused at spawn: EPERM"),
        "{reason}"
    );
    let refused = under_seccomp(libc::SYS_landlock_restrict_self, || {
        connect_and_dial(read_nothing().required(false)).unwrap()
    });
    assert!(!refused);
}

/// The Landlock ABI of this kernel (0 without Landlock).
fn landlock_abi() -> i64 {
    // SAFETY: the version query of landlock_create_ruleset(2).
    unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    }
}

fn running_as_root() -> bool {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() == 0 }
}

/// The agent's own process (the test's): its environment by `/proc`,
/// `ptrace` and a signal are refused to a server whose files are confined
/// (Landlock: `/proc/PID` of another process is not granted, a sandboxed
/// process cannot ptrace one outside its domain, and from ABI 6 cannot
/// signal one); in a PID namespace the agent has no pid at all.
#[tokio::test]
async fn the_agent_process_is_out_of_reach() {
    require_landlock();
    assert!(
        landlock_abi() >= 6,
        "refusing signals to the agent needs Landlock ABI 6 (Linux 6.12), this kernel has {}",
        landlock_abi()
    );
    let agent = std::process::id();
    let environ = format!("/proc/{agent}/environ");
    for sandbox in [read_nothing(), SandboxBuilder::new().home("isolated")] {
        let client = Client::connect(&escape_config(sandbox), "escape")
            .await
            .unwrap();
        refused(&client, "read", json!({ "path": environ }), "EACCES").await;
        refused(&client, "ptrace", json!({ "pid": agent }), "EPERM").await;
        refused(&client, "signal", json!({ "pid": agent }), "EPERM").await;
    }
    let client = Client::connect(
        &escape_config(SandboxBuilder::new().network(false)),
        "escape",
    )
    .await
    .unwrap();
    refused(&client, "ptrace", json!({ "pid": agent }), "ESRCH").await;
    refused(&client, "signal", json!({ "pid": agent }), "ESRCH").await;
}

/// `network = false`: TCP and UDP have no route (the namespace has only a
/// loopback, down), and the agent's abstract unix sockets are another
/// namespace's; with files confined, Landlock (ABI 6) refuses abstract
/// sockets made outside the sandbox too.
#[tokio::test]
async fn raw_tcp_udp_and_abstract_sockets_are_refused() {
    use std::os::linux::net::SocketAddrExt as _;
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let name = format!("mcpbind-escape-{}", std::process::id());
    let address = std::os::unix::net::SocketAddr::from_abstract_name(&name).unwrap();
    let _abstract = std::os::unix::net::UnixListener::bind_addr(&address).unwrap();
    let port = |addr: std::net::SocketAddr| addr.port();
    let open = Client::connect(&escape_config(SandboxBuilder::new()), "escape")
        .await
        .unwrap();
    let tcp_target = json!({"host": "127.0.0.1", "port": port(tcp.local_addr().unwrap())});
    let udp_target = json!({"host": "127.0.0.1", "port": port(udp.local_addr().unwrap())});
    let unix_target = json!({ "path": format!("@{name}") });
    // Unconfined, all three are reachable: the refusals below are the
    // sandbox's.
    for (tool, target) in [
        ("tcp", &tcp_target),
        ("udp", &udp_target),
        ("unix", &unix_target),
    ] {
        let (failed, text) = call(&open, tool, target.clone()).await;
        assert!(!failed, "{tool}: {text}");
    }
    let client = Client::connect(
        &escape_config(SandboxBuilder::new().network(false)),
        "escape",
    )
    .await
    .unwrap();
    refused(&client, "tcp", tcp_target, "ENETUNREACH").await;
    refused(&client, "udp", udp_target, "ENETUNREACH").await;
    refused(&client, "unix", unix_target.clone(), "ECONNREFUSED").await;
    require_landlock();
    let client = Client::connect(&escape_config(read_nothing()), "escape")
        .await
        .unwrap();
    refused(&client, "unix", unix_target, "EPERM").await;
}

/// The agent's pathname unix sockets (an ssh-agent, a docker socket) stay
/// reachable: a network namespace does not cover them, and Landlock up to
/// ABI 7 (this machine's kind) does not govern `connect()` on them. This
/// test asserts that gap, so that a kernel that closes it is noticed.
#[tokio::test]
async fn pathname_unix_sockets_stay_reachable_up_to_landlock_abi_7() {
    require_landlock();
    let abi = landlock_abi();
    assert!(
        abi <= 7,
        "Landlock ABI {abi} may refuse connect() on pathname unix sockets: handle it in the sandbox and turn this test into a refusal"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    let client = Client::connect(
        &escape_config(read_nothing().network(false).home("isolated")),
        "escape",
    )
    .await
    .unwrap();
    let (failed, text) = call(&client, "unix", json!({ "path": path })).await;
    assert!(
        !failed,
        "connect() to a pathname socket was refused ({text}): the README says it is not"
    );
}

/// A fork bomb under `processes`: bounded for a user other than root. The
/// kernel does not apply RLIMIT_NPROC to root, so as root the setting is
/// refused at connect (and this test says so), never silently unenforced.
#[tokio::test]
async fn a_fork_bomb_is_bounded_by_processes() {
    let config = escape_config(SandboxBuilder::new().processes(8));
    if running_as_root() {
        let error = Client::connect(&config, "escape").await.unwrap_err();
        assert!(
            matches!(&error, mcpbind::Error::Sandbox { setting, .. } if setting == "processes"),
            "{error:#}"
        );
        assert!(error.to_string().contains("RLIMIT_NPROC"), "{error}");
        eprintln!(
            "running as root: `processes` cannot be enforced, and connecting says so: {error}"
        );
        return;
    }
    let client = Client::connect(&config, "escape").await.unwrap();
    let (failed, text) = call(&client, "forkbomb", json!({"count": 200})).await;
    assert!(!failed, "{text}");
    let forked: usize = text
        .strip_prefix("forked ")
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(forked < 8 && text.ends_with("(errno EAGAIN)"), "{text}");
}

/// A large file under a write grant: `file_size` bounds each file
/// (`RLIMIT_FSIZE`); Python ignores SIGXFSZ, so the write fails with EFBIG.
#[tokio::test]
async fn a_large_file_is_bounded_by_file_size() {
    require_landlock();
    let dir = tempfile::tempdir().unwrap();
    let sandbox = read_nothing().write([dir.path()]).file_size("1M");
    let client = Client::connect(&escape_config(sandbox), "escape")
        .await
        .unwrap();
    let big = dir.path().join("big");
    refused(
        &client,
        "bigfile",
        json!({"path": big, "bytes": 8 << 20}),
        "EFBIG",
    )
    .await;
    assert!(std::fs::metadata(&big).unwrap().len() <= 1 << 20);
    let small = json!({"path": dir.path().join("small"), "bytes": 512 << 10});
    assert_eq!(
        call(&client, "bigfile", small).await,
        (false, format!("wrote {}", 512 << 10))
    );
}

/// `memory` bounds what the server allocates.
#[tokio::test]
async fn memory_is_bounded() {
    let client = Client::connect(
        &escape_config(SandboxBuilder::new().memory("256M")),
        "escape",
    )
    .await
    .unwrap();
    assert_eq!(
        call(&client, "alloc", json!({"bytes": 1u64 << 30})).await,
        (true, "MemoryError".to_owned())
    );
    assert_eq!(
        call(&client, "alloc", json!({"bytes": 16 << 20})).await,
        (false, format!("allocated {}", 16 << 20))
    );
}

/// A plain HTTP server on the agent's loopback, answering every request
/// with `hello from PORT` (a thread, for the test process's life).
fn http_server() -> u16 {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let body = format!("hello from {port}");
            let _ = write!(
                stream,
                "HTTP/1.0 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// `network = ["127.0.0.1:PORT"]`: through the proxy (plain HTTP and
/// CONNECT) the listed pair is reached and another refused with 403,
/// though both listen on the agent's loopback; a raw connect that ignores
/// the proxy reaches nothing, and there is no DNS.
#[tokio::test]
async fn the_network_allow_list_passes_only_listed_pairs() {
    let (allowed, other) = (http_server(), http_server());
    let client = Client::connect(
        &escape_config(SandboxBuilder::new().network_hosts([format!("127.0.0.1:{allowed}")])),
        "escape",
    )
    .await
    .unwrap();
    let (_, env) = call(&client, "env", json!({})).await;
    let env: Value = serde_json::from_str(&env).unwrap();
    for var in ["HTTP_PROXY", "https_proxy", "ALL_PROXY"] {
        assert!(
            env[var]
                .as_str()
                .is_some_and(|v| v.starts_with("http://127.0.0.1:")),
            "{var}: {env}"
        );
    }
    assert_eq!(
        call(
            &client,
            "http",
            json!({"url": format!("http://127.0.0.1:{allowed}/")})
        )
        .await,
        (false, format!("hello from {allowed}"))
    );
    let (failed, text) = call(
        &client,
        "http",
        json!({"url": format!("http://127.0.0.1:{other}/")}),
    )
    .await;
    assert!(failed && text.contains("403"), "{text}");
    let (failed, text) = call(
        &client,
        "tunnel",
        json!({"target": format!("127.0.0.1:{allowed}")}),
    )
    .await;
    assert!(
        !failed
            && text.starts_with("HTTP/1.1 200")
            && text.ends_with(&format!("hello from {allowed}")),
        "{text}"
    );
    let (failed, text) = call(
        &client,
        "tunnel",
        json!({"target": format!("127.0.0.1:{other}")}),
    )
    .await;
    assert!(!failed && text.starts_with("HTTP/1.1 403"), "{text}");
    refused(
        &client,
        "tcp",
        json!({"host": "127.0.0.1", "port": allowed}),
        "ECONNREFUSED",
    )
    .await;
    let (failed, text) = call(&client, "resolve", json!({"host": "example.com"})).await;
    assert!(failed, "resolved example.com to {text} without the proxy");
}
