import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// Observers are told when the store lets go of a record: evicted past the record limit, or cleared.
@Suite("Resource store: eviction is observed")
struct StoreEvictionTests {
    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    func label(_ id: String) -> ResourceObject { ResourceObject(type: "labels", id: id, attributes: ["name": .string(id)]) }

    @Test("At exactly the limit nothing is evicted; one more evicts the least recently used, and observers are told")
    func evictionAtTheLimit() async throws {
        let store = ResourceStore(configuration: .init(maxResources: 10))
        let values = StreamProbe(store.updates(of: Label.self, id: "0"))
        let changes = StreamProbe(store.changes(of: Label.self))
        #expect(await values.next() == .some(nil))
        store.merge((0..<10).map { label("\($0)") })
        #expect(await values.next() == Label(id: "0", name: "0"))
        for id in 0..<10 { #expect(await changes.next() == StoreChange(type: "labels", id: "\(id)", kind: .updated)) }
        #expect(store.count == 10)
        for id in 1..<10 { _ = store.record(type: "labels", id: "\(id)") }  // "0" is now the least recently used
        store.merge([label("10")])
        // 11 records past a limit of 10: down to nine tenths (9), so the two least recently used go.
        #expect(store.count == 9)
        #expect(await changes.next() == StoreChange(type: "labels", id: "10", kind: .updated))
        let evicted = [await changes.next(), await changes.next()].compactMap { $0 }
        #expect(Set(evicted) == [
            StoreChange(type: "labels", id: "0", kind: .evicted), StoreChange(type: "labels", id: "1", kind: .evicted),
        ])
        #expect(await values.next() == .some(nil))  // the observed record is gone
        #expect(StoreChange(type: "labels", id: "0", kind: .evicted).description == "evicted labels 0")
    }

    @Test("A limit of zero evicts every record as it comes, and says so")
    func zeroLimit() async throws {
        let store = ResourceStore(configuration: .init(maxResources: 0))
        let changes = StreamProbe(store.changes(of: Label.self))
        store.merge([label("1")])
        #expect(await changes.next() == StoreChange(type: "labels", id: "1", kind: .updated))
        #expect(await changes.next() == StoreChange(type: "labels", id: "1", kind: .evicted))
        #expect(store.count == 0)
    }

    @Test("clear() tells the observers of each record it removes; other types' observers hear nothing")
    func clearing() async throws {
        let store = ResourceStore()
        store.merge([label("1"), ResourceObject(type: "writers", id: "7", attributes: ["name": "Ann"])])
        let values = StreamProbe(store.updates(of: Label.self, id: "1"))
        let changes = StreamProbe(store.changes(of: Label.self))
        #expect(await values.next() == Label(id: "1", name: "1"))
        store.clear()
        #expect(await changes.next() == StoreChange(type: "labels", id: "1", kind: .evicted))
        #expect(await values.next() == .some(nil))
        store.merge([label("2")])
        #expect(await changes.next() == StoreChange(type: "labels", id: "2", kind: .updated))  // no writer in between
        #expect(store.count == 1)
    }
}

@Suite("Observer tests end in bounded time")
struct StreamProbeTests {
    @Test("A change that never comes is nil after the limit, not a wait forever; elements are never lost")
    func boundedWait() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let probe = StreamProbe(stream)
        #expect(await probe.next(within: .milliseconds(20)) == nil)
        continuation.yield(1)
        continuation.yield(2)
        #expect(await probe.next() == 1)
        #expect(await probe.next() == 2)
        continuation.finish()
        #expect(await probe.next() == nil)
    }
}
