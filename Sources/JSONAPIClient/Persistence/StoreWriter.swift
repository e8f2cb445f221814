import Foundation

/// Keeps a persisted ``ResourceStore`` in its partition's database (``PartitionDatabase``: the tables `records` and
/// `responses`, beside the write queue's), writing in the background only what changed.
///
/// **What changed, only.** The store's record table and response cache note the keys a change touched
/// (``ResourceStore/RecordTable/unsaved``, ``ResponseCache/unsaved``); a save takes those keys and their values
/// under the store's lock (a copy, no encoding), then — on the file's writer queue (``DatabasePool``), outside every
/// lock — encodes them and writes them in one `BEGIN IMMEDIATE` transaction: a row replaced per changed record or
/// response, deleted per one that went. A refetched page writes its own rows, whatever the store holds besides; a use writes nothing.
/// When a save fails, its keys go back to the store's, so the next save writes them.
///
/// **Crash consistency** is SQLite's: a transaction commits whole or not at all (WAL, `synchronous=NORMAL`: a killed
/// process loses nothing committed; a power cut may lose the last commits, never leaving a torn row).
///
/// **Several processes.** An app and its extensions may open one directory: each saves its own changes' rows, so
/// none overwrites another's saves, and each reads what the others committed when it first needs it: the stored
/// responses when it opens, then a response it does not hold, or a record it read before without a row, once
/// `PRAGMA data_version` says another connection committed (``storedResponse(for:)``, ``recordsChanged()``).
///
/// **The partition key.** The credential digests that partition the stored responses are made under a random key
/// kept in the database's `meta` table (made once, in a transaction, by the first process to need it).
///
/// **Batching.** A change only counts; the first change after a save schedules the next one ``ResourceStore/Persistence/delay``
/// later. ``ResourceStore/flush()`` saves at once and returns when it is committed.
final class StoreWriter: DatabasePoolUser, @unchecked Sendable {
    // @unchecked Sendable: `writtenSinceTrim`, `savesSinceTrim` and `closed` are touched only on the pool's writer
    // queue (and by `open` before the object is shared); `marks` and `state` only under their locks.
    /// The `meta` row that holds the partition key.
    static let keyRow = "partition key"

    let persistence: ResourceStore.Persistence
    /// The partition whose database this is (``PartitionDatabase/partition(forAccount:)``).
    let partition: String
    let key: DigestKey
    /// The file's connections (``DatabasePool``), shared with the write queue of the partition: the writer on its
    /// queue, where every save runs; the reader, for the rows a read asks for (WAL lets it read while the writer
    /// writes, so a read never waits behind a save), on the caller's thread, which waits — never under the store's
    /// lock, which is taken before or after, not around it (``ResourceStore/faultIn(_:)``).
    private let pool: DatabasePool
    /// The pool's writer queue.
    private var queue: DispatchQueue { pool.queue }
    /// Whether ``close()`` was called: every later read or save fails. On the writer queue only.
    private var closed = false
    /// What this writer noted of its reads.
    private let marks: LockedValue<Marks>

    /// The damage a read met (the file is set aside on the queue: ``setAsideIfDamaged(for:)``), and the versions
    /// the store's reads were made at.
    private struct Marks {
        var damage: SQLiteError?
        /// The database's `PRAGMA data_version` when the store last forgot the rows it read
        /// (``recordsChanged()``); `nil` before the first ask.
        var recordsVersion: Int64?
        /// The `data_version` when the stored responses were read (at open): while the database has it, no other
        /// connection committed since, and a response the store does not hold is not on disk either.
        var responsesVersion: Int64?
    }
    /// The most records the database keeps (the store's ``ResourceStore/Configuration/maxResources``): a save trims
    /// the least recently written past it (``trim(afterWriting:)``).
    private let maxRecords: Int
    /// The rows written and the saves made since the last trim counted the rows (``trim(afterWriting:)``). On
    /// `queue` only (or by `open`, before the object is shared).
    private var writtenSinceTrim = 0
    private var savesSinceTrim = 0
    /// The most saves between two counts of the rows.
    static let trimEvery = 64

    private struct State {
        /// Changes handed over, counted.
        var requested: UInt64 = 0
        /// The count the last successful save included.
        var saved: UInt64 = 0
        /// Whether a save is scheduled.
        var scheduled = false
        /// Whether a save or another write is being written on the queue, and how many were written.
        var writing = false
        var written: UInt64 = 0
        /// Why changes were lost, not saved: the file was set aside and the store emptied before a save wrote them
        /// (``setAsideIfDamaged(for:)``). The next save reports it (``save(_:)``), so that a flush never says they
        /// are on disk.
        var lost: String?
    }

    private let state = LockedValue(State())

    /// The store this writer keeps, told of another process's saves (``follow(_:)``).
    private struct Follower {
        weak var store: ResourceStore?
    }
    private let follower = LockedValue(Follower())
    /// Where the records another process saved are handed to the store, in the order read.
    private let elsewhere = DispatchQueue(label: "JSONAPIClient.ResourceStore.elsewhere", qos: .utility)
    /// The highest rowid of `records` looked at for another process's saves, and the writer's `data_version` then
    /// (``poolFileChangedElsewhere(_:)``). On the queue only.
    private var seenRowid: Int64 = 0
    private var lookedVersion: Int64?
    #if DEBUG
    /// How many rows the reads of another process's saves read (for tests). On the queue only.
    private var rowsReadElsewhere = 0
    /// ``rowsReadElsewhere``, read on the queue.
    var rowsReadForOtherProcesses: Int { queue.sync { rowsReadElsewhere } }
    /// How many reads were made row by row (``read(_:)``: the rows' document did not parse, or held a record not
    /// asked for), for tests.
    private let rowByRow = LockedValue(0)
    var rowByRowReads: Int { rowByRow.withLock { $0 } }
    #endif
    /// How many rows one read of another process's saves reads.
    static let elsewhereChunk = 512

    private init(
        persistence: ResourceStore.Persistence, partition: String, key: DigestKey, pool: DatabasePool, maxRecords: Int
    ) {
        self.persistence = persistence
        self.partition = partition
        self.key = key
        self.pool = pool
        self.marks = LockedValue(Marks())
        self.maxRecords = maxRecords
    }

    // MARK: Opening

