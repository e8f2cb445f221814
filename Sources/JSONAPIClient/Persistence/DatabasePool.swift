import Dispatch
import Foundation

/// A partition's database file as one object in this process (shaped like GRDB's `DatabasePool`): one writer
/// connection on a serial queue of its own, shared by the store (``StoreWriter``) and the write queue
/// (``WriteQueueDatabase``); a reader connection beside it, on a queue of its own (WAL lets it read while the writer
/// writes); and a checkpointer. A connection is reached only inside a closure on its queue (checked with
/// `dispatchPrecondition` in debug builds), never under a lock of the library.
///
/// **One writer.** The store's saves and the queue's appends and claims of one file in this process run one after
/// the other on ``queue``: they never wait for each other through `BEGIN IMMEDIATE` and a busy timeout. (Another
/// process still does, as before.) Every store and queue of a partition in the process finds the same pool
/// (``pool(in:partition:protection:log:)``), as long as one of them holds it.
///
/// **Set aside whole.** Damage met at any time (``setAside(_:subject:outcome:)``) closes every connection of the pool, so that the
/// file can be renamed aside (``PartitionDatabase/setAside(_:reason:log:subject:outcome:)``), opens a new one in its
/// place, and tells each user on the writer's queue (``DatabasePoolUser/poolReplacedFile(_:)``): the write queue
/// writes its entries into the new file, the store its key.
///
/// **Another process's commits.** The writer's `PRAGMA data_version` changes only when another connection commits
/// to the file — the pool's writer is the process's only one, so another process (an app extension). While a user
/// asks for it (``watch()``), the pool looks every ``watchInterval`` (a pragma: no page read) and tells each user
/// (``DatabasePoolUser/poolFileChangedElsewhere(_:)``) on the writer's queue: the write queue picks up the entries
/// another process queued, so a long-lived app sends what its extension queued without a relaunch, and the store's
/// held records take that process's saves.
///
/// **Checkpoints in the background.** A commit appends pages to the WAL; a checkpoint copies them into the database
/// file (and `fsync`s both) so that the WAL can start over. SQLite would run one inside the commit that crosses 1,000
/// WAL pages, making that write wait for it; instead, every ``checkpointInterval`` commits the checkpointer, on a
/// queue of its own, runs a passive checkpoint (it never blocks the writer), so writes keep one cost and the copying
/// comes in small steps. SQLite's own stays as the fallback should the background one fall behind.
final class DatabasePool: @unchecked Sendable {
    // @unchecked Sendable: `writer`, `commitsSinceCheckpoint`, `observers`, `dataVersion` and `watcher` are touched
    // on `queue` only; `reader` on `readerQueue` only; `checkpointer` and `checkpointerClosed` on `checkpointQueue`
    // only. Each is checked with `dispatchPrecondition` where it is used.

    /// The database file.
    let path: String
    /// The app's directory, the partition and the protection class, to open the file again after a set-aside.
    let directory: URL
    let partition: String
    let protection: ResourceStore.Persistence.FileProtection
    private let log: @Sendable (String) -> Void

    /// The writer's queue: every write of the file in this process runs here.
    let queue = DispatchQueue(label: "JSONAPIClient.DatabasePool.writer", qos: .utility)
    /// The writer connection, opened on first use (and again after a failure to open). On `queue` only.
    private var writer: SQLiteDatabase?
    /// How many users hold the pool, and whether the last one closed it (``detachOnQueue()``): nothing opens the
    /// file again then.
    private let attachment = LockedValue((users: 1, closed: false))
    /// Commits since the last background checkpoint was started. On `queue` only.
    private var commitsSinceCheckpoint = 0
    /// Told when the file was set aside and a new one opened, or another process committed. On `queue` only.
    private var observers: [WeakUser] = []
    /// The writer's `data_version` when last looked at (``poll()``), and the timer that looks. On `queue` only.
    private var dataVersion: Int64?
    private var watcher: DispatchSourceTimer?

    #if DEBUG
    /// How many looks found another process's commit and told the users (for tests). On `queue` only.
    private var tellings = 0
    /// ``tellings``, read on the writer's queue.
    var looksThatTold: Int { queue.sync { tellings } }
    #endif

