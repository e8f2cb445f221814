#!/usr/bin/env bash
# Creates/refreshes Tests/Server/.venv from requirements.txt. Quiet unless it fails.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$HERE/.venv"
STAMP="$VENV/.requirements.stamp"
PYTHON="${PYTHON:-python3}"

mkdir -p "$HERE/.run"
# Serialise concurrent setups (e.g. two test processes starting servers at once).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$HERE/.run/setup.lock"
    flock 9
fi

want="$( { cat "$HERE/requirements.txt"; "$PYTHON" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"

if [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
    exit 0
fi

echo "setup.sh: installing the test server (djangorestframework-jsonapi, Tests/Server/requirements.txt) into $VENV with pip; about 15 s…" >&2
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rm -rf "$VENV"
if ! "$PYTHON" -m venv "$VENV" >"$log" 2>&1 \
    || ! "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q \
        -r "$HERE/requirements.txt" >>"$log" 2>&1; then
    echo "setup.sh: creating the virtualenv failed:" >&2
    cat "$log" >&2
    rm -rf "$VENV"
    exit 1
fi
echo "$want" >"$STAMP"
