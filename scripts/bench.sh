#!/usr/bin/env bash
# Runs the benchmark (release build): scripts/bench.sh [--sizes 1000,10000] [--rounds 9] [--cases …] [--no-rss]
# See Docs/Performance.md for what it measures and the latest results.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing
exec swift run -c release jsonapi-bench "$@"
