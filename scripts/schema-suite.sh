#!/usr/bin/env bash
# Runs `jsonapi inspect --strict` over the test documents of the official JSON:API schema
# (_schemas/1.0/tests in a checkout of github.com/json-api/json-api) and counts the documents judged right:
# one under valid/ must exit 0, one under invalid/ must exit 1. Request documents are checked with the
# --request kind of their folder (relationship, create, update).
#   scripts/schema-suite.sh PATH-TO-json-api-CHECKOUT
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh || exit 2  # Linux: the system's SQLite (libsqlite3-dev), installed when missing
suite=${1:?usage: scripts/schema-suite.sh PATH-TO-json-api-CHECKOUT}/_schemas/1.0/tests
[ -d "$suite" ] || { echo "no $suite" >&2; exit 2; }
swift build --product jsonapi >/dev/null || exit 2
jsonapi="$(swift build --show-bin-path)/jsonapi"

count() { # FOLDER: prints the documents judged wrong, then "RIGHT of TOTAL"
    local right=0 total=0 file kind want status
    while IFS= read -r file; do
        total=$((total + 1))
        case "$file" in
            */request/relationship/*) kind=(--request=relationship) ;;
            */request/resource/create/*) kind=(--request=create) ;;
            */request/resource/update/*) kind=(--request=update) ;;
            *) kind=() ;;
        esac
        case "$file" in */invalid/*) want=1 ;; *) want=0 ;; esac
        "$jsonapi" inspect --strict "${kind[@]}" "$file" >/dev/null 2>&1
        status=$?
        if [ "$status" = "$want" ]; then right=$((right + 1)); else echo "  wrong (exit $status): ${file#"$suite"/}"; fi
    done < <(find "$1" -name '*.json' | sort)
    echo "$right of $total"
}

echo "responses:"
count "$suite/response"
echo "requests:"
count "$suite/request"
