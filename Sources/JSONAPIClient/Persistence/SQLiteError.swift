/// A failed SQLite call: its result code, SQLite's message, and what the library was doing.
///
/// The code is SQLite's extended result code (`SQLITE_BUSY` is 5, `SQLITE_NOTADB` 26, …); ``primaryCode`` is its
/// low byte, the primary code that says the kind of failure. The message is SQLite's own (`sqlite3_errmsg`): it
/// names tables and constraints, never the values bound to a statement, so it may be logged.
struct SQLiteError: Error, Equatable, CustomStringConvertible {
    /// SQLite's extended result code.
    var code: Int32
    /// SQLite's message for it.
    var message: String
    /// What was being done: `opening /path/default.sqlite`, `preparing SELECT …`, `committing`.
    var operation: String

    /// The primary result code (the low byte of ``code``).
    var primaryCode: Int32 { code & 0xff }

    /// SQLITE_BUSY: another connection holds the lock longer than the busy timeout.
    static let busy: Int32 = 5
    /// SQLITE_INTERRUPT: the statement was interrupted (``Suspension``).
    static let interrupt: Int32 = 9
    /// SQLITE_CORRUPT: the file is damaged.
    static let corrupt: Int32 = 11
    /// SQLITE_NOTADB: the file is not a database.
    static let notADatabase: Int32 = 26
    /// SQLITE_TOOBIG: a string or blob longer than SQLite takes.
    static let tooBig: Int32 = 18
    /// SQLITE_RANGE: a parameter or column index out of range.
    static let range: Int32 = 25
    /// SQLITE_MISUSE: the library used SQLite wrongly (a statement of a closed database).
    static let misuse: Int32 = 21

    /// Whether the file itself is not a readable database (damaged, or not SQLite at all): what makes the library
    /// set it aside. Other failures (busy, no permission, a full disk, a file the device cannot read yet) leave the
    /// file alone.
    var isDamage: Bool { primaryCode == Self.corrupt || primaryCode == Self.notADatabase }

    /// `operation: message (code N)`.
    var description: String { "\(operation): \(message) (SQLite code \(code))" }
}
