/// Which records a live object's models are decoded from besides their own: an included author, a comment and its
/// author. A change to one of them re-reads the models that name it, and only those.
struct LiveDependencies {
    /// How many relationship steps from a model's record are followed: an article's comments' authors are three
    /// records away at most (article → comment → person).
    static let depth = 3

    /// By model id: the keys its record reaches.
    private var reached: [String: [ResourceStore.Key]] = [:]
    /// By key reached: the ids of the models that reach it.
    private var dependents: [ResourceStore.Key: Set<String>] = [:]

    /// Notes what the models of `Model`'s type with ids `ids` reach now, in place of what they reached before.
    mutating func follow<Model: Resource>(_ type: Model.Type, ids: some Sequence<String>, in store: ResourceStore) {
        let keys = ids.map { ResourceStore.Key(type: Model.resourceType, id: $0) }
        guard !keys.isEmpty else { return }
        let linked = store.linkedKeys(from: keys, depth: Self.depth)
        for key in keys { note(key.id, reaches: linked[key] ?? []) }
    }

    /// Notes that model `id` reaches `linked` now (the keys ``ResourceStore/linkedKeys(from:depth:)`` gives it, in
    /// its order), in place of what it reached before: nothing to do when that is what it reached.
    mutating func note(_ id: String, reaches linked: [ResourceStore.Key]) {
        guard reached[id] ?? [] != linked else { return }
        forget(id)
        guard !linked.isEmpty else { return }
        reached[id] = linked
        for target in linked { dependents[target, default: []].insert(id) }
    }

    /// Forgets what model `id` reached.
    mutating func forget(_ id: String) {
        guard let linked = reached.removeValue(forKey: id) else { return }
        for target in linked {
            dependents[target]?.remove(id)
            if dependents[target]?.isEmpty == true { dependents[target] = nil }
        }
    }

    /// Forgets every model.
    mutating func removeAll() {
        reached = [:]
        dependents = [:]
    }

    /// The ids of the models that reach the record of `type` `id`.
    func models(reaching type: String, id: String) -> Set<String> {
        dependents[ResourceStore.Key(type: type, id: id)] ?? []
    }
}
