import Foundation

/// A test's seam in ``SQLiteDatabase``: makes the n-th SQLite call of the connections opened under a directory
/// fail, as SQLite's own test suite fails its n-th I/O operation (`malloc_common.tcl`'s fault simulation) —
/// `SQLITE_IOERR`, `SQLITE_BUSY`, `SQLITE_FULL` or `SQLITE_CANTOPEN`, once (transient) or from then on
/// (persistent) — or answer `SQLITE_CORRUPT`, as a damaged page does whenever it is met.
///
/// Internal, and set only from `@testable` tests (``inject(_:under:)``). A connection looks its faults up once, when
/// it opens (under this type's lock): outside such a test it finds none, and each of its calls then costs one load
/// of a constant `nil`, no lock and no shared variable. The faults are scoped to a directory, so tests that run at
/// once in other directories are not touched; a connection opened before they were injected never fails (a test
/// injects them paused, opens, then arms them: ``fail(after:)``).
final class SQLiteFaults: @unchecked Sendable {
    // @unchecked Sendable: every `var` is touched only under `lock`.

    /// The SQLite calls counted: each one that can fail with an I/O error.
    enum Call: Sendable, CaseIterable {
        /// `sqlite3_open_v2`.
        case open
        /// `sqlite3_prepare_v2` (a statement's first use on a connection: later uses take it from the cache).
        case prepare
        /// `sqlite3_step`.
        case step
        /// `sqlite3_exec` (a script).
        case exec
    }

    /// What fails, and when.
    struct Plan: Sendable {
        /// The result code the failing call returns: ``SQLiteFaults/ioError``, ``SQLiteFaults/busy``,
        /// ``SQLiteFaults/full``, ``SQLiteFaults/cannotOpen`` or ``SQLiteFaults/corrupt``.
        var code: Int32
        /// The call that fails first: 1 for the first call counted.
        var at: Int
        /// Whether every call from then on fails too; else the n-th alone.
        var persistent: Bool
        /// The calls counted (all by default).
        var calls: Set<Call> = Set(Call.allCases)
        /// Only the calls of statements whose SQL contains this are counted (an open has none); all when `nil`.
        var statement: String? = nil
    }

    /// SQLITE_IOERR.
    static let ioError: Int32 = 10
    /// SQLITE_BUSY.
    static let busy: Int32 = 5
    /// SQLITE_FULL.
    static let full: Int32 = 13
    /// SQLITE_CANTOPEN.
    static let cannotOpen: Int32 = 14
    /// SQLITE_CORRUPT: what a damaged page answers (the file is set aside).
    static let corrupt: Int32 = 11
    /// The message of an injected failure.
    static let message = "fault injected by a test"

    private let lock = NSLock()
    private var plan: Plan
    private let prefix: String
    private var counted = 0
    private var failed = 0

    private init(plan: Plan, prefix: String) {
        self.plan = plan
        self.prefix = prefix
    }

    /// The faults in force, by directory. Empty outside the tests that inject them.
    private static let registry = LockedValue<[SQLiteFaults]>([])

    /// Makes the calls of the connections opened from now on under `directory` fail as `plan` says, until
    /// ``remove()``.
    ///
    /// - Returns: The faults, which count the calls and the failures.
    static func inject(_ plan: Plan, under directory: URL) -> SQLiteFaults {
        let faults = SQLiteFaults(plan: plan, prefix: directory.standardizedFileURL.path + "/")
        registry.withLock { $0.append(faults) }
        return faults
    }

    /// Stops the faults: connections opened later find none, and those open fail no more.
    func remove() {
        Self.registry.withLock { $0.removeAll { $0 === self } }
        pause()
    }

    /// Makes the calls fail again (after ``pause()``), from the call `after` calls from now: a test that opens a
    /// store first (its connections find the faults when they open) and then makes its reads fail.
    func fail(after calls: Int = 0) {
        lock.withLock {
            stopped = false
            plan.at = counted + calls + 1
        }
    }

    /// Stops failing calls (they are still counted), until ``fail(after:)``.
    func pause() {
        lock.withLock { stopped = true }
    }
    private var stopped = false

    /// The faults for a connection to `path`, if a test injected any under its directory.
    static func active(for path: String) -> SQLiteFaults? {
        registry.withLock { faults in
            guard !faults.isEmpty else { return nil }
            let standard = URL(fileURLWithPath: path).standardizedFileURL.path
            return faults.last { standard.hasPrefix($0.prefix) }
        }
    }

    /// The calls counted so far.
    var calls: Int { lock.withLock { counted } }
    /// The calls that failed so far.
    var failures: Int { lock.withLock { failed } }

    /// Counts `call` (of the statement `sql`); returns the code it fails with, or `nil` to make it for real.
    func fail(_ call: Call, sql: String? = nil) -> Int32? {
        lock.withLock { () -> Int32? in
            guard plan.calls.contains(call) else { return nil }
            if let wanted = plan.statement, sql?.contains(wanted) != true { return nil }
            counted += 1
            guard !stopped, counted == plan.at || (plan.persistent && counted > plan.at) else { return nil }
            failed += 1
            return plan.code
        }
    }
}
