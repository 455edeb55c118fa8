#!/usr/bin/env python3
"""A stdio MCP server that reports what it can see and do, for
tests/tests/privilege.rs. Standard library only.

    probe.py                 serves the tools below
    probe.py ANY OTHER ARGS  prints a usage error naming its arguments on
                             stderr and exits 2 (as clap-based servers do)

Tools (each answers with text; a failure is an `isError` result whose text
is `errno NAME: message`):
  env                  the environment, as a JSON object
  read    {path}       the file's text
  write   {path, text} writes the file
  list    {path}       the directory's entries, as a JSON array
  connect {host, port} opens a TCP connection and closes it
  children {count}     starts `count` processes that exit, and reaps them
  hold    {count}      opens `count` descriptors at once, then closes them
"""

import errno
import json
import os
import socket
import sys

TOOLS = [
    {"name": name, "inputSchema": {"type": "object", "properties": props}}
    for name, props in [
        ("env", {}),
        ("read", {"path": {"type": "string"}}),
        ("write", {"path": {"type": "string"}, "text": {"type": "string"}}),
        ("list", {"path": {"type": "string"}}),
        ("connect", {"host": {"type": "string"}, "port": {"type": "integer"}}),
        ("children", {"count": {"type": "integer"}}),
        ("hold", {"count": {"type": "integer"}}),
    ]
]


def children(count):
    pids = []
    try:
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                os._exit(0)
            pids.append(pid)
    finally:
        for pid in pids:
            os.waitpid(pid, 0)
    return "started %d" % len(pids)


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
    if name == "list":
        return json.dumps(sorted(os.listdir(args["path"])))
    if name == "connect":
        with socket.create_connection((args["host"], int(args["port"])), timeout=5):
            return "connected"
    if name == "children":
        return children(int(args["count"]))
    if name == "hold":
        held = []
        try:
            for _ in range(int(args["count"])):
                held.append(os.open(os.devnull, os.O_RDONLY))
        finally:
            for fd in held:
                os.close(fd)
        return "held %d" % len(held)
    raise ValueError("unknown tool %s" % name)


def call(params):
    try:
        text, error = run(params.get("name"), params.get("arguments") or {}), False
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
            "serverInfo": {"name": "probe", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        return call(params)
    if method == "ping":
        return {}
    return None


def main():
    if len(sys.argv) > 1:
        sys.stderr.write("error: unexpected arguments: %s\n" % " ".join(sys.argv[1:]))
        sys.stderr.write("usage: probe.py\n")
        sys.exit(2)
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
