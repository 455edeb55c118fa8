#!/usr/bin/env bash
# Rebuilds codegen/tests/corpus/servers.lock: the tools/list of every corpus server.
#
#   bash scripts/corpus/build.sh            # SCRATCH=/work/scratch-corpus by default
#
# 1. install.sh installs the pinned packages of npm.txt and pypi.txt into $SCRATCH
#    (outside the repo; nothing installed is committed);
# 2. corpus.toml (the servers, with fake credentials only) is copied into $SCRATCH, where
#    its relative paths resolve, and locked with the repo's own CLI, in batches of $BATCH
#    servers (all at once would start ~90 servers on a small machine). Each batch adds its
#    servers to the same lockfile; a server that cannot start or list its tools is reported
#    (logs in $SCRATCH/logs/lock.log) and left out.
# 3. The lockfile is checked to contain none of the config's fake credential values.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
SCRATCH="${SCRATCH:-/work/scratch-corpus}"
export SCRATCH

bash "$here/install.sh"
cp "$here/corpus.toml" "$SCRATCH/corpus.toml"
mkdir -p "$repo/codegen/tests/corpus" "$SCRATCH/logs"
cd "$repo"
cargo build --quiet -p mcpbind-cli
export BIN="$repo/target/debug/mcpbind"
export LOCK="$repo/codegen/tests/corpus/servers.lock"
rm -f "$LOCK"
grep -o '^\[servers\.[a-z0-9_-]*\]' "$here/corpus.toml" | sed 's/^\[servers\.\(.*\)\]$/\1/' |
  xargs -n "${BATCH:-8}" sh -c 'cd "$SCRATCH" && "$BIN" lock --config corpus.toml --lockfile "$LOCK" "$0" "$@"' \
    >"$SCRATCH/logs/lock.log" 2>&1 || true
grep -E 'Locked|failed to lock' "$SCRATCH/logs/lock.log" || true

# No secret may reach the lockfile: none of the fake values of corpus.toml appears in it.
python3 - "$here/corpus.toml" "$LOCK" <<'PY'
import json, re, sys
config, text = open(sys.argv[1]).read(), open(sys.argv[2]).read()
fakes = set(re.findall(r'= "([^"]*fake[^"]*)"', config))
leaked = sorted(v for v in fakes if v in text)
if leaked:
    sys.exit(f"fake credential values found in the lockfile: {leaked}")
servers = json.loads(text)["servers"]
tools = sum(len(s["tools"]) for s in servers.values())
print(f"{len(servers)} servers, {tools} tools; none of {len(fakes)} fake credential values in the lockfile")
PY
