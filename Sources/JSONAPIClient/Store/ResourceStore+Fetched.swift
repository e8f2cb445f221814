import JSONAPIClientCore

/// The models a fetch decoded, handed to the live objects with the changes its merge made, so that a list of the same
/// model type shows them instead of decoding the records again (`live-apply`: a walk of 10,000 changed articles
/// decoded each of them twice, once for the fetch and once for the list).
extension ResourceStore {
    /// What a fetch decoded from a response whose records the store has just merged: the response's records (its
    /// tape) and the fetch's primary data, as decoded from them.
    ///
    /// A model here is what the store shows of its resource only while the store still shows every record the model
    /// was decoded from as that response had it: ``shownAsFetched(_:type:)`` says which still are.
    struct FetchedModels: Sendable {
        /// The response's records, as the store merged them.
        let records: ResourceRecords
        /// The fetch's primary data: `[Model]`, `Model` or `Model?` of the fetch's model type.
        let data: any Sendable

        /// The models of `Model`'s type in the primary data (none when the fetch decoded another type, even one of
        /// the same resource type: what it decoded is not what a read of `Model` would).
        func models<Model: Resource>(_ type: Model.Type) -> [Model] {
            if let models = data as? [Model] { return models }
            if let model = data as? Model { return [model] }
            return []
        }
    }

    /// The ids of `ids` (of `type`) whose records the store removed (``remove(type:id:)``) and holds no record of
    /// now: deleted, not evicted to make room (``RemovedKeys``).
    func removed(_ ids: some Sequence<String>, type: String) -> Set<String> {
        withMergedState { state in
            Set(ids.filter { id in
                let key = Key(type: type, id: id)
                return state.records[key] == nil && state.removed.contains(key)
            })
        }
    }


    /// Which of `offered` — models' ids of resource type `type`, each with the records of the response its fetch
    /// decoded it from — the store shows exactly as that response had them, so that reading the model now would
    /// decode it from the same text and give the same model.
    ///
    /// The model's own record must be the response's, still held by the store (not merged with a newer version
    /// since, evicted, or compacted into a tape of its own). Every record its linkage reaches, as far as it goes
    /// (what a read's walk meets, ``graph(from:)``), must be the response's too, or one the store holds written
    /// exactly as the response wrote it (an included author that every page of a walk repeats: the store keeps the
    /// first page's). None may have an optimistic write changing how it shows (``State/layeredKeys()``), and an
    /// identifier the response holds no resource for must name no record the store has either (nor one a persisted
    /// store has not read yet). Anything else is not confirmed, and the caller reads the model again. An id offered
    /// from two responses is confirmed for one at most: the store holds its record in one tape.
    ///
    /// - Parameter depth: How many relationship steps from each model's record the keys reached are listed.
    /// - Returns: By position in `offered`: for an offer confirmed, the keys its record reaches in at most `depth`
    ///   steps (what ``linkedKeys(from:depth:)`` would give, found by the same walk); `nil` for one not confirmed.
    func shownAsFetched(
        _ offered: [(id: String, records: ResourceRecords)], type: String, depth: Int
    ) -> [[Key]?] {
        var confirmed = [[Key]?](repeating: nil, count: offered.count)
        guard !offered.isEmpty else { return confirmed }
        var byTape: [ObjectIdentifier: [Int]] = [:]
        for (index, offer) in offered.enumerated() {
            byTape[ObjectIdentifier(offer.records), default: []].append(index)
        }
        return withMergedState { state in
            let layered = state.layeredKeys()
            for offers in byTape.values {
                guard let first = offers.first,
                    var walk = FetchedWalk(offered[first].records, layered: layered, in: &state)
                else { continue }
                for index in offers {
                    let key = Key(type: type, id: offered[index].id)
                    confirmed[index] = walk.reached(from: key, depth: depth, in: state)
                }
                walk.end(&state)
            }
            return confirmed
        }
    }

    /// A walk through one response's shared tape that confirms, model by model, that the store still shows what the
    /// response had (``ResourceStore/shownAsFetched(_:type:)``).
    private struct FetchedWalk {
        /// What the store shows of a resource of the tape.
        private enum Shown: UInt8 {
            /// Not looked at yet.
            case unknown
            /// The tape's resource, or a record written exactly as it.
            case same
            /// Something else, or nothing.
            case other
        }

