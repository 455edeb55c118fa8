#!/usr/bin/env python3
"""MCP servers that misbehave on purpose, for tests/tests/misbehave.rs.

Standard library only. Each mode is one way a real server goes wrong.

stdio:   misbehave.py MODE
  tools          a well-behaved server with `echo` and `big` (a text of
                 `bytes` bytes: results over a size limit)
  stderr-flood   writes MiBs of stderr without a newline, then exits 3
  bad-tools      tools/list holds malformed tools among good ones
  deep-schema    tools/list holds a schema nested 200 levels deep
  slow-list      never answers tools/list
  names          well-behaved too: `login` has parameters Gemini refuses
                 (`auth-method`, a nested `retry-count`) and answers with
                 the arguments it got, as JSON text; `ping` has the input
                 schema `{}` and `noop` `{"type": "object"}`
  no-server-info answers `initialize` without `serverInfo`
  silent-unknown as `tools`, but never answers a method it does not know
                 (`server/discover` included), as some servers before
                 2026-07-28 do
  empty-unknown  as `tools`, but answers a method it does not know with
                 the result `{}`

HTTP:    misbehave.py --http MODE [ARG]   (prints `listening on URL`)
  status CODE:METHOD   Streamable HTTP; answers METHOD (`initialize`,
                       `tools/list`, `tools/call`) with HTTP CODE, with an
                       HTML page when CODE is `html`, or with its result
                       as an SSE event when CODE is `sse`
  redirect FILE        Streamable HTTP; redirects every POST to another
                       origin, which appends the headers it gets to FILE
  sse-cross FILE       legacy SSE; its `endpoint` is on another origin,
                       which appends the headers it gets to FILE
  sse-endless          legacy SSE; after the endpoint, an event that never
                       ends (MiBs without a blank line)
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GOOD = {"name": "echo", "description": "Echoes.", "inputSchema": {
    "type": "object", "properties": {"message": {"type": "string"}}}}
BIG = {"name": "big", "description": "A large text.", "inputSchema": {
    "type": "object", "properties": {"bytes": {"type": "integer"}}}}

LOGIN = {"name": "login", "description": "Echoes its arguments.", "inputSchema": {
    "type": "object", "required": ["auth-method"], "properties": {
        "auth-method": {"type": "string", "enum": ["password", "token"]},
        "user": {"type": "string"},
        "options": {"type": "object", "properties": {
            "retry-count": {"type": "integer"}}}}}}


def deep_schema(levels):
    schema = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


TOOLS = {
    "tools": [GOOD, BIG],
    "bad-tools": [
        GOOD,
        {"name": 42, "inputSchema": {"type": "object"}},
        {"name": "no_schema", "description": "Has no inputSchema."},
        {"name": "also_good", "inputSchema": {"type": "object"}},
    ],
    "deep-schema": [GOOD, {"name": "deep", "inputSchema": deep_schema(200)}],
    "slow-list": [GOOD],
    "silent-unknown": [GOOD, BIG],
    "empty-unknown": [GOOD, BIG],
    "names": [
        LOGIN,
        {"name": "ping", "description": "No parameters.", "inputSchema": {}},
        {"name": "noop", "description": "No parameters.",
         "inputSchema": {"type": "object"}},
    ],
    "no-server-info": [GOOD],
}


def answer(message, tools, mode=""):
    """The JSON-RPC response to a request, or None for a notification."""
    if "id" not in message or "method" not in message:
        return None
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "misbehave", "version": "1.0.0"},
        }
        if mode == "no-server-info":
            del result["serverInfo"]
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        args = params.get("arguments") or {}
        if params.get("name") == "big":
            text = "x" * int(args.get("bytes", 0))
        elif params.get("name") == "login":
            text = json.dumps(args, sort_keys=True)
        else:
            text = str(args.get("message", ""))
        result = {"content": [{"type": "text", "text": text}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": "method not found"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


KNOWN = {"initialize", "tools/list", "tools/call", "ping"}


def unknown(message, mode):
    """The answer of the `*-unknown` modes to a method `answer` does not
    know: None (no answer), `{}`, or `answer`'s error (any other mode)."""
    if "id" not in message or message.get("method") in KNOWN:
        return answer
    if mode == "silent-unknown":
        return lambda *_: None
    if mode == "empty-unknown":
        return lambda m, *_: {"jsonrpc": "2.0", "id": m["id"], "result": {}}
    return answer


