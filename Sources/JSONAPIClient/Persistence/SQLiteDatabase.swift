import Foundation

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite  // Linux: the system's libsqlite3 (Sources/CSQLite)
#endif

/// One connection to a SQLite database file: the only file of the package that calls SQLite's C API.
///
/// Nothing unsafe leaves it: statements are prepared, bound, stepped and reset inside each call, and what a query
/// reads is copied into ``SQLiteValue``s before it returns, so no SQLite pointer outlives the call that got it.
///
/// **Threads.** A connection is opened with `SQLITE_OPEN_NOMUTEX` (SQLite's "multi-thread" mode: no lock of its
/// own per call), so it must never be used by two threads at once. It is not `Sendable`; its owner keeps it on one
/// serial queue of its own (``DatabasePool``: the writer, the reader and the checkpointer each have theirs), which is
/// where every call — and the waits of the busy timeout — happens: never under a lock of the library.
///
/// **Opening.** WAL journal (readers and one writer at once, across processes; a commit appends to the `-wal`
/// file), `synchronous=NORMAL` (a commit is not `fsync`ed: it survives the process being killed at any instant, and
/// a power cut leaves the database whole but may lose the last commits before it), a busy timeout (a writer waits
/// for another process's transaction instead of failing at once), and foreign keys enforced.
///
/// **Writers.** ``immediateTransaction(_:)`` begins with `BEGIN IMMEDIATE`, which takes the database's write lock at
/// once: two processes that read-then-write in a transaction (a claim) are serialised, never interleaved.
///
/// **Open connections are counted** per file, process-wide (``connections(to:)``): a file may be renamed aside or
/// removed only while this process holds none. SQLite's last connection to a file deletes its `-wal` and `-shm` by
/// path when it closes, so one that outlives its file's removal or rename would delete the files of a new database
/// made at the same path meanwhile (``PartitionDatabase``).
final class SQLiteDatabase {
    /// The database file.
    let path: String
    /// The connection; `nil` once closed. Invariant: only this class touches it, and only on its owner's thread.
    private var handle: OpaquePointer?
    /// Prepared statements by their SQL, finalized by ``close()``. Invariant: each is reset (and its bindings
    /// cleared) before the call that used it returns, so none holds a read transaction or a bound value open.
    private var statements: [String: OpaquePointer] = [:]
    /// The faults a test injects into this connection's calls (``SQLiteFaults``), looked up once when it opens;
    /// `nil` — one load of a constant, and nothing else — outside those tests.
    private let faults: SQLiteFaults?
    /// The path as counted in ``openConnections``: standardized, so that two spellings of one file count together.
    private let counted: String

    /// The connections open in this process, by file (standardized path).
    private static let openConnections = LockedValue<[String: Int]>([:])

    /// How many connections this process has open to the database file at `path`.
    static func connections(to path: String) -> Int {
        let key = standardized(path)
        return openConnections.withLock { $0[key] ?? 0 }
    }

