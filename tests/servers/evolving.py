#!/usr/bin/env python3
"""A stdio MCP server that does what a long session meets, for
tests/tests/long_running.rs. Standard library only.

Tools:
  greet    {"name": string}; after `change`, {"name": integer}
  change   changes `greet`'s schema, then sends notifications/tools/list_changed
  restore  puts `greet` back as it was, then sends list_changed again
  shout    logs its `text` (notifications/message, level warning), then answers
  hang     never answers; writes `hang ID` on stderr when it gets the call and
           `cancelled ID` when notifications/cancelled names it
  stall    execution.taskSupport "required": creates a task that never ends
           (`created TASK` on stderr); tasks/cancel writes `tasks/cancel TASK`
  edit     {"uri": string, "text": string}: rewrites a note; when the client
           subscribed to it, sends notifications/resources/updated first
  change_prompt    changes `welcome`'s description, then sends
                   notifications/prompts/list_changed
  change_template  changes the `note` template's description, then sends
                   notifications/resources/list_changed
  meta     answers the request's `_meta` as JSON text

Prompts: `welcome` {"who"}. Resources: `note://1` and `note://2` (text),
the template `note` (`note://{id}`); resources/subscribe and unsubscribe
write `subscribed URI` / `unsubscribed URI` on stderr.

With EVOLVING_DESCRIPTIONS naming a JSON file (`{"welcome": TEXT, "note":
TEXT}`, either optional), it starts with those descriptions for the prompt
and the template: a later release of the server, for a client pinned to
this one (a missing file: as usual).

Everything it writes to stderr is flushed at once, so that a test reading the
client's stderr tail sees it; with EVOLVING_LOG set, it is appended to that
file too.

evolving.py --http BUSY: Streamable HTTP (prints `listening on URL`) with one
tool, `busy`, whose first BUSY calls are answered HTTP 429 with
`Retry-After: 1`; then it answers `done after N calls`.
"""

import copy
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GREET = {
    "name": "greet",
    "description": "Greets someone.",
    "inputSchema": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    },
}
OTHERS = [
    {"name": "change", "inputSchema": {"type": "object"}},
    {"name": "restore", "inputSchema": {"type": "object"}},
    {
        "name": "shout",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
    {"name": "hang", "inputSchema": {"type": "object"}},
    {
        "name": "stall",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "required"},
    },
    {
        "name": "edit",
        "inputSchema": {
            "type": "object",
            "properties": {"uri": {"type": "string"}, "text": {"type": "string"}},
            "required": ["uri", "text"],
        },
        "annotations": {"idempotentHint": True, "destructiveHint": False},
    },
    {"name": "change_prompt", "inputSchema": {"type": "object"}},
    {"name": "change_template", "inputSchema": {"type": "object"}},
    {"name": "meta", "inputSchema": {"type": "object"}},
]
WELCOME = {
    "name": "welcome",
    "description": "Welcomes someone.",
    "arguments": [{"name": "who", "required": True}],
}
NOTE = {"name": "note", "uriTemplate": "note://{id}", "description": "A note."}
NOW = "2026-11-26T00:00:00Z"

state = {
    "greet": copy.deepcopy(GREET),
    "tasks": {},
    "polled": set(),
    "welcome": copy.deepcopy(WELCOME),
    "note": copy.deepcopy(NOTE),
    "notes": {"note://1": "first", "note://2": "second"},
    "subscribed": set(),
}


