//! A server that tries to escape its sandbox (`tests/servers/escape.py`):
//! each escape is tried by the server itself, and each refusal is asserted
//! with its cause. Where this machine lacks what a refusal needs (or the
//! tests run as root), the test fails or asserts what holds instead, with
//! the reason: it never passes silently.

use std::os::fd::{FromRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};

use mcpbind::{Client, Config, SandboxBuilder, ServerConfig};
use serde_json::{json, Value};

use crate::util::sandbox::{python, require_landlock};
use crate::util::{self, call_text};

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

/// Asserts that `tool` was refused with `errno`.
async fn refused(client: &Client, tool: &str, arguments: Value, errno: &str) {
    let (failed, text) = call_text(client, tool, arguments.clone()).await;
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
        Watched::from_pid(text.trim().parse().unwrap())
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
    /// The process whose pid in the PID namespace of the server whose
    /// process (the reaper, outside it) is `reaper` the server wrote to
    /// `pidfile`: found by its namespace and its pid there.
    fn from_namespaced_pidfile(pidfile: &Path, reaper: u32) -> Watched {
        let inner: i32 = std::fs::read_to_string(pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let children = format!("/proc/{reaper}/task/{reaper}/children");
        let init = std::fs::read_to_string(&children).unwrap();
        let init = init
            .split_whitespace()
            .next()
            .unwrap_or_else(|| panic!("{children}: no init"));
        let ns = std::fs::read_link(format!("/proc/{init}/ns/pid")).unwrap();
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .find(|pid| {
                let same_ns =
                    std::fs::read_link(format!("/proc/{pid}/ns/pid")).is_ok_and(|n| n == ns);
                let status =
                    std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
                let nspid = status
                    .lines()
                    .find_map(|l| l.strip_prefix("NSpid:"))
                    .and_then(|l| l.split_whitespace().last()?.parse::<i32>().ok());
                same_ns && nspid == Some(inner)
            })
            .unwrap_or_else(|| panic!("no process is pid {inner} in {ns:?}"));
        Watched::from_pid(found)
    }

    fn from_pid(pid: i32) -> Watched {
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
    let (failed, text) = call_text(&client, "fork", json!({"pidfile": pidfile})).await;
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
    let (failed, text) = call_text(&client, "fork", json!({"pidfile": pidfile})).await;
    assert!(!failed, "{text}");
    let child = Watched::from_pidfile(&pidfile);
    assert!(!child.ended_within(0), "the child ended on its own");
    drop(client);
    child.assert_ends("the forked child");
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
        call_text(
            &client,
            "read",
            json!({"path": outside.path().join("open.txt")})
        )
        .await,
        (false, "not in HOME".to_owned())
    );
    let written = outside.path().join("written.txt");
    assert_eq!(
        call_text(&client, "write", json!({"path": written, "text": "x"})).await,
        (false, "written".to_owned())
    );
}

/// A `tools/call` answered with text containing `wanted`.
async fn answers(client: &Client, tool: &str, arguments: Value, wanted: &str) {
    let (failed, text) = call_text(client, tool, arguments).await;
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
    let (failed, env) = call_text(&client, "env", json!({})).await;
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

/// `network = false` alone: `npx` and `uvx` run from caches of their own,
/// and the agent's (`~/.npm`, `~/.cache/uv`) are not written. The agent is
/// the CLI, with HOME a temp dir; both run offline: `npx` from a tarball,
/// `uvx` from the wheels tests/servers/install.sh downloads.
#[test]
fn npx_and_uvx_caches_are_private_under_network_false_alone() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let tarball = escape_package(dir.path());
    let servers = util::servers_dir();
    let toml = |p: &Path| util::toml_str(&p.display().to_string());
    let config = format!(
        "[servers.npx]\ncommand = \"npx\"\nargs = [\"--yes\", \"--offline\", \"--package\", {}, \"escape-server\"]\n\
         [servers.npx.sandbox]\nnetwork = false\n\
         [servers.uvx]\ncommand = {}\nargs = [\"--offline\", \"--no-index\", \"--find-links\", {}, \"--python\", {}, \"mcp-server-time\", \"--local-timezone\", \"UTC\"]\n\
         [servers.uvx.sandbox]\nnetwork = false\n",
        toml(&tarball),
        toml(&servers.join(".venv/bin/uvx")),
        toml(&servers.join("wheels")),
        toml(&servers.join(".venv/bin/python")),
    );
    std::fs::write(dir.path().join("mcpbind.toml"), config).unwrap();
    let home_str = home.path().display().to_string();
    let cache_home = home.path().join(".cache");
    let cache_str = cache_home.display().to_string();
    let env = [
        ("HOME", home_str.as_str()),
        ("XDG_CACHE_HOME", cache_str.as_str()),
    ];
    let out = util::mcpbind_env(dir.path(), &["call", "npx", "env", "{}"], &env);
    assert_eq!(out.code, Some(0), "{out:?}");
    let server_env: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let own = PathBuf::from(server_env["npm_config_cache"].as_str().unwrap_or_default());
    assert!(
        own.starts_with(cache_home.join("mcpbind/sandbox")) && own.join("_npx").is_dir(),
        "npx did not install into a cache of its own: {own:?}"
    );
    assert!(
        !home.path().join(".npm").exists(),
        "npx wrote the agent's ~/.npm"
    );
    let args = json!({"timezone": "UTC"}).to_string();
    let out = util::mcpbind_env(
        dir.path(),
        &["call", "uvx", "get_current_time", &args],
        &env,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("UTC"), "{out:?}");
    assert!(
        !cache_home.join("uv").exists(),
        "uvx wrote the agent's ~/.cache/uv"
    );
    let sandbox = std::fs::read_dir(cache_home.join("mcpbind/sandbox")).unwrap();
    let uv_cache = sandbox
        .flatten()
        .map(|e| e.path().join("uv-cache"))
        .find(|p| p.is_dir())
        .expect("no private uv cache");
    assert!(
        std::fs::read_dir(&uv_cache).unwrap().next().is_some(),
        "{uv_cache:?} is empty"
    );
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
        let (failed, _) =
            call_text(&client, "tcp", json!({"host": "127.0.0.1", "port": port})).await;
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
    let mcpbind::Error::Sandbox(refused) = &error else {
        panic!("{error:#}")
    };
    let (server, setting, reason) = (&refused.server, &refused.setting, &refused.reason);
    assert_eq!((server.as_str(), setting.as_str()), ("escape", "network"));
    assert!(
        reason.starts_with(
            "unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET) was refused at spawn: EPERM"
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
    let mcpbind::Error::Sandbox(refused) = &error else {
        panic!("{error:#}")
    };
    let (setting, reason) = (&refused.setting, &refused.reason);
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
    let (failed, text) = call_text(&client, "unix", json!({ "path": path })).await;
    assert!(
        !failed,
        "connect() to a pathname socket was refused ({text}): the README says it is not"
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
    let (_, env) = call_text(&client, "env", json!({})).await;
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
        call_text(
            &client,
            "http",
            json!({"url": format!("http://127.0.0.1:{allowed}/")})
        )
        .await,
        (false, format!("hello from {allowed}"))
    );
    let (failed, text) = call_text(
        &client,
        "http",
        json!({"url": format!("http://127.0.0.1:{other}/")}),
    )
    .await;
    assert!(failed && text.contains("403"), "{text}");
    let (failed, text) = call_text(
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
    let (failed, text) = call_text(
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
    let (failed, text) = call_text(&client, "resolve", json!({"host": "example.com"})).await;
    assert!(failed, "resolved example.com to {text} without the proxy");
}

mod matrix;