    /// Opens `persistence`'s database — made, or a damaged one set aside (logged) — with its partition key, and
    /// reads the stored responses (the records are read as a store asks for them: ``records(_:)``). Damage met
    /// while reading them (a page of the file, past its header) sets the file aside too, and a new one is opened.
    ///
    /// - Parameter failed: Told why, when the database cannot be opened.
    /// - Returns: The writer, the key, and what the database holds; `nil` when the database cannot be opened
    ///   (logged: the store stays in memory).
    static func open(
        _ persistence: ResourceStore.Persistence, partition: String = PartitionDatabase.defaultPartition,
        maxRecords: Int = .max, failed: (SQLiteError) -> Void = { _ in }
    ) -> (writer: StoreWriter, key: DigestKey, contents: RowCodec.Contents)? {
        let log = persistence.log
        let pool = DatabasePool.pool(
            in: persistence.directory, partition: partition, protection: persistence.fileProtection, log: log)
        var setAside = false
        while true {
            do throws(SQLiteError) {
                let (key, contents) = try pool.write { database throws(SQLiteError) in
                    let key = try partitionKey(in: database, pool: pool)
                    return (key, try readResponses(in: database, pool: pool, log: log))
                }
                let writer = StoreWriter(
                    persistence: persistence, partition: partition, key: key, pool: pool, maxRecords: maxRecords)
                pool.sync { pool.observe(writer) }
                // After the responses that did not read were deleted: this writer's own deletions are no change.
                let version = try pool.read { reader throws(SQLiteError) in
                    try DatabasePool.dataVersion(of: reader)
                }
                writer.marks.withLock { marks in
                    marks.responsesVersion = version
                    marks.recordsVersion = version
                }
                return (writer, key, contents)
            } catch {
                if error.isDamage, !setAside {
                    // Refused (logged) while a connection outside the pool has the file open.
                    setAside = pool.sync {
                        pool.setAside(error, subject: "JSONAPIClient store", outcome: "the store starts empty")
                    }
                    if setAside { continue }
                }
                log("JSONAPIClient store: cannot open its database in \(persistence.directory.path) (\(error)); the store stays in memory")
                pool.sync { pool.detachOnQueue() }
                failed(error)
                return nil
            }
        }
    }

