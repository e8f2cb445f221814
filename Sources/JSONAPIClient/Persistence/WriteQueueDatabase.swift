import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A persisted session's ``WriteQueue`` in the partition's database (``PartitionDatabase``): one row per entry in
/// `write_queue`, in the order queued.
///
/// **What changed, only.** ``save(_:)`` writes the changes it is given — a row inserted per new entry, updated per
/// changed one, deleted per removed one — in one `BEGIN IMMEDIATE` transaction. An append is one row, whatever the
/// length of the queue. Rows are addressed by their `seq` (the rowid), which this object keeps for every entry it
/// read or inserted, together with the entry's id: a row another process deleted (and whose `seq` SQLite may give to
/// a new row) is never mistaken for it.
///
/// **Several processes.** An app and its extensions may open the same directory. Each reads the queue when its
/// session is made (or, when it cannot then, before its next write: ``WriteQueuePersister``), and queues its own
/// writes at the end. Before an entry is sent it is claimed (``claim(_:)``): in
/// one transaction, the row is found (gone: another process sent or discarded it), its claim read (held by another
/// process that is alive and whose claim has not expired: wait), and it is marked with this process's claim —
/// a random token of this object, its pid, and a time until which the claim holds (``lease``). So exactly one
/// process sends an entry. The claim ends when the entry is deleted (delivered, rejected) or updated by its holder
/// (an attempt failed); a claim whose process is gone (`kill(pid, 0)` says so) or whose lease ran out is taken over.
/// An update or delete by a process that does not hold a live claim of the row changes nothing.
///
/// Every SQLite call runs on a serial queue of its own: the caller's thread waits for it (``read()`` when a session
/// is made; ``save(_:)`` and ``claim(_:)`` from ``WriteQueuePersister``'s queue), never under a lock.
///
/// **Checkpoints in the background.** A commit appends pages to the WAL; a checkpoint copies them into the database
/// file (and `fsync`s both) so that the WAL can start over. SQLite would run one inside the commit that crosses 1,000
/// WAL pages, making that write wait for it; instead, every ``checkpointInterval`` commits a second connection, on a
/// queue of its own, runs a passive checkpoint (it never blocks the writer), so writes keep one cost and the copying
/// comes in small steps. SQLite's own stays as the fallback should the background one fall behind.
final class WriteQueueDatabase: WriteQueueStorage, @unchecked Sendable {
    // @unchecked Sendable: every stored `var` below is read and changed only inside `queue.sync`, on `queue` —
    // but `checkpointer`, only on `checkpointQueue`.
    private let queue = DispatchQueue(label: "JSONAPIClient.WriteQueue.database", qos: .utility)
    private let directory: URL
    /// The partition whose database holds the queue (``PartitionDatabase/partition(forAccount:)``).
    private let partition: String
    /// The folder's data protection class on Apple platforms (``ResourceStore/Persistence/fileProtection``).
    private let protection: ResourceStore.Persistence.FileProtection
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    /// The connection, once opened (opening is tried again on each use until it succeeds, unless ``close()``d).
    private var database: SQLiteDatabase?
    /// Whether ``close()`` was called: the file is never opened again.
    private var closed = false
    /// The `seq` of each entry this object read or inserted, by entry id.
    private var rows: [String: Int64] = [:]
    /// Commits since the last background checkpoint was started.
    private var commitsSinceCheckpoint = 0
    /// Runs the background checkpoints; `checkpointer` is touched on this queue only.
    private let checkpointQueue = DispatchQueue(label: "JSONAPIClient.WriteQueue.checkpoint", qos: .utility)
    private var checkpointer: SQLiteDatabase?
    /// Whether ``close()`` closed the checkpointer (on `checkpointQueue` only).
    private var checkpointerClosed = false
    /// This object's claims: a random token, and the process's id.
    private let token = UUID().uuidString
    private let pid = Int64(getpid())

    /// How long a claim holds without its process: two minutes, beyond any request's timeout. A process that is
    /// gone is noticed sooner, by its pid.
    static let lease: Duration = .seconds(120)
    /// How many commits go between background checkpoints: about 30 database pages copied each time.
    static let checkpointInterval = 100

