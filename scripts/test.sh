#!/usr/bin/env bash
# Runs every test: builds, starts the local JSON:API test server (Tests/Server), runs `swift test` against it,
# and stops the server, whatever happens. Extra arguments go to `swift test` (e.g. --filter CoreTests).
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --build-tests

url=$(Tests/Server/start.sh)
trap 'Tests/Server/stop.sh' EXIT
echo "test server: $url"
export JSONAPI_TEST_SERVER_URL="$url"

swift test --skip-build "$@"
