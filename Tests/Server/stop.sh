#!/usr/bin/env bash
# Stops the test server started by start.sh (by PID). No error if it is not running.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PIDFILE="$HERE/.run/server.pid"

[[ -f "$PIDFILE" ]] || exit 0
pid="$(cat "$PIDFILE" 2>/dev/null || true)"

is_our_server() {
    kill -0 "$pid" 2>/dev/null || return 1
    # Guard against a recycled PID: only signal a gunicorn serving this project.
    [[ -r "/proc/$pid/cmdline" ]] || return 0
    [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" == *testserver.wsgi* ]]
}

if [[ "$pid" =~ ^[0-9]+$ ]] && is_our_server; then
    # gunicorn master: QUIT = quick shutdown (workers stop at once), then it exits.
    kill -QUIT "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    fi
fi
rm -f "$PIDFILE" "$HERE/.run/url"
