import Foundation
import JSONAPIClient
import Testing

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
        var values = store.updates(of: Label.self, id: "0").makeAsyncIterator()
        var changes = store.changes(of: Label.self).makeAsyncIterator()
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
        var changes = store.changes(of: Label.self).makeAsyncIterator()
        store.merge([label("1")])
        #expect(await changes.next() == StoreChange(type: "labels", id: "1", kind: .updated))
        #expect(await changes.next() == StoreChange(type: "labels", id: "1", kind: .evicted))
        #expect(store.count == 0)
    }

    @Test("clear() tells the observers of each record it removes; other types' observers hear nothing")
    func clearing() async throws {
        let store = ResourceStore()
        store.merge([label("1"), ResourceObject(type: "writers", id: "7", attributes: ["name": "Ann"])])
        var values = store.updates(of: Label.self, id: "1").makeAsyncIterator()
        var changes = store.changes(of: Label.self).makeAsyncIterator()
        #expect(await values.next() == Label(id: "1", name: "1"))
        store.clear()
        #expect(await changes.next() == StoreChange(type: "labels", id: "1", kind: .evicted))
        #expect(await values.next() == .some(nil))
        store.merge([label("2")])
        #expect(await changes.next() == StoreChange(type: "labels", id: "2", kind: .updated))  // no writer in between
        #expect(store.count == 1)
    }
}
