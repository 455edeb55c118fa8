#!/usr/bin/env python3
"""A stdio MCP server that tries to escape its sandbox, for
tests/tests/escape.rs. Standard library only.

Each tool is one escape. It answers with text; a refusal (an OSError) is
an `isError` result whose text is `errno NAME: message`, so that a test
asserts the refusal and its cause.

  env                           the environment, as a JSON object
  read      {path}              a file's text (HOME by path, a file beside
                                the script, another process's environ)
  write     {path, text}        writes a file (a cache, a write grant)
  fork      {pidfile}           forks a child that stays in the server's
                                process group, ignores SIGHUP and SIGTERM and
                                sleeps; writes the child's pid (as the agent
                                sees it) to `pidfile`, then answers
  daemon    {pidfile}           the same, double-forked with `setsid` (a
                                daemon in a session of its own)
  tcp       {host, port}        opens a TCP connection
  udp       {host, port}        sends a UDP datagram
  unix      {path}              connects to a unix socket (`@name`: an
                                abstract one)
  ptrace    {pid}               PTRACE_ATTACH to a process (then detaches)
  signal    {pid}               sends signal 0 to a process (may it signal?)
  forkbomb  {count}             forks up to `count` sleeping children,
                                answers how many it got, then kills them
  bigfile   {path, bytes}       writes a file of `bytes` bytes
  alloc     {bytes}             allocates and touches `bytes` bytes
  http      {url}               fetches a URL with urllib (which honours
                                HTTP_PROXY): the body
  tunnel    {target}            `CONNECT target` through $HTTPS_PROXY, then
                                a plain GET in the tunnel: the answers
  resolve   {host}              resolves a name (DNS)
  spy       {pid, canary,       what it gets of process `pid` by /proc
                                (`environ`, `cmdline`, `maps`, `mem`, `fd/`:
                                "read" or the errno), and the pids of every
                                `/proc/*/environ` holding `canary`, as JSON,
             agent_mnt}         after trying to unmount `/proc` ("umount":
                                only outside `agent_mnt`, the agent's mount
                                namespace)
"""

import ctypes
import errno
import json
import os
import signal
import socket
import sys
import time
import urllib.parse
import urllib.request

TOOLS = [
    {"name": name, "inputSchema": {"type": "object", "properties": {
        key: {"type": "integer" if key in ("port", "pid", "count", "bytes") else "string"}
        for key in keys}}}
    for name, keys in [
        ("env", []),
        ("read", ["path"]),
        ("write", ["path", "text"]),
        ("fork", ["pidfile"]),
        ("daemon", ["pidfile"]),
        ("tcp", ["host", "port"]),
        ("udp", ["host", "port"]),
        ("unix", ["path"]),
        ("ptrace", ["pid"]),
        ("signal", ["pid"]),
        ("forkbomb", ["count"]),
        ("bigfile", ["path", "bytes"]),
        ("alloc", ["bytes"]),
        ("http", ["url"]),
        ("tunnel", ["target"]),
        ("resolve", ["host"]),
        ("spy", ["pid", "canary", "agent_mnt"]),
    ]
]


