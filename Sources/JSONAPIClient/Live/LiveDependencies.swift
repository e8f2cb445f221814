/// Which records a live object's models are decoded from besides their own: an included author, a comment and its
/// author. A change to one of them re-reads the models that name it, and only those.
struct LiveDependencies {
    /// How many relationship steps from a model's record are followed: an article's comments' authors are three
    /// records away at most (article → comment → person).
    static let depth = 3

    /// By model id: the keys its record reaches.
    private var reached: [String: [ResourceStore.Key]] = [:]
    /// By key reached: the ids of the models that reach it.
    private var dependents: [ResourceStore.Key: Reaching] = [:]

    /// The ids of the models that reach one record. Most records are reached by one model (an article's comment,
    /// by its article), so the first id is kept as it is, and only the others in a set: no set made or hashed for
    /// it (`live-apply`: 30,000 comments moved a refresh).
    struct Reaching: Sequence {
        private var first: String?
        private var others: Set<String> = []

        /// No model.
        init() {}

        /// Whether no model reaches the record.
        var isEmpty: Bool { first == nil }

        /// Adds model `id`.
        mutating func insert(_ id: String) {
            guard let first else {
                first = id
                return
            }
            if first != id { others.insert(id) }
        }

        /// Removes model `id`.
        mutating func remove(_ id: String) {
            if first == id {
                first = others.popFirst()
            } else if !others.isEmpty {
                others.remove(id)
            }
        }

        /// The ids, the first one first.
        func makeIterator() -> Iterator { Iterator(first: first, others: others.makeIterator()) }

        /// Iterates the ids: the first, then the others.
        struct Iterator: IteratorProtocol {
            fileprivate var first: String?
            fileprivate var others: Set<String>.Iterator

            mutating func next() -> String? {
                if let id = first {
                    first = nil
                    return id
                }
                return others.next()
            }
        }
    }

    /// What the models of `Model`'s type with ids `ids` reach now, read from the store, for ``note(_:)``: the read
    /// comes first and the change of the dependencies after it, so that no store call runs while they change.
    static func reached<Model: Resource>(
        _ type: Model.Type, ids: some Sequence<String>, in store: ResourceStore
    ) -> [(id: String, keys: [ResourceStore.Key])] {
        let keys = ids.map { ResourceStore.Key(type: Model.resourceType, id: $0) }
        guard !keys.isEmpty else { return [] }
        let linked = store.linkedKeys(from: keys, depth: Self.depth)
        return keys.map { ($0.id, linked[$0] ?? []) }
    }

    /// What a live object shows of the models a fetch decoded (`ids`, from the response whose records the decode
    /// handed the store, `records`): the store is asked, once, whether it still shows each as that response had it
    /// (``ResourceStore/shownAsFetched(_:type:depth:)``: a newer response may have been merged since, and its change
    /// told before the object shows the fetch), and those it does not confirm are read again.
    ///
    /// - Returns: The models read again, by id (a decoded model not among them is shown as decoded, but for one in
    ///   `gone`), the ids of the response deleted since or whose delete is being settled (not shown), and the keys
    ///   each id reaches.
    static func confirmed<Model: Resource>(
        _ type: Model.Type, ids: [String], records: ResourceRecords?, in store: ResourceStore
    ) -> (read: [String: Model], gone: Set<String>, reached: [(id: String, keys: [ResourceStore.Key])]) {
        guard !ids.isEmpty else { return ([:], [], []) }
        var unconfirmed = ids
        var reached: [(id: String, keys: [ResourceStore.Key])] = []
        if let records {
            let shown = store.shownAsFetched(ids.map { ($0, records) }, type: Model.resourceType, depth: depth)
            unconfirmed = []
            for (index, keys) in shown.enumerated() {
                if let keys { reached.append((ids[index], keys)) } else { unconfirmed.append(ids[index]) }
            }
        }
        guard !unconfirmed.isEmpty else { return ([:], [], reached) }
        let read = store.resources(Model.self, ids: unconfirmed)
        // An id the store has no record of: deleted since (removed, or its delete being settled — both only when
        // the store took the response), or evicted to make room (which leaves a live object its copy), or never
        // kept (a response the store did not take). The store's removals and pending deletes say which.
        let missing = unconfirmed.filter { read[$0] == nil }
        var gone = missing.isEmpty ? [] : store.removed(missing, type: Model.resourceType)
        if records != nil {
            for id in missing where !gone.contains(id) {
                guard let pending = store.pendingChanges(type: Model.resourceType, id: id) else { continue }
                if pending.local == nil, pending.server != nil { gone.insert(id) }
            }
        }
        return (read, gone, reached + Self.reached(Model.self, ids: unconfirmed, in: store))
    }

    /// Notes what models reach now (``reached(_:ids:in:)``), in place of what they reached before.
    mutating func note(_ reached: [(id: String, keys: [ResourceStore.Key])]) {
        for (id, keys) in reached { note(id, reaches: keys) }
    }

    /// Notes that model `id` reaches `linked` now (the keys ``ResourceStore/linkedKeys(from:depth:)`` gives it, each
    /// once), in place of what it reached before: only the keys that differ are moved (an article whose comments
    /// stay and whose author changed moves one key), nothing when it reaches what it reached.
    mutating func note(_ id: String, reaches linked: [ResourceStore.Key]) {
        let old = reached[id] ?? []
        guard old != linked else { return }
        // Few keys (a model and its includes) are compared by scanning; many through a set.
        let small = old.count * linked.count <= 256
        let kept = small ? [] : Set(old).intersection(linked)
        for target in old where small ? !linked.contains(target) : !kept.contains(target) { remove(id, from: target) }
        for target in linked where small ? !old.contains(target) : !kept.contains(target) {
            dependents[target, default: Reaching()].insert(id)
        }
        reached[id] = linked.isEmpty ? nil : linked
    }

    /// Forgets what model `id` reached.
    mutating func forget(_ id: String) {
        guard let linked = reached.removeValue(forKey: id) else { return }
        for target in linked { remove(id, from: target) }
    }

    /// Notes that model `id` no longer reaches `target`.
    private mutating func remove(_ id: String, from target: ResourceStore.Key) {
        guard let index = dependents.index(forKey: target) else { return }
        dependents.values[index].remove(id)
        if dependents.values[index].isEmpty { dependents.remove(at: index) }
    }

    /// Forgets every model.
    mutating func removeAll() {
        reached = [:]
        dependents = [:]
    }

    /// The ids of the models that reach the record of `type` `id`.
    func models(reaching type: String, id: String) -> Reaching {
        models(reaching: ResourceStore.Key(type: type, id: id))
    }

    /// The ids of the models that reach the record of `key`.
    func models(reaching key: ResourceStore.Key) -> Reaching {
        dependents[key] ?? Reaching()
    }
}
