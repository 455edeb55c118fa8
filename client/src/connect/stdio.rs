//! A server as a child process on stdin/stdout.
//!
//! mcpbind spawns the process itself (rather than through rmcp's
//! `TokioChildProcess`) so that it can keep a bounded tail of the server's
//! stderr for error messages, bound each message it reads by
//! `max_response_bytes`, and tap the raw bytes of `tools/list` responses.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::RoleClient;
use tokio::io::{AsyncRead, AsyncReadExt as _, ReadBuf};
use tokio::process::Command;

use super::opening::{self, Replay, Unopened};
use super::secrets::Expander;
use super::tap::{Failure, RawTap};
use super::{handshake, ConnectFailure, Handler, Lifecycle, Session};
use crate::error::Error;
use crate::redact::{redact, redact_cut};
use crate::sandbox::Target;
use crate::sandbox::{self, Confined, Scratch};
use mcpbind_model::config::is_safe_env;
use mcpbind_model::sandbox::SandboxConfig;

use mcpbind_model::internal::command::{self as lookup, launched};

use group::Child;

/// How many bytes of a server's stderr are kept for error messages.
const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// A server's child process, leading its own process group (on Windows,
/// alone in a Job Object). Dropping it kills the group (the server and every
/// process it started that stayed in the group); tokio reaps the server.
pub(crate) struct Process {
    child: Mutex<Child>,
    /// The process group the server leads (its pid at spawn; unused on
    /// Windows, where the job is the child's).
    group: Option<u32>,
    stderr: Arc<Mutex<StderrTail>>,
    /// The config's secrets: a server may print its arguments (a
    /// `--token ${TOKEN}`) or environment on a usage error.
    secrets: Arc<[String]>,
    /// The sandbox's HOME and temp dir, removed with the process.
    _scratch: Scratch,
    /// The network allow-list's proxy, which ends with the process.
    _proxy: Option<sandbox::Proxy>,
}

impl Process {
    /// The last bytes the process wrote to stderr, with the config's
    /// secrets replaced by `***`.
    pub(crate) fn stderr_tail(&self) -> Option<String> {
        let tail = self.stderr.lock().ok()?;
        let bytes: Vec<u8> = tail.buf.iter().copied().collect();
        if bytes.is_empty() {
            return None;
        }
        let text = String::from_utf8_lossy(&bytes);
        Some(if tail.truncated {
            redact_cut(&text, &self.secrets)
        } else {
            redact(&text, &self.secrets)
        })
    }

