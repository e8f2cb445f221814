#!/usr/bin/env bash
# Linux builds link the system's SQLite (Sources/CSQLite): its header, sqlite3.h, comes with libsqlite3-dev, which a
# fresh machine may lack. Installs it when missing — with apt-get, as root, on Debian and Ubuntu — and otherwise says
# what to install and fails. Does nothing elsewhere: Apple platforms have SQLite3 in their SDK. Every script that
# builds runs this first.
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0
if command -v dpkg >/dev/null 2>&1; then
    dpkg -s libsqlite3-dev >/dev/null 2>&1 && exit 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "ensure-sqlite.sh: installing libsqlite3-dev (the system's SQLite, which the package links on Linux)" >&2
        apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y libsqlite3-dev >&2 && exit 0
        echo "ensure-sqlite.sh: apt-get could not install libsqlite3-dev" >&2
        exit 1
    fi
    echo "ensure-sqlite.sh: the build needs libsqlite3-dev (the system's SQLite); run: sudo apt-get install libsqlite3-dev" >&2
    exit 1
fi
# Not Debian: the header is what the build needs.
for include in /usr/include /usr/local/include; do [ -e "$include/sqlite3.h" ] && exit 0; done
echo "ensure-sqlite.sh: the build needs SQLite's development files (sqlite3.h and libsqlite3: libsqlite3-dev, sqlite-devel or sqlite-dev)" >&2
exit 1
