import JSONAPIClientCore

extension ResourceStore {
    /// The identity map: one record per resource, with what keeps it cheap — the responses' shared tapes the records
    /// lie in (``SharedRecords``), the self-link index a delete by URL reads, and eviction by last use.
    ///
    /// A value: ``ResourceStore`` holds one under its lock and is the only one to change it; tests make their own.
    /// Every change that replaces or removes a record goes through ``setRecord(_:for:)`` or ``removeRecord(_:)``,
    /// which keep the index and the tapes' counts in step; the merge's fast path places a response's records with
    /// ``placeUncounted(_:for:)`` and counts them all at once with ``share(_:held:live:)``.
    struct RecordTable {
        /// The records by key (``RecordMap``: in arrays side by side, found through a compact index).
        private(set) var byKey = RecordMap()
        /// The records by the last path segment of their `links.self` (``SelfLinks/segment(of:)``), so that a delete
        /// by URL looks at the few records that may have that link instead of all of them. Made by the first delete
        /// by URL (`nil` until then: a merge pays nothing for it), then kept in step.
        private(set) var selfLinks: [String: Set<Key>]?
        /// The responses' tapes that more than one record lies in, by identity, with how many of them are held.
        private(set) var shared: [ObjectIdentifier: SharedRecords] = [:]
        /// The keys whose record changed or went since the last save, for a persisted store (its database writes
        /// their rows only); off in memory.
        var unsaved = UnsavedKeys<Key>()

        /// Whether the database may hold records the table has not read: set when a persisted store opens (another
        /// process may save rows at any time), dropped by ``removeAll()``. A store reads what is asked (``ResourceStore/faultIn(_:)``),
        /// not every row when it opens.
        private(set) var readsDisk = false
        /// The keys whose row the table need not read: read once already (found or not), or whose record went
        /// from the table (the next save deletes its row). Empty while ``readsDisk`` is off.
        private var settled: Set<Key> = []
        /// The types whose every row was read (``ResourceStore/resources(_:)``).
        private var typesRead: Set<String> = []

        /// The keys whose record was placed before their row could be read (the read failed, or a merge came
        /// between a read and its placing): the record holds what was merged since, and the row's other members
        /// belong beneath it. The row is read again at the next use and merged under the record
        /// (``placeRow(_:for:)``); until then a save merges the row under the record in its transaction, never
        /// writing the record over the row (``ResourceStore/Unsaved/beneath``).
        private(set) var unreadBeneath: Set<Key> = []

        /// Whether the table needs `key`'s row before it can say what the store holds of `key`: it holds no
        /// record, or one placed over a row not read (``unreadBeneath``), and no read or removal settled it — nor a
        /// listing of its type, which read every row of it (``isSettled(_:)``).
        func needsRead(_ key: Key) -> Bool {
            guard readsDisk else { return false }
            guard byKey[key] == nil else { return !unreadBeneath.isEmpty && unreadBeneath.contains(key) }
            return !isSettled(key)
        }

        /// Whether `key`'s row was read — by itself, or with its type's (``noteIDsRead(of:)``) — or its record went.
        private func isSettled(_ key: Key) -> Bool {
            settled.contains(key) || (!typesRead.isEmpty && typesRead.contains(key.type))
        }

        /// Whether the table needs the ids of `type`'s rows before it can list the records of `type`.
        func needsIDs(of type: String) -> Bool { readsDisk && !typesRead.contains(type) }

        /// Turns reading the database on: it holds records this table has not read.
        mutating func readDisk() { readsDisk = true }

        /// Notes that the rows of `keys` were read: none is read again.
        mutating func noteRead(_ keys: some Sequence<Key>) {
            guard readsDisk else { return }
            for key in keys {
                settled.insert(key)
                if !unreadBeneath.isEmpty { unreadBeneath.remove(key) }
            }
        }