    /// The process id, while it runs.
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.lock().ok()?.id()
    }

    /// How the process ended, if it has. Once it has, the rest of its
    /// process group is killed, then the server is reaped.
    pub(crate) fn exit_status(&self) -> Option<String> {
        let mut child = self.child.lock().ok()?;
        if child.id().is_some() {
            if !group::has_exited(&mut child) {
                return None;
            }
            // Before the reap: an unreaped leader keeps its group id from
            // being reused, so the kill cannot reach another group.
            group::kill(&mut child, self.group);
        }
        match child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }

    /// Waits briefly for the process to end, so that an error can say how it
    /// ended and what it last printed.
    pub(crate) async fn settle(&self) -> Option<String> {
        let mut status = None;
        for _ in 0..40 {
            status = status.or_else(|| self.exit_status());
            let drained = self.stderr.lock().map(|t| t.closed).unwrap_or(true);
            if status.is_some() && drained {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // A server not yet reaped: kill its group with it (tokio's
        // `kill_on_drop` kills the server alone). A reaped one had its group
        // killed by `exit_status`.
        if let Ok(child) = self.child.get_mut() {
            if child.id().is_some() {
                group::kill(child, self.group);
            }
        }
    }
}

/// The server's process group: a child it forks stays in it (unless it
/// calls `setsid` or `setpgid`), whatever signals it ignores, so one
/// `SIGKILL` to the group ends them all.
#[cfg(unix)]
mod group {
    pub(super) type Child = tokio::process::Child;

    /// Starts the server in a new process group of its own.
    pub(super) fn spawn(mut cmd: tokio::process::Command) -> std::io::Result<Child> {
        cmd.process_group(0);
        cmd.spawn()
    }

    /// The server's stdin, stdout and stderr (each taken once).
    pub(super) fn pipes(child: &mut Child) -> super::Pipes {
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    }

    /// Whether the server (a child not yet reaped) has ended; it stays
    /// unreaped (`WNOWAIT`).
    pub(super) fn has_exited(child: &mut Child) -> bool {
        let Some(pid) = child.id() else {
            return true;
        };
        // SAFETY: a zeroed siginfo_t for waitid to fill.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: waitid on our own child, with a valid siginfo_t.
        let rc = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
        // SAFETY: waitid filled the pid field (0 while the child runs).
        rc != 0 || unsafe { info.si_pid() } != 0
    }

    /// Kills every process in `group`.
    pub(super) fn kill(_: &mut Child, group: Option<u32>) {
        if let Some(group) = group.and_then(|g| libc::pid_t::try_from(g).ok()) {
            // SAFETY: kill takes plain values; the group is ours (see the
            // callers).
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
    }
}

/// The server's Job Object (process-wrap's): the server is started
/// suspended, assigned to a job of its own and then resumed, so every
/// process it starts is in the job. The job is made with
/// `KILL_ON_JOB_CLOSE`: dropping the child closes it and ends them all, as
/// the process group's `SIGKILL` does on Unix.
#[cfg(windows)]
mod group {
    use process_wrap::tokio::{ChildWrapper, CommandWrap, JobObject, KillOnDrop};

    pub(super) type Child = Box<dyn ChildWrapper>;

    /// Starts the server in a Job Object of its own.
    pub(super) fn spawn(cmd: tokio::process::Command) -> std::io::Result<Child> {
        CommandWrap::from(cmd)
            .wrap(JobObject)
            .wrap(KillOnDrop)
            .spawn()
    }

    /// The server's stdin, stdout and stderr (each taken once).
    pub(super) fn pipes(child: &mut Child) -> super::Pipes {
        (
            child.stdin().take(),
            child.stdout().take(),
            child.stderr().take(),
        )
    }

    /// Whether the server has ended (a Windows process id is not reused
    /// while its handle, which the child holds, is open).
    pub(super) fn has_exited(child: &mut Child) -> bool {
        !matches!(child.try_wait(), Ok(None))
    }

    /// Kills every process in the server's job.
    pub(super) fn kill(child: &mut Child, _: Option<u32>) {
        let _ = child.start_kill();
    }
}

/// A spawned server's pipes.
type Pipes = (
    Option<tokio::process::ChildStdin>,
    Option<tokio::process::ChildStdout>,
    Option<tokio::process::ChildStderr>,
);

/// The last [`STDERR_TAIL_BYTES`] of stderr: bounded in bytes, so that an
/// endless line without a newline can't grow it.
#[derive(Default)]
struct StderrTail {
    buf: VecDeque<u8>,
    /// The process closed its stderr (it exited, usually).
    closed: bool,
    /// Bytes were dropped from the front: the tail may start inside a
    /// secret.
    truncated: bool,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8]) {
        let kept = &bytes[bytes.len().saturating_sub(STDERR_TAIL_BYTES)..];
        self.truncated |= kept.len() < bytes.len();
        self.buf.extend(kept);
        let excess = self.buf.len().saturating_sub(STDERR_TAIL_BYTES);
        self.truncated |= excess > 0;
        self.buf.drain(..excess);
    }
}

/// Reads stdout for rmcp: fails the transport when one line exceeds
/// `limit` bytes (rmcp would drop it silently and leave the request waiting
/// for its timeout), and hands whole lines to the tap while it is armed.
struct TeeReader<R> {
    inner: R,
    tap: Arc<RawTap>,
    limit: usize,
    /// Bytes of the current line so far.
    line_len: usize,
    /// The current line, while the tap is armed.
    partial: Vec<u8>,
}

impl<R> TeeReader<R> {
    /// Accounts for `bytes` just read; an error once a line is too long.
    fn feed(&mut self, mut bytes: &[u8]) -> std::io::Result<()> {
        let armed = self.tap.is_armed();
        if !armed {
            self.partial = Vec::new();
        }
        while !bytes.is_empty() {
            let (segment, ends_line) = match memchr::memchr(b'\n', bytes) {
                Some(i) => (&bytes[..=i], true),
                None => (bytes, false),
            };
            bytes = &bytes[segment.len()..];
            self.line_len += segment.len();
            if self.line_len > self.limit.saturating_add(1) {
                self.tap.fail(Failure::TooLarge {
                    limit: self.limit,
                    settable: true,
                });
                self.partial = Vec::new();
                return Err(std::io::Error::other("message over max_response_bytes"));
            }
            if armed {
                self.partial.extend_from_slice(segment);
            }
            if ends_line {
                self.line_len = 0;
                if armed {
                    let line = std::mem::take(&mut self.partial);
                    self.tap.record(&line);
                }
            }
        }
        Ok(())
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for TeeReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.tap.has_failed() {
            return Poll::Ready(Err(std::io::Error::other("the transport failed")));
        }
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll {
            let this = &mut *self;
            if let Err(e) = this.feed(&buf.filled()[before..]) {
                buf.set_filled(before);
                return Poll::Ready(Err(e));
            }
        }
        poll
    }
}