    /// `path` standardized, so that two spellings of one file are one key (``connections(to:)``, ``Suspension``).
    static func standardized(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// Opens (or creates) the database at `path` and sets it up.
    ///
    /// - Parameters:
    ///   - path: The file, in a directory that must exist.
    ///   - busyTimeout: How long a statement waits for another connection's lock before failing with SQLITE_BUSY.
    ///   - creating: Whether a missing file is made (else opening it fails with SQLITE_CANTOPEN): a second
    ///     connection to a file another one opened must never make it again after it was removed.
    ///   - protection: The data protection class of the files the connection makes, on Apple's mobile platforms
    ///     (``Platform/openFlags(_:)``).
    /// - Throws: ``SQLiteError`` when the file cannot be opened or is not a database (SQLITE_NOTADB shows on the
    ///   first statement, the journal mode, so it is thrown here).
    init(
        path: String, busyTimeout: Duration = .seconds(5), creating: Bool = true,
        protection: ResourceStore.Persistence.FileProtection = .appDefault
    ) throws(SQLiteError) {
        self.path = path
        counted = Self.standardized(path)
        faults = SQLiteFaults.active(for: path)
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (creating ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
            | Platform.openFlags(protection)
        let injected = faults?.fail(.open)
        let result = injected ?? sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            // Invariant: SQLite may allocate a handle even when opening fails; it is closed here (nil is a no-op).
            let message = injected != nil
                ? SQLiteFaults.message : opened.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot allocate"
            sqlite3_close_v2(opened)
            throw SQLiteError(code: result, message: message, operation: "opening \(path)")
        }
        handle = opened
        Self.openConnections.withLock { $0[counted, default: 0] += 1 }
        sqlite3_extended_result_codes(opened, 1)
        let milliseconds = Self.milliseconds(busyTimeout)
        sqlite3_busy_timeout(opened, milliseconds)
        do {
            try enterWAL(waitingUpTo: Int64(milliseconds))
            try execute("PRAGMA synchronous=NORMAL")
            try execute("PRAGMA foreign_keys=ON")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// `duration` in milliseconds for `sqlite3_busy_timeout`: non-negative, clamped to `Int32`.
    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = max(seconds, 0).multipliedReportingOverflow(by: 1000)
        return overflow ? .max : Int32(clamping: whole + max(attoseconds, 0) / 1_000_000_000_000_000)
    }

    /// Sets the WAL journal. On a new file this takes the file's exclusive lock, and when another connection is
    /// doing the same (an app's queue and store opening at launch, or an app and its extension) SQLite answers
    /// `SQLITE_BUSY` at once instead of calling the busy handler: it is asked again every 2 ms, up to
    /// `milliseconds` in all. A file already in WAL mode answers at once.
    private func enterWAL(waitingUpTo milliseconds: Int64) throws(SQLiteError) {
        var waited: Int64 = 0
        while true {
            do {
                _ = try rows("PRAGMA journal_mode=WAL")
                return
            } catch {
                guard error.primaryCode == SQLiteError.busy, waited < milliseconds else { throw error }
                Thread.sleep(forTimeInterval: 0.002)
                waited += 2
            }
        }
    }

    /// Finalizes the statements and closes the connection; later calls throw SQLITE_MISUSE. Idempotent.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        // `close_v2`: should a statement still be unfinalized, the connection closes once it is, instead of failing.
        guard let handle else { return }
        sqlite3_close_v2(handle)
        self.handle = nil
        Self.openConnections.withLock { open in
            let left = (open[counted] ?? 1) - 1
            open[counted] = left > 0 ? left : nil
        }
    }

    // MARK: Statements

    /// Runs `sql` with `values` bound to its parameters (`?`, in order) to completion, discarding any rows.
    ///
    /// - Throws: ``SQLiteError`` when it cannot be prepared, bound or run.
    func execute(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
        try run(sql, values) { _ in }
    }

    /// Runs `sql` with `values` bound, and appends column `column` of each row — a blob or a text, copied straight
    /// from SQLite's buffer — to `buffer`, with `separator` between two appended: the JSON objects of many rows read
    /// into one document, with no value made per row (what reading 41,000 rows as ``rows(_:_:)`` cost over it: see
    /// `Docs/Performance.md`).
    ///
    /// - Returns: How many rows appended their column (one whose column is `NULL`, empty or of another type appends
    ///   nothing).
    /// - Throws: ``SQLiteError`` when it cannot be prepared, bound or run.
    func appendColumn(
        _ column: Int32, of sql: String, _ values: [SQLiteValue] = [], to buffer: inout Data, separator: UInt8
    ) throws(SQLiteError) -> Int {
        var appended = 0
        try run(sql, values) { statement in
            // Invariant: called after SQLITE_ROW; the column is checked against the row's count, as SQLite requires.
            // The pointer is taken first, then the length (SQLite's order), both valid until the next step or reset
            // of the statement: the bytes are copied into `buffer` before this returns.
            guard column >= 0, column < sqlite3_column_count(statement) else { return }
            let type = sqlite3_column_type(statement, column)
            guard type == SQLITE_BLOB || type == SQLITE_TEXT, let bytes = sqlite3_column_blob(statement, column) else {
                return
            }
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0 else { return }
            if appended > 0 { buffer.append(separator) }
            buffer.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
            appended += 1
        }
        return appended
    }

    /// Runs `sql` with `values` bound, and returns its rows, each column copied out as a value.
    ///
    /// - Throws: ``SQLiteError`` when it cannot be prepared, bound or run.
    func rows(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try run(sql, values) { rows.append(Self.read($0)) }
        return rows
    }

    /// Runs several statements without parameters (a schema), in one call.
    ///
    /// - Throws: ``SQLiteError`` when one fails; the earlier ones took effect unless a transaction wraps them.
    func executeScript(_ sql: String) throws(SQLiteError) {
        let handle = try open("running a script")
        var message: UnsafeMutablePointer<CChar>?
        let result = faults?.fail(.exec, sql: sql) ?? sqlite3_exec(handle, sql, nil, nil, &message)
        // Invariant: the message SQLite allocates is copied, then freed with sqlite3_free (nil is a no-op).
        let text = message.map { String(cString: $0) }
        sqlite3_free(message)
        guard result == SQLITE_OK else {
            throw SQLiteError(code: result, message: text ?? errorMessage(handle), operation: "running a script")
        }
    }

    /// The rowid of the last row this connection inserted.
    var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// Whether a transaction is open on the connection (one whose `COMMIT` and `ROLLBACK` both failed leaves it so).
    var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// How many rows the last `INSERT`, `UPDATE` or `DELETE` of this connection changed.
    var changes: Int64 { handle.map { Int64(sqlite3_changes($0)) } ?? 0 }

    // MARK: Transactions

    /// What a write transaction does while persistence is suspended (``Suspension``).
    enum IfSuspended {
        /// Waits for the resume, on the caller's thread: a writer's own queue.
        case wait
        /// Fails with `SQLITE_INTERRUPT`: a write on a thread that must not wait (opening, on the caller's).
        case fail
    }

    /// Runs `body` in a transaction begun with `BEGIN IMMEDIATE` (the write lock taken at once, waiting up to the
    /// busy timeout for another process's), committed when it returns and rolled back when it throws — only while
    /// persistence is not suspended, and as the system's expiring activity on Apple platforms (``Suspension``). A
    /// transaction the suspension or the system interrupts is rolled back and run again from the start (after the
    /// resume, or a moment later): `body` must do nothing outside the database before it returns.
    ///
    /// - Parameter ifSuspended: Whether to wait while suspended, or fail.
    /// - Throws: ``SQLiteError`` from the body, or when the transaction cannot begin or commit (then rolled back);
    ///   `SQLITE_INTERRUPT` when suspended and not waiting.
    func immediateTransaction<T>(
        ifSuspended: IfSuspended = .wait, _ body: () throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        let handle = try open("beginning a transaction")
        let flag = LockedValue(false)
        let target = Interruptible(handle: handle)
        var refusals = 0
        while true {
            flag.withLock { $0 = false }
            let ticket = try Suspension.shared.enter(counted, waiting: ifSuspended == .wait) {
                flag.withLock { $0 = true }
                target.interrupt()
            }
            interruption = flag
            var outcome: Result<T, SQLiteError>?
            do throws(SQLiteError) {
                let value = try Suspension.asExpiringActivity(expired: { Suspension.shared.expire(ticket) }) {
                    () throws(SQLiteError) -> T in try transaction(body)
                }
                outcome = value.map { .success($0) }
            } catch {
                outcome = .failure(error)
            }
            interruption = nil
            let interrupted = Suspension.shared.leave(ticket)
            switch outcome {
            case .success(let value)?:
                return value  // committed (an interruption that came after the commit changes nothing)
            case .failure(let error)? where !interrupted:
                throw error
            case .failure?, nil:
                // Rolled back (or never begun: the system gave no time). While suspended the next turn waits for
                // the resume; after the system's refusal it waits a moment, the process perhaps suspended meanwhile
                // — a minute of refusals in a row at most, then the error is the caller's.
                guard ifSuspended == .wait else { throw Suspension.suspendedError }
                if !Suspension.shared.holds(counted) {
                    refusals += 1
                    if refusals >= Self.maxRefusals {
                        if case .failure(let error)? = outcome { throw error }
                        throw Suspension.suspendedError
                    }
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
        }
    }

    /// How many times in a row a write transaction is tried again after the system interrupted or refused it (0.1 s
    /// apart) before it fails: a bound, so that nothing loops for good on an interruption that is not one.
    static let maxRefusals = 600

    /// Whether the write transaction running was interrupted (``Suspension``): checked before each statement, since
    /// `sqlite3_interrupt` reaches only a statement that is running. `nil` outside a write transaction. On the
    /// owner's thread only, as every other member; the flag inside is set from any thread, under its lock.
    private var interruption: LockedValue<Bool>?

    /// A connection's handle, for `sqlite3_interrupt` from another thread (``Suspension``).
    private struct Interruptible: @unchecked Sendable {
        // @unchecked Sendable: used only while the connection is inside `immediateTransaction` on its owner's
        // thread, registered with ``Suspension`` under its lock: the connection cannot close meanwhile, and
        // `sqlite3_interrupt` is safe from any thread on an open connection.
        let handle: OpaquePointer
        func interrupt() { sqlite3_interrupt(handle) }
    }

    /// One `BEGIN IMMEDIATE` … `COMMIT` of `body`, rolled back when it throws.
    private func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        // A transaction an earlier failure left open (its COMMIT and its ROLLBACK both failed: a disk that failed
        // for a while) is rolled back first: else this BEGIN would fail for good, and the write lock it holds
        // would keep every other connection, in any process, from writing.
        if let handle, sqlite3_get_autocommit(handle) == 0 { try execute("ROLLBACK") }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT may leave the transaction open: rolled back, so the connection is usable again.
            // Its own failure (no transaction left) changes nothing. (Not interrupted: the flag is checked only for
            // statements other than ROLLBACK.)
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The schema version the file records (`PRAGMA user_version`; 0 in a new file).
    ///
    /// - Throws: ``SQLiteError`` when it cannot be read (a damaged file).
    func userVersion() throws(SQLiteError) -> Int64 {
        guard case .integer(let version)? = try rows("PRAGMA user_version").first?.first else { return 0 }
        return version
    }

    /// Records the schema version (inside the transaction that makes the schema, so both commit together).
    ///
    /// - Throws: ``SQLiteError`` when it cannot be written.
    func setUserVersion(_ version: Int32) throws(SQLiteError) {
        // A pragma takes no parameter: the number is written into the SQL, from an integer, so nothing else can be.
        try execute("PRAGMA user_version = \(version)")
    }

    /// The application id the file records (`PRAGMA application_id`; 0 in a new file).
    ///
    /// - Throws: ``SQLiteError`` when it cannot be read.
    func applicationID() throws(SQLiteError) -> Int64 {
        guard case .integer(let id)? = try rows("PRAGMA application_id").first?.first else { return 0 }
        return id
    }

    /// Records the application id that marks the file as this library's.
    ///
    /// - Throws: ``SQLiteError`` when it cannot be written.
    func setApplicationID(_ id: Int32) throws(SQLiteError) {
        try execute("PRAGMA application_id = \(id)")
    }

    // MARK: The C API

    /// The open connection, or SQLITE_MISUSE once closed.
    private func open(_ operation: String) throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: SQLiteError.misuse, message: "the database is closed", operation: operation)
        }
        return handle
    }