        /// Places the record read from `key`'s row: as it is when the table holds none; under the table's record
        /// (member by member, the table's winning) when that one was placed over the row before it could be read
        /// (``unreadBeneath``), noted unsaved so that the next save writes the two merged.
        ///
        /// - Returns: Whether the table holds `row` itself now (the caller counts it in its shared tape).
        mutating func placeRow(_ row: Record, for key: Key) -> Bool {
            guard !unreadBeneath.isEmpty, unreadBeneath.remove(key) != nil, let current = byKey[key] else {
                _ = byKey.updateValue(row, forKey: key)
                return true
            }
            let merged = ResourceStore.merged(row.object, with: current.object)
            if merged != current.object, let record = Record(object: merged, lastUse: current.lastUse) {
                setRecord(record, for: key)
            }
            return false
        }

        /// What a read of `key` needs of its row: ``needsRead(_:)`` (`.row`), or whether the row was read and the
        /// table holds no record of it (found nothing, or went since: `.readWithoutRecord`), which another
        /// connection may have saved since (``forgetReads()``); one lookup of the key.
        func rowNeed(_ key: Key) -> RowNeed {
            guard readsDisk else { return .none }
            guard byKey[key] == nil else {
                return !unreadBeneath.isEmpty && unreadBeneath.contains(key) ? .row : .none
            }
            return isSettled(key) ? .readWithoutRecord : .row
        }

        /// What a read needs of a key's row (``rowNeed(_:)``).
        enum RowNeed {
            case none, row, readWithoutRecord
        }

        /// Whether the ids of `type`'s rows were read (``needsIDs(of:)`` says no).
        func listed(_ type: String) -> Bool { readsDisk && typesRead.contains(type) }

        /// Forgets which rows were read, and which types listed, once another connection committed to the
        /// database: each is read again when next asked for. The keys whose record went and whose row the next
        /// save deletes (``unsaved``) stay settled, so that a row about to be deleted is not read back; the caller
        /// makes sure no save is being written.
        mutating func forgetReads() {
            guard readsDisk else { return }
            let unsaved = unsaved.keys ?? []
            settled = unsaved.isEmpty ? [] : settled.filter { unsaved.contains($0) }
            typesRead.removeAll()
        }

        /// Notes that the ids of `type`'s rows were read.
        mutating func noteIDsRead(of type: String) {
            guard readsDisk else { return }
            typesRead.insert(type)
        }

        /// Whether the self-link index was made (reading a record's link to keep it in step costs nothing before).
        var indexesSelfLinks: Bool { selfLinks != nil }

        /// The number of records.
        var count: Int { byKey.count }
        /// The records' keys.
        var keys: [Key] { byKey.keys }

        /// The record of `key`.
        subscript(key: Key) -> Record? { byKey[key] }

        /// Notes a use of the record of `key` at `tick`.
        mutating func touch(_ key: Key, at tick: UInt64) {
            guard let position = byKey.position(of: key) else { return }
            byKey.modify(at: position) { $0.lastUse = tick }
        }

        /// Makes room for `added` more records: one growth per response at most, and geometric (growing to exactly
        /// the size needed would copy every record again at each page of a walk: quadratic).
        mutating func reserve(adding added: Int) {
            byKey.reserve(adding: added)
        }

        /// Sets the record of `key`, keeping the self-link index and the shared tapes' counts in step.
        ///
        /// - Returns: The record it replaced.
        @discardableResult
        mutating func setRecord(_ record: Record, for key: Key) -> Record? {
            let old = byKey.updateValue(record, forKey: key)
            if old == nil, readsDisk, !isSettled(key) { unreadBeneath.insert(key) }
            unsaved.insert(key)
            if selfLinks != nil { reindex(key, from: old?.stored.selfLink, to: record.stored.selfLink) }
            if let old { released(old.stored) }
            retained(record.stored)
            return old
        }

        /// Puts `record` in place of `key`'s without counting it in its shared tape, nor releasing the one replaced
        /// (the caller does both: ``share(_:held:live:)`` for a response's records, ``released(_:)`` for the old
        /// one), nor indexing its self link (``reindex(_:from:to:)``), nor noting it unsaved (``unsaved``:
        /// a merge that finds the record unchanged places it again to note its use).
        ///
        /// - Returns: The record it replaced.
        mutating func placeUncounted(_ record: Record, for key: Key) -> Record? {
            let old = byKey.updateValue(record, forKey: key)
            // A new record over a row not read (its read failed): the row's members go beneath it.
            if old == nil, readsDisk, !isSettled(key) { unreadBeneath.insert(key) }
            return old
        }