/// How to run a stdio server.
pub(crate) struct Spawn<'a> {
    pub(crate) command: &'a str,
    pub(crate) args: &'a [String],
    pub(crate) cwd: Option<&'a Path>,
    pub(crate) env: &'a BTreeMap<String, String>,
    pub(crate) max_response_bytes: usize,
    pub(crate) allow_commands: Option<&'a [String]>,
    /// Pass the agent's whole environment (`inherit_env = true`).
    pub(crate) inherit_env: bool,
    pub(crate) sandbox: Option<&'a SandboxConfig>,
}

/// The command to run, with `${VAR}`s expanded, and the secrets they held.
fn command(name: &str, spawn: &Spawn<'_>, relaxed: &[&str]) -> Result<Prepared, ConnectFailure> {
    let mut expander = Expander::new(name);
    let program = expander.expand(spawn.command)?;
    if let Some(allowed) = spawn.allow_commands {
        if !lookup::allowed(&program, allowed) {
            let secrets = expander.finish();
            return Err(Error::CommandNotAllowed {
                server: name.to_owned(),
                command: redact(&program, &secrets),
                allowed: allowed.to_vec(),
            }
            .into());
        }
    }
    let mut args = Vec::with_capacity(spawn.args.len());
    for arg in spawn.args {
        args.push(expander.expand(arg)?);
    }
    let mut env = Vec::with_capacity(spawn.env.len());
    for (key, value) in spawn.env {
        env.push((key, expander.expand(value)?));
    }
    let path: Option<OsString> = env
        .iter()
        .find(|(key, _)| *key == "PATH")
        .map(|(_, value)| value.into());
    let launched = launched(&program, path.as_deref());
    let mut cmd = Command::new(&launched);
    cmd.args(&args);
    if !spawn.inherit_env {
        // The agent's API keys stay with the agent: only the safe list, then
        // what the config names.
        cmd.env_clear();
        for (key, value) in std::env::vars_os() {
            if key.to_str().is_some_and(is_safe_env) {
                cmd.env(key, value);
            }
        }
    }
    for (key, value) in env {
        cmd.env(key, value);
    }
    if let Some(cwd) = spawn.cwd {
        // Spawning in a missing directory fails as if the program were
        // missing (ENOENT): say which of the two it is.
        if !cwd.is_dir() {
            return Err(Error::Cwd {
                server: name.to_owned(),
                cwd: cwd.to_owned(),
                exists: cwd.exists(),
            }
            .into());
        }
        cmd.current_dir(cwd);
    }
    let confined = match spawn.sandbox {
        Some(sandbox) => {
            let target = Target {
                server: name,
                program: &program,
                args: &args,
                cwd: spawn.cwd,
                path: path.or_else(|| std::env::var_os("PATH")),
            };
            sandbox::confine(sandbox, &target, relaxed, &mut cmd)?
        }
        None => Confined::default(),
    };
    Ok(Prepared {
        cmd,
        program,
        launched,
        secrets: expander.finish(),
        confined,
    })
}

/// A command ready to spawn.
struct Prepared {
    cmd: Command,
    /// The program, for errors.
    program: String,
    /// What is started for it (found on `PATH` on Windows).
    launched: PathBuf,
    secrets: Arc<[String]>,
    /// The sandbox's directories for this start, and its steps.
    confined: Confined,
}