        private let tape: ObjectIdentifier
        private var use: SharedRecords
        private let layered: Set<Key>
        /// By position: what the store shows of it, found when a walk first meets it.
        private var shown: [Shown]
        /// By position: the walk (a model's number) that last met it, so that each model's walk starts afresh
        /// without clearing anything.
        private var met: [Int]
        private var walks = 0
        /// The positions of a walk's step, and of the next: kept from one model's walk to the next, with their
        /// capacity, as is `listed` (a model's keys, copied out once at the end at their size: appending to a new
        /// array grew it three or four times a model).
        private var level: [Int] = []
        private var frontier: [Int] = []
        private var listed: [Key] = []
        /// By position: its key, made when a walk first lists it (an included author is reached from many models,
        /// and a key hashes its strings when made).
        private var keys: [Key?]

        /// A walk of `records` when the store holds records in it (as a response's shared tape).
        init?(_ records: ResourceRecords, layered: Set<Key>, in state: inout State) {
            let tape = ObjectIdentifier(records)
            guard let use = state.records.borrowTape(tape) else { return nil }
            self.tape = tape
            self.use = use
            self.layered = layered
            shown = Array(repeating: .unknown, count: use.held.count)
            met = Array(repeating: 0, count: use.held.count)
            keys = Array(repeating: nil, count: use.held.count)
        }

        /// Puts the tape's link table back, grown by the walk.
        func end(_ state: inout State) {
            state.records.putLinks(use.links, of: tape)
        }

        /// The keys the record of `key` reaches in at most `depth` steps, when the store shows it as this tape has
        /// it and every record it reaches, however far, the same; else `nil`.
        mutating func reached(from key: Key, depth: Int, in state: State) -> [Key]? {
            guard !layered.contains(key), let stored = state.records[key]?.stored, stored.records === use.records,
                let start = stored.position
            else { return nil }
            walks += 1
            met[start] = walks
            listed.removeAll(keepingCapacity: true)
            // Identifiers of no resource of the tape, met already (a `Set` only when there are any).
            var named: Set<Key> = []
            level.removeAll(keepingCapacity: true)
            level.append(start)
            var step = 0
            while !level.isEmpty {
                step += 1
                let lists = step <= depth
                frontier.removeAll(keepingCapacity: true)
                for position in level {
                    for target in use.links.targets(of: position, in: use.records) {
                        guard target >= 0 else {
                            // The response holds no resource for it: the fetch left it unresolved, and so must the
                            // store.
                            guard let (type, id) = use.records.identifierKey(at: -Int(target) - 1) else { continue }
                            let other = Key(type: type, id: id)
                            guard state.visibleRecord(other) == nil, !state.records.needsRead(other) else { return nil }
                            if lists, named.insert(other).inserted { listed.append(other) }
                            continue
                        }
                        let position = Int(target)
                        guard met[position] != walks else { continue }
                        guard isShown(position, in: state) else { return nil }
                        met[position] = walks
                        frontier.append(position)
                        if lists { listed.append(keyOf(position)) }
                    }
                }
                swap(&level, &frontier)
            }
            return Array(listed[...])
        }

        /// The key of the resource at `position`.
        private mutating func keyOf(_ position: Int) -> Key {
            if let key = keys[position] { return key }
            let entry = use.records.resources[position]
            let key = Key(type: entry.type, id: entry.id)
            keys[position] = key
            return key
        }

        /// Whether the store shows the resource at `position` as the tape has it: holds it, or a record written
        /// exactly as it, with no optimistic write on it.
        private mutating func isShown(_ position: Int, in state: State) -> Bool {
            switch shown[position] {
            case .same: return true
            case .other: return false
            case .unknown: break
            }
            // The key only when needed: a resource the store still holds in this tape is looked up nowhere.
            let same: Bool
            if !layered.isEmpty, layered.contains(keyOf(position)) {
                same = false
            } else if use.held[position] {
                same = true
            } else {
                let written = use.records.resources[position].record(in: use.records)
                same = state.records[keyOf(position)].map { $0.stored.isWrittenAs(written) } ?? false
            }
            shown[position] = same ? .same : .other
            return same
        }
    }
}
