#!/usr/bin/env python3
"""MCP servers for tests/tests/claims.rs: each does one thing a test needs a
real process for. Standard library only.

stdio:
  claims.py copy LOCKFILE SERVER ANSWER
      Serves SERVER's locked tools verbatim (its serverInfo, protocol
      version and each tool's definition, read from LOCKFILE), so that
      bindings generated from that lock connect with matching pins. Every
      tools/call is answered by ANSWER:
        extra-field    structuredContent with a field the outputSchema's
                       `additionalProperties: false` refuses, and its JSON
                       as text
        wrong-type     structuredContent whose `temperature` is a string
        text-only      no structuredContent: the output's JSON as text only
        text-not-json  no structuredContent, and a text that is not JSON
  claims.py evolve VARIANT
      A server named `claims` with one tool, `report`, as of release
      VARIANT (`v1` or `v2`). v2 changes `serverInfo.title`, makes the
      input's `extra` schema `false` (was `true`) and the output's `body`
      required.

HTTP:
  claims.py --http FILE   Streamable HTTP (JSON answers; prints
                          `listening on URL`): one tool, `echo`; every
                          request's headers are appended to FILE as a JSON
                          object (lower-case names), one line per request.
  claims.py --http-sse FILE
                          The same server, with `tools/call` answered as an
                          SSE stream (as rmcp's servers answer), the rest
                          as JSON. Each request's line in FILE also has the
                          client's `port` (one per TCP connection) and the
                          JSON-RPC method (`rpc`).
"""

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WEATHER = {"temperature": 21.5, "conditions": "Sunny", "humidity": 40}


def copy_server(lockfile, server):
    with open(lockfile) as f:
        entry = json.load(f)["servers"][server]
    info = entry["server_info"]
    tools = [t["definition"] for t in entry["tools"]]
    return entry["protocol_version"], info, tools


def tool_result(answer):
    if answer == "extra-field":
        output = dict(WEATHER, wind="12 km/h")
        return {"content": [{"type": "text", "text": json.dumps(output)}],
                "structuredContent": output}
    if answer == "wrong-type":
        output = dict(WEATHER, temperature="warm")
        return {"content": [{"type": "text", "text": json.dumps(output)}],
                "structuredContent": output}
    if answer == "text-only":
        return {"content": [{"type": "text", "text": json.dumps(WEATHER)}]}
    if answer == "text-not-json":
        return {"content": [{"type": "text", "text": "Sunny, 21.5 degrees"}]}
    sys.exit("unknown answer " + answer)


def report_tool(variant):
    v2 = variant == "v2"
    return {
        "name": "report",
        "description": "A report on what is filtered.",
        "inputSchema": {
            "type": "object",
            "properties": {"filter": {"type": "string"}, "extra": not v2},
        },
        "outputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string"}, "body": {"type": "string"}},
            "required": ["title", "body"] if v2 else ["title"],
        },
    }


def answer(message, protocol, info, tools, call):
    """The JSON-RPC response to a request, or None for a notification."""
    if "id" not in message or "method" not in message:
        return None
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": protocol or params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": info,
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        result = call(params)
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": "method not found"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def serve_stdio(protocol, info, tools, call):
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line), protocol, info, tools, call)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


ECHO = {"name": "echo", "description": "Echoes.", "inputSchema": {
    "type": "object", "properties": {"message": {"type": "string"}}}}


def serve_http(path, sse_calls=False):
    lock = threading.Lock()

    def echo(params):
        text = str((params.get("arguments") or {}).get("message", ""))
        return {"content": [{"type": "text", "text": text}]}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def record(self, rpc=None):
            headers = {k.lower(): v for k, v in self.headers.items()}
            line = {"method": self.command, "headers": headers,
                    "port": self.client_address[1], "rpc": rpc}
            with lock, open(path, "a") as f:
                f.write(json.dumps(line) + "\n")

        def send(self, code, content_type, data, extra=()):
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for key, value in extra:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.record()
            self.send(405, "text/plain", b"no SSE stream")

        def do_DELETE(self):
            self.record()
            self.send(200, "text/plain", b"")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            message = json.loads(self.rfile.read(length) or b"{}")
            self.record(message.get("method"))
            info = {"name": "claims-http", "version": "1.0.0"}
            reply = answer(message, None, info, [ECHO], echo)
            if reply is None:
                self.send(202, "text/plain", b"")
            elif sse_calls and message.get("method") == "tools/call":
                event = b"event: message\ndata: " + json.dumps(reply).encode() + b"\n\n"
                self.send(200, "text/event-stream", event, [("Mcp-Session-Id", "claims-1")])
            else:
                self.send(200, "application/json", json.dumps(reply).encode(),
                          [("Mcp-Session-Id", "claims-1")])

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening on http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "copy":
        protocol, info, tools = copy_server(sys.argv[2], sys.argv[3])
        result = tool_result(sys.argv[4])
        serve_stdio(protocol, info, tools, lambda _params: result)
    elif mode == "evolve":
        variant = sys.argv[2]
        info = {"name": "claims", "version": "1.0.0"}
        if variant == "v2":
            info["title"] = "Claims, second release"
        serve_stdio(None, info, [report_tool(variant)],
                    lambda _params: {"content": [{"type": "text", "text": "{}"}]})
    elif mode == "--http":
        serve_http(sys.argv[2])
    elif mode == "--http-sse":
        serve_http(sys.argv[2], sse_calls=True)
    else:
        sys.exit("usage: claims.py copy LOCKFILE SERVER ANSWER | evolve VARIANT | --http FILE")
