#!/usr/bin/env bash
# Builds the DocC documentation of both library modules with the toolchain's own docc (no plugin package), into
# .build/docs/MODULE.doccarchive, and fails on any warning: `swift package dump-symbol-graph` extracts the symbol
# graphs, then `docc convert` renders each catalog with its module's graphs.
#   scripts/docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-sqlite.sh  # Linux: the system's SQLite (libsqlite3-dev), installed when missing

if command -v xcrun >/dev/null 2>&1 && xcrun --find docc >/dev/null 2>&1; then
    docc=$(xcrun --find docc)
else
    docc="$(dirname "$(command -v swift)")/docc"
fi
[ -x "$docc" ] || { echo "docs.sh: no docc next to swift ($docc)" >&2; exit 2; }

graphs=.build/symbol-graphs
rm -rf "$graphs" .build/docs
mkdir -p "$graphs/JSONAPIClient" "$graphs/JSONAPIClientCore" .build/docs
echo "docs.sh: building (the symbol graphs are read from every module, test modules included)"
# `dump-symbol-graph` builds the package but not its tests, then loads every module, the test modules too: on a
# fresh clone they must be built first, or it fails.
swift build --build-tests >"$graphs.log" 2>&1 || { cat "$graphs.log"; exit 1; }
echo "docs.sh: extracting symbol graphs"
# SwiftPM's own command (no plugin). It extracts each module's declarations only: the core's symbols, which
# JSONAPIClient re-exports, are in the core's graph alone, so nothing is documented twice.
swift package dump-symbol-graph --minimum-access-level public >"$graphs.log" 2>&1 || { cat "$graphs.log"; exit 1; }
extracted="$(swift build --show-bin-path)/../symbolgraph"
for module in JSONAPIClient JSONAPIClientCore; do
    cp "$extracted/$module".symbols.json "$graphs/$module/"
    for extension in "$extracted/$module"@*.symbols.json; do
        [ -e "$extension" ] && cp "$extension" "$graphs/$module/"
    done
done

status=0
for module in JSONAPIClientCore JSONAPIClient; do
    log=".build/docs/$module.log"
    echo "docs.sh: docc convert $module"
    "$docc" convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$graphs/$module" \
        --output-path ".build/docs/$module.doccarchive" --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.jsonapiclient.$module" --warnings-as-errors >"$log" 2>&1 || status=1
    if grep -E "warning:|error:" "$log"; then status=1; fi
done
[ "$status" -eq 0 ] && echo "docs.sh: both catalogs built without warnings (.build/docs)" || echo "docs.sh: failed" >&2
exit "$status"
