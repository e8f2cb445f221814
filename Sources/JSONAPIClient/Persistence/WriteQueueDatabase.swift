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
/// Every SQLite call runs on the partition's writer queue (``DatabasePool``), shared with the store's saves: the
/// caller's thread waits for it (``read()`` when a session is made; ``save(_:)`` and ``claim(_:)`` from
/// ``WriteQueuePersister``'s queue), never under a lock. When the file is set aside for damage the store met
/// (``DatabasePool/setAside(_:subject:outcome:)``), the entries this object knows are written into the new file
/// (``poolReplacedFile(_:)``): a set-aside never loses a queued write.
final class WriteQueueDatabase: WriteQueueStorage, DatabasePoolUser, @unchecked Sendable {
    // @unchecked Sendable: every stored `var` below is read and changed only on the pool's writer queue.
    private let pool: DatabasePool
    private let log: @Sendable (String) -> Void
    private let now: @Sendable () -> Date
    /// Whether ``close()`` was called: every later save or claim fails.
    private var closed = false
    /// Whether this object is registered with the pool (``DatabasePool/observe(_:)``).
    private var observing = false
    /// Each entry this object read or wrote, by entry id: its row's `seq`, and the entry as the row holds it (to
    /// write it again into a new file: ``poolReplacedFile(_:)``).
    private var rows: [String: Row] = [:]
    /// Whether the entries known must be written again before the next change (the file was replaced and writing
    /// them into the new one failed).
    private var rewrite = false
    /// Whether the rows were read (``read()``): from then on, a row of an id this object does not know is another
    /// process's.
    private var hasRead = false
    /// Told of the entries another process adds (``follow(_:)``), on `arrivals`, in the order found.
    private var arrived: (@Sendable ([WriteQueue.Arrival]) -> Void)?
    private let arrivals = DispatchQueue(label: "JSONAPIClient.WriteQueue.arrivals", qos: .utility)
    /// This object's claims: a random token, and the process's id.
    private let token = UUID().uuidString
    private let pid = Int64(getpid())

    /// A row of `write_queue` as this object knows it.
    private struct Row {
        var seq: Int64
        var json: Data
    }

