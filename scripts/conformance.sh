#!/usr/bin/env bash
# Runs the official MCP conformance suite in client mode against mcpbind's
# conformance client (examples/conformance-client), every client scenario of
# the pinned suite, one at a time.
#
# The suite (@modelcontextprotocol/conformance) and the Node 22 it needs (the
# node-<os>-<cpu> npm package, a plain binary) are pinned in
# tests/conformance/package.json and package-lock.json and installed into
# tests/conformance/node_modules: idempotent, serialised with flock, redone
# when the lock file changes (hash stamp), as tests/servers/install.sh does.
#
# Fails on a scenario that fails and is not listed in
# tests/conformance/expected-failures.txt, on a listed scenario that passes
# (take it off the list), and on a listed name the suite does not have.
# Each scenario's output is kept in tests/conformance/results/.
#
# Usage: scripts/conformance.sh [SCENARIO...]   (default: every client scenario)
#
# Env: CONFORMANCE_TIMEOUT_MS (default 30000) bounds each scenario.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
here="$root/tests/conformance"
log() { printf 'scripts/conformance.sh: %s\n' "$*" >&2; }

hash_of() {
  if command -v sha256sum >/dev/null 2>&1; then cat "$@" | sha256sum | cut -d' ' -f1
  else cat "$@" | shasum -a 256 | cut -d' ' -f1; fi
}

# --- install the suite and Node 22 -------------------------------------------
(
  cd "$here"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$here/.install.lock"
    flock 9
  fi
  stamp="node_modules/.mcpbind-install-stamp"
  want="$(hash_of package.json package-lock.json)"
  if [[ ! -d node_modules || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    command -v npm >/dev/null 2>&1 || { log "error: 'npm' not found on PATH"; exit 1; }
    log "npm ci (conformance suite and Node 22)"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    printf '%s\n' "$want" >"$stamp"
  fi
)

# The pinned Node where the package has a binary for this machine, else a
# Node >= 22 on PATH.
node="$here/node_modules/.bin/node"
if [[ ! -x "$node" ]]; then
  node="$(command -v node || true)"
  major="$([[ -n "$node" ]] && "$node" -p 'process.versions.node.split(".")[0]' || echo 0)"
  if (( major < 22 )); then
    log "error: no Node 22 for $(uname -sm) in tests/conformance/package.json, and no Node >= 22 on PATH"
    exit 1
  fi
fi
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"
version="$("$node" -p "require('$here/node_modules/@modelcontextprotocol/conformance/package.json').version")"

# --- build the client ---------------------------------------------------------
cargo build --quiet -p mcpbind-conformance-client --manifest-path "$root/Cargo.toml"
target="$(cd "$root" && cargo metadata --format-version 1 --no-deps | "$node" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
client="$target/debug/mcpbind-conformance-client"

# --- run every client scenario ------------------------------------------------
mapfile -t scenarios < <("$node" "$suite" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
if (( ${#scenarios[@]} == 0 )); then
  log "error: the suite listed no client scenario"
  exit 1
fi
all=("${scenarios[@]}")
if (( $# > 0 )); then
  for wanted in "$@"; do
    found=0
    for s in "${all[@]}"; do [[ "$s" == "$wanted" ]] && found=1; done
    (( found )) || { log "error: suite $version has no client scenario $wanted"; exit 2; }
  done
  scenarios=("$@")
fi
mapfile -t expected < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$here/expected-failures.txt" | grep -v '^$' || true)
is_expected() { local e; for e in "${expected[@]}"; do [[ "$e" == "$1" ]] && return 0; done; return 1; }

results="$here/results"
rm -rf "$results"
mkdir -p "$results"
passed=() failed=() unexpected=() stale=()
for scenario in "${scenarios[@]}"; do
  out="$results/${scenario//\//_}.log"
  if "$node" "$suite" client --command "$client" --scenario "$scenario" \
      --timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" >"$out" 2>&1; then
    passed+=("$scenario")
    is_expected "$scenario" && stale+=("$scenario")
    printf '  pass  %s\n' "$scenario"
  else
    failed+=("$scenario")
    if is_expected "$scenario"; then
      printf '  FAIL  %s (expected)\n' "$scenario"
    else
      unexpected+=("$scenario")
      printf '  FAIL  %s\n' "$scenario"
    fi
  fi
done

unknown=()
for e in "${expected[@]}"; do
  known=0
  for s in "${all[@]}"; do [[ "$s" == "$e" ]] && known=1; done
  (( known )) || unknown+=("$e")
done

printf 'conformance suite %s (client): %d of %d scenarios passed, %d failed (%d expected)\n' \
  "$version" "${#passed[@]}" "${#scenarios[@]}" "${#failed[@]}" "$(( ${#failed[@]} - ${#unexpected[@]} ))"
status=0
for s in "${unexpected[@]}"; do
  log "unexpected failure: $s (see tests/conformance/results/${s//\//_}.log)"
  status=1
done
for s in "${stale[@]}"; do
  log "listed in tests/conformance/expected-failures.txt but passes now: $s (take it off the list)"
  status=1
done
for s in "${unknown[@]}"; do
  log "tests/conformance/expected-failures.txt lists $s, which suite $version does not have"
  status=1
done
exit "$status"
