#!/usr/bin/env bash
# Fuzzes the decoder, the validator and the round trip with libFuzzer + AddressSanitizer:
#   scripts/fuzz.sh [SECONDS] [TARGET …]
# Each target runs for SECONDS (default 60), one after the other; the corpus grows in .build-fuzz/corpus/TARGET and
# is kept between runs. Exits non-zero on any crash, timeout, leak, out-of-memory or broken invariant; what failed
# is in .build-fuzz/artifacts (replay: .build-fuzz/bin/TARGET ARTIFACT). Not part of the test command: long runs
# belong here. Every finding becomes a fixture in the normal tests.
#
# Why by hand: SwiftPM cannot link a fuzzing executable here (`undefined symbol Fuzz_main`), so the library is
# compiled with `swiftc` into a static library with fuzzer coverage and AddressSanitizer, and each target
# (Fuzz/TARGET.swift, with @_cdecl("LLVMFuzzerTestOneInput")) is linked against it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(RawDecode TypedDecode Validator RoundTrip)
build=.build-fuzz
flags=(-parse-as-library -O -g -sanitize=fuzzer,address -swift-version 6)
mkdir -p "$build/modules" "$build/bin" "$build/artifacts" "$build/seeds"

echo "== building the libraries with fuzzer coverage and AddressSanitizer"
swiftc "${flags[@]}" -emit-library -static -emit-module -module-name JSONAPIClientCore \
    -emit-module-path "$build/modules/JSONAPIClientCore.swiftmodule" \
    $(find Sources/JSONAPIClientCore -name '*.swift' | sort) -o "$build/libJSONAPIClientCore.a"
# -Onone: the optimiser crashes on this module with -sanitize=fuzzer (Swift 6.3.1).
swiftc "${flags[@]}" -Onone -emit-library -static -emit-module -module-name JSONAPIClient -I "$build/modules" \
    -emit-module-path "$build/modules/JSONAPIClient.swiftmodule" \
    $(find Sources/JSONAPIClient -name '*.swift' | sort) -o "$build/libJSONAPIClient.a"

for target in "${targets[@]}"; do
    echo "== building $target"
    swiftc "${flags[@]}" -I "$build/modules" Fuzz/FuzzModels.swift "Fuzz/$target.swift" \
        -L "$build" -lJSONAPIClient -lJSONAPIClientCore -o "$build/bin/$target"
done

# Seeds: the test fixtures, each invalid document on its own, and the seeds kept in Fuzz/seeds.
cp Tests/CoreTests/Fixtures/*.json "$build/seeds/"
rm -f "$build/seeds/invalid-documents.json"
python3 - "$build/seeds" <<'PY'
import json, sys
for n, case in enumerate(json.load(open("Tests/CoreTests/Fixtures/invalid-documents.json"))):
    open(f"{sys.argv[1]}/invalid-{n}.json", "w").write(case["json"])
PY
[[ -d Fuzz/seeds ]] && cp Fuzz/seeds/* "$build/seeds/" 2>/dev/null || true

failed=()
for target in "${targets[@]}"; do
    mkdir -p "$build/corpus/$target"
    echo "== fuzzing $target for ${seconds}s"
    log="$build/$target.log"
    if "$build/bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -dict=Fuzz/json.dict \
        -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 \
        "$build/corpus/$target" "$build/seeds" >"$log" 2>&1; then
        grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec|^stat::peak_rss_mb' "$log" | tr '\n' ' '
        echo
    else
        echo "$target FAILED (see $log):"
        grep -E 'ERROR|SUMMARY|invariant|Test unit written' "$log" | head -n 20
        failed+=("$target")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz: failures in ${failed[*]}"
    exit 1
fi
echo "fuzz: ${#targets[@]} targets clean for ${seconds}s each"
