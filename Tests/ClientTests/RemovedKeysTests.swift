import Testing

@testable import JSONAPIClient

/// The store's short memory of removed records (``RemovedKeys``): what tells a deleted record from an evicted one.
@Suite("The store's removed keys")
struct RemovedKeysTests {
    static func key(_ number: Int) -> ResourceStore.Key { ResourceStore.Key(type: "articles", id: String(number)) }

    @Test("Keeps at least the last limit keys and at most twice as many, the oldest forgotten first")
    func bounded() {
        var removed = RemovedKeys()
        #expect(!removed.contains(Self.key(0)))
        for number in 0..<(2 * RemovedKeys.limit) { removed.insert(Self.key(number)) }
        #expect(removed.contains(Self.key(0)))  // exactly twice the limit: nothing forgotten yet
        removed.insert(Self.key(0))  // again: nothing added
        #expect(removed.contains(Self.key(2 * RemovedKeys.limit - 1)))
        removed.insert(Self.key(2 * RemovedKeys.limit))  // one past: the oldest half goes
        #expect(!removed.contains(Self.key(0)))
        #expect(!removed.contains(Self.key(RemovedKeys.limit)))
        #expect(removed.contains(Self.key(RemovedKeys.limit + 1)))
        #expect(removed.contains(Self.key(2 * RemovedKeys.limit)))
        removed.removeAll()
        #expect(!removed.contains(Self.key(2 * RemovedKeys.limit)))
    }

    @Test("A record removed, and not merged again since, is removed; one evicted or merged again is not")
    func store() {
        let store = ResourceStore(configuration: .init(maxResources: 2))
        store.merge([ResourceObject(type: "articles", id: "1"), ResourceObject(type: "articles", id: "2")])
        store.remove(type: "articles", id: "1")
        #expect(store.removed(["1", "2"], type: "articles") == ["1"])
        store.merge([ResourceObject(type: "articles", id: "1")])
        #expect(store.removed(["1"], type: "articles") == [])
        store.merge([ResourceObject(type: "articles", id: "3"), ResourceObject(type: "articles", id: "4")])  // evicts
        #expect(store.removed(["2"], type: "articles") == [])
        store.clear()
        #expect(store.removed(["1"], type: "articles") == [])
    }
}
