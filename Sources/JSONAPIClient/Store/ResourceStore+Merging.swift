import Foundation

import JSONAPIClientCore

/// How documents, records and bodies are merged into the identity map, member by member, the newest winning.
extension ResourceStore {

    /// Merges the resources of a document — primary data and `included`; identifiers add nothing — into the
    /// store, and tells the observers what changed.
    ///
    /// - Parameter document: The document whose resources to merge.
    public func merge(_ document: RawDocument) {
        merge(Self.resourceObjects(of: document))
    }

    /// Merges resource objects (those without an `id` are skipped): each member of a newer object replaces the
    /// record's; attributes and relationships merge by name, and a relationship without `data` keeps the
    /// record's linkage.
    ///
    /// - Parameter objects: The resource objects to merge.
    public func merge(_ objects: [ResourceObject]) {
        guard !objects.isEmpty else { return }
        // The keys only for a store that reads rows: a key hashes its strings when made.
        call {
            if isPersisted {
                faultIn(objects.compactMap { object in object.id.map { Key(type: object.type, id: $0) } })
            }
            commit { state, effects in
                effects.changes += merge(objects, into: &state)
                effects.saves = true
            }
        }
    }

    /// Merges records a decode kept from its parse (``JSONAPIDecoder/decodeKeepingRecords(_:from:resourceMeta:)``),
    /// after the bodies waiting, and tells the observers. `package`: the session merges through ``merge(_:from:)``.
    package func merge(_ records: ResourceRecords) {
        merge(records, epoch: nil)
    }

    /// Merges `records` unless the store was cleared, or its records' owner changed, since `epoch` (its ``clears``
    /// when the response that brought them was sent): another account's answer never lands in this one's records.
    func merge(_ records: ResourceRecords, epoch: UInt64?) {
        // The keys only for a store that reads rows: a key hashes its strings when made.
        call {
            if isPersisted { faultIn(Self.keys(of: records)) }
            commit { state, effects in
                guard epoch == nil || epoch == state.clears else { return }
                effects.changes += merge(records, into: &state)
                effects.saves = true
            }
        }
    }

    /// Merges a response body's resources: at once when someone observes the store, else when it is next read or
    /// saved — or, when `awaitsDecode`, when the typed decode of the same body hands over its records
    /// (``merge(_:from:)``), so that the body is parsed once; the decoding caller then owes the store that call or
    /// ``settle()``. At most ``maxWaiting`` bodies and the response byte limit's worth wait: a body that would pass
    /// either has those waiting merged first (nothing is dropped). A body already waiting (the same storage or
    /// bytes: the response of requests that shared one exchange) is not added again. A body that is not a document
    /// adds nothing, nor one whose request was sent before a clear or a change of the records' owner (`epoch`: the
    /// store's ``clears`` then).
    func merge(from body: Data, awaitsDecode: Bool = false, epoch: UInt64? = nil) {
        merge(from: body, awaitsDecode: awaitsDecode, epoch: epoch) { state, effects in
            guard epoch == nil || epoch == state.clears else { return false }  // sent for another account
            return keep(body, awaitsDecode: awaitsDecode, in: &state, effects: &effects)
        }
    }

    /// Runs `event` — which keeps `body` (``keep(_:awaitsDecode:in:effects:)``) when it returns `true` — as one
    /// store call: the rows of the bodies about to be merged at once read first, and the body parsed and merged
    /// now, after the event, when it is to be merged at once (someone observes the store and no decode hands it
    /// over).
    ///
    /// - Parameter persisted: Whether the store is persisted, when the caller knows (else read).
    func merge(
        from body: Data, awaitsDecode: Bool, epoch: UInt64?, persisted: Bool? = nil,
        _ event: (inout State, inout Effects) -> Bool
    ) {
        let limit = configuration.maxResponseBytes
        call {
            // Bodies about to be merged at once (the waiting ones are full) read their rows first.
            if persisted ?? isPersisted, state.withLock({ state in
                state.records.readsDisk
                    && state.waiting.isFull(adding: body.count, limit: limit, maximum: Self.maxWaiting)
            }) {
                faultInWaiting()
            }
            let observed = commit(merging: false) { state, effects in
                event(&state, &effects) && !state.observers.isEmpty && !awaitsDecode
            }
            guard observed, let records = try? decoder.records(from: body) else { return }
            merge(records, epoch: epoch)
        }
    }