    /// How often the pool looks for another process's commits while watched (``watch()``).
    static let watchInterval: DispatchTimeInterval = .seconds(1)

    /// The reader's queue and connection (opened on first use, never making the file).
    private let readerQueue = DispatchQueue(label: "JSONAPIClient.DatabasePool.reader", qos: .userInitiated)
    private var reader: SQLiteDatabase?

    /// The checkpointer's queue and connection.
    private let checkpointQueue = DispatchQueue(label: "JSONAPIClient.DatabasePool.checkpoint", qos: .utility)
    private var checkpointer: SQLiteDatabase?
    private var checkpointerClosed = false

    /// How many commits go between background checkpoints: about 30 database pages copied each time.
    static let checkpointInterval = 100

    private struct WeakUser {
        weak var user: (any DatabasePoolUser)?
    }

    private init(
        directory: URL, partition: String, protection: ResourceStore.Persistence.FileProtection,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.directory = directory
        self.partition = partition
        self.protection = protection
        self.log = log
        path = PartitionDatabase.file(in: directory, partition: partition).path
    }

    deinit {
        watcher?.cancel()
        writer?.close()
        reader?.close()
        checkpointer?.close()
    }

    // MARK: Finding the pool

    /// The pools of this process by file (standardized path), held weakly: a pool lives while a user holds it.
    private static let pools = LockedValue<[String: WeakPool]>([:])
    private struct WeakPool {
        weak var pool: DatabasePool?
    }

    /// The pool of `partition`'s file in `directory`: the one a store or queue of this process holds, else a new
    /// one (no connection opened yet). A pool every user closed is never handed out again.
    static func pool(
        in directory: URL, partition: String, protection: ResourceStore.Persistence.FileProtection,
        log: @escaping @Sendable (String) -> Void
    ) -> DatabasePool {
        let key = SQLiteDatabase.standardized(PartitionDatabase.file(in: directory, partition: partition).path)
        return pools.withLock { pools in
            if let pool = pools[key]?.pool, pool.attachIfOpen() { return pool }
            let pool = DatabasePool(directory: directory, partition: partition, protection: protection, log: log)
            pools = pools.filter { $0.value.pool != nil }
            pools[key] = WeakPool(pool: pool)
            return pool
        }
    }

    /// Attaches one more user, unless every user closed the pool.
    private func attachIfOpen() -> Bool {
        attachment.withLock { attachment in
            guard !attachment.closed else { return false }
            attachment.users += 1
            return true
        }
    }

    /// Whether every user closed the pool.
    private var isClosed: Bool { attachment.withLock { $0.closed } }

    /// Detaches a user, on the writer's queue (once what was handed to it before has run): the last user closes
    /// every connection (for files about to be removed), and nothing opens the file again.
    func detachOnQueue() {
        dispatchPrecondition(condition: .onQueue(queue))
        let last = attachment.withLock { attachment -> Bool in
            attachment.users -= 1
            attachment.closed = attachment.users <= 0
            return attachment.closed
        }
        if last { closeConnections() }
    }

    /// Registers `user` to be told when the file is replaced (``setAside(_:)``). On the writer's queue.
    func observe(_ user: any DatabasePoolUser) {
        dispatchPrecondition(condition: .onQueue(queue))
        observers = observers.filter { $0.user != nil } + [WeakUser(user: user)]
    }

    // MARK: Connections