        /// Moves `key` in the self-link index, when there is one, from `oldLink` to `newLink`.
        mutating func reindex(_ key: Key, from oldLink: String?, to newLink: String?) {
            guard oldLink != newLink, var index = selfLinks else { return }
            selfLinks = nil  // `index` is the only reference: no copy
            if let oldLink { SelfLinks.remove(key, link: oldLink, from: &index) }
            if let newLink { index[SelfLinks.segment(of: newLink), default: []].insert(key) }
            selfLinks = index
        }

        /// The self-link index, made now if no delete by URL made it before.
        mutating func selfLinkIndex() -> [String: Set<Key>] {
            if let selfLinks { return selfLinks }
            var index: [String: Set<Key>] = [:]
            for (key, record) in zip(byKey.keys, byKey.records) {
                if let link = record.stored.selfLink { index[SelfLinks.segment(of: link), default: []].insert(key) }
            }
            selfLinks = index
            return index
        }

        /// Removes the record of `key`, keeping the self-link index and the shared tapes' counts in step.
        @discardableResult
        mutating func removeRecord(_ key: Key) -> Record? {
            if !unreadBeneath.isEmpty { unreadBeneath.remove(key) }
            if readsDisk, settled.insert(key).inserted, byKey[key] == nil {
                unsaved.insert(key)  // a row not read yet: the next save deletes it
                return nil
            }
            guard let old = byKey.removeValue(forKey: key) else { return nil }
            unsaved.insert(key)
            if selfLinks != nil { reindex(key, from: old.stored.selfLink, to: nil) }
            released(old.stored)
            return old
        }

        /// Removes every record; a persisted store empties its database itself (``ResourceStore/clear()``), so the
        /// keys tracked are dropped too.
        mutating func removeAll() {
            unsaved.removeAll()
            readsDisk = false
            settled.removeAll()
            unreadBeneath.removeAll()
            typesRead.removeAll()
            byKey.removeAll()
            selfLinks = nil
            shared.removeAll()
        }

        /// Notes that the table holds the records of `records` at the positions `held` marks (`live` of them), when
        /// they share a tape.
        mutating func share(_ records: ResourceRecords, held: [Bool], live: Int) {
            guard records.resources.count > 1, live > 0 else { return }
            shared[ObjectIdentifier(records)] = SharedRecords(records: records, held: held, live: live)
            compactIfSparse(ObjectIdentifier(records))
        }

        /// Notes that the table holds `stored`, when it lies in a shared tape.
        private mutating func retained(_ stored: ResourceRecord) {
            guard stored.records.resources.count > 1, let position = stored.position else { return }
            let id = ObjectIdentifier(stored.records)
            if shared[id] == nil {
                let count = stored.records.resources.count
                shared[id] = SharedRecords(
                    records: stored.records, held: Array(repeating: false, count: count), live: 0)
            }
            guard shared[id]?.held[position] == false else { return }
            shared[id]?.held[position] = true
            shared[id]?.live += 1
        }

        /// Notes that the table no longer holds `stored`; compacts the other records of its shared tape once fewer
        /// than half are held.
        mutating func released(_ stored: ResourceRecord) {
            if let id = releasedUncompacted(stored) { compactIfSparse(id) }
        }