def stdio(mode):
    if mode == "stderr-flood":
        chunk = "x" * (1 << 20)
        for _ in range(4):
            sys.stderr.write(chunk)
        sys.stderr.write("END")
        sys.stderr.flush()
        sys.exit(3)
    tools = TOOLS[mode]
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if mode == "slow-list" and message.get("method") == "tools/list":
            continue
        reply = unknown(message, mode)(message, tools, mode)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def listen(handler):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d" % server.server_address[1]


def recorder(path):
    """A server on another origin that appends each request's headers to
    `path` (the tests assert it stays empty)."""

    class Recorder(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def record(self):
            with open(path, "a") as f:
                f.write(json.dumps(dict(self.headers)) + "\n")
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        do_GET = do_POST = record

    return listen(Recorder)


class Base(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        length = int(self.headers.get("Content-Length", 0))
        return json.loads(self.rfile.read(length) or b"{}")

    def send(self, code, content_type, data, extra=()):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for key, value in extra:
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


def status_handler(code, failing):
    class Status(Base):
        def do_GET(self):
            self.send(405, "text/plain", b"no SSE stream")

        def do_DELETE(self):
            self.send(200, "text/plain", b"")

        def do_POST(self):
            message = self.body()
            method = message.get("method", "")
            if method == failing:
                if code == "sse":
                    reply = json.dumps(answer(message, TOOLS["tools"])).encode()
                    self.send(200, "text/event-stream",
                              b"event: message\ndata: " + reply + b"\n\n")
                elif code == "html":
                    self.send(200, "text/html", b"<html><body>Sign in</body></html>")
                else:
                    self.send(int(code), "text/html", b"<html><body>nope</body></html>")
                return
            reply = answer(message, TOOLS["tools"])
            if reply is None:
                self.send(202, "text/plain", b"")
            else:
                self.send(200, "application/json", json.dumps(reply).encode(),
                          [("Mcp-Session-Id", "s1")])

    return Status


def redirect_handler(target):
    class Redirect(Base):
        def do_POST(self):
            self.body()
            self.send(307, "text/plain", b"", [("Location", target + "/mcp")])

        do_GET = do_POST

    return Redirect


def sse_handler(endpoint_for, endless):
    class Sse(Base):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(("event: endpoint\ndata: %s\n\n" % endpoint_for(self)).encode())
            self.wfile.flush()
            try:
                if endless:
                    self.wfile.write(b"event: message\ndata: ")
                    for _ in range(4):
                        self.wfile.write(b"x" * (1 << 20))
                        self.wfile.flush()
                while True:
                    time.sleep(0.2)
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except OSError:
                pass

        def do_POST(self):
            self.body()
            self.send(202, "text/plain", b"")

    return Sse


def http(mode, arg):
    if mode == "status":
        code, failing = arg.split(":", 1)
        url = listen(status_handler(code, failing)) + "/mcp"
    elif mode == "redirect":
        url = listen(redirect_handler(recorder(arg))) + "/mcp"
    elif mode == "sse-cross":
        other = recorder(arg)
        url = listen(sse_handler(lambda _: other + "/messages", False)) + "/sse"
    elif mode == "sse-endless":
        url = listen(sse_handler(lambda _: "/messages", True)) + "/sse"
    else:
        sys.exit("unknown mode " + mode)
    print("listening on " + url, flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    if sys.argv[1] == "--http":
        http(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    else:
        stdio(sys.argv[1])