    /// A queue in `persistence`'s directory.
    convenience init(_ persistence: ResourceStore.Persistence, partition: String = PartitionDatabase.defaultPartition) {
        self.init(
            directory: persistence.directory, partition: partition, protection: persistence.fileProtection,
            log: persistence.log)
    }

    /// A queue in `directory`.
    ///
    /// - Parameters:
    ///   - directory: The app's directory (the database is in its `JSONAPIClient` folder).
    ///   - partition: The partition's name.
    ///   - protection: The folder's data protection class on Apple platforms.
    ///   - log: Told of files set aside or discarded and of failures.
    ///   - now: The time claims are made and read at.
    init(
        directory: URL, partition: String = PartitionDatabase.defaultPartition,
        protection: ResourceStore.Persistence.FileProtection = .appDefault, log: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.partition = partition
        self.protection = protection
        self.log = log
        self.now = now
    }

    /// The open database, opened on first use. On `queue` only.
    private func open() throws(SQLiteError) -> SQLiteDatabase {
        if let database { return database }
        guard !closed else {
            throw SQLiteError(code: SQLiteError.misuse, message: "the queue's database was closed", operation: "opening")
        }
        let opened: SQLiteDatabase
        do {
            opened = try PartitionDatabase.open(in: directory, partition: partition, protection: protection, log: log)
        } catch {
            log("JSONAPIClient write queue: cannot open its database (\(error)); queued writes cannot be saved")
            throw error
        }
        database = opened
        return opened
    }

    // MARK: WriteQueueStorage