    /// How long a claim holds without its process: two minutes, beyond any request's timeout. A process that is
    /// gone is noticed sooner, by its pid.
    static let lease: Duration = .seconds(120)
    /// How many commits go between background checkpoints (the pool's: ``DatabasePool/checkpointInterval``).
    static var checkpointInterval: Int { DatabasePool.checkpointInterval }

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
        pool = DatabasePool.pool(in: directory, partition: partition, protection: protection, log: log)
        self.log = log
        self.now = now
    }

    /// `body`'s value, run with the writer connection on the pool's queue (the caller waits), after this object is
    /// registered for a replaced file and the entries it knows are written into one (``rewrite``); fails once closed.
    private func withDatabase<T>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try pool.write { database throws(SQLiteError) -> T in
            guard !closed else {
                throw SQLiteError(code: SQLiteError.misuse, message: "the queue's database was closed", operation: "opening")
            }
            if !observing {
                pool.observe(self)
                observing = true
            }
            if rewrite { try writeRows() }
            return try body(database)
        }
    }

    // MARK: WriteQueueStorage

    /// The entries, oldest first (none: empty). A row that does not read as an entry is set aside inside the file
    /// (``setAside(_:in:)``), logged, and the others are read: the file is the store's too, so it is never renamed
    /// for a row. A file SQLite finds damaged is set aside whole (``DatabasePool/setAside(_:subject:outcome:)``), and
    /// the queue starts empty.
    ///
    /// - Throws: ``SQLiteError`` when the database cannot be opened or read now (a device that cannot read the file
    ///   yet, a full disk: logged): nothing is known of what it holds, and it is read again before the next write.
    func read() throws(SQLiteError) -> [WriteQueue.Entry] {
        do {
            return try withDatabase { database throws(SQLiteError) in try readNow(database) }
        } catch {
            if error.code != SQLiteError.misuse {
                log("JSONAPIClient write queue: cannot read its database (\(error)); it is read again before the next write")
            }
            throw error
        }
    }

    /// ``read()``, on the pool's queue.
    private func readNow(_ database: SQLiteDatabase) throws(SQLiteError) -> [WriteQueue.Entry] {
        let read: [[SQLiteValue]]
        do {
            read = try database.rows("SELECT seq, id, entry FROM write_queue ORDER BY seq")
        } catch {
            guard error.isDamage else { throw error }
            // Set aside whole, as PartitionDatabase does a file it cannot open, and started again.
            rows = [:]
            pool.setAside(error, subject: "JSONAPIClient write queue", outcome: "the queue starts empty")
            rows = [:]
            rewrite = false
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
            rows[id] = Row(seq: seq, json: json)
            entries.append(entry)
        }
        if !unreadable.isEmpty { setAside(unreadable, in: database) }
        hasRead = true
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
            // Read at launch, the caller waiting (the app's main thread): fails rather than waits while persistence
            // is suspended, and the rows are set aside at a later read.
            try pool.transaction(ifSuspended: .fail) { database throws(SQLiteError) in
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
        var encoded: [(change: WriteQueue.Change, json: Data)] = []
        encoded.reserveCapacity(changes.count)
        for change in changes {
            switch change {
            case .insert(let entry), .update(let entry):
                encoded.append((change, try encoder.encode(WriteQueue.StoredEntry(entry))))
            case .delete:
                encoded.append((change, Data()))
            }
        }
        try withDatabase { _ throws(SQLiteError) in
            let time = Self.milliseconds(now())
            let written = try pool.transaction { database throws(SQLiteError) -> [String: Row?] in
                var written: [String: Row?] = [:]
                for (change, json) in encoded {
                    switch change {
                    case .insert(let entry):
                        try database.execute("INSERT INTO write_queue (id, entry) VALUES (?, ?)", [.text(entry.id), .blob(json)])
                        written[entry.id] = Row(seq: database.lastInsertRowID, json: json)
                    case .update(let entry):
                        guard let seq = (written[entry.id] ?? rows[entry.id])?.seq else { continue }
                        try database.execute(
                            """
                            UPDATE write_queue SET entry = ?, claim_token = NULL, claim_pid = NULL, claim_until = NULL
                            WHERE seq = ? AND id = ? AND (claim_token IS NULL OR claim_token = ? OR claim_until < ?)
                            """,
                            [.blob(json), .integer(seq), .text(entry.id), .text(token), .integer(time)])
                        written[entry.id] = Row(seq: seq, json: json)
                    case .delete(let id):
                        guard let seq = (written[id] ?? rows[id])?.seq else { continue }
                        try database.execute(
                            """
                            DELETE FROM write_queue
                            WHERE seq = ? AND id = ? AND (claim_token IS NULL OR claim_token = ? OR claim_until < ?)
                            """,
                            [.integer(seq), .text(id), .text(token), .integer(time)])
                        written[id] = .some(nil)
                    }
                }
                return written
            }
            // Only once committed: a rolled-back insert has no row.
            for (id, row) in written { rows[id] = row }
        }
    }

    /// Claims `entry` for this process, writing it as given (see the type's documentation).
    ///
    /// - Throws: SQLite's error when the claim could not be made (then nothing changed).
    func claim(_ entry: WriteQueue.Entry) throws -> WriteQueue.Claim {
        let json = try JSONEncoder().encode(WriteQueue.StoredEntry(entry))
        return try withDatabase { _ throws(SQLiteError) -> WriteQueue.Claim in
            guard let seq = rows[entry.id]?.seq else { return .gone }
            let time = Self.milliseconds(now())
            let claim = try pool.transaction { database throws(SQLiteError) -> WriteQueue.Claim in
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
            switch claim {
            case .gone: rows[entry.id] = nil
            case .claimed: rows[entry.id] = Row(seq: seq, json: json)
            case .held: break
            }
            return claim
        }
    }

    /// Detaches from the pool once the calls made before have returned; the file is never opened again by this
    /// object (every later save or claim fails), and the pool's last user closes its connections: for a queue
    /// whose account's files are about to be removed.
    func close() {
        pool.sync {
            guard !closed else { return }
            closed = true
            pool.detachOnQueue()
        }
    }

    // MARK: A new file

    /// The file was set aside (the store met damage) and `database` opened in its place: the entries this object
    /// knows are written into it, in their order, so that none is lost; should that fail (logged), they are written
    /// before the next change.
    func poolReplacedFile(_ database: SQLiteDatabase) {
        rewrite = true
        do throws(SQLiteError) {
            try writeRows()
        } catch {
            log("JSONAPIClient write queue: its entries were not written into the new database yet (\(error)); "
                + "they are before the next change")
        }
    }

    /// Writes every entry this object knows into the file, in their order, unless a row of the same id is there
    /// (another queue of the process wrote it first), in one transaction; on the pool's queue.
    private func writeRows() throws(SQLiteError) {
        let known = rows.sorted { $0.value.seq < $1.value.seq }
        let placed = try pool.transaction { database throws(SQLiteError) -> [String: Row] in
            var placed: [String: Row] = [:]
            for (id, row) in known {
                try database.execute(
                    "INSERT INTO write_queue (id, entry) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM write_queue WHERE id = ?)",
                    [.text(id), .blob(row.json), .text(id)])
                let seq = try database.rows("SELECT seq FROM write_queue WHERE id = ?", [.text(id)]).first?.first?.integer
                if let seq { placed[id] = Row(seq: seq, json: row.json) }
            }
            return placed
        }
        rows = placed
        rewrite = false
    }

    // MARK: Another process's entries

    /// Tells `arrived` of the entries another process adds from now on: the pool looks for its commits
    /// (``DatabasePool/watch()``), and each time it finds one this object reads the rows of ids it does not know
    /// (``poolFileChangedElsewhere(_:)``).
    func follow(_ arrived: @escaping @Sendable ([WriteQueue.Arrival]) -> Void) {
        pool.sync {
            self.arrived = arrived
            if !observing {
                pool.observe(self)
                observing = true
            }
            pool.watch()
        }
    }

    /// Another process committed: the rows of ids this object does not know — once it read the rows, for it knows
    /// every one before — are entries that process queued. Each is told with the known entry it goes before (the
    /// first added after it), outside the pool's queue. A row that does not read is passed over (the next read at
    /// launch sets it aside); a failed read is made again at the pool's next look.
    func poolFileChangedElsewhere(_ database: SQLiteDatabase) -> Bool {
        guard !closed, hasRead, !rewrite, let arrived else { return true }
        guard let read = try? database.rows("SELECT seq, id, entry FROM write_queue ORDER BY seq") else { return false }
        // Those held before, by seq: an arrival goes before the first of them added after it.
        let held = rows.map { (id: $0.key, seq: $0.value.seq) }.sorted { $0.seq < $1.seq }
        let decoder = JSONDecoder()
        var arrivals: [WriteQueue.Arrival] = []
        for row in read {
            guard row.count == 3, let seq = row[0].integer, let id = row[1].text, rows[id] == nil, let json = row[2].blob,
                let stored = try? decoder.decode(WriteQueue.StoredEntry.self, from: json), stored.id == id,
                let entry = try? stored.entry()
            else { continue }
            rows[id] = Row(seq: seq, json: json)
            arrivals.append(WriteQueue.Arrival(entry: entry, before: held.first { $0.seq > seq }?.id))
        }
        if !arrivals.isEmpty { self.arrivals.async { [arrivals] in arrived(arrivals) } }
        return true
    }

    /// Looks for another process's commits now, as the pool's timer does, and returns once what was found was
    /// handed to `arrived`'s queue (for tests).
    func pollNow() {
        pool.pollNow()
        arrivals.sync {}
    }

    /// Starts a background checkpoint now, as the commit at each ``checkpointInterval`` does (for tests).
    func checkpointNow() { pool.checkpointNow() }

    /// Returns once the checkpoints started before have run (for tests).
    func checkpointsRun() { pool.checkpointsRun() }

    // MARK: Helpers

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
