import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// The store's data structures at their limits: the bodies waiting to be merged (by count and bytes), the
/// responses' eviction order (no sort), and deletes by URL through the self-link index.
@Suite("Resource store limits and indexes")
struct StoreLimitTests {
    static func body(_ id: Int) -> Data {
        Data(#"{"data":{"type":"labels","id":"\#(id)","attributes":{"name":"n"}}}"#.utf8)
    }

    @Test("Exactly maxWaiting bodies wait; one more has them merged first, and waits alone")
    func pendingCount() {
        let store = ResourceStore()
        for id in 0..<ResourceStore.maxWaiting { store.merge(from: Self.body(id)) }
        #expect(store.readParts { $0.waiting.bodies.count } == ResourceStore.maxWaiting)
        #expect(store.readParts { $0.records.count } == 0)
        store.merge(from: Self.body(ResourceStore.maxWaiting))
        #expect(store.readParts { $0.waiting.bodies.count } == 1)
        #expect(store.readParts { $0.records.count } == ResourceStore.maxWaiting)
        #expect(store.count == ResourceStore.maxWaiting + 1)
        #expect(store.readParts { $0.waiting.bodies.count } == 0)
    }

    @Test("Bodies filling the byte limit exactly wait; one byte more has them merged first")
    func pendingBytes() {
        let size = Self.body(1).count  // ids 1…9: the same size
        let store = ResourceStore(configuration: .init(maxResponseBytes: size * 3))
        for id in 1...3 { store.merge(from: Self.body(id)) }
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.bytes) } == (3, size * 3))
        store.merge(from: Self.body(4))
        #expect(store.readParts { ($0.waiting.bodies.count, $0.records.count) } == (1, 3))
        // A body larger than the limit on its own waits alone.
        let empty = ResourceStore(configuration: .init(maxResponseBytes: 0))
        empty.merge(from: Self.body(1))
        empty.merge(from: Self.body(2))
        #expect(empty.readParts { ($0.waiting.bodies.count, $0.records.count) } == (1, 1))
    }

    /// Stores a response of `bytes` bytes for `path` in `store`.
    static func keep(_ path: String, bytes: Int, in store: ResourceStore) {
        let request = HTTPRequest(method: .get, url: exampleBase.appendingPathComponent(path))
        let response = HTTPResponse(status: .ok, body: Data(repeating: 32, count: bytes))
        store.storeResponse(response, for: request, requestTime: Date(), responseTime: Date())
    }

    static func has(_ path: String, in store: ResourceStore) -> Bool {
        store.storedResponse(for: HTTPRequest(method: .get, url: exampleBase.appendingPathComponent(path))) != nil
    }

    @Test("Responses filling the byte limit exactly stay; one byte more evicts the least recently used")
    func responseEviction() {
        let store = ResourceStore(configuration: .init(maxResponseBytes: 30))
        Self.keep("a", bytes: 10, in: store)
        Self.keep("b", bytes: 10, in: store)
        Self.keep("c", bytes: 10, in: store)
        #expect(store.usage.responseBytes == 30)
        #expect(Self.has("a", in: store))  // a is now the most recently used: b goes next
        Self.keep("d", bytes: 1, in: store)
        #expect(!Self.has("b", in: store))
        #expect(Self.has("a", in: store) && Self.has("c", in: store) && Self.has("d", in: store))
        #expect(store.usage.responseBytes == 21)
        Self.keep("e", bytes: 30, in: store)  // exactly the limit: everything else goes
        #expect(store.usage == ResourceStore.Usage(records: 0, responses: 1, responseBytes: 30))
        Self.keep("f", bytes: 31, in: store)  // more than the limit: not kept
        #expect(!Self.has("f", in: store))
        #expect(Self.has("e", in: store))
    }

    @Test("The use order stays bounded however often one response is used")
    func useOrderBounded() {
        let store = ResourceStore()
        Self.keep("a", bytes: 1, in: store)
        Self.keep("b", bytes: 1, in: store)
        for _ in 0..<10_000 { _ = Self.has("a", in: store) }
        let entries = store.readParts { $0.responses.order.entryCount }
        #expect(entries <= 2 * 2 + 34)
        let order = store.readParts { $0.responses.oldestFirst().map(\.key.url) }
        #expect(order == [exampleBase.appendingPathComponent("b").absoluteString, exampleBase.appendingPathComponent("a").absoluteString])
    }

    @Test("UseOrder at its edges: empty, every entry stale, one live among many")
    func useOrderEdges() {
        var order = UseOrder<String>()
        #expect(order.popOldest { _, _ in true } == nil)
        for tick in 1...100 { order.use("k", at: UInt64(tick)) }
        #expect(order.keysInOrder { _, tick in tick == 100 } == ["k"])
        order.compact(live: 1) { _, tick in tick == 100 }
        #expect(order.entryCount == 1)
        #expect(order.popOldest { _, _ in false } == nil)
        #expect(order.entryCount == 0)
    }

    @Test(
        "A delete by URL finds the record by its self link, absolute, root-relative, relative or without a segment",
        arguments: [
            ("https://api.example.com/v1/labels/7", true), ("/v1/labels/7", true), ("7", true), ("labels/7", false),
            ("", false), ("../labels/7", true), ("https://api.example.com/v1/labels/70", false), ("https://api.example.com/v1/labels/7?x=1", false),
            ("caf%C3%A9", false),
        ])
    func deleteBySelfLink(link: String, found: Bool) {
        let store = ResourceStore()
        var object = ResourceObject(type: "labels", id: "7")
        object.links = Links(["self": Link(href: link)])
        store.merge([object, ResourceObject(type: "labels", id: "8")])
        let url = URL(string: "https://api.example.com/v1/labels/7")!
        let key = store.key(selfLink: url)
        #expect(key == (found ? ResourceStore.Key(type: "labels", id: "7") : nil))
        if let key { store.remove(type: key.type, id: key.id) }
        #expect((store.record(type: "labels", id: "7") == nil) == found)
        #expect(store.record(type: "labels", id: "8") != nil)
        #expect(store.readParts { $0.records.selfLinks?.values.reduce(0) { $0 + $1.count } } == (found ? 0 : 1))
    }

    @Test("The self-link index follows a record's link as it changes, is removed, evicted or cleared")
    func selfLinkIndex() {
        let store = ResourceStore(configuration: .init(maxResources: 1))
        var object = ResourceObject(type: "labels", id: "7")
        object.links = Links(["self": Link(href: "https://h/labels/7")])
        store.merge([object])
        object.links = Links(["self": Link(href: "https://h/labels/seven")])
        store.merge([object])
        #expect(store.readParts { $0.records.selfLinks } == nil)  // made by the first delete by URL, not by merges
        #expect(store.key(selfLink: URL(string: "https://h/labels/7")!) == nil)
        #expect(store.readParts { $0.records.selfLinks } == ["seven": [ResourceStore.Key(type: "labels", id: "7")]])
        var other = ResourceObject(type: "labels", id: "8")
        other.links = Links(["self": Link(href: "https://h/labels/8")])
        store.merge([other])  // evicts 7
        #expect(store.readParts { $0.records.selfLinks } == ["8": [ResourceStore.Key(type: "labels", id: "8")]])
        store.clear()
        #expect(store.readParts { $0.records.selfLinks } == nil)
    }

    @Test("Link segments: query and fragment cut, percent-decoded, dot segments and trailing slashes unsegmented")
    func segments() {
        #expect(SelfLinks.segment(of: "https://h/a/b?x=1#f") == "b")
        #expect(SelfLinks.segment(of: "caf%C3%A9") == "café")
        #expect(SelfLinks.segment(of: "a/b/") == SelfLinks.unsegmented)
        #expect(SelfLinks.segment(of: "..") == SelfLinks.unsegmented)
        #expect(SelfLinks.segment(of: "?q") == SelfLinks.unsegmented)
        #expect(SelfLinks.segment(of: "") == SelfLinks.unsegmented)
    }
}
