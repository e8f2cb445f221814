/// The keys of one of the store's tables that changed since its last save, for a persisted store: what the next save
/// writes (each key's row replaced, or deleted when the key is no longer held). Off in memory, where noting a key
/// does nothing.
struct UnsavedKeys<Key: Hashable> {
    /// The keys noted; `nil` while off.
    private(set) var keys: Set<Key>?

    /// Starts noting keys.
    mutating func track() {
        if keys == nil { keys = [] }
    }

    /// Notes that `key` changed or went.
    mutating func insert(_ key: Key) {
        keys?.insert(key)
    }

    /// Forgets `key`: what the table holds of it is what the database holds (another process saved it).
    mutating func remove(_ key: Key) {
        keys?.remove(key)
    }

    /// The keys noted, which a save takes; noting starts anew.
    mutating func take() -> Set<Key> {
        guard let noted = keys, !noted.isEmpty else { return [] }
        keys = []
        return noted
    }

    /// Puts back the keys of a save that failed, so that the next save writes them.
    mutating func restore(_ taken: Set<Key>) {
        keys?.formUnion(taken)
    }

    /// Keeps of the keys noted only those `isHeld` says are no longer held: what a store that just loaded its rows
    /// must still delete (evicted by smaller limits), and nothing it need not write again.
    mutating func keepRemovals(isHeld: (Key) -> Bool) {
        guard let noted = keys else { return }
        keys = noted.filter { !isHeld($0) }
    }

    /// Forgets every key noted (the table was emptied, and its rows are deleted at once by ``ResourceStore/clear()``).
    mutating func removeAll() {
        if keys != nil { keys = [] }
    }
}
