#!/usr/bin/env bash
# Installs the third-party MCP servers used by mcpbind's end-to-end tests:
#   - npm packages pinned in package.json / package-lock.json -> ./node_modules
#   - Python packages pinned in requirements.txt              -> ./.venv
#   - a Python SDK 1.x server pinned in requirements-sdk1.txt  -> ./.venv-sdk1
#
# Idempotent and quiet when everything is already installed. Safe to call from any
# directory and from several processes at once (serialised with flock when available).
# Reinstalls a part when its lock/requirements file changed since it was installed
# (tracked by a content hash stamp, so a fresh checkout alone does not trigger it).
#
# Env: PYTHON (default python3) picks the interpreter used to create the venv.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

log() { printf 'tests/servers/install.sh: %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || { log "error: '$1' not found on PATH"; exit 1; }; }

hash_of() {
  if command -v sha256sum >/dev/null 2>&1; then cat "$@" | sha256sum | cut -d' ' -f1
  else cat "$@" | shasum -a 256 | cut -d' ' -f1; fi
}

if command -v flock >/dev/null 2>&1; then
  exec 9>"$here/.install.lock"
  flock 9
fi

# --- npm servers -------------------------------------------------------------
npm_stamp="node_modules/.mcpbind-install-stamp"
npm_want="$(hash_of package.json package-lock.json)"
if [[ ! -d node_modules || ! -f "$npm_stamp" || "$(cat "$npm_stamp")" != "$npm_want" ]]; then
  need node
  need npm
  log "npm ci (MCP test servers)"
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  printf '%s\n' "$npm_want" >"$npm_stamp"
fi

# --- Python servers ----------------------------------------------------------
py="${PYTHON:-python3}"
venv_stamp=".venv/.mcpbind-install-stamp"
if [[ ! -x .venv/bin/python || ! -f "$venv_stamp" || "$(cat "$venv_stamp")" != "$(hash_of requirements.txt)" ]]; then
  need "$py"
  log "creating .venv and pip install -r requirements.txt"
  rm -rf .venv
  "$py" -m venv .venv
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  hash_of requirements.txt >"$venv_stamp"
fi

# --- A Python server on the Python SDK 1.x: its own venv (mcp<2) ---------------
sdk1_stamp=".venv-sdk1/.mcpbind-install-stamp"
if [[ ! -x .venv-sdk1/bin/python || ! -f "$sdk1_stamp" || "$(cat "$sdk1_stamp")" != "$(hash_of requirements-sdk1.txt)" ]]; then
  need "$py"
  log "creating .venv-sdk1 and pip install -r requirements-sdk1.txt"
  rm -rf .venv-sdk1
  "$py" -m venv .venv-sdk1
  .venv-sdk1/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-sdk1.txt
  hash_of requirements-sdk1.txt >"$sdk1_stamp"
fi

# --- uv, and wheels for an offline `uvx` (tests/tests/escape.rs) -------------
# uv from PyPI (the binary ships in the wheel) into the venv, and the
# wheels of mcp-server-time and its dependencies, which `uvx --offline
# --no-index --find-links wheels` installs from.
uv_version="0.13.8"
uv_stamp="wheels/.mcpbind-install-stamp"
uv_want="$uv_version $(hash_of requirements.txt)"
if [[ ! -x .venv/bin/uvx || ! -f "$uv_stamp" || "$(cat "$uv_stamp")" != "$uv_want" ]]; then
  log "pip install uv, pip download wheels (offline uvx)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$uv_version"
  rm -rf wheels
  .venv/bin/python -m pip download --quiet --disable-pip-version-check \
    --only-binary=:all: --dest wheels -r requirements.txt
  printf '%s\n' "$uv_want" >"$uv_stamp"
fi