    private func errorMessage(_ handle: OpaquePointer) -> String {
        // Invariant: sqlite3_errmsg's text belongs to SQLite and changes with the next call: copied at once.
        sqlite3_errmsg(handle).map { String(cString: $0) } ?? "unknown error"
    }

    /// Prepares (once, then from the cache) `sql`, binds `values`, steps it to the end handing each row — the
    /// statement, on a row — to `row`, and resets it, whatever happens.
    private func run(
        _ sql: String, _ values: [SQLiteValue], _ row: (OpaquePointer) -> Void
    ) throws(SQLiteError) {
        let handle = try open("preparing \(sql)")
        if let interruption, sql != "ROLLBACK", interruption.withLock({ $0 }) {
            throw SQLiteError(code: SQLiteError.interrupt, message: "interrupted: persistence suspended", operation: sql)
        }
        let statement: OpaquePointer
        if let cached = statements[sql] {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            let injected = faults?.fail(.prepare, sql: sql)
            let result = injected ?? sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
            guard result == SQLITE_OK, let prepared else {
                // Invariant: on failure SQLite leaves `prepared` nil; an empty SQL text is OK with nil too.
                sqlite3_finalize(prepared)
                throw SQLiteError(
                    code: result == SQLITE_OK ? SQLiteError.misuse : result,
                    message: result == SQLITE_OK
                        ? "no statement in the SQL" : injected == nil ? errorMessage(handle) : SQLiteFaults.message,
                    operation: "preparing \(sql)")
            }
            statements[sql] = prepared
            statement = prepared
        }
        // Invariant: a statement leaves this function reset, with no value bound, even when a step fails.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let parameters = sqlite3_bind_parameter_count(statement)
        guard Int(parameters) == values.count else {
            throw SQLiteError(
                code: SQLiteError.range, message: "\(values.count) values for \(parameters) parameters",
                operation: "binding \(sql)")
        }
        for (offset, value) in values.enumerated() {
            // `offset` < `parameters`, an Int32: the conversion cannot fail.
            let index = Int32(truncatingIfNeeded: offset + 1)
            let result = Self.bind(value, to: statement, at: index)
            guard result == SQLITE_OK else {
                throw SQLiteError(code: result, message: errorMessage(handle), operation: "binding \(sql)")
            }
        }
        while true {
            if let injected = faults?.fail(.step, sql: sql) {
                throw SQLiteError(code: injected, message: SQLiteFaults.message, operation: sql)
            }
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return }
            guard result == SQLITE_ROW else {
                throw SQLiteError(code: sqlite3_extended_errcode(handle), message: errorMessage(handle), operation: sql)
            }
            row(statement)
        }
    }

    /// `SQLITE_TRANSIENT`, a C macro Swift does not import: the destructor value `-1`, which tells SQLite to copy a
    /// bound text or blob before the bind call returns. Invariant: SQLite compares the pointer with -1 and never
    /// calls it; `Int` and a C function pointer have the same size on every platform Swift runs on (32-bit watches
    /// included), which `unsafeBitCast` requires.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    fileprivate static func bind(_ value: SQLiteValue, to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch value {
        case .null:
            return sqlite3_bind_null(statement, index)
        case .integer(let integer):
            return sqlite3_bind_int64(statement, index, integer)
        case .real(let real):
            return sqlite3_bind_double(statement, index, real)
        case .text(let text):
            var text = text
            return text.withUTF8 { bytes in
                // Invariant: a nil base address (an empty string) would bind NULL, so "" is bound from a literal;
                // otherwise the pointer is valid for the call, and SQLite copies the bytes (transient). The length
                // is given, so a NUL inside the text is kept; `_64` takes it as UInt64: no 32-bit conversion.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text64(statement, index, "", 0, Self.transient, UInt8(SQLITE_UTF8))
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(statement, index, $0, UInt64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                // Invariant: as for text; an empty blob is bound as a zero-length blob, not NULL.
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
                return sqlite3_bind_blob64(statement, index, base, UInt64(bytes.count), Self.transient)
            }
        }
    }

    /// The current row's columns, copied.
    fileprivate static func read(_ statement: OpaquePointer) -> [SQLiteValue] {
        // Invariant: called only after SQLITE_ROW, with 0 ≤ column < sqlite3_column_count, as SQLite requires.
        (0..<sqlite3_column_count(statement)).map { column in
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                return .integer(sqlite3_column_int64(statement, column))
            case SQLITE_FLOAT:
                return .real(sqlite3_column_double(statement, column))
            case SQLITE_TEXT:
                // Invariant: the text pointer first, then its length (SQLite's order), both valid until the next
                // step or reset of this statement: copied into a String here. Not NUL-terminated-read: the length
                // is used, so a NUL inside is kept. Count is ≥ 0; nil only when empty or out of memory.
                let text = sqlite3_column_text(statement, column)
                let count = Int(sqlite3_column_bytes(statement, column))
                guard let text, count > 0 else { return .text("") }
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            case SQLITE_BLOB:
                // Invariant: as for text; a zero-length blob has a nil pointer.
                let bytes = sqlite3_column_blob(statement, column)
                let count = Int(sqlite3_column_bytes(statement, column))
                guard let bytes, count > 0 else { return .blob(Data()) }
                return .blob(Data(bytes: bytes, count: count))
            default:
                return .null
            }
        }
    }
}

