#!/usr/bin/env bash
# Runs the official MCP conformance suite in client mode against mcpbind's
# conformance client (examples/conformance-client): every client scenario of
# each pinned suite, one at a time.
#
# Two suites are pinned, each in its own folder with its own expected
# failures:
#   tests/conformance/       @modelcontextprotocol/conformance 0.1.16, and
#                            the Node 22 every suite runs on (the
#                            node-<os>-<cpu> npm package, a plain binary)
#   tests/conformance-2026/  0.2.0-alpha.12: the 2026-07-28 scenarios
# Each is pinned in its package.json and package-lock.json and installed
# into its node_modules: idempotent, serialised with flock, redone when the
# lock file changes (hash stamp), as tests/servers/install.sh does.
#
# Fails on a scenario that fails and is not listed in the suite's
# expected-failures.txt, on a listed scenario that passes (take it off the
# list), and on a listed name the suite does not have. Each scenario's
# output is kept in the suite's results/ folder.
#
# Usage: scripts/conformance.sh [--suite DIR] [SCENARIO...]
#        scripts/conformance.sh --install
#   --suite DIR   only the suite in tests/DIR (conformance, conformance-2026)
#   SCENARIO...   only these scenarios (needs --suite); default: all
#   --install     install both suites and stop (.ci/run does it in the
#                 background while it compiles: mostly downloads)
#
# Env: CONFORMANCE_TIMEOUT_MS (default 30000) bounds each scenario.
#      CONFORMANCE_CLIENT: the client binary to run, already built (.ci/run
#      builds it with the feature set of its test build, which compiled its
#      dependencies already); unset, this script builds it with
#      `cargo build -p mcpbind-conformance-client`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
log() { printf 'scripts/conformance.sh: %s\n' "$*" >&2; }

suites=(conformance conformance-2026)
install_only=0
if [[ "${1:-}" == "--install" ]]; then
  (( $# == 1 )) || { log "error: --install takes no other argument"; exit 2; }
  install_only=1
  shift
elif [[ "${1:-}" == "--suite" ]]; then
  [[ -n "${2:-}" && -f "$root/tests/$2/package.json" ]] || {
    log "error: --suite takes one of: ${suites[*]}"
    exit 2
  }
  suites=("$2")
  shift 2
fi
if (( $# > 0 && ${#suites[@]} > 1 )); then
  log "error: name the suite of the scenarios: --suite conformance|conformance-2026"
  exit 2
fi

hash_of() {
  if command -v sha256sum >/dev/null 2>&1; then cat "$@" | sha256sum | cut -d' ' -f1
  else cat "$@" | shasum -a 256 | cut -d' ' -f1; fi
}

# --- install a suite ----------------------------------------------------------
install_suite() (
  cd "$1"
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$1/.install.lock"
    flock 9
  fi
  stamp="node_modules/.mcpbind-install-stamp"
  want="$(hash_of package.json package-lock.json)"
  if [[ ! -d node_modules || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    command -v npm >/dev/null 2>&1 || { log "error: 'npm' not found on PATH"; exit 1; }
    log "npm ci in tests/$(basename "$1")"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
    printf '%s\n' "$want" >"$stamp"
  fi
)
# Node 22 comes with the first suite.
install_suite "$root/tests/conformance"
for suite in "${suites[@]}"; do
  [[ "$suite" == conformance ]] || install_suite "$root/tests/$suite"
done
(( install_only )) && exit 0

# The pinned Node where the package has a binary for this machine, else a
# Node >= 22 on PATH.
node="$root/tests/conformance/node_modules/.bin/node"
if [[ ! -x "$node" ]]; then
  node="$(command -v node || true)"
  major="$([[ -n "$node" ]] && "$node" -p 'process.versions.node.split(".")[0]' || echo 0)"
  if (( major < 22 )); then
    log "error: no Node 22 for $(uname -sm) in tests/conformance/package.json, and no Node >= 22 on PATH"
    exit 1
  fi
fi

# --- build the client ---------------------------------------------------------
if [[ -n "${CONFORMANCE_CLIENT:-}" ]]; then
  client="$(cd "$(dirname "$CONFORMANCE_CLIENT")" && pwd)/$(basename "$CONFORMANCE_CLIENT")"
  [[ -x "$client" ]] || { log "error: CONFORMANCE_CLIENT=$CONFORMANCE_CLIENT is not an executable"; exit 1; }
else
  cargo build --quiet -p mcpbind-conformance-client --manifest-path "$root/Cargo.toml"
  target="$(cd "$root" && cargo metadata --format-version 1 --no-deps | "$node" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
  client="$target/debug/mcpbind-conformance-client"
fi

# --- run one suite ------------------------------------------------------------
# run_suite DIR [SCENARIO...]: 0 when every scenario went as expected.
run_suite() {
  local dir="$1"; shift
  local here="$root/tests/$dir"
  local package="$here/node_modules/@modelcontextprotocol/conformance"
  local suite="$package/dist/index.js"
  local version
  version="$("$node" -p "require('$package/package.json').version")"
  local scenarios all
  mapfile -t scenarios < <("$node" "$suite" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
  if (( ${#scenarios[@]} == 0 )); then
    log "error: suite $version listed no client scenario"
    return 1
  fi
  all=("${scenarios[@]}")
  if (( $# > 0 )); then
    local wanted s found
    for wanted in "$@"; do
      found=0
      for s in "${all[@]}"; do [[ "$s" == "$wanted" ]] && found=1; done
      (( found )) || { log "error: suite $version has no client scenario $wanted"; exit 2; }
    done
    scenarios=("$@")
  fi
  local expected
  mapfile -t expected < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$here/expected-failures.txt" | grep -v '^$' || true)
  is_expected() { local e; for e in "${expected[@]}"; do [[ "$e" == "$1" ]] && return 0; done; return 1; }

  local results="$here/results"
  rm -rf "$results"
  mkdir -p "$results"
  local passed=() failed=() unexpected=() stale=() scenario out
  printf 'conformance suite %s (tests/%s):\n' "$version" "$dir"
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

  local unknown=() e known
  for e in "${expected[@]}"; do
    known=0
    for s in "${all[@]}"; do [[ "$s" == "$e" ]] && known=1; done
    (( known )) || unknown+=("$e")
  done

  printf 'conformance suite %s (client): %d of %d scenarios passed, %d failed (%d expected)\n' \
    "$version" "${#passed[@]}" "${#scenarios[@]}" "${#failed[@]}" "$(( ${#failed[@]} - ${#unexpected[@]} ))"
  local status=0
  for s in "${unexpected[@]}"; do
    log "unexpected failure: $s (see tests/$dir/results/${s//\//_}.log)"
    status=1
  done
  for s in "${stale[@]}"; do
    log "listed in tests/$dir/expected-failures.txt but passes now: $s (take it off the list)"
    status=1
  done
  for s in "${unknown[@]}"; do
    log "tests/$dir/expected-failures.txt lists $s, which suite $version does not have"
    status=1
  done
  return "$status"
}

status=0
for suite in "${suites[@]}"; do
  run_suite "$suite" "$@" || status=1
done
exit "$status"
