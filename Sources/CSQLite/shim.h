// The system's SQLite for Linux, where no `SQLite3` module comes with the system (Apple platforms import theirs).
// A system library, not a package: install it with `apt-get install libsqlite3-dev` (scripts/test.sh does, as root).
#include <sqlite3.h>
