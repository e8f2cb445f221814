#!/usr/bin/env bash
# Fuzzes the library with libFuzzer and AddressSanitizer: builds one fuzzer per target in Fuzz/ and runs each for
# SECONDS (default 60), one after the other. Exits non-zero when any target finds a crash, a hang, a leak, running
# out of memory or a failed check (an inequality); the input that did it is saved in .fuzz/artifacts/TARGET/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 30, scripts/fuzz.sh 600 RoundTrip
#
# Not part of CI's test command (.ci/run); the Fuzz/ sources are outside Sources/, so `swift build` never sees them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(RawDecode TypedDecode Validate RoundTrip URLs)

scratch=.build-fuzz
work=.fuzz

# The library is built by SwiftPM with coverage and ASan instrumentation. Each fuzzer is then linked by hand with
# swiftc: SwiftPM cannot link a fuzzing executable here (its link of an executable target built with
# -sanitize=fuzzer fails with "undefined symbol Fuzz_main", since libFuzzer brings its own `main`), while
# `swiftc -sanitize=fuzzer,address -parse-as-library` links the target, the library's objects and libFuzzer fine.
mkdir -p "$work"
echo "building the library for fuzzing (release, -sanitize=fuzzer,address) in $scratch"
swift build -c release --scratch-path "$scratch" --target JSONAPIClient -Xswiftc -sanitize=fuzzer,address >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
build="$scratch/release"
mkdir -p "$work/bin"
# The objects of the sources that exist now: the build directory keeps those of files since renamed or removed,
# whose symbols would be linked twice.
objects=()
for module in JSONAPIClientCore JSONAPIClient; do
    while IFS= read -r source; do
        objects+=("$build/$module.build/$(basename "$source").o")
    done < <(find "Sources/$module" -name '*.swift')
done

for target in "${targets[@]}"; do
    [ -f "Fuzz/$target.swift" ] || { echo "no fuzz target Fuzz/$target.swift" >&2; exit 2; }
    echo "linking $target"
    # The networking module imports CSQLite (the system's SQLite) on Linux: its module map, and the library to link.
    swiftc -O -swift-version 6 -sanitize=fuzzer,address -parse-as-library -use-ld=lld -I "$build/Modules" \
        -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap -lsqlite3 \
        Fuzz/Support/*.swift Tests/CoreTests/Support/Models.swift "Fuzz/$target.swift" "${objects[@]}" -o "$work/bin/$target"
done

# libFuzzer options: a hang is an input that takes more than 10 s; leaks are reported (ASan's leak checker).
options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -dict=Fuzz/json.dict
    -print_final_stats=1 -detect_leaks=1)

# The Swift runtime's own crash backtracer reads memory that ASan then reports as a second, confusing crash.
export SWIFT_BACKTRACE=enable=no

failed=()
summary=()
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target"
    artifacts="$work/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    # Seeds: the test fixtures (JSON targets) and the committed seeds of the target.
    seeds=()
    [ "$target" = URLs ] || seeds+=(Tests/CoreTests/Fixtures)
    [ -d "Fuzz/Seeds/$target" ] && seeds+=("Fuzz/Seeds/$target")
    [ -d Fuzz/Seeds/Documents ] && [ "$target" != URLs ] && seeds+=(Fuzz/Seeds/Documents)
    log="$work/$target.log"
    echo "fuzzing $target for ${seconds}s (log: $log)"
    status=0
    "$work/bin/$target" "${options[@]}" -artifact_prefix="$artifacts/" "$corpus" "${seeds[@]}" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        summary+=("$target: FAILED (exit $status) after ${runs:-?} executions; see $log and $artifacts")
        grep -E "^==[0-9]+==ERROR|fuzz check failed|ALARM|Test unit written|SUMMARY" "$log" | head -8 || true
    else
        summary+=("$target: ${runs:-?} executions, ${speed:-?}/s, clean")
    fi
done

echo
printf '%s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ] || { echo "fuzzing failed: ${failed[*]}"; exit 1; }
