#!/usr/bin/env bash
# The model-based stress test of the store and the live objects (Tests/ClientTests/StoreStressTests.swift) at scale:
# many seeds, each JSONAPI_STRESS_STEPS steps (10,000 by default), in a debug build, a release build (-enable-testing)
# and under ThreadSanitizer, with a CPU hog on every core beside it (--no-load: without). A failure names its seed;
# run that seed alone with JSONAPI_STRESS_SEEDS=<seed>. Each quiet point requires every live object to equal a fresh
# read of the store (--no-converge: not), and sign-in and sign-out run between quiet points (--no-switches: not), as
# in the suite's run. --persist keeps the store in a database of the run's own (reads fault rows in while other
# tasks merge; a switch opens another account's database).
#
#   scripts/stress.sh                 # seeds 1-20, debug, release and TSan, under load
#   scripts/stress.sh --seeds 1-5 --builds debug
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="1-20"
builds="debug release tsan"
load=true
while [ $# -gt 0 ]; do
    case "$1" in
        --seeds) seeds="$2"; shift 2 ;;
        --builds) builds="$2"; shift 2 ;;
        --no-load) load=false; shift ;;
        --no-converge) export JSONAPI_STRESS_CONVERGE=0; shift ;;
        --no-switches) export JSONAPI_STRESS_SWITCHES=0; shift ;;
        --persist) export JSONAPI_STRESS_PERSIST=1; shift ;;
        *) echo "usage: scripts/stress.sh [--seeds A-B] [--builds 'debug release tsan'] [--no-load] [--no-converge] [--no-switches] [--persist]" >&2; exit 2 ;;
    esac
done
scripts/ensure-sqlite.sh
first=${seeds%-*}; last=${seeds#*-}
hogs=()
stop_hogs() { for pid in ${hogs[@]+"${hogs[@]}"}; do kill "$pid" 2>/dev/null || true; done; hogs=(); }
trap stop_hogs EXIT
failed=0
for build in $builds; do
    case "$build" in
        debug) options=() ;;
        release) options=(-c release -Xswiftc -enable-testing) ;;
        tsan) options=(--sanitize=thread) ;;
        *) echo "unknown build $build" >&2; exit 2 ;;
    esac
    # The build first, without the load (on 2 cores a hog beside it tripled its time), then the seeds beside it.
    stop_hogs
    swift build --build-tests "${options[@]}" >/dev/null
    if $load; then
        for _ in $(seq "$(nproc)"); do (while :; do :; done) & hogs+=($!); done
    fi
    for seed in $(seq "$first" "$last"); do
        if JSONAPI_STRESS_SEEDS=$seed swift test --skip-build "${options[@]}" --filter StoreStressTests >"/tmp/stress-$build-$seed.log" 2>&1; then
            echo "$build seed $seed: passed"
        else
            echo "$build seed $seed: FAILED (/tmp/stress-$build-$seed.log)"; grep -m1 "seed $seed" "/tmp/stress-$build-$seed.log" || true
            failed=$((failed + 1))
        fi
    done
done
echo "stress: $failed failed"
[ "$failed" -eq 0 ]
