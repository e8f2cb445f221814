/// The resources of a document and the linkage between them, gathered during validation, for two rules: a
/// `(type, id)` pair identifies one resource object only, and every included resource is reached by a chain of
/// relationships from primary data ("full linkage").
struct LinkageGraph {
    /// How linkage names a resource: by `id`, or by `lid` for a resource the client is creating.
    struct Key: Hashable {
        var type: String
        var id: String
        var isLocal: Bool

        /// `people/9`, or `people (lid p-1)`.
        var description: String { isLocal ? "\(type) (lid \(id))" : "\(type)/\(id)" }
    }

    /// One resource object of the document.
    private struct Resource {
        /// Whether it is in `included` (otherwise in primary data).
        var isIncluded: Bool
        /// Its tape node and pointer, for reporting.
        var node: Int
        var pointer: String
        /// The key it is known by; `nil` when it has none of its own (no `type`, or a duplicate).
        var key: Key?
        /// The keys its relationships' linkage names.
        var targets: [Key] = []
    }

    private var resources: [Resource] = []
    private var resourceByKey: [Key: Int] = [:]
    /// Primary data that names resources without being one (resource identifier objects).
    private var primaryTargets: [Key] = []

    /// The keys a resource object or identifier with these members is known by (none without a `type`).
    static func keys(type: String?, id: String?, lid: String?) -> [Key] {
        guard let type else { return [] }
        var keys: [Key] = []
        if let id { keys.append(Key(type: type, id: id, isLocal: false)) }
        if let lid { keys.append(Key(type: type, id: lid, isLocal: true)) }
        return keys
    }

    /// Adds a resource object known by `keys`; returns the pointer of an earlier resource object with one of the
    /// same keys, which is a violation.
    /// - Returns: The handle to add the resource's linkage with, and the pointer of its duplicate if there is one.
    mutating func addResource(keys: [Key], included: Bool, node: Int, pointer: String) -> (handle: Int, duplicateOf: String?) {
        let handle = resources.count
        resources.append(Resource(isIncluded: included, node: node, pointer: pointer))
        var duplicateOf: String?
        for key in keys {
            if let earlier = resourceByKey[key] {
                duplicateOf = duplicateOf ?? resources[earlier].pointer
            } else {
                resourceByKey[key] = handle
                resources[handle].key = resources[handle].key ?? key
            }
        }
        return (handle, duplicateOf)
    }

    /// Records that the resource `handle` (from ``addResource(keys:included:node:pointer:)``) links to `key`.
    mutating func addLink(from handle: Int, to key: Key) {
        resources[handle].targets.append(key)
    }

    /// Records a resource identifier object in primary data.
    mutating func addPrimaryIdentifier(_ key: Key) {
        primaryTargets.append(key)
    }

    /// The included resources no chain of relationships from primary data reaches, in document order: a
    /// breadth-first walk from primary data that visits each resource and each link once.
    func unlinkedIncluded() -> [(node: Int, pointer: String, key: Key)] {
        var reached = [Bool](repeating: false, count: resources.count)
        var queue: [Int] = []
        func reach(_ key: Key) {
            guard let handle = resourceByKey[key], !reached[handle] else { return }
            reached[handle] = true
            queue.append(handle)
        }
        for (handle, resource) in resources.enumerated() where !resource.isIncluded {
            reached[handle] = true
            queue.append(handle)
        }
        primaryTargets.forEach(reach)
        var next = 0
        while next < queue.count {
            resources[queue[next]].targets.forEach(reach)
            next += 1
        }
        return resources.indices.compactMap { handle in
            let resource = resources[handle]
            guard resource.isIncluded, !reached[handle], let key = resource.key else { return nil }
            return (resource.node, resource.pointer, key)
        }
    }
}