    /// `body`'s value, run with the writer connection (opened when it is not: ``PartitionDatabase/open(in:partition:protection:log:)``).
    /// On the writer's queue only.
    ///
    /// - Throws: ``SQLiteError`` when the file cannot be opened, or the body's.
    func withWriter<T>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        return try body(try openWriter())
    }

    /// `body`'s value, run in a write transaction (``SQLiteDatabase/immediateTransaction(ifSuspended:_:)``) on the
    /// writer connection; a commit counts towards the next background checkpoint. On the writer's queue only.
    func transaction<T>(
        ifSuspended: SQLiteDatabase.IfSuspended = .wait, _ body: (SQLiteDatabase) throws(SQLiteError) -> T
    ) throws(SQLiteError) -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        let database = try openWriter()
        do {
            let value = try database.immediateTransaction(ifSuspended: ifSuspended) { () throws(SQLiteError) -> T in
                try body(database)
            }
            committed()
            return value
        } catch {
            if database.isInTransaction, database === writer {
                database.close()  // rolled back (see openWriter)
                writer = nil
            }
            throw error
        }
    }

    /// `body`, run on the writer's queue from another thread, which waits for it (after what was handed to the queue
    /// before). Never from the writer's queue itself.
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync(execute: body)
    }

    /// ``withWriter(_:)`` from another thread, which waits for it on the writer's queue (after what was handed to
    /// it before). Never from the writer's queue itself.
    func write<T>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        dispatchPrecondition(condition: .notOnQueue(queue))
        let result = queue.sync { () -> Result<T, SQLiteError> in
            do throws(SQLiteError) {
                return .success(try body(try openWriter()))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// `body`'s value, run with the reader connection on its queue (the caller's thread waits), opened when it is
    /// not — never making the file: the writer makes it.
    ///
    /// - Throws: ``SQLiteError`` when it cannot be opened, or the body's.
    func read<T>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        dispatchPrecondition(condition: .notOnQueue(readerQueue))
        let result = readerQueue.sync { () -> Result<T, SQLiteError> in
            do throws(SQLiteError) {
                if reader == nil {
                    guard !isClosed else {
                        throw SQLiteError(code: SQLiteError.misuse, message: "the database was closed", operation: "reading \(path)")
                    }
                    reader = try SQLiteDatabase(path: path, creating: false, protection: protection)
                }
                guard let reader else { throw SQLiteError(code: SQLiteError.misuse, message: "no reader", operation: "reading") }
                return .success(try body(reader))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The writer connection, opened when it is not. On `queue`.
    private func openWriter() throws(SQLiteError) -> SQLiteDatabase {
        if let writer, writer.isInTransaction {
            // A failed transaction whose ROLLBACK failed too (a disk failing for a while) left its changes open on
            // the connection, where every other use of it would read them as if committed: closed, which rolls
            // them back, and opened again.
            writer.close()
            self.writer = nil
        }
        if let writer { return writer }
        guard !isClosed else {
            throw SQLiteError(code: SQLiteError.misuse, message: "the database was closed", operation: "opening \(path)")
        }
        let opened = try PartitionDatabase.open(in: directory, partition: partition, protection: protection, log: log)
        writer = opened
        // What another process commits from now on is news (``poll()``).
        dataVersion = try? Self.dataVersion(of: opened)
        return opened
    }

    /// Closes the three connections (each on its queue): the next use opens them again, unless the pool is closed.
    private func closeConnections() {
        dispatchPrecondition(condition: .onQueue(queue))
        let closed = isClosed
        if closed {
            watcher?.cancel()
            watcher = nil
        }
        writer?.close()
        writer = nil
        readerQueue.sync {
            reader?.close()
            reader = nil
        }
        checkpointQueue.sync {
            checkpointerClosed = closed
            checkpointer?.close()
            checkpointer = nil
        }
    }

    // MARK: Damage

    /// Sets the damaged file aside whole (renamed with its `-wal`, logged, as at open) once every connection of the
    /// pool is closed, and opens a new one in its place; then tells each user (``DatabasePoolUser/poolReplacedFile(_:)``),
    /// here on the writer's queue. A set-aside is refused (logged) while a connection outside the pool has the file
    /// open; the file is then opened again as it is. When the new file cannot be opened (logged), every later use
    /// tries again.
    ///
    /// - Parameters:
    ///   - damage: What was met.
    ///   - subject: Who met it, for the log.
    ///   - outcome: What follows, for the log.
    /// - Returns: Whether the file was set aside.
    @discardableResult
    func setAside(_ damage: SQLiteError, subject: String, outcome: String) -> Bool {
        dispatchPrecondition(condition: .onQueue(queue))
        closeConnections()
        let setAside = PartitionDatabase.setAside(path, reason: damage.description, log: log, subject: subject, outcome: outcome)
        guard setAside else { return false }
        do throws(SQLiteError) {
            let fresh = try openWriter()
            for observer in observers { observer.user?.poolReplacedFile(fresh) }
        } catch {
            log("\(subject): cannot open a new database in place of the one set aside (\(error)); it is tried again at the next use")
        }
        return true
    }

    // MARK: Another process's commits

    /// Starts looking for another process's commits every ``watchInterval``, unless the pool does already. On the
    /// writer's queue.
    func watch() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard watcher == nil, !isClosed else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        // A quarter of the interval's leeway lets the system group the wake-ups with others.
        timer.schedule(deadline: .now() + Self.watchInterval, repeating: Self.watchInterval, leeway: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.poll() }
        watcher = timer
        timer.resume()
    }

    /// Looks at the writer's `data_version` now (as the timer does, for tests), on the writer's queue, and returns
    /// once the users were told.
    func pollNow() { queue.sync { poll() } }

    /// Tells each user when another process committed since the last look. On the writer's queue; nothing while
    /// the writer is not open (it opens again at the next use, and looks from then) or a failed transaction is
    /// open on it.
    private func poll() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let writer, !writer.isInTransaction, let version = try? Self.dataVersion(of: writer) else { return }
        guard version != dataVersion else { return }
        // Every user is told; the commit counts as seen only once each read what changed: a read that failed is
        // made again at the next look, never taken for nothing new.
        #if DEBUG
        tellings += 1
        #endif
        var read = true
        for observer in observers {
            if let user = observer.user, !user.poolFileChangedElsewhere(writer) { read = false }
        }
        if read { dataVersion = version }
    }

    /// `PRAGMA data_version` of `connection`: it changes when another connection commits to the file.
    static func dataVersion(of connection: SQLiteDatabase) throws(SQLiteError) -> Int64 {
        try connection.rows("PRAGMA data_version").first?.first?.integer ?? 0
    }

    // MARK: Checkpoints

    /// Counts a commit, and starts a background checkpoint every ``checkpointInterval``. On `queue`.
    private func committed() {
        commitsSinceCheckpoint += 1
        guard commitsSinceCheckpoint >= Self.checkpointInterval else { return }
        commitsSinceCheckpoint = 0
        startCheckpoint()
    }

    /// Starts a background checkpoint now, as the commit at each ``checkpointInterval`` does (for tests).
    func checkpointNow() { queue.sync { startCheckpoint() } }

    /// Returns once the checkpoints started before have run (for tests).
    func checkpointsRun() { checkpointQueue.sync {} }

    /// Hands a passive checkpoint to `checkpointQueue`.
    private func startCheckpoint() {
        checkpointQueue.async { [self] in checkpoint() }
    }

    /// A passive checkpoint of the file, on `checkpointQueue`. A failure (busy, a file set aside meanwhile) is left
    /// to the next one, or to SQLite's own.
    private func checkpoint() {
        dispatchPrecondition(condition: .onQueue(checkpointQueue))
        // While suspended no lock is taken: the checkpoint is left to the next one.
        guard !checkpointerClosed, !Suspension.shared.holds(SQLiteDatabase.standardized(path)) else { return }
        if checkpointer == nil {
            checkpointer = try? SQLiteDatabase(path: path, busyTimeout: .zero, creating: false, protection: protection)
        }
        _ = try? checkpointer?.rows("PRAGMA wal_checkpoint(PASSIVE)")
    }
}

/// A user of a ``DatabasePool`` told when its file was replaced by a new one (``DatabasePool/setAside(_:subject:outcome:)``).
protocol DatabasePoolUser: AnyObject {
    /// The file was set aside and `database`, a new one, opened in its place: what the user keeps must be written
    /// into it. On the pool's writer queue, inside the set-aside.
    func poolReplacedFile(_ database: SQLiteDatabase)
    /// Another process committed to the file since the pool last looked (``DatabasePool/watch()``): `database` is
    /// the writer connection. On the pool's writer queue.
    ///
    /// - Returns: Whether the user read what changed; `false` (a read failed) has the pool tell it again at its
    ///   next look.
    func poolFileChangedElsewhere(_ database: SQLiteDatabase) -> Bool
}

extension DatabasePoolUser {
    /// A user that does not follow another process's commits.
    func poolFileChangedElsewhere(_ database: SQLiteDatabase) -> Bool { true }
}