    /// The database's partition key, made (random) when it has none. Read first without a write transaction, so
    /// that opening a database that has its key writes nothing and never waits for another process's write lock (an
    /// extension writing at the app's launch).
    private static func partitionKey(in database: SQLiteDatabase, pool: DatabasePool) throws(SQLiteError) -> DigestKey {
        if let bytes = try database.rows("SELECT value FROM meta WHERE key = ?", [.text(keyRow)]).first?.first?.blob,
            let key = DigestKey(bytes: Array(bytes))
        {
            return key
        }
        // On the opening thread (an app's main thread): fails rather than waits while persistence is suspended.
        return try pool.transaction(ifSuspended: .fail) { database throws(SQLiteError) -> DigestKey in
            let row = try database.rows("SELECT value FROM meta WHERE key = ?", [.text(keyRow)]).first?.first
            if let bytes = row?.blob, let key = DigestKey(bytes: Array(bytes)) { return key }
            // None yet (or not 32 bytes: the responses under it can never be matched again, so a new key costs
            // nothing more than their revalidation).
            let key = DigestKey.random()
            try database.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(keyRow), .blob(Data(key.bytes))])
            return key
        }
    }

    /// The stored responses the database holds, least recently changed first, without their bodies (each read
    /// when its response is first used: ``body(_:)``); a row that does not read, or whose body is missing, is
    /// deleted, logged with its count. The records are not read here: a read asks for its rows (``records(_:)``).
    private static func readResponses(
        in database: SQLiteDatabase, pool: DatabasePool, log: @Sendable (String) -> Void
    ) throws(SQLiteError) -> RowCodec.Contents {
        var contents = RowCodec.Contents()
        var damaged: [Int64] = []
        // A whole body's size is its row's, looked up only for a whole body (a join would seek every body's row:
        // at ~244 responses, opening took 3.5 ms with it, 2.3 ms without).
        let responses = try database.rows("SELECT \(Self.responseColumns) FROM responses r ORDER BY r.rowid")
        for row in responses {
            guard let response = Self.response(of: row) else {
                damaged.append(row.first?.integer ?? 0)
                continue
            }
            contents.responses.append(response)
        }
        if !damaged.isEmpty {
            // On the opening thread (an app's main thread): fails rather than waits while persistence is suspended,
            // and the rows are deleted at a later open (they are not read meanwhile).
            do throws(SQLiteError) {
                try pool.transaction(ifSuspended: .fail) { database throws(SQLiteError) in
                    for rowid in damaged {
                        try database.execute(
                            "DELETE FROM response_bodies WHERE id = (SELECT body_id FROM responses WHERE rowid = ?)",
                            [.integer(rowid)])
                        try database.execute("DELETE FROM responses WHERE rowid = ?", [.integer(rowid)])
                    }
                }
                log("JSONAPIClient store: \(damaged.count) stored responses did not read and were deleted")
            } catch {
                guard !error.isDamage else { throw error }
                log("JSONAPIClient store: \(damaged.count) stored responses did not read (not deleted yet: \(error))")
            }
        }
        return contents
    }

    /// The columns of a `responses` row (`r`) that ``response(of:)`` reads: rowid, response, body id, and the body's
    /// size as it came (the row's, else the whole body's length).
    private static let responseColumns =
        "r.rowid, r.response, r.body_id, "
        + "coalesce(r.whole_size, (SELECT length(body) FROM response_bodies WHERE id = r.body_id))"

    /// The stored response a row of `responses` holds (``responseColumns``), its body left unread;
    /// `nil` when it does not read.
    private static func response(of row: [SQLiteValue]) -> (key: ResponseKey, response: StoredResponse)? {
        guard row.count == 4, let bytes = row[1].blob, let id = row[2].integer, let count = row[3].integer,
            var response = try? RowCodec.response(from: bytes)
        else { return nil }
        response.response.unreadBody = StoredResponse.UnreadBody(id: id, count: Int(clamping: count))
        return response
    }

    // MARK: Another connection's commits

    /// Whether the database changed since the store last asked, or since it opened (on the reader connection): what
    /// it read as absent, and the types it listed, may have rows now.
    ///
    /// - Returns: Whether another connection committed since (`true` when the version cannot be read), and the
    ///   version to note once the store forgot what it read (``noteRecordsRead(at:)``).
    func recordsChanged() -> (changed: Bool, version: Int64?) {
        guard let version = try? withReader({ reader throws(SQLiteError) in try DatabasePool.dataVersion(of: reader) }) else {
            return (true, nil)
        }
        return (marks.withLock { $0.recordsVersion != version }, version)
    }

    /// Notes that the store forgot what it read when the database had `version` (``recordsChanged()``).
    func noteRecordsRead(at version: Int64?) {
        marks.withLock { $0.recordsVersion = version }
    }

    /// The stored response under `key` on disk, when the database changed since the store read its responses at
    /// open (another process, or another store on the directory, saved it since): its row, the body left unread.
    ///
    /// - Returns: The response; `nil` when nothing committed since open, or the database holds none under `key`.
    /// - Throws: ``SQLiteError`` when it cannot be read.
    func storedResponse(for key: ResponseKey) throws(SQLiteError) -> StoredResponse? {
        try withReader { reader throws(SQLiteError) -> StoredResponse? in
            let version = try DatabasePool.dataVersion(of: reader)
            guard version != marks.withLock({ $0.responsesVersion }) else { return nil }
            let row = try reader.rows(
                "SELECT \(Self.responseColumns) FROM responses r WHERE r.partition = ? AND r.url = ? AND r.accept = ?",
                [.blob(Self.partitionBytes(key.partition)), .text(key.url), .text(key.accept)]
            ).first
            guard let row, let (found, response) = Self.response(of: row), found == key else { return nil }
            return response
        }
    }

    /// Whether a save is being written (on the queue), and how many were written: a row read while one is being
    /// written may be one it deletes (``ResourceStore/responseFromDisk(_:for:)``).
    var saves: (writing: Bool, written: UInt64) { state.withLock { ($0.writing, $0.written) } }

    // MARK: Reading records

    /// The records of `keys` that the database holds, read on the caller's thread through the reader connection
    /// (the store's lock is not held): ``idsPerQuery`` ids of a type a query (a single key, a point query), the rows
    /// parsed as one document (see ``read(_:)`` for a row that does not parse).
    ///
    /// - Parameter keys: The records' keys.
    /// - Returns: The records found, in one tape; `nil` when none is (the database holds none of them).
    /// - Throws: ``SQLiteError`` when the rows cannot be read: a failed read is not an empty one.
    func records(_ keys: some Collection<ResourceStore.Key>) throws(SQLiteError) -> ResourceRecords? {
        // The rows' objects straight into one document, parsed once; read again row by row (``read(_:)``) only
        // when one does not parse, or is not a record asked for.
        var document = Self.documentStart
        let appended = try withReader { reader throws(SQLiteError) in
            try Self.appendObjects(of: keys, in: reader, to: &document)
        }
        guard appended > 0 else { return nil }
        document.append(contentsOf: Self.documentEnd)
        if let records = try? RowCodec.records(document, offset: 0) {
            let asked = Set(keys)
            if records.resources.allSatisfy({ asked.contains(ResourceStore.Key(type: $0.type, id: $0.id)) }) {
                return records
            }
        }
        return try read { reader throws(SQLiteError) in try Self.rows(of: keys, in: reader) }
    }

    /// The start and the end of the document the rows' objects are read into (``document(of:)``).
    static let documentStart = Data(#"{"data":[],"included":["#.utf8)
    static let documentEnd = Array("]}".utf8)

    /// Appends the objects of the records of `keys` that `reader` holds to `document`, comma-separated:
    /// ``idsPerQuery`` ids of a type a query (the last padded with its last id), a point query for a single key.
    ///
    /// - Returns: How many objects were appended.
    private static func appendObjects(
        of keys: some Collection<ResourceStore.Key>, in reader: SQLiteDatabase, to document: inout Data
    ) throws(SQLiteError) -> Int {
        let comma = UInt8(ascii: ",")
        var appended = 0
        func append(_ sql: String, _ values: [SQLiteValue]) throws(SQLiteError) {
            if appended > 0 { document.append(comma) }
            let count = try reader.appendColumn(0, of: sql, values, to: &document, separator: comma)
            if count == 0, appended > 0 { document.removeLast() }  // the comma, for nothing
            appended += count
        }
        if keys.count == 1, let key = keys.first {
            try append("SELECT object FROM records WHERE type = ? AND id = ?", [.text(key.type), .text(key.id)])
            return appended
        }
        let sql = "SELECT object FROM records WHERE type = ? AND id IN ("
            + Array(repeating: "?", count: idsPerQuery).joined(separator: ", ") + ")"
        for (type, ids) in Dictionary(grouping: keys.map { ($0.type, $0.id) }, by: \.0) {
            var start = 0
            while start < ids.count {
                let chunk = ids[start..<min(start + idsPerQuery, ids.count)].map(\.1)
                start += idsPerQuery
                let padding = Array(repeating: chunk.last ?? "", count: idsPerQuery - chunk.count)
                try append(sql, [SQLiteValue.text(type)] + (chunk + padding).map { SQLiteValue.text($0) })
            }
        }
        return appended
    }

    /// Every record of `type` the database holds, read in one pass over the type's rows (what listing a type
    /// needs: one range of the `(type, id)` index, not a lookup per id), as ``records(_:)`` reads them.
    ///
    /// - Parameter type: A resource type.
    /// - Returns: The records found, in one tape (`nil` when none is), and the ids of the rows read.
    /// - Throws: ``SQLiteError`` when the rows cannot be read.
    func records(ofType type: String) throws(SQLiteError) -> (records: ResourceRecords?, ids: [String]) {
        // The rows' objects straight into one document, parsed once; only when one does not parse are they read
        // again one by one (below), the damaged ones deleted.
        var document = Self.documentStart
        let appended = try withReader { reader throws(SQLiteError) in
            try reader.appendColumn(
                0, of: "SELECT object FROM records WHERE type = ?", [.text(type)], to: &document,
                separator: UInt8(ascii: ","))
        }
        guard appended > 0 else { return (nil, []) }
        document.append(contentsOf: Self.documentEnd)
        if let records = try? RowCodec.records(document, offset: 0),
            records.resources.allSatisfy({ $0.type == type })
        {
            return (records, records.resources.map(\.id))
        }
        var ids: [String] = []
        let records = try read { reader throws(SQLiteError) -> [(key: ResourceStore.Key, object: Data)] in
            try reader.rows("SELECT id, object FROM records WHERE type = ?", [.text(type)]).compactMap { row in
                guard row.count == 2, let id = row[0].text, let object = row[1].blob else { return nil }
                ids.append(id)
                return (ResourceStore.Key(type: type, id: id), object)
            }
        }
        return (records, ids)
    }

    /// How many records of `type` the database holds (the `(type, id)` index counted, no row read).
    ///
    /// - Throws: ``SQLiteError`` when it cannot be read.
    func count(ofType type: String) throws(SQLiteError) -> Int {
        let count = try withReader { reader throws(SQLiteError) in
            try reader.rows("SELECT count(*) FROM records WHERE type = ?", [.text(type)]).first?.first?.integer
        }
        return Int(clamping: count ?? 0)
    }

    /// `body`'s value, run with the pool's reader connection on its queue (the caller's thread waits), or its
    /// error. Damage (``SQLiteError/isDamage``) is noted, for the caller to have the file set aside
    /// (``setAsideIfDamaged(for:)``).
    private func withReader<Value>(_ body: (SQLiteDatabase) throws(SQLiteError) -> Value) throws(SQLiteError) -> Value {
        do {
            return try pool.read(body)
        } catch {
            if error.isDamage { marks.withLock { $0.damage = error } }
            throw error
        }
    }

    /// The rows `query` reads through the reader connection (the caller's thread waiting), parsed as one
    /// document; a row that does not parse is left out and deleted on the queue (unless a save replaced it
    /// meanwhile), logged with its count; a database that cannot be read throws.
    private func read(
        _ query: (SQLiteDatabase) throws(SQLiteError) -> [(key: ResourceStore.Key, object: Data)]
    ) throws(SQLiteError) -> ResourceRecords? {
        #if DEBUG
        rowByRow.withLock { $0 += 1 }
        #endif
        let rows = try withReader(query)
        guard !rows.isEmpty else { return nil }
        if let records = try? RowCodec.records(Self.document(of: rows.map(\.object)), offset: 0) { return records }
        var readable: [Data] = []
        var damaged: [(key: ResourceStore.Key, object: Data)] = []
        for row in rows {
            if (try? RowCodec.records(Self.document(of: [row.object]), offset: 0)) != nil {
                readable.append(row.object)
            } else {
                damaged.append(row)
            }
        }
        persistence.log("JSONAPIClient store: \(damaged.count) records did not read and were deleted")
        queue.async { [self, damaged] in
            do throws(SQLiteError) {
                try transaction { database throws(SQLiteError) in
                    for (key, object) in damaged {
                        try database.execute(
                            "DELETE FROM records WHERE type = ? AND id = ? AND object = ?",
                            [.text(key.type), .text(key.id), .blob(object)])
                    }
                }
            } catch {
                persistence.log("JSONAPIClient store: records that did not read were not deleted: \(error)")
                if error.isDamage { setAside(error) }
            }
        }
        return try? RowCodec.records(Self.document(of: readable), offset: 0)
    }

    /// How many ids one query asks for (the last query's list is padded with its last id): one prepared statement
    /// for any number of keys, and a page's keys in a few queries instead of a query each (a merge asks for every
    /// key it brings, most of them found nowhere).
    static let idsPerQuery = 64

    /// The rows of the records of `keys` that `database` holds, each with its key: ``idsPerQuery`` ids of a type a
    /// query.
    private static func rows(
        of keys: some Collection<ResourceStore.Key>, in database: SQLiteDatabase
    ) throws(SQLiteError) -> [(key: ResourceStore.Key, object: Data)] {
        var rows: [(key: ResourceStore.Key, object: Data)] = []
        for (type, ids) in Dictionary(grouping: keys.map { ($0.type, $0.id) }, by: \.0) {
            for (id, object) in try Self.rows(of: ids.map(\.1), type: type, in: database) {
                rows.append((ResourceStore.Key(type: type, id: id), object))
            }
        }
        return rows
    }

    /// The rows of the records of `type` with `ids`, through `reader`: one point query for a single id, else
    /// ``idsPerQuery`` ids a query, through the `(type, id)` index.
    ///
    /// - Throws: ``SQLiteError`` when they cannot be read, or when a query answers a row it did not ask for (a
    ///   read that gets other rows than asked ends, never placing them).
    static func rows(of ids: [String], type: String, in reader: SQLiteDatabase) throws(SQLiteError) -> [(
        id: String, object: Data
    )] {
        if ids.count == 1, let id = ids.first {
            let row = try reader.rows("SELECT object FROM records WHERE type = ? AND id = ?", [.text(type), .text(id)])
            return row.first?.first?.blob.map { [(id, $0)] } ?? []
        }
        let sql = "SELECT id, object FROM records WHERE type = ? AND id IN ("
            + Array(repeating: "?", count: idsPerQuery).joined(separator: ", ") + ")"
        var found: [(id: String, object: Data)] = []
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + idsPerQuery, ids.count)]
            start += idsPerQuery
            let padding = Array(repeating: chunk.last ?? "", count: idsPerQuery - chunk.count)
            let values = [SQLiteValue.text(type)] + (chunk + padding).map { SQLiteValue.text($0) }
            let asked = Set(chunk)
            for row in try reader.rows(sql, values) {
                guard row.count == 2, let id = row[0].text, let object = row[1].blob else { continue }
                guard asked.contains(id) else {
                    throw SQLiteError(
                        code: SQLiteError.misuse, message: "a query answered a row it did not ask for",
                        operation: "reading records of a type")
                }
                found.append((id, object))
            }
        }
        return found
    }

    /// A body as the database keeps it: whole, or its outline (``ResponseOutline``), which the store rebuilds from
    /// its records.
    enum StoredBody: Equatable {
        case whole(Data)
        case outline(ResponseOutline)
    }

    /// The body left in the database as `unread` (``StoredResponse/unreadBody``) for the response under `key`,
    /// through the reader connection on the caller's thread: read only while the response's row still names it, so
    /// that a row id another process gave to another body since is never read as this one's.
    ///
    /// - Parameters:
    ///   - unread: Where the body is.
    ///   - key: The response's key.
    /// - Returns: The body; `nil` when it is gone (another process replaced the response) or cannot be read (logged).
    func body(_ unread: StoredResponse.UnreadBody, for key: ResponseKey) -> StoredBody? {
        let row: [SQLiteValue]?
        do throws(SQLiteError) {
            row = try withReader { reader throws(SQLiteError) -> [SQLiteValue]? in
                try reader.rows(
                    "SELECT b.body, r.whole_size FROM responses r JOIN response_bodies b ON b.id = r.body_id "
                        + "WHERE r.partition = ? AND r.url = ? AND r.accept = ? AND r.body_id = ?",
                    [.blob(Self.partitionBytes(key.partition)), .text(key.url), .text(key.accept), .integer(unread.id)]
                ).first
            }
        } catch {
            persistence.log("JSONAPIClient store: could not read a stored response's body (\(error)); it is fetched again")
            return nil
        }
        guard let row, row.count == 2, let bytes = row[0].blob else { return nil }
        guard row[1].integer != nil else { return .whole(bytes) }
        do {
            return .outline(try ResponseOutline(bytes: bytes))
        } catch {
            persistence.log("JSONAPIClient store: a stored response's body did not read (\(error.description)); it is fetched again")
            return nil
        }
    }

    /// The document whose `included` is `objects` (resource objects as JSON), as the records read back: every
    /// member of `included` is a resource object, where primary data would read one without fields as an
    /// identifier.
    static func document(of objects: [Data]) -> Data {
        var document = documentStart
        document.reserveCapacity(objects.reduce(64) { $0 + $1.count + 1 })
        for (index, object) in objects.enumerated() {
            if index > 0 { document.append(UInt8(ascii: ",")) }
            document.append(object)
        }
        document.append(contentsOf: documentEnd)
        return document
    }

    // MARK: Writing

    /// Notes a change of `store` and schedules a save `delay` from now, unless one is scheduled.
    ///
    /// The scheduled save holds the store and this writer weakly: a store dropped before it runs hands what changed
    /// to ``saveRemaining(_:)`` as it goes, so a dropped session keeps neither alive until the delay ends (with its
    /// database open), and loses nothing.
    func schedule(_ store: ResourceStore) {
        let start = state.withLock { state -> Bool in
            state.requested &+= 1
            guard !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        guard start else { return }
        queue.asyncAfter(deadline: .now() + Self.interval(persistence.delay)) { [weak self, weak store] in
            guard let self else { return }
            state.withLock { $0.scheduled = false }
            guard let store else { return }  // gone: its deinit handed its changes over
            if let error = save(store) { persistence.log("JSONAPIClient store: not saved: \(error.detail)") }
        }
    }

    /// Writes, on the queue, the changes a store handed over as it went (`ResourceStore.deinit`); a failure is
    /// logged, since no one is left to tell.
    func saveRemaining(_ changes: ResourceStore.Unsaved) {
        guard !changes.records.isEmpty || !changes.responses.isEmpty else { return }
        queue.async { [self] in
            do throws(SQLiteError) {
                try write(changes)
            } catch {
                persistence.log("JSONAPIClient store: the last changes of a store that went were not saved: \(error)")
                if error.isDamage { setAside(error) }
            }
        }
    }

    /// Saves what changed in `store`, unless nothing did since the last save, and returns when it is committed.
    ///
    /// - Throws: ``JSONAPIClientError/Code/storeNotSaved`` when the save failed; the database holds the previous
    ///   save, and the next one writes these changes too.
    func flush(_ store: ResourceStore) async throws(JSONAPIClientError) {
        let error: JSONAPIClientError? = await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: save(store)) }
        }
        if let error { throw error }
    }

    /// Returns once what was handed to the queue before the call is written (or failed).
    func drained() async {
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
    }

    /// Closes both connections once what was handed to the queue before is written (or failed), and returns then:
    /// for a writer whose account's files are about to be removed (``Session/signOut(removingData:)``). Every later
    /// read or save fails (SQLITE_MISUSE); nothing opens the file again.
    func close() async {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                if !closed {
                    closed = true
                    pool.detachOnQueue()
                }
                continuation.resume()
            }
        }
    }

    // MARK: Another process's saves

    /// Tells `store` from now on of the records another process saves (``ResourceStore/recordsSavedElsewhere(_:by:)``):
    /// the pool looks for that process's commits every second (``DatabasePool/watch()``).
    func follow(_ store: ResourceStore) {
        follower.withLock { $0.store = store }
        queue.async { [self] in
            guard !closed else { return }
            do throws(SQLiteError) {
                try pool.withWriter { database throws(SQLiteError) in
                    seenRowid = try Self.maxRowid(in: database)
                    lookedVersion = try DatabasePool.dataVersion(of: database)
                }
            } catch {
                persistence.log("JSONAPIClient store: cannot follow another process's saves yet (\(error))")
            }
            pool.watch()
        }
    }

    /// Another process committed: the rows of `records` written since the last look (a save replaces a row
    /// whole, which gives it the next rowid) are read, in chunks of ``elsewhereChunk``, and handed to the store.
    /// Rows this writer wrote come with them when no look came between; the store passes over what it holds
    /// already. On the queue. (A row deleted, or given a rowid at or below one looked at — after the rows above it
    /// were deleted — is not seen: the store reads it when next asked.) A read that fails is made again from where
    /// it stopped at the pool's next look.
    func poolFileChangedElsewhere(_ database: SQLiteDatabase) -> Bool {
        guard !closed, let store = follower.withLock({ $0.store }) else { return true }
        lookedVersion = try? DatabasePool.dataVersion(of: database)
        var chunks: [ResourceRecords] = []
        var read = true
        // Bounded: each turn reads rows above the highest read before, or ends.
        for _ in 0..<100_000 {
            guard let rows = try? database.rows(
                "SELECT rowid, object FROM records WHERE rowid > ? ORDER BY rowid LIMIT ?",
                [.integer(seenRowid), .integer(Int64(Self.elsewhereChunk))])
            else {
                read = false
                break
            }
            var objects: [Data] = []
            for row in rows {
                guard row.count == 2, let rowid = row[0].integer, rowid > seenRowid else { continue }
                seenRowid = rowid
                #if DEBUG
                rowsReadElsewhere += 1
                #endif
                if let object = row[1].blob { objects.append(object) }
            }
            if let records = Self.parsed(objects) { chunks.append(records) }
            if rows.count < Self.elsewhereChunk { break }
        }
        if !chunks.isEmpty {
            elsewhere.async { [self, weak store, chunks] in
                for records in chunks { store?.recordsSavedElsewhere(records, by: self) }
            }
        }
        return read
    }

    /// Looks for another process's commits now, as the pool's timer does, and returns once what was found was
    /// handed to the store (for tests).
    func pollNow() {
        pool.pollNow()
        elsewhere.sync {}
    }

    /// After this writer's own save: when no other connection committed since the last look, every row above it
    /// is this writer's, and the next look starts above them. On the queue.
    private func noteOwnSave(in database: SQLiteDatabase) {
        guard lookedVersion != nil, let version = try? DatabasePool.dataVersion(of: database), version == lookedVersion,
            let top = try? Self.maxRowid(in: database)
        else { return }
        seenRowid = max(seenRowid, top)
    }

    /// The highest rowid of `records` (0 when empty).
    private static func maxRowid(in database: SQLiteDatabase) throws(SQLiteError) -> Int64 {
        try database.rows("SELECT max(rowid) FROM records").first?.first?.integer ?? 0
    }

    /// Resource objects (JSON) read as records, in one tape; one that does not parse is left out.
    static func parsed(_ objects: [Data]) -> ResourceRecords? {
        guard !objects.isEmpty else { return nil }
        if let records = try? RowCodec.records(document(of: objects), offset: 0) { return records }
        let readable = objects.filter { (try? RowCodec.records(document(of: [$0]), offset: 0)) != nil }
        return readable.isEmpty ? nil : try? RowCodec.records(document(of: readable), offset: 0)
    }

    // MARK: Damage

    /// Sets the file aside when a read through the reader connection met damage (`SQLITE_CORRUPT`,
    /// `SQLITE_NOTADB`: a page of the file, which opening does not read), on the queue after any save in
    /// progress, then empties `store` (``ResourceStore/startEmpty(after:)``): as at open, the store goes on with a
    /// new file, and the next launch reads what is saved from then on. Nothing when no read met damage.
    ///
    /// - Parameter store: The store whose read met it.
    func setAsideIfDamaged(for store: ResourceStore) {
        guard marks.withLock({ $0.damage != nil }) else { return }
        queue.async { [self, weak store] in
            // Taken on the queue: a second report of the same damage, or one met before a set-aside, finds none.
            guard let damage = marks.withLock({ marks in defer { marks.damage = nil }; return marks.damage }) else {
                return
            }
            setAside(damage)
            guard store?.startEmpty(after: self) == true else { return }
            state.withLock {
                $0.lost = "\(pool.path) was damaged (\(damage)) and set aside before changes were saved: the "
                    + "store starts empty, and they are not saved"
            }
        }
    }

    /// Sets the damaged file aside whole (``DatabasePool/setAside(_:subject:outcome:)``: renamed with its `-wal`,
    /// logged, as at open) and opens a new one in its place, into which this writer writes its partition key
    /// (``poolReplacedFile(_:)``) and the write queue its entries. On the queue. When the new file cannot be opened
    /// (logged), every save fails (`storeNotSaved`), and every read of rows too (`storeNotRead`; the store answers
    /// with what it holds), until it can.
    private func setAside(_ damage: SQLiteError) {
        marks.withLock { $0.damage = nil }
        pool.setAside(damage, subject: "JSONAPIClient store", outcome: "the store starts empty")
    }

    /// The file was set aside and `database` opened in its place: it gets this writer's partition key. Another
    /// process may have made the new file first, with a key of its own: it keeps it (a response saved under this
    /// one is then only revalidated at the next launch). On the queue.
    func poolReplacedFile(_ database: SQLiteDatabase) {
        do throws(SQLiteError) {
            try database.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", [.text(Self.keyRow), .blob(Data(key.bytes))])
        } catch {
            persistence.log("JSONAPIClient store: the new database did not take the partition key (\(error))")
        }
        writtenSinceTrim = 0
        savesSinceTrim = 0
    }

    /// `body`'s value, run in a write transaction on the pool's writer connection (``DatabasePool/transaction(ifSuspended:_:)``).
    /// On the queue; fails once closed.
    private func transaction<T>(_ body: (SQLiteDatabase) throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !closed else {
            throw SQLiteError(code: SQLiteError.misuse, message: "the store's database was closed", operation: "saving")
        }
        return try pool.transaction(body)
    }

    // MARK: Facts

    /// The value of `row` in the `meta` table (the records' owner, the credential renewals), read through the reader
    /// connection on the caller's thread; `nil` when there is none or it cannot be read.
    func meta(_ row: String) -> SQLiteValue? {
        try? withReader { reader throws(SQLiteError) in
            try reader.rows("SELECT value FROM meta WHERE key = ?", [.text(row)]).first?.first
        }
    }

    /// Sets `row` of the `meta` table to `value` on the queue, after any save in progress — and, when
    /// `removingRecords`, deletes every record in the same transaction (their owner changed: ``ResourceStore/admit(_:)``),
    /// the bodies kept as outlines written whole first, since the stored responses stay (each answers its own
    /// credentials). A failure is logged: the row is set again at the next change.
    func setMeta(_ row: String, _ value: SQLiteValue, removingRecords: Bool = false) {
        queue.async { [self] in
            do throws(SQLiteError) {
                try transaction { database throws(SQLiteError) in
                    if removingRecords {
                        try writeOutlinesWhole(in: database)
                        try database.execute("DELETE FROM records")
                    }
                    try database.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [.text(row), value])
                }
            } catch {
                persistence.log("JSONAPIClient store: could not keep \(row): \(error)")
                if error.isDamage { setAside(error) }
            }
        }
    }

    /// Writes each body kept as an outline whole, from the records' rows (in the caller's transaction, before they
    /// are deleted); one whose records are not all there stays an outline, and its response is fetched again when
    /// next used.
    private func writeOutlinesWhole(in database: SQLiteDatabase) throws(SQLiteError) {
        let rows = try database.rows(
            "SELECT r.rowid, b.id, b.body FROM responses r JOIN response_bodies b ON b.id = r.body_id "
                + "WHERE r.whole_size IS NOT NULL")
        for row in rows {
            guard row.count == 3, let response = row[0].integer, let body = row[1].integer, let bytes = row[2].blob,
                let outline = try? ResponseOutline(bytes: bytes)
            else { continue }
            let objects = Dictionary(try Self.rows(of: outline.keys, in: database), uniquingKeysWith: { first, _ in first })
            let whole = outline.body { key, body in
                guard let object = objects[key] else { return false }
                body.append(contentsOf: object)
                return true
            }
            guard let whole else { continue }
            try database.execute("UPDATE response_bodies SET body = ? WHERE id = ?", [.blob(whole), .integer(body)])
            try database.execute("UPDATE responses SET whole_size = NULL WHERE rowid = ?", [.integer(response)])
        }
    }

    /// Deletes every record and response on the queue, after any save in progress, without waiting for it: a
    /// ``flush(_:)`` after this returns once they are deleted. (The store reads no row after its ``ResourceStore/clear()``.)
    func removeAll() {
        queue.async { [self] in
            do throws(SQLiteError) {
                try transaction { database throws(SQLiteError) in
                    try database.execute("DELETE FROM records")
                    try database.execute("DELETE FROM responses")
                    try database.execute("DELETE FROM response_bodies")
                }
            } catch {
                persistence.log("JSONAPIClient store: not cleared: \(error)")
                if error.isDamage { setAside(error) }  // a new file: cleared all the same
            }
        }
    }

    /// Writes the rows `store` changed since the last save (on the queue).
    /// A set-aside that lost changes handed over before it is reported by the next save, whatever it writes.
    private func save(_ store: ResourceStore) -> JSONAPIClientError? {
        let (target, saved, lost) = state.withLock { state in
            defer { state.lost = nil }
            return (state.requested, state.saved, state.lost)
        }
        guard target != saved || lost != nil else { return nil }
        state.withLock { $0.writing = true }
        defer {
            state.withLock { state in
                state.writing = false
                state.written &+= 1
            }
        }
        let changes = store.takeUnsaved(for: self)
        do throws(SQLiteError) {
            try write(changes)
        } catch {
            if error.isDamage {
                setAside(error)
                store.startEmpty(after: self)
                return JSONAPIClientError(
                    code: .storeNotSaved,
                    detail: "\(pool.path) was damaged (\(error)) and set aside: the store starts empty, and these "
                        + "changes are not saved", underlyingError: error)
            }
            store.restoreUnsaved(records: Set(changes.records.map(\.key)), responses: Set(changes.responses.map(\.key)))
            return JSONAPIClientError(
                code: .storeNotSaved, detail: "saving to \(pool.path) failed: \(error)", underlyingError: error)
        }
        state.withLock { $0.saved = max($0.saved, target) }
        if let lost { return JSONAPIClientError(code: .storeNotSaved, detail: lost) }
        return nil
    }

    /// Writes what a store changed, least recently used first (so that reading by rowid reads that order back).
    private func write(_ changes: ResourceStore.Unsaved) throws(SQLiteError) {
        let records = changes.records.sorted { ($0.record?.lastUse ?? 0) < ($1.record?.lastUse ?? 0) }
        let responses = changes.responses.sorted { ($0.response?.lastUse ?? 0) < ($1.response?.lastUse ?? 0) }
        try write(records: records.map { ($0.key, $0.record?.stored) }, responses: responses, beneath: changes.beneath)
    }

    /// Replaces or deletes the rows of `records` and `responses` (`nil`: gone) in one transaction; the record of a
    /// key of `beneath` has the row it replaces merged under it (``ResourceStore/Unsaved/beneath``).
    private func write(
        records: [(key: ResourceStore.Key, record: ResourceRecord?)],
        responses: [(key: ResponseKey, response: StoredResponse?)], beneath: Set<ResourceStore.Key> = []
    ) throws(SQLiteError) {
        guard !records.isEmpty || !responses.isEmpty else { return }
        try transaction { database throws(SQLiteError) in
            var bytes: [UInt8] = []
            for (key, record) in records {
                guard var record else {
                    try database.execute("DELETE FROM records WHERE type = ? AND id = ?", [.text(key.type), .text(key.id)])
                    continue
                }
                if beneath.contains(key) { record = try mergedUnder(record, for: key, in: database) }
                bytes.removeAll(keepingCapacity: true)
                record.write(into: &bytes)
                try database.execute(
                    "INSERT OR REPLACE INTO records (type, id, object) VALUES (?, ?, ?)",
                    [.text(key.type), .text(key.id), .blob(Data(bytes))])
            }
            for (key, stored) in responses { try write(stored, for: key, in: database) }
            if !records.isEmpty { try trim(afterWriting: records.count, in: database) }
        }
        if !records.isEmpty { try? pool.withWriter { database throws(SQLiteError) in noteOwnSave(in: database) } }
    }

    /// `record` with the row of `key` the store never read merged under it, member by member (the record's
    /// winning), read in the caller's transaction: what the store would hold had the row read before the merge.
    /// The record as it is when there is no row; a row that does not read is replaced (it was never the store's).
    ///
    /// - Throws: ``SQLiteError`` when the row cannot be read: the save fails, and nothing overwrites the row.
    private func mergedUnder(
        _ record: ResourceRecord, for key: ResourceStore.Key, in database: SQLiteDatabase
    ) throws(SQLiteError) -> ResourceRecord {
        guard let row = try Self.rows(of: [key.id], type: key.type, in: database).first,
            let records = try? RowCodec.records(Self.document(of: [row.object]), offset: 0),
            let entry = records.resources.first
        else { return record }
        let merged = ResourceStore.merged(entry.record(in: records).resourceObject(), with: record.resourceObject())
        return (try? ResourceRecord(merged)) ?? record
    }

    /// Deletes the least recently written records past ``maxRecords`` (in the caller's transaction): the database
    /// holds records a store never read since it opened (its eviction removes only those it holds), so a store
    /// that meets new resources at each launch does not grow its file without end. A store that still holds a
    /// record trimmed here keeps showing it, and writes it again when it changes.
    ///
    /// Counting the rows past the limit walks as many index entries as the limit, once the rowids span more than
    /// it (a replaced row leaves a gap): it is done once a tenth of the limit's rows were written since the last
    /// count, or every ``trimEvery`` saves — amortised to a few steps per row written, where a count at each save
    /// cost a one-record save 7–11 ms at 41,000 records. Until then the file may hold up to that many rows more.
    ///
    /// - Parameter written: The rows this save wrote.
    private func trim(afterWriting written: Int, in database: SQLiteDatabase) throws(SQLiteError) {
        writtenSinceTrim += written
        savesSinceTrim += 1
        guard writtenSinceTrim >= max(maxRecords / 10, 1) || savesSinceTrim >= Self.trimEvery else { return }
        writtenSinceTrim = 0
        savesSinceTrim = 0
        let limit = Int64(clamping: max(maxRecords, 0))
        let span = try database.rows("SELECT max(rowid) - min(rowid) + 1 FROM records").first?.first?.integer ?? 0
        guard span > limit else { return }
        guard limit > 0 else {
            try database.execute("DELETE FROM records")
            return
        }
        try database.execute(
            "DELETE FROM records WHERE rowid < (SELECT rowid FROM records ORDER BY rowid DESC LIMIT 1 OFFSET ?)",
            [.integer(limit - 1)])
    }

    /// Replaces or deletes the rows of the response under `key` (in the caller's transaction): its body's row only
    /// when the body is not the one stored (compared byte for byte, once the lengths agree: a body of another
    /// length is not read back), so that a `304` or the same body fetched again writes the small row alone. A body
    /// is written as its outline (``ResponseOutline``) when it has one — its resources are the records' rows, which
    /// the store saves with it — else whole.
    private func write(_ stored: StoredResponse?, for key: ResponseKey, in database: SQLiteDatabase) throws(SQLiteError) {
        let keyValues: [SQLiteValue] = [.blob(Self.partitionBytes(key.partition)), .text(key.url), .text(key.accept)]
        let old = try database.rows(
            "SELECT r.body_id, length(b.body), r.whole_size FROM responses r "
                + "LEFT JOIN response_bodies b ON b.id = r.body_id WHERE r.partition = ? AND r.url = ? AND r.accept = ?",
            keyValues
        ).first
        let oldBody = old?.first?.integer
        guard let stored else {
            if let oldBody { try database.execute("DELETE FROM response_bodies WHERE id = ?", [.integer(oldBody)]) }
            try database.execute("DELETE FROM responses WHERE partition = ? AND url = ? AND accept = ?", keyValues)
            return
        }
        let bodyID: Int64
        let wholeSize: SQLiteValue
        if let unread = stored.unreadBody {
            // The body was never read: it is still the row's, unless another process replaced the response (then
            // its newer row stays), and kept as it was.
            guard oldBody == unread.id else { return }
            bodyID = unread.id
            wholeSize = old?.last ?? .null
        } else {
            let whole = stored.response.body
            let outline = ResponseOutline(body: whole)
            let body = outline?.bytes ?? whole
            wholeSize = outline == nil ? .null : .integer(Int64(whole.count))
            if let oldBody, old?.dropFirst().first?.integer == Int64(body.count), old?.last == wholeSize,
                try database.rows("SELECT body FROM response_bodies WHERE id = ?", [.integer(oldBody)]).first?.first?.blob
                    == body
            {
                bodyID = oldBody
            } else {
                if let oldBody { try database.execute("DELETE FROM response_bodies WHERE id = ?", [.integer(oldBody)]) }
                try database.execute("INSERT INTO response_bodies (body) VALUES (?)", [.blob(body)])
                bodyID = database.lastInsertRowID
            }
        }
        var withoutBody = stored
        withoutBody.response.body = Data()
        withoutBody.unreadBody = nil
        try database.execute(
            "INSERT OR REPLACE INTO responses (partition, url, accept, response, body_id, whole_size) VALUES (?, ?, ?, ?, ?, ?)",
            keyValues + [.blob(Data(RowCodec.responseBytes(withoutBody, for: key))), .integer(bodyID), wholeSize])
    }

    /// A partition digest's 16 bytes, the responses' key column.
    static func partitionBytes(_ digest: CredentialDigest) -> Data {
        var writer = ByteWriter()
        writer.append(digest.high)
        writer.append(digest.low)
        return Data(writer.bytes)
    }

    /// `delay` as a dispatch interval: milliseconds, from zero to an hour (so it fits a 32-bit `Int`).
    static func interval(_ delay: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = delay.components
        guard seconds >= 0 else { return .milliseconds(0) }
        guard seconds < 3600 else { return .milliseconds(3_600_000) }
        return .milliseconds(Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}

/// What only Apple platforms do to a store's files; nothing elsewhere.
enum Platform {
    /// Excludes `directory` from backups and, unless `protection` is the app's default, gives it the protection
    /// class the files made in it take (files made before keep theirs).
    static func protectDirectory(_ directory: URL, _ protection: ResourceStore.Persistence.FileProtection) {
        #if canImport(Darwin)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = directory
        try? url.setResourceValues(values)
        if let type = fileProtectionType(protection) { try? FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: directory.path) }
        #endif
    }

    #if canImport(Darwin)
    /// Foundation's class for `protection`; `nil` for the app's own.
    private static func fileProtectionType(_ protection: ResourceStore.Persistence.FileProtection) -> FileProtectionType? {
        switch protection {
        case .appDefault: nil
        case .complete: .complete
        case .completeUnlessOpen: .completeUnlessOpen
        case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
        case .none: FileProtectionType.none
        }
    }
    #endif

    /// Gives the database at `path` and SQLite's `-wal` and `-shm` beside it, those that exist, the class
    /// `protection` names, before a connection opens them: the folder's class reaches only the files made after it
    /// was set, so a database made under another class (the app's default, or an earlier configuration) would keep
    /// its own. Nothing for ``ResourceStore/Persistence/FileProtection/appDefault``, nor elsewhere than on Apple
    /// platforms.
    static func protectFiles(at path: String, _ protection: ResourceStore.Persistence.FileProtection) {
        #if canImport(Darwin)
        guard let type = fileProtectionType(protection) else { return }
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try? FileManager.default.setAttributes([.protectionKey: type], ofItemAtPath: file)
        }
        #endif
    }

    /// The `sqlite3_open_v2` flag that gives the files a connection makes (the `-wal` and `-shm` first of all) the
    /// class `protection` names, on iOS, tvOS, watchOS and visionOS (Apple's SQLite: `SQLITE_OPEN_FILEPROTECTION_*`,
    /// whose values these are); 0 for ``ResourceStore/Persistence/FileProtection/appDefault``, on macOS (whose
    /// volumes need not support the classes) and elsewhere.
    static func openFlags(_ protection: ResourceStore.Persistence.FileProtection) -> Int32 {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        switch protection {
        case .appDefault: return 0
        case .complete: return 0x0010_0000  // SQLITE_OPEN_FILEPROTECTION_COMPLETE
        case .completeUnlessOpen: return 0x0020_0000  // SQLITE_OPEN_FILEPROTECTION_COMPLETEUNLESSOPEN
        case .completeUntilFirstUserAuthentication: return 0x0030_0000  // …_COMPLETEUNTILFIRSTUSERAUTHENTICATION
        case .none: return 0x0040_0000  // SQLITE_OPEN_FILEPROTECTION_NONE
        }
        #else
        return 0
        #endif
    }
}
