import Foundation
import JSONAPIClientCore

/// A persisted store reads what is asked: opening reads no record, and a read, a merge or a write that needs a
/// record the store has not read yet reads its row first (a "fault", as Core Data calls it).
///
/// The order is always the same, and the store's lock is never held across the database:
/// 1. under the lock, the keys still needed (``RecordTable/needsRead(_:)``: the database may hold them, the store
///    holds no record of them, and no read or removal settled them);
/// 2. without it, their rows, read through the writer's reader connection (``StoreWriter/records(_:)``);
/// 3. under the lock again, each row placed — unless a merge or a removal settled its key meanwhile (the newer
///    wins) — and every key asked noted as read, found or not, so that none is read twice.
///
/// **A read that fails is not an empty one.** When the rows cannot be read (`SQLITE_IOERR`, `SQLITE_BUSY`, …) the
/// read is tried again, up to ``readAttempts`` times in all; then it ends with the error (logged), and no key asked
/// is noted as read, nor the type as listed: the next use reads them again. A read that meets damage
/// (`SQLITE_CORRUPT`, `SQLITE_NOTADB`) has the file set aside, and the store goes on empty
/// (``StoreWriter/setAsideIfDamaged(for:)``). A record merged meanwhile over a row not
/// read is placed over it (``RecordTable/unreadBeneath``): the row is merged under it once it reads, and a save
/// merges the row under it in its transaction, so a sparse fieldset never replaces a whole row.
///
/// A typed read meets the keys it needs as its walk follows linkage: ``graph(from:)`` reads them and walks again,
/// one step of linkage deeper each time. A merge reads the rows of the resources it brings before merging, so that a
/// sparse fieldset merges member by member with what the database holds, as it does with a record in memory.
extension ResourceStore {
    /// Reads the rows of the records of `keys` the store still needs (see the extension's comment); nothing in
    /// memory only, or once the store read its database whole or was cleared.
    ///
    /// - Parameter keys: The keys a read, merge or write is about to use.
    /// - Returns: Success when every row needed was read (or none was needed); the database's error when they
    ///   could not be read after ``readAttempts`` tries (logged): none of them is noted as read.
    ///
    /// A type of which a read asks for many rows (``wholeTypeAt`` or more, and a quarter of the type's rows or more:
    /// a list read at launch, its related records) is read in one pass over its rows (``faultIn(type:)``) instead
    /// of by id.
    @discardableResult
    func faultIn(_ keys: some Sequence<Key>) -> Result<Void, SQLiteError> {
        guard isPersisted else { return .success(()) }
        let (reader, asked, epoch) = readingDisk { state -> ([Key], [Key]) in
            var seen = Set<Key>()
            var needed: [Key] = []
            var readBefore: [Key] = []
            for key in keys {
                switch state.records.rowNeed(key) {
                case .row: if seen.insert(key).inserted { needed.append(key) }
                case .readWithoutRecord: if seen.insert(key).inserted { readBefore.append(key) }
                case .none: break
                }
            }
            return (needed, readBefore)
        }
        guard let writer = reader, let (asked, readBefore) = asked else { return .success(()) }
        var needed = asked
        // Rows read before without a record may have been saved since by another connection: read again then.
        if !readBefore.isEmpty, forgetReadsIfChanged(writer) {
            needed += state.withLock { state in readBefore.filter { state.records.needsRead($0) } }
        }
        guard !needed.isEmpty else { return .success(()) }
        if needed.count >= Self.wholeTypeAt {
            for (type, asked) in Dictionary(grouping: needed, by: \.type) where asked.count >= Self.wholeTypeAt {
                // A count that cannot be read reads by id.
                guard state.withLock({ $0.records.needsIDs(of: type) }),
                    case .success(let count) = attempts({ () throws(SQLiteError) in try writer.count(ofType: type) }),
                    asked.count * 4 >= count
                else { continue }
                if case .failure(let error) = faultIn(type: type) { return .failure(error) }
                needed.removeAll { $0.type == type }
            }
            guard !needed.isEmpty else { return .success(()) }
        }
        switch attempts({ () throws(SQLiteError) in try writer.records(needed) }) {
        case .success(let records):
            place(records, asked: needed, epoch: epoch)
            return .success(())
        case .failure(let error):
            writer.persistence.log(
                "JSONAPIClient store: could not read \(needed.count) records (\(error)); they are read again when next used")
            writer.setAsideIfDamaged(for: self)
            return .failure(error)
        }
    }

    /// The writer, what `asked` finds to read, and the clear count, in one lock section (`nil`s when the store
    /// reads no rows now). A switch of account changes the writer and the count together, inside the state's lock:
    /// rows read through this writer are placed only while this count holds (``place(_:asked:epoch:)``), so one
    /// account's rows never land in another's records, whatever thread switches meanwhile.
    private func readingDisk<Asked>(_ asked: (State) -> Asked?) -> (StoreWriter?, Asked?, UInt64) {
        state.withLock { state in
            guard state.records.readsDisk, let writer = state.backing.writer else {
                return (nil, nil, state.clears)
            }
            return (writer, asked(state), state.clears)
        }
    }

    /// Forgets which rows were read (``RecordTable/forgetReads()``) when another connection committed to the
    /// database since the store last asked (`PRAGMA data_version`: ``StoreWriter/recordsChanged()``) — another
    /// process, another store on the directory, or this store's own save — unless a save is being written (its
    /// deletions are not committed yet: the rows are forgotten at a later ask).
    ///
    /// - Returns: Whether they were forgotten.
    @discardableResult
    func forgetReadsIfChanged(_ writer: StoreWriter) -> Bool {
        let (changed, version) = writer.recordsChanged()
        guard changed else { return false }
        let forgot = state.withLock { state -> Bool in
            guard !writer.saves.writing else { return false }
            state.records.forgetReads()
            return true
        }
        if forgot { writer.noteRecordsRead(at: version) }
        return forgot
    }