    /// Keeps `body` among the bodies waiting (see ``merge(from:awaitsDecode:epoch:)``), or notes that it is to be
    /// parsed and merged at once (someone observes the store, and no decode hands its records over).
    ///
    /// - Returns: Whether the body is kept or to be merged (`false`: it waits already).
    func keep(_ body: Data, awaitsDecode: Bool, in state: inout State, effects: inout Effects) -> Bool {
        guard state.observers.isEmpty || awaitsDecode else {
            state.waiting.noteParsed()
            return true
        }
        guard !state.waiting.contains(body) else { return false }
        let limit = configuration.maxResponseBytes
        if state.waiting.isFull(adding: body.count, limit: limit, maximum: Self.maxWaiting) {
            effects.changes += mergeWaiting(&state)
        }
        state.waiting.append(body)
        effects.saves = true
        return true
    }

    /// Merges the bodies waiting now when someone observes the store (so that they are told), else leaves them
    /// for the next read: what a caller of ``merge(from:awaitsDecode:)`` does when its decode kept no records.
    func settle() {
        guard state.withLock({ !$0.observers.isEmpty && !$0.waiting.isEmpty }) else { return }
        withMergedState { _ in }
    }

    /// Whether the store takes `body`'s records from its decode (``merge(_:from:)``): the body waits to be merged,
    /// and the store's records have been used or are persisted (a save merges every body: parsed once either way).
    /// A store in memory never used keeps its bodies as they came, parsed only if it is ever read: the `pipeline`
    /// benchmark's session (a store nobody reads) decodes each page as if it had none.
    func takesRecords(of body: Data) -> Bool {
        let persisted = isPersisted
        return state.withLock { state in takesRecords(of: body, persisted: persisted, in: state) }
    }

    /// ``takesRecords(of:)`` in a lock section already taken.
    func takesRecords(of body: Data, persisted: Bool, in state: State) -> Bool {
        (state.recordsUsed || persisted) && state.waiting.contains(body)
    }

    /// Takes `records`, parsed from `body` by its typed decode, in `body`'s place among the bodies waiting to be
    /// merged, so that merging them parses nothing. While someone observes the store they are merged at once, after
    /// the bodies before them (the observers are told); otherwise they wait, as the body did. Nothing when `body`
    /// does not wait (a read merged it meanwhile, or the store did not keep it).
    ///
    /// - Parameter decoded: The primary data the decode gave, handed to the observers with the changes (a live list
    ///   of the same model type shows those models rather than decoding the records again: ``FetchedModels``).
    func merge(_ records: ResourceRecords, from body: Data, decoded: (any Sendable)? = nil) {
        if isPersisted {
            call {
                guard state.withLock({ $0.records.readsDisk && !$0.observers.isEmpty }) else { return }
                faultInWaiting()
                faultIn(Self.keys(of: records))
            }
        }
        // Outside a store call of its own: the section that merges claims the delivery too.
        commit(merging: false) { state, effects in
            guard !state.observers.isEmpty else {
                _ = state.waiting.hand(records, for: body)
                return
            }
            guard let earlier = state.waiting.take(through: body) else { return }
            for waiting in earlier { effects.changes += merge(waiting, into: &state) }
            effects.changes += merge(records, into: &state)
            effects.fetched = decoded.map { FetchedModels(records: records, data: $0) }
        }
    }

    /// Merges a waiting body: its records when its decode handed them over, else the body parsed now.
    private func merge(_ waiting: WaitingBody, into state: inout State) -> [StoreChange] {
        if let records = waiting.records { return merge(records, into: &state) }
        state.waiting.noteParsed()
        guard let records = try? decoder.records(from: waiting.body) else { return [] }
        return merge(records, into: &state)
    }

    /// Whether `a` and `b` are the same body: the same storage, or else the same bytes.
    ///
    /// The addresses of the bytes are compared and never read through: copies of one `Data` share its storage, so
    /// the body the store step kept and the one the decode got are found equal without a `memcmp` of the body (up
    /// to 12.6 MB twice per typed fetch in the benchmark).
    static func same(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        let shared = a.withUnsafeBytes { a in b.withUnsafeBytes { a.baseAddress == $0.baseAddress } }
        return shared || a == b
    }

