#!/usr/bin/env bash
# Runs every test: builds, starts the local JSON:API test server (Tests/Server), runs `swift test` against it,
# and stops the server, whatever happens. Extra arguments go to `swift test`, and those that are build options
# (`--sanitize=thread`, `-c release`, `-Xswiftc …`) to `swift build --build-tests` as well, so the tests run the
# binaries built with them: `scripts/test.sh --sanitize=address --filter TransportTests`. Without arguments it
# also builds the documentation (scripts/docs.sh), which must have no warning.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing

# The options only `swift test` knows (SwiftPM 6): they select or report tests and do not change the build.
build_arguments=()
skip_value=false
for argument in "$@"; do
    if $skip_value; then skip_value=false; continue; fi
    case "$argument" in
        --filter | --skip | --num-workers | --xunit-output | --attachments-path | --specifier) skip_value=true ;;
        --filter=* | --skip=* | --num-workers=* | --xunit-output=* | --attachments-path=* | --specifier=*) ;;
        --skip-build | --list-tests | --parallel | --no-parallel | --enable-testable-imports \
            | --disable-testable-imports | --show-codecov-path | --show-code-coverage-path | --show-coverage-path) ;;
        *) build_arguments+=("$argument") ;;
    esac
done

swift build --build-tests ${build_arguments[@]+"${build_arguments[@]}"}

url=$(Tests/Server/start.sh)
trap 'Tests/Server/stop.sh' EXIT
echo "test server: $url"
export JSONAPI_TEST_SERVER_URL="$url"
# Only read under --sanitize=address: leaks of Foundation, libcurl and XCTest are not ours. print_suppressions=0
# keeps LeakSanitizer's list of the suppressions it used off standard error, where the tool tests read the
# `jsonapi` children's output.
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

swift test --skip-build "$@"

# The whole run (no arguments, as CI calls it) also builds the DocC catalogs, failing on any warning.
if [ $# -eq 0 ]; then scripts/docs.sh; fi
