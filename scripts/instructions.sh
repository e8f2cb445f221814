#!/usr/bin/env bash
# Linux (valgrind, bash 4). Counts the instructions one run of a benchmark case executes, under callgrind: repeatable whatever the machine's
# load, so a change to the store's paths can be measured here, and a regression caught, where wall times move by a
# third between runs. For each case, the release benchmark runs `--profile CASE --iterations 1` and `--iterations 3`
# side by side (every thread counted: the walks run on the pool); half the difference is one run, without the
# set-up. Takes about two minutes a case on 2 cores (`live-apply` four).
#
#   scripts/instructions.sh                     # the store's walk cases (below), and their ratios
#   scripts/instructions.sh --cases store-merge,decode-typed --size 1000
#   scripts/instructions.sh --check             # fails when a case runs over 3 % more than Benchmarks/instructions.txt
#   scripts/instructions.sh --update            # writes the figures measured into Benchmarks/instructions.txt
#
# The baseline file names the toolchain it was measured with: another compiler gives other counts, so `--check`
# under another toolchain only prints the figures. See Docs/Performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."

cases="store-walk-bare,store-walk,store-walk-observed,live-apply"
size=10000
mode=print
while [ $# -gt 0 ]; do
    case "$1" in
        --cases) cases="$2"; shift 2 ;;
        --size) size="$2"; shift 2 ;;
        --check) mode=check; shift ;;
        --update) mode=update; shift ;;
        *) echo "instructions.sh: unknown option $1" >&2; exit 2 ;;
    esac
done

if ! command -v valgrind > /dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        apt-get update -qq && apt-get install -y -qq valgrind > /dev/null
    else
        echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2
        exit 1
    fi
fi

scripts/ensure-sqlite.sh
swift build -c release --product jsonapi-bench > /dev/null
binary=.build/release/jsonapi-bench
toolchain=$(swift --version 2>&1 | grep -m1 -o 'Swift version [^ ]*' || echo unknown)
baseline=Benchmarks/instructions.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The instructions callgrind collected in a run of `$binary --profile $1 --size $size --iterations $2`.
collected() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" --profile "$1" --size "$size" \
        --iterations "$2" > "$work/$1.$2.log" 2>&1 || { cat "$work/$1.$2.log" >&2; return 1; }
    grep -o 'Collected : [0-9]*' "$work/$1.$2.log" | grep -o '[0-9]*$'
}

declare -A measured
for name in ${cases//,/ }; do
    collected "$name" 1 > "$work/$name.1" &
    first=$!
    collected "$name" 3 > "$work/$name.3"
    wait "$first"
    one=$(cat "$work/$name.1") three=$(cat "$work/$name.3")
    measured[$name]=$(( (three - one) / 2 ))
    awk -v name="$name" -v size="$size" -v n="${measured[$name]}" \
        'BEGIN { printf "%s %s instructions=%.1fM\n", name, size, n / 1e6 }'
done

# The ratios the store's targets are stated in, when their cases were measured.
ratio() {
    if [ -n "${measured[$1]:-}" ] && [ -n "${measured[$2]:-}" ]; then
        awk -v a="${measured[$1]}" -v b="${measured[$2]}" -v label="$1 / $2" \
            'BEGIN { printf "%s = %.3f\n", label, a / b }'
    fi
}
ratio store-walk store-walk-bare
ratio store-walk-observed store-walk-bare
ratio live-apply store-walk

case "$mode" in
    update)
        {
            echo "# Instructions per run of each case (scripts/instructions.sh): case, size, instructions."
            echo "# toolchain: $toolchain"
            if [ -f "$baseline" ]; then
                grep -v '^#' "$baseline" | while read -r name csize _; do
                    [ "$csize" = "$size" ] && [ -n "${measured[$name]:-}" ] && continue
                    grep -E "^$name $csize " "$baseline"
                done
            fi
            for name in ${cases//,/ }; do echo "$name $size ${measured[$name]}"; done
        } > "$work/baseline"
        sort -o "$work/sorted" <(grep -v '^#' "$work/baseline")
        { grep '^#' "$work/baseline"; cat "$work/sorted"; } > "$baseline"
        echo "wrote $baseline"
        ;;
    check)
        [ -f "$baseline" ] || { echo "instructions.sh: no $baseline to check against" >&2; exit 1; }
        if ! grep -qF "# toolchain: $toolchain" "$baseline"; then
            echo "instructions.sh: $baseline was measured with another toolchain; not compared" >&2
            exit 0
        fi
        failed=0
        for name in ${cases//,/ }; do
            expected=$(awk -v name="$name" -v size="$size" '$1 == name && $2 == size { print $3 }' "$baseline")
            [ -n "$expected" ] || { echo "$name $size: no baseline"; continue; }
            # Over 3 % more than the baseline fails; the counts of one binary repeat within about 1 %.
            if [ $(( ${measured[$name]} * 100 )) -gt $(( expected * 103 )) ]; then
                awk -v name="$name" -v a="${measured[$name]}" -v b="$expected" \
                    'BEGIN { printf "%s: %.1fM instructions, %.1f %% over the baseline %.1fM\n", name, a / 1e6, (a / b - 1) * 100, b / 1e6 }'
                failed=1
            fi
        done
        exit "$failed"
        ;;
esac
