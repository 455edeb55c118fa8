#!/usr/bin/env python3
"""A stdio MCP server for tests/tests/durability.rs: tools from a file, and
the ways a `tools/list` can go wrong. Standard library only.

durability.py tools FILE       lists the tools in FILE (a JSON array), read
                               at each tools/list
durability.py endless-pages    every tools/list page has one tool and a new
                               cursor: the list never ends
durability.py repeat-cursor    the second page gives the first cursor again
durability.py hang PIDFILE     on tools/list, writes its pid to PIDFILE and
                               sleeps forever, deaf to its stdin closing (a
                               server that only a kill stops)
"""

import json
import os
import sys
import time

TOOL = {"name": "t", "inputSchema": {"type": "object"}}


def tools_list(mode, arg, cursor):
    if mode == "tools":
        with open(arg) as f:
            return {"tools": json.load(f)}
    if mode == "endless-pages":
        n = int(cursor or "0")
        return {"tools": [dict(TOOL, name="t%d" % n)], "nextCursor": str(n + 1)}
    if mode == "repeat-cursor":
        name = "second" if cursor else "first"
        return {"tools": [dict(TOOL, name=name)], "nextCursor": "again"}
    if mode == "hang":
        with open(arg + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename(arg + ".tmp", arg)
        while True:
            time.sleep(3600)
    sys.exit("unknown mode " + mode)


def main():
    mode, arg = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message or "method" not in message:
            continue
        method, params = message["method"], message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "durability", "version": "1.0.0"},
            }
        elif method == "tools/list":
            result = tools_list(mode, arg, params.get("cursor"))
        elif method == "ping":
            result = {}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"],
                     "error": {"code": -32601, "message": "method not found"}}
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
            continue
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
