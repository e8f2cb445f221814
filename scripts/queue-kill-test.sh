#!/usr/bin/env bash
# The write queue's kill test at scale: a child process (store-kill-child queue …, Tests/StoreKillChild/QueueChild.swift)
# creates tags offline with WriteOptions.offline and prints each once it is queued; the test
# (Tests/ClientTests/WriteQueueKillTests.swift) SIGKILLs it at random moments N times on one directory, then replays
# the queue against the real test server and checks that every reported write was made exactly once. Prints one
# line: kills, writes reported, entries replayed, tags made (must equal the entries), the directory's files.
#
#     scripts/queue-kill-test.sh [N]        # N kills, 50 by default
set -euo pipefail
cd "$(dirname "$0")/.."
kills="${1:-50}"
swift build --build-tests
QUEUE_KILL_COUNT="$kills" swift test --skip-build --filter WriteQueueKillTests 2>&1 | grep -E '^queue-kill-test:|✘|✔ Test run|error'
