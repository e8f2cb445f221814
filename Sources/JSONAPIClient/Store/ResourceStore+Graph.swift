import Foundation

/// A typed read's records: the ones asked for, and every record their relationship linkage reaches.
extension ResourceStore {
    /// What the linkage of each resource of a shared tape names, in the order written: another resource of the same
    /// tape by its position, or else the identifier's node (its key is read from the tape when it is needed). Filled
    /// a resource at a time by the first read that walks it, so that later reads follow linkage without resolving it
    /// again; a tape never changes, so neither does what it names.
    struct LinkTable {
        /// By position: where its targets start in `targets` (a count, then the targets), or -1 until a read
        /// walked it. (`Int32`: four bytes a resource, where `Int?` took sixteen.)
        private var starts: [Int32] = []
        /// Per target: a position (≥ 0), or `-(node + 1)` for an identifier naming no resource of this tape.
        private var targets: [Int32] = []

        /// The targets of the resource at `position` of `records`, found now if no read found them before.
        mutating func targets(of position: Int, in records: ResourceRecords) -> ArraySlice<Int32> {
            if starts.isEmpty { starts = Array(repeating: -1, count: records.resources.count) }
            let known = Int(starts[position])
            if known >= 0 { return targets[(known + 1)..<(known + 1 + Int(targets[known]))] }
            let start = targets.count
            targets.append(0)
            records.resources[position].record(in: records).forEachLinked { linked in
                targets.append(Int32(truncatingIfNeeded: linked.position ?? -(linked.node + 1)))
            }
            targets[start] = Int32(truncatingIfNeeded: targets.count - start - 1)
            starts[position] = Int32(truncatingIfNeeded: start)
            return targets[(start + 1)...]
        }
    }

    /// The records `keys` name as primary data, and every record they reach through relationship linkage as
    /// `included` (breadth first, so that a decode reads them about in order), as the store shows them
    /// (``OptimisticOverlay/visibleRecord(_:in:)``); `nil` when no key has a record.
    ///
    /// A record the store holds in a shared tape follows its linkage through the tape's ``LinkTable``: an
    /// identifier naming a resource of the same tape that the store still holds costs neither a key nor a lookup.
    /// Only the records an optimistic write changes (``OptimisticOverlay/layeredKeys(in:)``) are read as shown, by key; a pending
    /// write elsewhere costs the others nothing.
    ///
    /// A persisted store reads the rows the walk needs and has not read (``faultIn(_:)``) and walks again, a step of
    /// linkage deeper each time, until the walk meets none, meets only keys it asked for before (their rows could
    /// not be placed: the store switched account or was cleared meanwhile), or a read fails (logged; the store
    /// answers without those records, and reads them again at the next use). Each step asks for keys never asked
    /// before, so the walk ends after as many steps as there are keys at most: the lock is never held across the
    /// database, and a read that answers fewer or other rows than asked never makes the walk go round.
    func graph(from keys: [Key]) -> (primary: [ResourceRecord], included: [ResourceRecord])? {
        graphReading(from: keys).graph
    }

    /// ``graph(from:)``, with the error of a read of rows that failed (the graph is then what the store holds
    /// without them).
    func graphReading(from keys: [Key]) -> (
        graph: (primary: [ResourceRecord], included: [ResourceRecord])?, failure: SQLiteError?
    ) {
        call {
            var failure: SQLiteError?
            if case .failure(let error) = faultIn(keys) { failure = error }
            var asked = Set(keys)
            while true {
                let (graph, unread) = walkGraph(from: keys)
                guard failure == nil, isPersisted else { return (graph, failure) }
                let new = unread.filter { asked.insert($0).inserted }
                guard !new.isEmpty else { return (graph, nil) }
                if case .failure(let error) = faultIn(new) { failure = error }
            }
        }
    }

    /// One walk of ``graph(from:)``, under the lock, with the keys it met whose rows the store has not read.
    private func walkGraph(from keys: [Key]) -> (
        graph: (primary: [ResourceRecord], included: [ResourceRecord])?, unread: [Key]
    ) {
        withMergedState { state in
            var walk = GraphWalk(layered: state.layeredKeys())
            let graph = walk.graph(from: keys, in: &state)
            walk.end(&state)
            return (graph, walk.unread)
        }
    }
}

extension ResourceStore.GraphWalk {
    /// Walks from `keys` (see ``ResourceStore/graph(from:)``).
    fileprivate mutating func graph(
        from keys: [ResourceStore.Key], in state: inout ResourceStore.State
    ) -> (primary: [ResourceRecord], included: [ResourceRecord])? {
        typealias Key = ResourceStore.Key
        let now = state.tick()
        for key in keys {
            guard meet(key, in: &state) else { continue }
            state.records.touch(key, at: now)
        }
        let primary = met.map(\.record)
        guard !primary.isEmpty else { return nil }
        var next = 0
        var unplaced: [Key] = []
        while next < met.count {
            let (record, place) = met[next]
            next += 1
            guard let place else {
                unplaced.removeAll(keepingCapacity: true)
                record.forEachLinked { linked in
                    if let (type, id) = linked.key { unplaced.append(Key(type: type, id: id)) }
                }
                for key in unplaced { _ = meet(key, in: &state) }
                continue
            }
            for target in targets(of: place) {
                guard target >= 0 else {
                    if let (type, id) = record.records.identifierKey(at: -Int(target) - 1) {
                        _ = meet(Key(type: type, id: id), in: &state)
                    }
                    continue
                }
                meet(Place(slot: place.slot, position: Int(target)), in: &state)
            }
        }
        return (primary, met[primary.count...].map(\.record))
    }
}

