#!/usr/bin/env bash
# The main job, on the bundled demo server:
#   1. `mcpbind lock` starts the demo server, snapshots its tools/list into
#      a lockfile;
#   2. the quickstart's build.rs generates typed bindings from that
#      lockfile;
#   3. the quickstart makes typed calls and prints their results.
#
# Each step runs a built binary, and the demo server is started as one too
# (examples/quickstart/mcpbind.toml), never through `cargo run`: cargo
# waits on its locks while another build holds them (rust-analyzer's check
# in an open editor, another project's build), and a server start that
# waits on them runs into the handshake's timeout. The builds themselves
# wait for the locks as long as it takes.
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
bin=target/debug
cargo build --quiet --package mcpbind-cli --package mcpbind-demo-server
"$bin/mcpbind" lock --config examples/quickstart/mcpbind.toml
# The fresh lock is the committed one: the demo server has not changed.
if ! cmp -s "$MCPBIND_LOCKFILE" examples/quickstart/mcpbind.lock; then
  echo "error: examples/quickstart/mcpbind.lock is out of date" >&2
  echo "help: run \`target/debug/mcpbind lock --config examples/quickstart/mcpbind.toml\` and commit examples/quickstart/mcpbind.lock" >&2
  exit 1
fi
cargo build --quiet --package mcpbind-example-quickstart
"$bin/mcpbind-example-quickstart"