    /// The error a public read throws when rows it needed could not be read (``JSONAPIClientError/Code/storeNotRead``).
    static func notRead(_ error: SQLiteError) -> JSONAPIClientError {
        JSONAPIClientError(
            code: .storeNotRead, detail: "the store could not read its database: \(error)", underlyingError: error)
    }

    /// How many keys of one type a fault asks for before it considers reading the whole type.
    static let wholeTypeAt = 256

    /// How many times a read of rows is tried before it ends with its error: a busy or failing read is often
    /// transient, and the store's lock is not held meanwhile. Damage is not: a read that meets it ends at once,
    /// and the file is set aside (``StoreWriter/setAsideIfDamaged(for:)``).
    static let readAttempts = 3

    /// `read`'s value, tried up to ``readAttempts`` times while it fails.
    private func attempts<Value>(_ read: () throws(SQLiteError) -> Value) -> Result<Value, SQLiteError> {
        var attempt = 1
        while true {
            do throws(SQLiteError) {
                return .success(try read())
            } catch {
                guard attempt < Self.readAttempts, !error.isDamage else { return .failure(error) }
                attempt += 1
            }
        }
    }

    /// Reads every row of `type`, once, in one pass, and places the records the store still needs: what listing
    /// every record of a type needs.
    ///
    /// - Parameter type: A resource type.
    /// - Returns: Success when the rows were read (or did not need to be); the database's error when they could
    ///   not be (logged): the type is not noted as listed, and the next listing reads it again.
    @discardableResult
    func faultIn(type: String) -> Result<Void, SQLiteError> {
        if let writer, state.withLock({ $0.records.listed(type) }) { forgetReadsIfChanged(writer) }
        let (reader, needed, epoch) = readingDisk { $0.records.needsIDs(of: type) ? true : nil }
        guard let writer = reader, needed == true else { return .success(()) }
        switch attempts({ () throws(SQLiteError) in try writer.records(ofType: type) }) {
        case .success(let (records, ids)):
            guard place(records, asked: ids.map { Key(type: type, id: $0) }, epoch: epoch) else { return .success(()) }
            state.withLock { $0.records.noteIDsRead(of: type) }
            return .success(())
        case .failure(let error):
            writer.persistence.log(
                "JSONAPIClient store: could not list the records of a type (\(error)); it is read again when next listed")
            writer.setAsideIfDamaged(for: self)
            return .failure(error)
        }
    }

    /// Reads the rows the bodies waiting to be merged will merge into, before they are merged: each body not
    /// handed over yet is parsed here, outside the lock, and handed over as records (it is parsed once all the
    /// same), so that its keys are known. The keys of all the bodies are read at once: a type many of them list
    /// is read in one pass over its rows (``faultIn(_:)``), not by id page after page.
    func faultInWaiting() {
        guard isPersisted else { return }
        let waiting = state.withLock { state -> [WaitingBody] in
            state.records.readsDisk ? state.waiting.bodies : []
        }
        var keys: [Key] = []
        for body in waiting {
            let records: ResourceRecords
            if let handed = body.records {
                records = handed
            } else {
                guard let parsed = try? decoder.records(from: body.body) else { continue }
                let handed = state.withLock { state -> Bool in
                    guard state.waiting.hand(parsed, for: body.body) else { return false }
                    state.waiting.noteParsed()
                    return true
                }
                guard handed else { continue }  // merged meanwhile
                records = parsed
            }
            keys += Self.keys(of: records)
        }
        faultIn(keys)
    }

    /// The keys of the resources of `records`.
    static func keys(of records: ResourceRecords) -> [Key] {
        records.resources.map { Key(type: $0.type, id: $0.id) }
    }

    /// Places the rows read for `asked`, and notes every key asked as read; tells the observers of the records
    /// the limit then evicts. (Through ``commit(merging:_:)`` without merging: the bodies waiting are not merged here, since their own
    /// rows may not be read yet. Internal rather than private: a test places rows read before a merge, the race.)
    /// Nothing when the store was cleared or switched to another account since `epoch` (its ``clears`` when the
    /// rows were asked for): they are another database's, or gone.
    ///
    /// - Returns: Whether the rows were placed.
    @discardableResult
    func place(_ records: ResourceRecords?, asked: [Key], epoch: UInt64? = nil) -> Bool {
        commit(merging: false) { state, effects -> Bool in
            guard epoch == nil || epoch == state.clears else { return false }
            if let records {
                let now = state.tick()
                state.records.reserve(adding: records.resources.count)
                var held = Array(repeating: false, count: records.resources.count)
                var live = 0
                for (position, entry) in records.resources.enumerated() {
                    let key = Key(type: entry.type, id: entry.id)
                    // Settled meanwhile (merged, removed, or read by another thread): the store's is newer. A
                    // record merged over the row before it read goes over it (``RecordTable/placeRow(_:for:)``).
                    guard state.records.needsRead(key),
                        state.records.placeRow(Record(entry.record(in: records), lastUse: now), for: key)
                    else { continue }
                    held[position] = true
                    live += 1
                }
                state.records.share(records, held: held, live: live)
            }
            state.records.noteRead(asked)
            let evicted = state.records.evict(limit: configuration.maxResources)
            guard !evicted.isEmpty else { return true }
            effects.saves = true
            if !state.observers.isEmpty {
                effects.changes += evicted.map { StoreChange(type: $0.type, id: $0.id, kind: .evicted) }
            }
            return true
        }
    }
}
