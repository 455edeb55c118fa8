#!/usr/bin/env bash
# The main job, on the bundled demo server:
#   1. `mcpbind lock` starts the demo server, snapshots its tools/list into
#      a lockfile;
#   2. `cargo run` of the quickstart builds it: its build.rs generates typed
#      bindings from that lockfile;
#   3. the quickstart makes typed calls and prints their results.
#
# The lockfile goes to a temporary directory (`MCPBIND_LOCKFILE`, which both
# `mcpbind lock` and the build read), not over the committed
# examples/quickstart/mcpbind.lock: running the demo leaves the tree as it
# was. In your own project, `mcpbind lock` writes mcpbind.lock beside
# mcpbind.toml, and you commit it.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export MCPBIND_LOCKFILE="$scratch/mcpbind.lock"
# Build first, so that no server start waits on a compile.
cargo build --quiet --package mcpbind-cli --package mcpbind-demo-server
cargo run --quiet --package mcpbind-cli -- lock --config examples/quickstart/mcpbind.toml
# The fresh lock is the committed one: the demo server has not changed.
if ! cmp -s "$MCPBIND_LOCKFILE" examples/quickstart/mcpbind.lock; then
  echo "error: examples/quickstart/mcpbind.lock is out of date" >&2
  echo "help: run \`cargo run -p mcpbind-cli -- lock --config examples/quickstart/mcpbind.toml\` and commit examples/quickstart/mcpbind.lock" >&2
  exit 1
fi
cargo run --quiet --package mcpbind-example-quickstart