def outer_pid():
    """This process's pid as the agent sees it: the first `NSpid` field
    (from the agent's /proc, the outermost namespace), else getpid()."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("NSpid:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return os.getpid()


def linger(pidfile):
    """In the child: ignore what a polite shutdown sends, say where it is,
    and stay."""
    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    tmp = pidfile + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(outer_pid()))
    os.rename(tmp, pidfile)
    while True:
        time.sleep(3600)


def wait_for(pidfile):
    while not os.path.exists(pidfile):
        time.sleep(0.01)
    with open(pidfile) as f:
        return "started %s" % f.read()


def fork(pidfile, daemon):
    pid = os.fork()
    if pid == 0:
        try:
            if daemon:
                os.setsid()
                if os.fork() != 0:
                    os._exit(0)
            linger(pidfile)
        finally:
            os._exit(1)
    if daemon:
        os.waitpid(pid, 0)
    return wait_for(pidfile)


def forkbomb(count):
    pids, refused = [], ""
    try:
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            pids.append(pid)
    except OSError as e:
        refused = " (errno %s)" % errno.errorcode.get(e.errno, e.errno)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return "forked %d%s" % (len(pids), refused)


def ptrace(pid):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    os.waitpid(pid, getattr(os, "__WALL", 0x40000000))
    libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
    return "attached"


def spy(pid, canary, agent_mnt):
    """Another process's /proc entries, and a scan of every environ; first
    it tries to unmount /proc (a sandbox's own /proc over the agent's),
    but only in a mount namespace other than `agent_mnt` (the agent's, as
    `readlink /proc/self/ns/mnt` says): never the agent's own /proc."""
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        own_mnt = os.readlink("/proc/self/ns/mnt")
    except OSError:
        own_mnt = None
    if own_mnt is None or own_mnt == agent_mnt:
        umount = "not tried: the agent's mount namespace"
    elif libc.umount2(b"/proc", 2) != 0:  # MNT_DETACH
        e = ctypes.get_errno()
        umount = "errno %s" % errno.errorcode.get(e, e)
    else:
        umount = "unmounted"
    seen = {}
    for entry in ("environ", "cmdline", "maps", "mem", "fd"):
        path = "/proc/%d/%s" % (pid, entry)
        try:
            if entry == "fd":
                os.listdir(path)
            else:
                with open(path, "rb") as f:
                    f.read(64)
            seen[entry] = "read"
        except OSError as e:
            seen[entry] = "errno %s" % errno.errorcode.get(e.errno, e.errno)
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        names = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % name, "rb") as f:
                if canary.encode() in f.read():
                    found.append(int(name))
        except OSError:
            pass
    return json.dumps({"agent": seen, "found": found, "umount": umount}, sort_keys=True)


def unix(path):
    address = "\0" + path[1:] if path.startswith("@") else path
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(address)
    return "connected"


def tunnel(target):
    proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
    with socket.create_connection((proxy.hostname, proxy.port), timeout=10) as s:
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
        f = s.makefile("rb")
        status = f.readline().decode().strip()
        while f.readline() not in (b"\r\n", b""):
            pass
        if " 200 " not in status + " ":
            return status
        s.sendall(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n")
        return status + " | " + f.read().decode(errors="replace")


def run(name, args):
    if name == "env":
        return json.dumps(dict(os.environ), sort_keys=True)
    if name == "read":
        with open(args["path"]) as f:
            return f.read()
    if name == "write":
        with open(args["path"], "w") as f:
            f.write(args.get("text", ""))
        return "written"
    if name in ("fork", "daemon"):
        return fork(args["pidfile"], name == "daemon")
    if name == "tcp":
        with socket.create_connection((args["host"], int(args["port"])), timeout=10):
            return "connected"
    if name == "udp":
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(b"escape", (args["host"], int(args["port"])))
        return "sent"
    if name == "unix":
        return unix(args["path"])
    if name == "ptrace":
        return ptrace(int(args["pid"]))
    if name == "signal":
        os.kill(int(args["pid"]), 0)
        return "signalled"
    if name == "forkbomb":
        return forkbomb(int(args["count"]))
    if name == "bigfile":
        with open(args["path"], "wb") as f:
            left = int(args["bytes"])
            while left > 0:
                n = min(left, 1 << 20)
                f.write(b"x" * n)
                f.flush()
                left -= n
        return "wrote %d" % int(args["bytes"])
    if name == "alloc":
        block = bytearray(int(args["bytes"]))
        for i in range(0, len(block), 4096):
            block[i] = 1
        return "allocated %d" % len(block)
    if name == "http":
        with urllib.request.urlopen(args["url"], timeout=10) as r:
            return r.read().decode()
    if name == "tunnel":
        return tunnel(args["target"])
    if name == "spy":
        return spy(int(args["pid"]), args["canary"], args.get("agent_mnt"))
    if name == "resolve":
        return str(socket.getaddrinfo(args["host"], 443)[0][4][0])
    raise ValueError("unknown tool %s" % name)


def call(params):
    try:
        text, error = run(params.get("name"), params.get("arguments") or {}), False
    except MemoryError:
        text, error = "MemoryError", True
    except OSError as e:
        code = errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__
        text, error = "errno %s: %s" % (code, e.strerror or e), True
    return {"content": [{"type": "text", "text": text}], "isError": error}


def answer(message):
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "escape", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return call(params)
    if method == "ping":
        return {}
    return None


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        result = answer(message)
        if result is None:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32601, "message": "method not found"}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
