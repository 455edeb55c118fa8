#!/usr/bin/env python3
"""Turns the JSON Schema Test Suite's draft 2020-12 cases into tests/fidelity/suite.json.

Usage: python3 tests/fidelity/make_suite.py PATH/TO/json/tests/draft2020-12

The suite ships inside the PyPI `jsonschema` source distribution:
    pip download --no-binary :all: --no-deps jsonschema==4.26.0
    tar xzf jsonschema-4.26.0.tar.gz   # -> jsonschema-4.26.0/json/tests/draft2020-12

Each case becomes one entry `{id, file, description, input_schema, valid, invalid}`:
`input_schema` is `{"type":"object","properties":{"value": <case schema>},"required":["value"]}`
with the case's internal refs `#...` rewritten to `#/properties/value...`, and
`valid`/`invalid` the instances the suite says the schema accepts/rejects.
Skipped (listed under "skipped" with the reason): optional/, refRemote.json, and cases
whose refs need a base URI other than the tool schema's root (a remote or relative `$ref`,
a `$dynamicRef`, an embedded `$id`).
"""
import json
import pathlib
import sys

PREFIX = "/properties/value"


def walk(node):
    """Yields every (key, value) pair in node, recursively."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            yield from walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


def skip_reason(schema):
    if isinstance(schema, dict) and "$id" in schema:
        # The root's own $id is dropped below; an embedded one changes the base URI.
        schema = {k: v for k, v in schema.items() if k != "$id"}
    for key, value in walk(schema):
        if key == "$id":
            return "embedded $id"
        if key in ("$dynamicRef", "$dynamicAnchor", "$recursiveRef"):
            return key
        if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
            return f"remote or relative $ref {value}"
    return None


def rewrite(node):
    """Rewrites `#` and `#/...` refs to point under /properties/value."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and (value == "#" or value.startswith("#/")):
                out[key] = "#" + PREFIX + value[1:]
            else:
                out[key] = rewrite(value)
        return out
    if isinstance(node, list):
        return [rewrite(item) for item in node]
    return node


def main():
    root = pathlib.Path(sys.argv[1])
    cases, skipped = [], []
    for path in sorted(root.glob("*.json")):
        for index, case in enumerate(json.loads(path.read_text())):
            where = f"{path.name}#{index}: {case['description']}"
            if path.name == "refRemote.json":
                skipped.append({"case": where, "reason": "remote refs"})
                continue
            reason = skip_reason(case["schema"])
            if reason:
                skipped.append({"case": where, "reason": reason})
                continue
            schema = case["schema"]
            if isinstance(schema, dict):
                schema = {k: v for k, v in schema.items() if k not in ("$id", "$schema")}
            cases.append({
                "id": f"c{len(cases) + 1:04}",
                "file": path.name,
                "description": case["description"],
                "input_schema": {
                    "type": "object",
                    "properties": {"value": rewrite(schema)},
                    "required": ["value"],
                },
                "valid": [t["data"] for t in case["tests"] if t["valid"]],
                "invalid": [t["data"] for t in case["tests"] if not t["valid"]],
            })
    out = {
        "source": "JSON Schema Test Suite, draft2020-12, from the jsonschema 4.26.0 sdist",
        "cases": cases,
        "skipped": skipped,
    }
    dest = pathlib.Path(__file__).with_name("suite.json")
    dest.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    valid = sum(len(c["valid"]) for c in cases)
    print(f"{len(cases)} cases ({valid} valid instances), {len(skipped)} skipped -> {dest}")


if __name__ == "__main__":
    main()