pub(crate) async fn connect_stdio(
    name: &str,
    spawn: &Spawn<'_>,
    handler: &Handler,
    lifecycle: Lifecycle,
) -> Result<Session, ConnectFailure> {
    let Spawned {
        mut child,
        secrets,
        scratch,
        proxy,
    } = spawn_child(name, spawn)?;
    let started = tokio::time::Instant::now();
    let (Some(stdin), Some(stdout), Some(stderr)) = group::pipes(&mut child) else {
        unreachable!("all three streams were piped");
    };
    let process = Process {
        group: child.id(),
        child: Mutex::new(child),
        stderr: keep_tail(stderr),
        secrets: Arc::clone(&secrets),
        _scratch: scratch,
        _proxy: proxy,
    };
    let tap = Arc::new(RawTap::default());
    let reader = TeeReader {
        inner: stdout,
        tap: Arc::clone(&tap),
        limit: spawn.max_response_bytes,
        line_len: 0,
        partial: Vec::new(),
    };
    // The line limit is the reader's; rmcp's own would drop a long line
    // silently.
    let transport =
        AsyncRwTransport::<RoleClient, _, _>::new(reader, stdin).with_max_line_length(usize::MAX);
    let result = if lifecycle == Lifecycle::Probe {
        open_both(name, transport, handler, started + super::PROBE_BOUND).await
    } else {
        handshake(transport, handler, lifecycle)
            .await
            .map_err(Unopened::from)
    };
    let failed = Failed {
        name,
        process,
        tap,
        secrets,
    };
    match result {
        Ok(service) => Ok(Session {
            service,
            process: Some(failed.process),
            tap: Some(failed.tap),
        }),
        Err(Unopened::Handshake(e)) => Err(failed.handshake(*e, lifecycle).await),
        Err(Unopened::Refused(reason)) => Err(failed.refused(reason).await),
    }
}

/// Both handshakes on one process ([`opening`]), then rmcp's session. The
/// transport is dropped on a failure (the server's stdin closes).
async fn open_both<T>(
    name: &str,
    mut transport: T,
    handler: &Handler,
    bound: tokio::time::Instant,
) -> Result<RunningService<RoleClient, Handler>, Unopened>
where
    T: rmcp::transport::Transport<RoleClient> + 'static,
{
    let info = rmcp::ClientHandler::get_info(handler);
    let opened = opening::open(&mut transport, &info, name, bound).await?;
    let lifecycle = opened.lifecycle;
    Ok(handshake(Replay::new(transport, opened), handler, lifecycle).await?)
}

/// A handshake that failed, with what the error is made from.
struct Failed<'a> {
    name: &'a str,
    process: Process,
    tap: Arc<RawTap>,
    secrets: Arc<[String]>,
}

impl Failed<'_> {
    /// rmcp's handshake error. A rejection that [`connect`](super::connect)
    /// retries with the other handshake is [`ConnectFailure::Rejected`]
    /// (never after [`Lifecycle::Probe`], whose outcome is final).
    async fn handshake(
        self,
        e: rmcp::service::ClientInitializeError,
        lifecycle: Lifecycle,
    ) -> ConnectFailure {
        let e = if lifecycle == Lifecycle::Probe {
            e
        } else {
            // A rejection's message is the server's text.
            match super::classify(e, lifecycle) {
                Ok(e) => e,
                Err(ConnectFailure::Rejected(message)) => {
                    return ConnectFailure::Rejected(redact(&message, &self.secrets))
                }
                Err(other) => return other,
            }
        };
        if let Some(failure) = self.tap.failure() {
            return failure.into_error(self.name).into();
        }
        let exit = self.process.settle().await;
        // A server whose answer was refused exits as its stdin closes:
        // its exit is no cause.
        let refused = matches!(
            e,
            rmcp::service::ClientInitializeError::ExpectedInitResult(_)
        );
        let reason = match exit {
            Some(status) if !refused => {
                format!("the process exited during the handshake ({status})")
            }
            _ => "the MCP handshake failed".to_owned(),
        };
        let text = super::describe(&e);
        Error::Connect {
            server: self.name.to_owned(),
            reason,
            stderr: self.process.stderr_tail(),
            cause: Some(crate::error::Redacted::described(e, &text, self.secrets)),
        }
        .into()
    }

    /// The server refused both handshakes (`reason`, in its words).
    async fn refused(self, reason: String) -> ConnectFailure {
        self.process.settle().await;
        Error::Connect {
            server: self.name.to_owned(),
            reason: redact(&reason, &self.secrets),
            stderr: self.process.stderr_tail(),
            cause: None,
        }
        .into()
    }
}

