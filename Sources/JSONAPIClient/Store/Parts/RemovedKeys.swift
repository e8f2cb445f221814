/// The keys of the records last removed from the store (``ResourceStore/remove(type:id:)``, or a delete layer the server
/// confirmed), the most recent ``limit`` at least: a live object showing a fetch whose records the
/// store took, and whose record the store no longer holds, tells a record deleted since (not shown) from one evicted
/// to make room (which leaves the object its copy).
struct RemovedKeys {
    /// How many keys are kept at least; at most twice as many.
    static let limit = 1024

    private var order: [ResourceStore.Key] = []
    private var keys: Set<ResourceStore.Key> = []

    /// Notes that the record of `key` was removed; forgets the oldest keys past twice the limit.
    mutating func insert(_ key: ResourceStore.Key) {
        guard keys.insert(key).inserted else { return }
        order.append(key)
        guard order.count > 2 * Self.limit else { return }
        let dropped = order.count - Self.limit
        for old in order[..<dropped] { keys.remove(old) }
        order.removeFirst(dropped)
    }

    /// Whether the record of `key` was removed (among the last ones).
    func contains(_ key: ResourceStore.Key) -> Bool { !keys.isEmpty && keys.contains(key) }

    /// Forgets every key: the records went with a clear or a switch of account.
    mutating func removeAll() {
        order = []
        keys = []
    }
}
