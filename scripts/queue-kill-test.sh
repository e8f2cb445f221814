#!/usr/bin/env bash
# The write queue's kill test at scale: a child process (store-kill-child queue …, Tests/StoreKillChild/QueueChild.swift)
# creates tags offline with WriteOptions.offline and prints each once it is queued; the test
# (Tests/ClientTests/WriteQueueKillTests.swift) SIGKILLs it at random moments N times on one directory, then replays
# the queue against the real test server and checks that every reported write was made exactly once. Prints one
# line per run: kills, writes reported, entries replayed, tags made (must equal the entries), the directory's files,
# the POSTs the server logged (at least the entries).
#
#     scripts/queue-kill-test.sh [N] [RUNS]         # N kills a run (50 by default), RUNS runs (1 by default)
#     HOG=1 scripts/queue-kill-test.sh 6 20         # under load: a busy loop on a core beside the runs
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing
kills="${1:-50}"
runs="${2:-1}"
swift build --build-tests
if [ "${HOG:-0}" = 1 ]; then
    ( while :; do :; done ) &
    hog=$!
    trap 'kill "$hog" 2>/dev/null' EXIT
fi
failed=0
for run in $(seq 1 "$runs"); do
    output=$(QUEUE_KILL_COUNT="$kills" swift test --skip-build --filter WriteQueueKillTests 2>&1) || failed=$((failed + 1))
    echo "run $run: $(echo "$output" | grep -E '^queue-kill-test:' || echo 'no result line')"
    echo "$output" | grep -E '✘|error' | head -5 || true
done
echo "queue-kill-test: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