/// A session over an in-process stream (one half of a
/// `tokio::io::duplex`), read through a tap as a process's stdout is, with
/// the handshake `first` names (no probe: an in-process server answers at
/// once).
pub(crate) async fn connect_in_process(
    name: &str,
    stream: tokio::io::DuplexStream,
    handler: &Handler,
    first: super::First,
) -> Result<Session, Error> {
    let lifecycle = match first {
        super::First::Discover => Lifecycle::Discover,
        super::First::Initialize | super::First::Locked => Lifecycle::Initialize,
    };
    let (read, write) = tokio::io::split(stream);
    let tap = Arc::new(RawTap::default());
    let reader = TeeReader {
        inner: read,
        tap: Arc::clone(&tap),
        limit: usize::MAX,
        line_len: 0,
        partial: Vec::new(),
    };
    let transport = AsyncRwTransport::<RoleClient, _, _>::new(reader, write);
    match handshake(transport, handler, lifecycle).await {
        Ok(service) => Ok(Session {
            service,
            process: None,
            tap: Some(tap),
        }),
        Err(e) => Err(Error::Connect {
            server: name.to_owned(),
            reason: super::describe(&e),
            stderr: None,
            cause: None,
        }),
    }
}

/// A spawned server, with what lives as long as it.
struct Spawned {
    child: Child,
    secrets: Arc<[String]>,
    scratch: Scratch,
    proxy: Option<sandbox::Proxy>,
}

/// Spawns the server. A sandbox step the kernel refuses (seccomp, a
/// container) is [`Error::Sandbox`] naming the setting; with
/// `required = false` it is a warning, and the server is spawned again
/// without that setting.
fn spawn_child(name: &str, spawn: &Spawn<'_>) -> Result<Spawned, ConnectFailure> {
    let mut relaxed: Vec<&'static str> = Vec::new();
    loop {
        let Prepared {
            mut cmd,
            program,
            launched,
            secrets,
            confined,
        } = command(name, spawn, &relaxed)?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let source = match group::spawn(cmd) {
            Ok(child) => {
                // Dropped on an error, the child is killed.
                let proxy = confined.start_proxy(name)?;
                return Ok(Spawned {
                    child,
                    secrets,
                    scratch: confined.scratch,
                    proxy,
                });
            }
            Err(source) => source,
        };
        let Some((setting, reason)) = confined.refusal(&source) else {
            return Err(spawn_failed(name, &program, &launched, &secrets, source).into());
        };
        let required = spawn.sandbox.is_none_or(|s| s.required);
        if required || relaxed.contains(&setting) {
            return Err(Error::Sandbox(mcpbind_model::sandbox::SandboxError::new(
                name, setting, reason,
            ))
            .into());
        }
        tracing::warn!(server = name, setting, reason = %reason, "sandbox setting not enforced (`required = false`)");
        relaxed.push(setting);
    }
}

/// Why the server could not be started: std refuses an argument it cannot
/// quote safely for `cmd.exe` when the program is a batch file (`npx.cmd`;
/// CVE-2024-24576), which is told apart from a missing program.
fn spawn_failed(
    name: &str,
    program: &str,
    launched: &Path,
    secrets: &[String],
    source: std::io::Error,
) -> Error {
    let batch = cfg!(windows) && lookup::is_batch_file(launched);
    if batch && source.kind() == std::io::ErrorKind::InvalidInput {
        return Error::BatchFileArguments {
            server: name.to_owned(),
            command: redact(&launched.to_string_lossy(), secrets),
            source,
        };
    }
    Error::Spawn {
        server: name.to_owned(),
        command: redact(program, secrets),
        source,
    }
}

/// Keeps the tail of a process's stderr, reading it in chunks (not lines).
fn keep_tail(mut stderr: tokio::process::ChildStderr) -> Arc<Mutex<StderrTail>> {
    let tail = Arc::new(Mutex::new(StderrTail::default()));
    let sink = Arc::clone(&tail);
    tokio::spawn(async move {
        let mut chunk = vec![0u8; 8 * 1024];
        while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
            if let Ok(mut t) = sink.lock() {
                t.push(&chunk[..n]);
            }
        }
        if let Ok(mut t) = sink.lock() {
            t.closed = true;
        }
    });
    tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tail_is_bounded_in_bytes() {
        let mut tail = StderrTail::default();
        tail.push(&vec![b'x'; 3 * STDERR_TAIL_BYTES]);
        tail.push(b"end");
        assert_eq!(tail.buf.len(), STDERR_TAIL_BYTES);
        assert!(tail.buf.iter().rev().take(3).eq(b"dne".iter()));
        assert!(tail.truncated);
    }
}