extension ResourceStore {
    /// What a read's walk has met: a record the store holds in a shared tape by its place there (a slot per tape),
    /// any other by its key.
    struct GraphWalk {
        /// A resource of a shared tape the walk met: the tape's slot, the resource's position in it.
        struct Place {
            var slot: Int
            var position: Int
        }

        /// The records whose shown version is not their tape (optimistic writes pending on them, or on the other
        /// end of an inverse relationship): met by key, and read as shown.
        private let layered: Set<Key>
        private var slots: [ObjectIdentifier: Int] = [:]
        /// The shared tapes met, their link tables taken out of the state while they grow (so that growing one
        /// copies nothing) and put back by ``end(_:)``.
        private var tapes: [SharedRecords] = []
        private var seen: [[Bool]] = []
        private var seenKeys = Set<Key>()

        init(layered: Set<Key>) {
            self.layered = layered
        }

        /// Puts the tapes' link tables back.
        func end(_ state: inout State) {
            for tape in tapes { state.records.putLinks(tape.links, of: ObjectIdentifier(tape.records)) }
        }

        /// Where `record` is, when the store holds it in a shared tape.
        mutating func place(of record: ResourceRecord, in state: inout State) -> Place? {
            guard record.records.resources.count > 1 else { return nil }
            let id = ObjectIdentifier(record.records)
            let slot: Int
            if let known = slots[id] {
                slot = known
            } else {
                guard let use = state.records.borrowTape(id) else { return nil }
                slot = tapes.count
                slots[id] = slot
                seen.append(Array(repeating: false, count: use.held.count))
                tapes.append(use)
                // A record an optimistic write changes is not shown as its tape: the walk's copy of the tape's
                // holdings leaves it out, so that meeting it there goes by key (a few lookups per read, not one
                // per resource).
                for key in layered {
                    guard let stored = state.records[key]?.stored, stored.records === use.records,
                        let position = stored.position
                    else { continue }
                    tapes[slot].held[position] = false
                }
            }
            guard let position = record.position, tapes[slot].held[position] else { return nil }
            return Place(slot: slot, position: position)
        }

        /// The records met, in the order met.
        private(set) var met: [(record: ResourceRecord, place: Place?)] = []
        /// The keys met whose rows the store has not read (``RecordTable/needsRead(_:)``).
        private(set) var unread: [Key] = []

        /// Meets the store's record of `key`, as the store shows it, if it has one.
        ///
        /// - Returns: Whether this is the first time the walk meets it.
        mutating func meet(_ key: Key, in state: inout State) -> Bool {
            let shown = !layered.isEmpty && layered.contains(key)
            guard let record = shown ? state.visibleRecord(key) : state.records[key]?.stored else {
                if state.records.needsRead(key) { unread.append(key) }
                return false
            }
            let place = shown ? nil : place(of: record, in: &state)
            guard firstMeeting(place, key: key) else { return false }
            met.append((record, place))
            return true
        }

        /// Meets the resource at `place` if the store holds it there (and shows it as it is: see ``place(of:in:)``),
        /// else the store's record of its key.
        mutating func meet(_ place: Place, in state: inout State) {
            guard holds(place) else {
                let entry = tapes[place.slot].records.resources[place.position]
                _ = meet(Key(type: entry.type, id: entry.id), in: &state)
                return
            }
            guard firstMeeting(place, key: nil) else { return }
            met.append((record(at: place), place))
        }

        /// Whether the store's record of the resource at `place` is that resource.
        func holds(_ place: Place) -> Bool { tapes[place.slot].held[place.position] }

        /// The resource at `place`.
        func record(at place: Place) -> ResourceRecord {
            let records = tapes[place.slot].records
            return records.resources[place.position].record(in: records)
        }

        /// What the linkage of the resource at `place` names (``LinkTable``).
        mutating func targets(of place: Place) -> ArraySlice<Int32> {
            tapes[place.slot].links.targets(of: place.position, in: tapes[place.slot].records)
        }

        /// Whether the walk meets the record at `place` (when held in a shared tape), else of `key`, for the first
        /// time; it is met now.
        mutating func firstMeeting(_ place: Place?, key: Key?) -> Bool {
            if let place {
                guard !seen[place.slot][place.position] else { return false }
                seen[place.slot][place.position] = true
                return true
            }
            guard let key else { return false }
            return seenKeys.insert(key).inserted
        }
    }
}