    /// Runs `body` on the state once the bodies waiting are merged: a read, through ``commit(merging:_:)`` (the
    /// merge's changes are told once the outermost store call returns).
    func withMergedState<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try commit { state, _ in try body(&state) }
    }

    /// Merges the bodies waiting, oldest first.
    ///
    /// - Returns: The changes, when someone observes the store (a body awaiting its decode waits while observed).
    func mergeWaiting(_ state: inout State) -> [StoreChange] {
        guard !state.waiting.isEmpty else { return [] }
        let bodies = state.waiting.takeAll()
        var changes: [StoreChange] = []
        for waiting in bodies { changes += merge(waiting, into: &state) }
        return changes
    }

    /// Merges `objects` (each in a tape of its own; one without an `id`, or that does not write as JSON, is
    /// skipped).
    ///
    /// - Returns: The changes, when someone observes the store (none are made otherwise).
    func merge(_ objects: [ResourceObject], into state: inout State) -> [StoreChange] {
        var changes: [StoreChange] = []
        let now = state.tick()
        var released: Set<ObjectIdentifier> = []
        for object in objects {
            guard let id = object.id, let stored = try? ResourceRecord(object) else { continue }
            merge(
                stored, for: Key(type: object.type, id: id), at: now, into: &state, changes: &changes,
                released: &released)
        }
        for tape in released { state.records.compactIfSparse(tape) }
        changes += evictRecords(&state)
        return changes
    }

    /// Merges the resources of `records` (a response's, sharing its tape).
    ///
    /// - Returns: The changes, when someone observes the store (none are made otherwise).
    func merge(_ records: ResourceRecords, into state: inout State) -> [StoreChange] {
        let now = state.tick()
        var changes: [StoreChange] = []
        state.records.reserve(adding: records.resources.count)
        var held = Array(repeating: false, count: records.resources.count)
        var live = 0
        // The tapes of the records replaced, compacted once all are (a refresh replaces most of a page's).
        var released: Set<ObjectIdentifier> = []
        if !state.observers.isEmpty { changes.reserveCapacity(records.resources.count) }
        for (position, entry) in records.resources.enumerated() {
            let kept = merge(
                entry.record(in: records), for: Key(type: entry.type, id: entry.id), at: now, into: &state,
                changes: &changes, released: &released)
            if kept {
                held[position] = true
                live += 1
            }
        }
        for tape in released { state.records.compactIfSparse(tape) }
        state.records.share(records, held: held, live: live)
        changes += evictRecords(&state)
        return changes
    }

    /// Merges one record into the store's record of `key` (not counting it in its shared tape: the caller does):
    /// one lookup for a new record (inserted as it is); for one the store had, the older kept when the newer is
    /// written the same, the newer taken whole when it has every member the older has, else the two read and merged
    /// member by member into a tape of their own.
    ///
    /// - Parameters:
    ///   - changes: Where the changes go, when someone observes the store.
    ///   - released: Where the shared tapes of the records replaced go: the caller compacts them.
    /// - Returns: Whether the store holds `new` itself now.
    @discardableResult
    private func merge(
        _ new: ResourceRecord, for key: Key, at now: UInt64, into state: inout State, changes: inout [StoreChange],
        released: inout Set<ObjectIdentifier>
    ) -> Bool {
        let observed = !state.observers.isEmpty
        func noteChange(_ related: [Key] = []) {
            guard observed else { return }
            changes.append(StoreChange(type: key.type, id: key.id, kind: .updated))
            for other in related { changes.append(StoreChange(type: other.type, id: other.id, kind: .updated)) }
        }
        guard let old = state.records.placeUncounted(Record(new, lastUse: now), for: key) else {
            state.records.unsaved.insert(key)
            if state.records.indexesSelfLinks { state.records.reindex(key, from: nil, to: new.selfLink) }
            guard state.overlay.inverses.involves(key.type) else {
                noteChange()
                return true
            }
            noteChange(state.followInverses(of: key, from: nil, to: new.resourceObject(), at: now))
            return true
        }
        var record = old
        record.lastUse = now
        if new.isWrittenAs(old.stored) {
            _ = state.records.placeUncounted(record, for: key)
            return false
        }
        let kept = new.replaces(old.stored)
        if kept {
            record = Record(new, lastUse: now)
        } else {
            let merged = Self.merged(old.object, with: new.resourceObject())
            guard merged != old.object, let own = Record(object: merged, lastUse: now) else {
                _ = state.records.placeUncounted(record, for: key)
                return false
            }
            record = own
            _ = state.records.placeUncounted(record, for: key)
        }
        state.records.unsaved.insert(key)
        if let tape = state.records.releasedUncompacted(old.stored) { released.insert(tape) }
        if state.records.indexesSelfLinks {
            state.records.reindex(key, from: old.stored.selfLink, to: record.stored.selfLink)
        }
        guard state.overlay.inverses.involves(key.type) else {
            noteChange()
            return kept
        }
        noteChange(state.followInverses(of: key, from: old.object, to: record.object, at: now))
        return kept
    }

    /// The resource objects of a document: its primary resources and `included` (identifiers are not resources).
    static func resourceObjects(of document: RawDocument) -> [ResourceObject] {
        var objects: [ResourceObject] =
            switch document.data {
            case .resource(let resource): [resource]
            case .resources(let resources): resources
            case .identifier, .identifiers, .null, nil: []
            }
        objects += document.included ?? []
        return objects
    }

    /// Sets the linkage of relationship `name` of the record of `type` `id` (when the store has the record) to what
    /// `change` makes of the current one, and tells the observers.
    func changeLinkage(of name: String, type: String, id: String, _ change: (Linkage?) -> Linkage) {
        let key = Key(type: type, id: id)
        faultIn([key])
        commit { state, effects in
            guard let record = state.records[key] else { return }
            let changes = state.setLinkage(of: name, on: key, to: change(record.object.relationships?[name]?.data))
            guard !changes.isEmpty else { return }
            effects.changes += changes
            effects.saves = true
        }
    }

    /// The key of the record whose `links.self` is `url` (relative links resolved against it), if any: only the
    /// records whose link ends in the same path segment as `url` (or in none) are compared, through the self-link
    /// index.
    func key(selfLink url: URL) -> Key? {
        withMergedState { state -> Key? in
            let index = state.records.selfLinkIndex()
            let candidates = index[SelfLinks.segment(of: url.absoluteString), default: []]
                .union(index[SelfLinks.unsegmented, default: []])
            return candidates.sorted { ($0.type, $0.id) < ($1.type, $1.id) }.first { key in
                guard let href = state.records[key]?.stored.selfLink else { return false }
                return URL(percentEncoding: href, relativeTo: url)?.absoluteURL == url.absoluteURL
            }
        }
    }

    /// Removes the record of resource `type` `id` and tells the observers; declared inverse relationships of the
    /// records it named lose it.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The resource's id.
    public func remove(type: String, id: String) {
        let key = Key(type: type, id: id)
        faultIn([key])
        commit { state, effects in
            let changes = state.removeRecord(key)
            guard !changes.isEmpty else { return }
            effects.changes += changes
            effects.saves = true
        }
    }

    /// `record` with the members `newer` has.
    static func merged(_ record: ResourceObject, with newer: ResourceObject) -> ResourceObject {
        var result = record
        if let attributes = newer.attributes {
            result.attributes = (record.attributes ?? [:]).merging(attributes) { $1 }
        }
        if let relationships = newer.relationships {
            var merged = record.relationships ?? [:]
            for (name, relationship) in relationships {
                if relationship.data == nil, var kept = merged[name] {
                    kept.links = relationship.links ?? kept.links
                    kept.meta = relationship.meta ?? kept.meta
                    merged[name] = kept
                } else {
                    merged[name] = relationship
                }
            }
            result.relationships = merged
        }
        if let links = newer.links { result.links = links }
        if let meta = newer.meta { result.meta = meta }
        return result
    }

    /// Evicts the least recently used records down to nine tenths of the limit once it is passed, so that eviction
    /// (a sort) runs once per tenth of the limit's insertions, not on each.
    ///
    /// - Returns: An ``StoreChange/Kind/evicted`` change for each record evicted, when someone observes the store.
    func evictRecords(_ state: inout State) -> [StoreChange] {
        let evicted = state.records.evict(limit: configuration.maxResources)
        guard !state.observers.isEmpty else { return [] }
        return evicted.map { StoreChange(type: $0.type, id: $0.id, kind: .evicted) }
    }
}
