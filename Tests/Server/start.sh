#!/usr/bin/env bash
# Starts the JSON:API test server on a free 127.0.0.1 port with a fresh, seeded SQLite db.
# Prints the base URL (e.g. http://127.0.0.1:54321) as the only line of stdout and writes
# it to .run/url. Stop it with stop.sh.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN="$HERE/.run"
PIDFILE="$RUN/server.pid"
LOG="$RUN/server.log"
PY="$HERE/.venv/bin/python"

"$HERE/setup.sh" >&2
"$HERE/stop.sh" >&2

mkdir -p "$RUN"
rm -f "$RUN"/db.sqlite3 "$RUN"/db.sqlite3-wal "$RUN"/db.sqlite3-shm "$RUN/url" "$LOG" "$PIDFILE"
: >"$LOG"

export JSONAPI_TEST_DB="$RUN/db.sqlite3"
export DJANGO_SETTINGS_MODULE=testserver.settings
export PYTHONUNBUFFERED=1
cd "$HERE"

if ! "$PY" manage.py migrate --no-input -v0 >>"$LOG" 2>&1 || ! "$PY" manage.py seed >>"$LOG" 2>&1; then
    echo "start.sh: creating the database failed:" >&2
    cat "$LOG" >&2
    exit 1
fi

for attempt in 1 2 3; do
    port="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    url="http://127.0.0.1:$port"
    echo "--- start attempt $attempt on $url" >>"$LOG"
    # Idle keep-alive connections live longer than any test run, so the server never closes one just as a client
    # reuses it: a POST on such a connection fails at once (it is not idempotent, so it is not sent again), and the
    # store's server tests would fail by chance.
    # Without the descriptors the caller had open beyond 0-2: a test process that starts the server while other
    # tests have pipes to their children open would otherwise lend the daemon those pipes' write ends, and a reader
    # of one would wait for an end that never comes. (/dev/fd: on Linux and macOS.)
    for fd in $(ls /dev/fd); do
        if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    "$HERE/.venv/bin/gunicorn" testserver.wsgi:application \
        --chdir "$HERE" \
        --bind "127.0.0.1:$port" \
        --workers 2 --threads 4 --worker-class gthread \
        --timeout 60 --graceful-timeout 5 --keep-alive 120 \
        --daemon --pid "$PIDFILE" \
        --capture-output --error-logfile "$LOG" --access-logfile "$LOG" \
        </dev/null >>"$LOG" 2>&1 || true

    if "$PY" - "$url" "$PIDFILE" <<'PYEOF'
import os, sys, time, urllib.request, urllib.error
url, pidfile = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 60
seen_pid = False
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url + "/echo-headers", timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except (urllib.error.URLError, OSError):
        pass
    try:
        pid = int(open(pidfile).read().strip())
        os.kill(pid, 0)
        seen_pid = True
    except (OSError, ValueError):
        if seen_pid or time.monotonic() > deadline - 55:
            sys.exit(1)  # master gone (or never appeared within 5 s)
    time.sleep(0.1)
sys.exit(1)
PYEOF
    then
        echo "$url" >"$RUN/url"
        echo "$url"
        exit 0
    fi
    "$HERE/stop.sh" >&2
    grep -q "Address already in use" "$LOG" || break
done

echo "start.sh: the server did not become ready; log follows:" >&2
cat "$LOG" >&2
exit 1
