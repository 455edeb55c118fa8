#!/usr/bin/env bash
# Installs the corpus servers listed in npm.txt and pypi.txt into $SCRATCH (default
# /work/scratch-corpus): each npm package into its own prefix, each PyPI package into its
# own venv, so that one package's dependencies never clash with another's.
# npm install scripts are skipped (no browser downloads; tools/list needs none).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCRATCH="${SCRATCH:-/work/scratch-corpus}"
JOBS="${JOBS:-3}"
mkdir -p "$SCRATCH/npm" "$SCRATCH/py" "$SCRATCH/logs"

npm_one() {
  local spec="$1" dir="$SCRATCH/npm/$(printf '%s' "$1" | tr '/@' '__')"
  [[ -f "$dir/.done" ]] && return 0
  mkdir -p "$dir"
  if npm install --prefix "$dir" --no-audit --no-fund --ignore-scripts --legacy-peer-deps \
       --loglevel=error "$spec" >"$SCRATCH/logs/npm-$(basename "$dir").log" 2>&1; then
    touch "$dir/.done"
  else
    echo "install failed: $spec (see $SCRATCH/logs/npm-$(basename "$dir").log)" >&2
  fi
}
py_one() {
  local spec="$1" dir="$SCRATCH/py/${1%%==*}"
  [[ -f "$dir/.done" ]] && return 0
  python3 -m venv "$dir" &&
  if "$dir/bin/pip" install --quiet --disable-pip-version-check "$spec" \
       >"$SCRATCH/logs/py-${1%%==*}.log" 2>&1; then
    touch "$dir/.done"
  else
    echo "install failed: $spec (see $SCRATCH/logs/py-${1%%==*}.log)" >&2
  fi
}
export -f npm_one py_one
export SCRATCH
grep -v '^#' "$here/npm.txt" | grep . | xargs -P "$JOBS" -I{} bash -c 'npm_one "$@"' _ {}
grep -v '^#' "$here/pypi.txt" | grep . | xargs -P "$JOBS" -I{} bash -c 'py_one "$@"' _ {}