        /// Notes that the table no longer holds `stored`, leaving its shared tape as it is: a merge that replaces
        /// a response's records one by one compacts the tapes they lay in once it is done
        /// (``compactIfSparse(_:)``), not halfway, when the records it has yet to replace would be copied out only
        /// to be dropped (`live-apply`: half of every page's records, 260 M instructions a refresh of 10,000
        /// articles).
        ///
        /// - Returns: The shared tape `stored` lay in, when the table counted it there.
        mutating func releasedUncompacted(_ stored: ResourceRecord) -> ObjectIdentifier? {
            guard stored.records.resources.count > 1, let position = stored.position else { return nil }
            let id = ObjectIdentifier(stored.records)
            // One lookup and one access in place (an optional-chained subscript per field would look the tape up
            // for each, and reading a field through `values` copied the whole value out: 31 M instructions a refresh
            // of 10,000 articles, now 18 M).
            guard let index = shared.index(forKey: id), shared.values[index].release(position) else { return nil }
            return id
        }

        /// Compacts the shared tape `id` when fewer than half its records are held.
        mutating func compactIfSparse(_ id: ObjectIdentifier) {
            guard let use = shared[id], use.live * 2 < use.held.count else { return }
            compact(id)
        }

        /// Moves the records still held in the shared tape `id` into tapes of their own, and forgets the tape.
        private mutating func compact(_ id: ObjectIdentifier) {
            guard let use = shared.removeValue(forKey: id) else { return }
            guard use.live > 0 else { return }
            for (entry, held) in zip(use.records.resources, use.held) where held {
                let key = Key(type: entry.type, id: entry.id)
                guard let position = byKey.position(of: key) else { continue }
                byKey.modify(at: position) { $0.stored = $0.stored.compacted() }
            }
        }

        /// Takes the shared tape `id` out for a read's walk: its link table is left empty in the table until
        /// ``putLinks(_:of:)`` returns it, so that growing it copies nothing.
        mutating func borrowTape(_ id: ObjectIdentifier) -> SharedRecords? {
            guard let use = shared[id] else { return nil }
            shared[id]?.links = LinkTable()
            return use
        }

        /// Puts back the link table of the shared tape `id` that a walk borrowed and grew.
        mutating func putLinks(_ links: LinkTable, of id: ObjectIdentifier) {
            shared[id]?.links = links
        }

        /// Removes the least recently used records down to nine tenths of `limit` once it is passed, so that
        /// eviction (a sort) runs once per tenth of the limit's insertions, not on each.
        ///
        /// - Returns: The keys evicted.
        mutating func evict(limit: Int) -> [Key] {
            let limit = max(limit, 0)
            guard byKey.count > limit else { return [] }
            let keep = limit - limit / 10
            // The keys first: a removal moves the last record into the place it frees.
            let oldest = oldestKeys(byKey.count - keep)
            for key in oldest { removeRecord(key) }
            return oldest
        }

        /// The keys of the `count` least recently used records, least recently used first, records used at the same
        /// tick in the order held — the first `count` of ``oldestFirst()`` — without sorting every record: the
        /// uses alone are sorted to find the `count`-th, and only the records at or before it are ordered (a walk
        /// past the default limit evicts a tenth of it some thirty times, and the full sort was a third of an
        /// observed walk: `store-walk-observer-program`).
        func oldestKeys(_ count: Int) -> [Key] {
            let records = byKey.records
            guard count > 0, !records.isEmpty else { return [] }
            let uses = records.map(\.lastUse)
            guard count < uses.count else { return oldestFirst().map(\.key) }
            let threshold = uses.sorted()[count - 1]
            var below: [Int] = []
            var at: [Int] = []
            below.reserveCapacity(count)
            for index in uses.indices {
                if uses[index] < threshold {
                    below.append(index)
                } else if uses[index] == threshold {
                    at.append(index)
                }
            }
            // Every use below the threshold is among the oldest; the rest are taken at it, in the order held.
            below.sort { uses[$0] < uses[$1] || uses[$0] == uses[$1] && $0 < $1 }
            let chosen = below + at.prefix(count - below.count)
            return chosen.map { byKey.keys[$0] }
        }

        /// The records, least recently used first: what a save writes.
        func oldestFirst() -> [(key: Key, record: Record)] {
            let records = byKey.records
            return records.indices.sorted { records[$0].lastUse < records[$1].lastUse }.map {
                (key: byKey.keys[$0], record: records[$0])
            }
        }
    }
}