/// A value bound to a statement or read from a row. Integers are `Int64`, SQLite's own width, so nothing read
/// from a file is narrowed where it could trap.
enum SQLiteValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    /// The integer, or `nil` for any other kind of value.
    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The text, or `nil` for any other kind of value.
    var text: String? { if case .text(let value) = self { value } else { nil } }
    /// The blob, or `nil` for any other kind of value.
    var blob: Data? { if case .blob(let value) = self { value } else { nil } }
}

/// The engine's own floor, for the benchmark (`jsonapi-bench`'s `sqlite-floor-insert` and `sqlite-floor-select`):
/// the store's rows written and read through SQLite's C API alone — one prepared statement per table, one
/// transaction, the same schema and settings as a store's database (WAL, `synchronous=NORMAL`), no encoding, no
/// statement cache, no values past the bytes. Here, beside the rest of the C API, so that no other file calls it.
package enum SQLiteFloor {
    /// The store's tables, in the order a copy writes them.
    static let tables = ["records", "responses", "response_bodies"]

    /// The rows of every store table of the database at `path`, read as ``select(_:)`` reads them.
    package struct Rows: Sendable {
        fileprivate var tables: [(name: String, rows: [[SQLiteValue]])]
        /// How many rows in all.
        package var count: Int { tables.reduce(0) { $0 + $1.rows.count } }
    }

    /// Opens the database at `path` as a store opens it and reads every row of the store's tables, each column
    /// copied (what a store's open and a read of every record read: its floor).
    ///
    /// - Returns: The rows.
    /// - Throws: ``FloorError`` when SQLite fails.
    package static func select(_ path: String) throws(FloorError) -> Rows {
        let handle = try connection(path)
        defer { sqlite3_close_v2(handle) }
        var rows = Rows(tables: [])
        for table in tables {
            let statement = try prepare(handle, "SELECT * FROM \(table)")
            defer { sqlite3_finalize(statement) }
            var read: [[SQLiteValue]] = []
            while true {
                let result = sqlite3_step(statement)
                if result == SQLITE_DONE { break }
                guard result == SQLITE_ROW else { throw FloorError(code: result, operation: "reading \(table)") }
                read.append(SQLiteDatabase.read(statement))
            }
            rows.tables.append((table, read))
        }
        return rows
    }

    /// Makes a new store database at `path` (its schema) and writes `rows` into it in one transaction, one
    /// prepared `INSERT` per table.
    ///
    /// - Returns: The seconds the transaction took, `BEGIN` to `COMMIT` (the schema's making apart).
    /// - Throws: ``FloorError`` when SQLite fails.
    package static func insert(_ rows: Rows, into path: String) throws(FloorError) -> Double {
        let handle = try connection(path)
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_exec(handle, PartitionDatabase.schema + PartitionDatabase.storeTables, nil, nil, nil) == SQLITE_OK
        else { throw FloorError(code: sqlite3_errcode(handle), operation: "making the schema") }
        let start = ContinuousClock.now
        guard sqlite3_exec(handle, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else {
            throw FloorError(code: sqlite3_errcode(handle), operation: "BEGIN")
        }
        for (table, tableRows) in rows.tables {
            guard let width = tableRows.first?.count else { continue }
            let marks = Array(repeating: "?", count: width).joined(separator: ", ")
            let statement = try prepare(handle, "INSERT INTO \(table) VALUES (\(marks))")
            defer { sqlite3_finalize(statement) }
            for row in tableRows {
                for (index, value) in row.enumerated() {
                    _ = SQLiteDatabase.bind(value, to: statement, at: Int32(index + 1))
                }
                let result = sqlite3_step(statement)
                guard result == SQLITE_DONE else { throw FloorError(code: result, operation: "writing \(table)") }
                sqlite3_reset(statement)
            }
        }
        guard sqlite3_exec(handle, "COMMIT", nil, nil, nil) == SQLITE_OK else {
            throw FloorError(code: sqlite3_errcode(handle), operation: "COMMIT")
        }
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// A floor step that failed: SQLite's result code and what it was doing.
    package struct FloorError: Error, CustomStringConvertible {
        package let code: Int32
        package let operation: String
        package var description: String { "SQLite \(code) \(operation)" }
    }

    /// A raw connection opened as a store's (WAL, `synchronous=NORMAL`); values are bound and copied by the same
    /// functions as a store connection's (``SQLiteDatabase``'s `bind` and `read`).
    private static func connection(_ path: String) throws(FloorError) -> OpaquePointer {
        var opened: OpaquePointer?
        let result = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard result == SQLITE_OK, let opened else {
            sqlite3_close_v2(opened)  // Invariant: nil is a no-op; a handle SQLite allocated on failure is freed.
            throw FloorError(code: result, operation: "opening \(path)")
        }
        guard sqlite3_exec(opened, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", nil, nil, nil) == SQLITE_OK else {
            let code = sqlite3_errcode(opened)
            sqlite3_close_v2(opened)
            throw FloorError(code: code, operation: "setting WAL")
        }
        return opened
    }

    /// `sql`, prepared on `handle`.
    private static func prepare(_ handle: OpaquePointer, _ sql: String) throws(FloorError) -> OpaquePointer {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard result == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw FloorError(code: result, operation: "preparing \(sql)")
        }
        return statement
    }
}