def read_descriptions():
    path = os.environ.get("EVOLVING_DESCRIPTIONS")
    if not path or not os.path.exists(path):
        return
    with open(path) as f:
        descriptions = json.load(f)
    for name in ("welcome", "note"):
        if name in descriptions:
            state[name]["description"] = descriptions[name]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def say(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    # For a client whose stderr tail the test cannot read (the CLI).
    if os.environ.get("EVOLVING_LOG"):
        with open(os.environ["EVOLVING_LOG"], "a") as log:
            log.write(text + "\n")


def task(task_id, status):
    return {
        "taskId": task_id,
        "status": status,
        "createdAt": NOW,
        "lastUpdatedAt": NOW,
        "ttl": 60000,
        "pollInterval": 100,
    }


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def call(params, request_id):
    """The result of a tools/call, or None when it is not answered now."""
    name = params.get("name")
    arguments = params.get("arguments") or {}
    if name == "greet":
        return text("hello " + str(arguments.get("name")))
    if name in ("change", "restore"):
        greet = copy.deepcopy(GREET)
        if name == "change":
            greet["inputSchema"]["properties"]["name"] = {"type": "integer"}
        state["greet"] = greet
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text(name + "d")
    if name == "shout":
        send({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "warning", "logger": "evolving", "data": arguments.get("text")},
        })
        return text("shouted")
    if name == "hang":
        say("hang " + json.dumps(request_id))
        return None
    if name == "edit":
        uri = arguments["uri"]
        if uri not in state["notes"]:
            raise ValueError("no note " + uri)
        state["notes"][uri] = arguments["text"]
        if uri in state["subscribed"]:
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": uri}})
        return text("edited " + uri)
    if name == "change_prompt":
        state["welcome"]["description"] = "Welcomes someone warmly."
        send({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
        return text("changed")
    if name == "change_template":
        state["note"]["description"] = "A note, changed."
        send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
        return text("changed")
    if name == "meta":
        return text(json.dumps(params.get("_meta") or {}, sort_keys=True))
    if name == "stall":
        if "task" not in params:
            raise ValueError("stall requires task augmentation")
        task_id = "task-%d" % (len(state["tasks"]) + 1)
        state["tasks"][task_id] = "working"
        say("created " + task_id)
        return {"task": task(task_id, "working")}
    raise ValueError("unknown tool " + str(name))


def answer(message):
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {
                "tools": {"listChanged": True},
                "prompts": {"listChanged": True},
                "resources": {"subscribe": True, "listChanged": True},
                "logging": {},
                "tasks": {"cancel": {}, "requests": {"tools": {"call": {}}}},
            },
            "serverInfo": {"name": "evolving", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": [state["greet"]] + OTHERS}
    if method == "tools/call":
        return call(params, message.get("id"))
    if method == "prompts/list":
        return {"prompts": [state["welcome"]]}
    if method == "prompts/get":
        who = (params.get("arguments") or {}).get("who", "")
        return {"messages": [{"role": "user",
                              "content": {"type": "text", "text": "Welcome, " + who}}]}
    if method == "resources/templates/list":
        return {"resourceTemplates": [state["note"]]}
    if method == "resources/list":
        return {"resources": [{"uri": uri, "name": uri, "mimeType": "text/plain"}
                              for uri in sorted(state["notes"])]}
    if method == "resources/read":
        uri = params["uri"]
        if uri not in state["notes"]:
            raise ValueError("no note " + uri)
        return {"contents": [{"uri": uri, "mimeType": "text/plain",
                              "text": state["notes"][uri]}]}
    if method == "resources/subscribe":
        state["subscribed"].add(params["uri"])
        say("subscribed " + params["uri"])
        return {}
    if method == "resources/unsubscribe":
        state["subscribed"].discard(params["uri"])
        say("unsubscribed " + params["uri"])
        return {}
    if method == "tasks/get":
        task_id = params["taskId"]
        # The first poll says the client knows the task (a test waits for
        # it before dropping the call).
        if task_id not in state["polled"]:
            state["polled"].add(task_id)
            say("tasks/get " + task_id)
        return task(task_id, state["tasks"][task_id])
    if method == "tasks/cancel":
        task_id = params["taskId"]
        state["tasks"][task_id] = "cancelled"
        say("tasks/cancel " + task_id)
        return task(task_id, "cancelled")
    if method in ("ping", "logging/setLevel"):
        return {}
    raise ValueError("unknown method " + str(method))


def main():
    read_descriptions()
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            if message.get("method") == "notifications/cancelled":
                say("cancelled " + json.dumps(message["params"].get("requestId")))
            continue
        if "method" not in message:
            continue  # a response to something we never ask
        try:
            result = answer(message)
        except (ValueError, KeyError) as e:
            send({"jsonrpc": "2.0", "id": message["id"],
                  "error": {"code": -32602, "message": str(e)}})
            continue
        if result is not None:
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})


def busy_server(busy):
    calls = {"n": 0}

    class Busy(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, code, data, extra=()):
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in extra:
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.send(405, b"{}")

        def do_DELETE(self):
            self.send(200, b"{}")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            message = json.loads(self.rfile.read(length) or b"{}")
            method = message.get("method")
            if "id" not in message:
                self.send(202, b"")
                return
            if method == "initialize":
                result = {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "busy", "version": "1.0.0"},
                }
            elif method == "tools/list":
                result = {"tools": [{"name": "busy", "inputSchema": {"type": "object"},
                                     "annotations": {"readOnlyHint": True}}]}
            elif method == "tools/call":
                calls["n"] += 1
                if calls["n"] <= busy:
                    self.send(429, b'{"error": "slow down"}', [("Retry-After", "1")])
                    return
                result = text("done after %d calls" % calls["n"])
            else:
                result = {}
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            self.send(200, json.dumps(reply).encode(), [("Mcp-Session-Id", "s1")])

    server = ThreadingHTTPServer(("127.0.0.1", 0), Busy)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("listening on http://127.0.0.1:%d/mcp" % server.server_address[1], flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--http":
        busy_server(int(sys.argv[2]))
    else:
        main()
