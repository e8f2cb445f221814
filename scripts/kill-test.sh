#!/usr/bin/env bash
# The persisted store's kill test at scale: a child process (store-kill-child, Tests/StoreKillChild) saves in a
# loop and prints each save once flush() returned; the test (Tests/ClientTests/StoreKillTests.swift) SIGKILLs it at
# random moments N times, reopens the directory after each kill and checks that every reported save is there,
# whole. Prints one line: kills, saves reported, saves checked, saves lost (must be 0) and databases set aside or
# rows discarded (must be 0).
#
#     scripts/kill-test.sh [N]        # N kills, 200 by default
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing
kills="${1:-200}"
swift build --build-tests
STORE_KILL_COUNT="$kills" swift test --skip-build --filter StoreKillTests 2>&1 | grep -E '^kill-test:|✘|✔ Test run|error'