    /// The entries, oldest first (none: empty). A row that does not read as an entry is set aside inside the file
    /// (``setAside(_:in:)``), logged, and the others are read: the file is the store's too, and may be open on
    /// another connection, so it is never renamed for a row. A file SQLite finds damaged is set aside whole (only
    /// when no other connection of this process has it open: ``PartitionDatabase/setAside(_:reason:log:subject:outcome:)``).
    ///
    /// - Throws: ``SQLiteError`` when the database cannot be opened or read now (a device that cannot read the file
    ///   yet, a full disk: logged): nothing is known of what it holds, and it is read again before the next write.
    func read() throws(SQLiteError) -> [WriteQueue.Entry] {
        let result = queue.sync { () -> Result<[WriteQueue.Entry], SQLiteError> in
            do throws(SQLiteError) { return .success(try readNow()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// ``read()``, on `queue`.
    private func readNow() throws(SQLiteError) -> [WriteQueue.Entry] {
        let database = try open()
        let read: [[SQLiteValue]]
        do {
            read = try database.rows("SELECT seq, id, entry FROM write_queue ORDER BY seq")
        } catch {
            guard error.isDamage else {
                log("JSONAPIClient write queue: cannot read its database (\(error)); it is read again before the next write")
                throw error
            }
            // Set aside whole, as PartitionDatabase does a file it cannot open, and started again.
            database.close()
            self.database = nil
            rows = [:]
            let path = PartitionDatabase.file(in: directory, partition: partition).path
            PartitionDatabase.setAside(
                path, reason: error.description, log: log, subject: "JSONAPIClient write queue",
                outcome: "the queue starts empty")
            return []
        }
        let decoder = JSONDecoder()
        var entries: [WriteQueue.Entry] = []
        var unreadable: [Int64] = []
        entries.reserveCapacity(read.count)
        for row in read {
            guard row.count == 3, let seq = row[0].integer else { continue }
            guard let id = row[1].text, let json = row[2].blob,
                let stored = try? decoder.decode(WriteQueue.StoredEntry.self, from: json),
                stored.id == id, let entry = try? stored.entry()
            else {
                unreadable.append(seq)
                continue
            }
            rows[id] = seq
            entries.append(entry)
        }
        if !unreadable.isEmpty { setAside(unreadable, in: database) }
        return entries
    }

    /// The columns of `write_queue`, in order, as `write_queue_set_aside` has them.
    private static let columns = "seq, id, entry, claim_token, claim_pid, claim_until"

    /// Moves the rows `seqs` of `write_queue`, which do not read as entries, into `write_queue_set_aside` (made
    /// when missing), in one transaction, and logs how many: they stay in the file for a person to look at, and
    /// the queue goes on with the others. A failure is logged; the rows are then passed over, and set aside at the
    /// next read.
    private func setAside(_ seqs: [Int64], in database: SQLiteDatabase) {
        do throws(SQLiteError) {
            // Read at launch, on the caller's thread (the app's main thread): fails rather than waits while
            // persistence is suspended, and the rows are set aside at a later read.
            try database.immediateTransaction(ifSuspended: .fail) { () throws(SQLiteError) in
                try database.execute(
                    "CREATE TABLE IF NOT EXISTS write_queue_set_aside (\(Self.columns), PRIMARY KEY (seq))")
                for seq in seqs {
                    try database.execute(
                        "INSERT OR REPLACE INTO write_queue_set_aside SELECT \(Self.columns) FROM write_queue WHERE seq = ?",
                        [.integer(seq)])
                    try database.execute("DELETE FROM write_queue WHERE seq = ?", [.integer(seq)])
                }
            }
            log("JSONAPIClient write queue: \(seqs.count) rows of \(database.path) are not entries and were set aside "
                + "in its table write_queue_set_aside; the other entries are read")
        } catch {
            log("JSONAPIClient write queue: \(seqs.count) rows of \(database.path) are not entries and were passed "
                + "over (not set aside: \(error))")
        }
    }

    /// Writes `changes` in one transaction (see the type's documentation).
    ///
    /// - Throws: The encoding's or SQLite's error; nothing was written then.
    func save(_ changes: [WriteQueue.Change]) throws {
        guard !changes.isEmpty else { return }
        let encoder = JSONEncoder()
        // Encoded before the transaction: the write lock is held for SQLite's work only.
        var encoded: [(change: WriteQueue.Change, json: Data?)] = []
        encoded.reserveCapacity(changes.count)
        for change in changes {
            switch change {
            case .insert(let entry), .update(let entry):
                encoded.append((change, try encoder.encode(WriteQueue.StoredEntry(entry))))
            case .delete:
                encoded.append((change, nil))
            }
        }
        try queue.sync { () throws in
            let database = try open()
            let time = Self.milliseconds(now())
            let inserted = try database.immediateTransaction { () throws(SQLiteError) -> [String: Int64] in
                var inserted: [String: Int64] = [:]
                for (change, json) in encoded {
                    switch change {
                    case .insert(let entry):
                        try database.execute(
                            "INSERT INTO write_queue (id, entry) VALUES (?, ?)", [.text(entry.id), .blob(json ?? Data())])
                        inserted[entry.id] = database.lastInsertRowID
                    case .update(let entry):
                        guard let seq = rows[entry.id] ?? inserted[entry.id] else { continue }
                        try database.execute(
                            """
                            UPDATE write_queue SET entry = ?, claim_token = NULL, claim_pid = NULL, claim_until = NULL
                            WHERE seq = ? AND id = ? AND (claim_token IS NULL OR claim_token = ? OR claim_until < ?)
                            """,
                            [.blob(json ?? Data()), .integer(seq), .text(entry.id), .text(token), .integer(time)])
                    case .delete(let id):
                        guard let seq = rows[id] ?? inserted[id] else { continue }
                        try database.execute(
                            """
                            DELETE FROM write_queue
                            WHERE seq = ? AND id = ? AND (claim_token IS NULL OR claim_token = ? OR claim_until < ?)
                            """,
                            [.integer(seq), .text(id), .text(token), .integer(time)])
                    }
                }
                return inserted
            }
            // Only once committed: a rolled-back insert has no row.
            rows.merge(inserted) { _, new in new }
            for case .delete(let id) in changes { rows[id] = nil }
            commitsSinceCheckpoint += 1
            if commitsSinceCheckpoint >= Self.checkpointInterval {
                commitsSinceCheckpoint = 0
                let path = database.path
                startCheckpoint(path)
            }
        }
    }

    /// Claims `entry` for this process, writing it as given (see the type's documentation).
    ///
    /// - Throws: SQLite's error when the claim could not be made (then nothing changed).
    func claim(_ entry: WriteQueue.Entry) throws -> WriteQueue.Claim {
        let json = try JSONEncoder().encode(WriteQueue.StoredEntry(entry))
        return try queue.sync { () throws -> WriteQueue.Claim in
            guard let seq = rows[entry.id] else { return .gone }
            let database = try open()
            let time = Self.milliseconds(now())
            let claim = try database.immediateTransaction { () throws(SQLiteError) -> WriteQueue.Claim in
                let found = try database.rows(
                    "SELECT id, claim_token, claim_pid, claim_until FROM write_queue WHERE seq = ?", [.integer(seq)])
                guard let row = found.first, row.count == 4, row[0].text == entry.id else { return .gone }
                if let holder = row[1].text, holder != token, let until = row[3].integer, until >= time,
                    Self.isAlive(row[2].integer)
                {
                    return .held
                }
                let until = time.addingReportingOverflow(Self.milliseconds(Self.lease)).partialValue
                try database.execute(
                    "UPDATE write_queue SET entry = ?, claim_token = ?, claim_pid = ?, claim_until = ? WHERE seq = ?",
                    [.blob(json), .text(token), .integer(pid), .integer(until), .integer(seq)])
                return .claimed
            }
            if claim == .gone { rows[entry.id] = nil }
            return claim
        }
    }

    /// Closes the connections once the calls made before have returned; the file is never opened again (every
    /// later save or claim fails): for a queue whose account's files are about to be removed.
    func close() {
        queue.sync {
            closed = true
            database?.close()
            database = nil
        }
        // After the checkpoint a last save may have started: none can start now.
        checkpointQueue.sync {
            checkpointerClosed = true
            checkpointer?.close()
            checkpointer = nil
        }
    }

    /// Starts a background checkpoint of the open database now, as the commit at each ``checkpointInterval`` does
    /// (for tests).
    func checkpointNow() {
        if let path = queue.sync(execute: { database?.path }) { startCheckpoint(path) }
    }

    /// Returns once the checkpoints started before have run (for tests).
    func checkpointsRun() { checkpointQueue.sync {} }

    // MARK: Helpers

    /// Hands a passive checkpoint of the database at `path` to `checkpointQueue`.
    private func startCheckpoint(_ path: String) {
        checkpointQueue.async { [self] in checkpoint(path) }
    }

    /// A passive checkpoint of the database at `path`, on `checkpointQueue` (see the type's documentation). A
    /// failure (busy, a file set aside meanwhile) is left to the next one, or to SQLite's own.
    private func checkpoint(_ path: String) {
        dispatchPrecondition(condition: .onQueue(checkpointQueue))
        // While suspended no lock is taken: the checkpoint is left to the next one.
        guard !checkpointerClosed, !Suspension.shared.holds(SQLiteDatabase.standardized(path)) else { return }
        if checkpointer?.path != path {
            checkpointer = try? SQLiteDatabase(path: path, busyTimeout: .zero, creating: false, protection: protection)
        }
        _ = try? checkpointer?.rows("PRAGMA wal_checkpoint(PASSIVE)")
    }

    /// Whether the process `pid` (as a row keeps it) is alive: `kill(pid, 0)` succeeds, or fails only for want of
    /// permission (another app's extension, in a sandbox). A pid out of range, or not positive, is no process.
    private static func isAlive(_ pid: Int64?) -> Bool {
        guard let pid, let id = pid_t(exactly: pid), id > 0 else { return false }
        return kill(id, 0) == 0 || errno == EPERM
    }

    /// `date` in milliseconds since 1970, clamped to Int64 (no trap on a clock far off).
    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        guard value < 9.2e18 else { return .max }
        guard value > -9.2e18 else { return .min }
        return Int64(value)
    }

    /// `duration` in milliseconds (non-negative, clamped).
    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = max(seconds, 0).multipliedReportingOverflow(by: 1000)
        return overflow ? .max : whole + attoseconds / 1_000_000_000_000_000
    }
}
