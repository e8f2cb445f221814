import Foundation

/// When this process may hold SQLite's write locks: never while it is suspended.
///
/// iOS terminates an app that is suspended while it holds a lock on a file in an app group's shared container (the
/// `0xdead10cc` exception): a write transaction's lock on the database, say. So every write transaction of the
/// library (``SQLiteDatabase/immediateTransaction(ifSuspended:_:)``) passes through this gate:
///
/// - **Suspended** (``ResourceStore/Persistence/suspend()``, called when the app is about to be suspended): a write
///   transaction that is running is interrupted (`sqlite3_interrupt`) and rolled back, and it and every new one wait
///   on their own queue — the store's writer's, the write queue's — until ``ResourceStore/Persistence/resume()``,
///   then run from the start. A write that must not wait (the schema and key a new file is given at open, on the
///   caller's thread) fails instead, as a database that cannot be opened does.
/// - **On Apple platforms**, each write transaction runs inside `ProcessInfo.performExpiringActivity` (which works
///   in extensions too): the system keeps the process running until the transaction ends, and when it will not
///   wait longer the transaction is interrupted, rolled back and tried again after a moment (the process may be
///   suspended meanwhile, holding no lock).
///
/// The state is a value under one lock (an `NSCondition`, whose wait is the queue's), and interrupting happens under
/// it: a connection registered here is inside ``SQLiteDatabase/immediateTransaction(ifSuspended:_:)`` on its
/// owner's thread, so it cannot be closed before it leaves.
final class Suspension: @unchecked Sendable {
    // @unchecked Sendable: `state` is read and changed only while `condition` is locked.
    /// The process's gate.
    static let shared = Suspension()

    private let condition = NSCondition()
    private var state = State()

    /// The gate as a value.
    struct State {
        /// Whether the app said it is about to be suspended.
        var suspended = false
        /// Folders suspended alone (tests, which share one process: ``suspend(under:)``).
        var folders: Set<String> = []
        /// How many transactions wait for a resume.
        var waiting = 0

        /// Whether writes to the file at `path` are held.
        func holds(_ path: String) -> Bool { suspended || folders.contains { path.hasPrefix($0) } }
        /// The write transactions running, by ticket, with what interrupts each.
        var running: [UInt64: (path: String, interrupt: Interrupt)] = [:]
        /// The tickets the gate or the system interrupted: their transaction is retried, not failed.
        var interrupted: Set<UInt64> = []
        /// The last ticket given.
        var tickets: UInt64 = 0
    }

    /// What interrupts one connection's running statement (`sqlite3_interrupt`, safe from any thread while the
    /// connection is open).
    typealias Interrupt = @Sendable () -> Void

    /// Suspends: interrupts every write transaction running; new ones wait (or fail) until ``resume()``.
    func suspend() {
        locked {
            state.suspended = true
            interruptHeld()
        }
    }

    /// Resumes: the waiting transactions run.
    func resume() {
        locked {
            state.suspended = false
            condition.broadcast()
        }
    }

    /// Suspends the writes to the files under `folder` alone (as ``suspend()`` does all): for tests, which share
    /// one process.
    func suspend(under folder: URL) {
        locked {
            state.folders.insert(folder.standardizedFileURL.path + "/")
            interruptHeld()
        }
    }

    /// Resumes the writes under `folder` (``suspend(under:)``).
    func resume(under folder: URL) {
        locked {
            state.folders.remove(folder.standardizedFileURL.path + "/")
            condition.broadcast()
        }
    }

    /// Interrupts the running transactions whose file is held now. With `condition` locked.
    private func interruptHeld() {
        for (ticket, running) in state.running where state.holds(running.path) {
            state.interrupted.insert(ticket)
            running.interrupt()
        }
    }

    /// Whether the gate holds every write now (``suspend()``).
    var isSuspended: Bool { locked { state.suspended } }

    /// Whether the gate holds the writes to the file at `path` now.
    func holds(_ path: String) -> Bool { locked { state.holds(path) } }

    /// How many transactions wait for a resume now.
    var waiting: Int { locked { state.waiting } }

    /// Waits while the writes to the file at `path` are held (or throws, when `wait` is false), then notes a write
    /// transaction to it as running.
    ///
    /// - Returns: The transaction's ticket, for ``leave(_:)``.
    /// - Throws: ``SQLiteError`` (`SQLITE_INTERRUPT`) when suspended and not waiting.
    func enter(_ path: String, waiting wait: Bool, interrupt: @escaping Interrupt) throws(SQLiteError) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        while state.holds(path) {
            guard wait else { throw Self.suspendedError }
            state.waiting += 1
            condition.wait()
            state.waiting -= 1
        }
        state.tickets &+= 1
        state.running[state.tickets] = (path, interrupt)
        return state.tickets
    }

    /// Notes the transaction `ticket` as ended.
    ///
    /// - Returns: Whether it was interrupted by the gate or the system (then it is tried again).
    @discardableResult
    func leave(_ ticket: UInt64) -> Bool {
        locked {
            state.running[ticket] = nil
            return state.interrupted.remove(ticket) != nil
        }
    }

    /// Interrupts the transaction `ticket`, if it still runs: the system will not keep the process running longer.
    func expire(_ ticket: UInt64) {
        locked {
            guard let running = state.running[ticket] else { return }
            state.interrupted.insert(ticket)
            running.interrupt()
        }
    }

    /// `body`, with `condition` locked (lock and unlock, not `NSLocking.withLock`, which the iOS 16 SDK may lack).
    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// The error of a write that may not wait while suspended.
    static let suspendedError = SQLiteError(
        code: SQLiteError.interrupt, message: "persistence is suspended (ResourceStore.Persistence.suspend())",
        operation: "beginning a write")

    /// Runs `body` as the system's expiring activity on Apple platforms: the process is not suspended before it
    /// returns unless the system will wait no longer, when `expired` is called (on another thread) and `body` is
    /// expected to end soon. Elsewhere, `body` alone.
    ///
    /// - Returns: `body`'s value, or `nil` when the system gave no time at all (then `body` did not run).
    static func asExpiringActivity<T>(
        expired: @escaping @Sendable () -> Void, _ body: () throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T? {
        #if canImport(Darwin)
        let began = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let granted = LockedValue<Bool?>(nil)
        ProcessInfo.processInfo.performExpiringActivity(withReason: "JSONAPIClient saving") { isExpired in
            if isExpired {
                let first = granted.withLock { value -> Bool in
                    defer { if value == nil { value = false } }
                    return value == nil
                }
                if first { began.signal() } else { expired() }
            } else {
                granted.withLock { $0 = true }
                began.signal()
                ended.wait()  // the process stays running until the transaction ends
            }
        }
        began.wait()
        defer { ended.signal() }
        guard granted.withLock({ $0 }) == true else { return nil }
        return try body()
        #else
        return try body()
        #endif
    }
}
