#!/usr/bin/env bash
# The demo: starts the local JSON:API test server (Tests/Server), runs the jsonapi-demo program and a few
# `jsonapi` commands against it, and stops the server, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing

swift build --product jsonapi-demo
swift build --product jsonapi
bin=$(swift build --show-bin-path)

url=$(Tests/Server/start.sh)
trap 'Tests/Server/stop.sh' EXIT
echo "JSON:API test server at $url"

"$bin/jsonapi-demo" "$url"

echo
echo "== jsonapi get $url/articles/1 --include author --fields articles=title,author --fields people=name"
"$bin/jsonapi" get "$url/articles/1" --include author --fields articles=title,author --fields people=name

echo
echo "== jsonapi get $url/paged/articles --page-size 100 --all --fields articles=title (first lines)"
all=$(mktemp)
"$bin/jsonapi" get "$url/paged/articles" --page-size 100 --all --fields articles=title --progress >"$all"
head -n 12 "$all"
echo "  … $(grep -c '"type": "articles"' "$all") articles in one document"
rm -f "$all"

echo
echo "== jsonapi get $url/articles/999999 (an error document; exit status 1)"
"$bin/jsonapi" get "$url/articles/999999" || echo "exit status $?"
