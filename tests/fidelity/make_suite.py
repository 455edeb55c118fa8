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
The optional files (`optional/*.json`: big numbers, float overflow, `$id` and `$anchor`
inside enums, regex dialects, unknown keywords) are included, as `optional/<file>`; the
`optional/format/` assertions are not (`format` is an annotation in 2020-12).
Skipped (listed under "skipped" with the reason): refRemote.json, and cases whose refs
need a base URI other than the tool schema's root (a remote or relative `$ref`, a
`$dynamicRef`, a `$ref` under an embedded `$id`). Values (`enum`, `const`, `default`, `examples`) are
data, not schemas: an `$id` inside one is no identifier.
"""
import json
import pathlib
import sys

PREFIX = "/properties/value"


VALUES = ("enum", "const", "default", "examples")


def walk(node):
    """Yields every (key, value) pair in node's schemas, recursively (not into values)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value
            if key not in VALUES:
                yield from walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item)


def skip_reason(schema):
    if isinstance(schema, dict) and "$id" in schema:
        # The root's own $id is dropped below; an embedded one changes the base URI.
        schema = {k: v for k, v in schema.items() if k != "$id"}
    # A `$ref` to an absolute `$id` embedded in the same schema is internal.
    ids = {v for k, v in walk(schema) if k == "$id" and isinstance(v, str)}
    for key, value in walk(schema):
        if key == "$id" and refs_under_id(schema):
            return "embedded $id with a $ref under it"
        if key in ("$dynamicRef", "$dynamicAnchor", "$recursiveRef"):
            return key
        if key == "$ref" and isinstance(value, str) and not value.startswith("#"):
            if value.split("#")[0] not in ids:
                return f"remote or relative $ref {value}"
    return None


def refs_under_id(node, inside=False):
    """Whether a `$ref` sits inside a subschema with its own `$id` (whose base URI
    changes what the ref means); an `$id` with no ref under it changes nothing here."""
    if isinstance(node, dict):
        inside = inside or "$id" in node
        for key, value in node.items():
            if key == "$ref" and inside:
                return True
            if key not in VALUES and refs_under_id(value, inside):
                return True
    elif isinstance(node, list):
        return any(refs_under_id(item, inside) for item in node)
    return False


def rewrite(node):
    """Rewrites `#` and `#/...` refs to point under /properties/value (not inside values)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in VALUES:
                out[key] = value
            elif key == "$ref" and isinstance(value, str) and (value == "#" or value.startswith("#/")):
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
    paths = sorted(root.glob("*.json")) + sorted(root.glob("optional/*.json"))
    for path in paths:
        name = path.relative_to(root).as_posix()
        for index, case in enumerate(json.loads(path.read_text())):
            where = f"{name}#{index}: {case['description']}"
            if name == "refRemote.json":
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
                "file": name,
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
    invalid = sum(len(c["invalid"]) for c in cases)
    print(
        f"{len(cases)} cases ({valid} valid, {invalid} invalid instances),"
        f" {len(skipped)} skipped -> {dest}"
    )


if __name__ == "__main__":
    main()
