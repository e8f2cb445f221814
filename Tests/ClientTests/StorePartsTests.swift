import Foundation
import JSONAPIClientCore
import Testing
import TestSupport

@testable import JSONAPIClient

/// The store's parts as values, without a store or a session: the stored responses' cache decision, the bodies
/// waiting, the optimistic overlay and the record table.
@Suite("Store parts as values")
struct StorePartsTests {
    static let received = Date(timeIntervalSince1970: 1_000_000)

    /// A response stored at `received`, with `fields` (e.g. `Cache-Control: max-age=60`, `ETag`).
    static func stored(_ fields: [HTTPField.Name: String]) -> StoredResponse {
        var headers = HTTPFields()
        for (name, value) in fields { headers[name] = value }
        let response = HTTPResponse(status: .ok, headerFields: headers, body: Data("{}".utf8))
        return StoredResponse(
            response: response, lastUse: 0, varyNames: [], varyDigest: CredentialDigest(credentialsOf: HTTPFields()),
            freshness: Freshness(of: response, requestTime: received, responseTime: received))
    }

    static func request(_ fields: [HTTPField.Name: String] = [:]) -> HTTPRequest {
        var headers = HTTPFields()
        for (name, value) in fields { headers[name] = value }
        return HTTPRequest(method: .get, url: exampleBase.appendingPathComponent("articles"), headerFields: headers)
    }

    static func decide(
        _ stored: StoredResponse?, _ policy: CachePolicy, after seconds: Double, request: HTTPRequest = request()
    ) -> ResponseCache.Decision {
        ResponseCache.decide(stored, for: request, policy: policy, now: received.addingTimeInterval(seconds))
    }

    @Test("decide: a fresh response answers under every cache policy, up to the last second of its lifetime")
    func decideFresh() {
        let fresh = Self.stored([.cacheControl: "max-age=60", .eTag: "\"v1\""])
        for policy in [CachePolicy.cacheFirst, .cacheOnly, .staleWhileRevalidate] {
            #expect(Self.decide(fresh, policy, after: 0) == .answer)
            #expect(Self.decide(fresh, policy, after: 59.9) == .answer)
        }
        for policy in [CachePolicy.networkOnly, .networkFirst] {
            #expect(Self.decide(fresh, policy, after: 0) == .send(ifNoneMatch: "\"v1\"", ifModifiedSince: nil))
        }
    }

    @Test("decide: at exactly its lifetime a response is stale: cacheFirst validates, staleWhileRevalidate answers and refreshes")
    func decideStale() {
        let response = Self.stored([.cacheControl: "max-age=60", .eTag: "\"v1\"", .lastModified: "Sun, 06 Nov 1994 08:49:37 GMT"])
        let validating = ResponseCache.Decision.send(ifNoneMatch: "\"v1\"", ifModifiedSince: "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(Self.decide(response, .cacheFirst, after: 60) == validating)
        #expect(Self.decide(response, .staleWhileRevalidate, after: 60) == .answerThenRefresh)
        #expect(Self.decide(response, .cacheOnly, after: 60) == .answer)  // stale, but may be served
        #expect(Self.decide(response, .cacheFirst(maxStale: .seconds(10)), after: 70) == .answer)
        #expect(Self.decide(response, .cacheFirst(maxStale: .seconds(10)), after: 70.5) == validating)
    }

    @Test("decide: must-revalidate and no-cache responses are never served stale; cache-only then has nothing")
    func decideMustRevalidate() {
        let strict = Self.stored([.cacheControl: "max-age=0, must-revalidate", .eTag: "\"v2\""])
        #expect(Self.decide(strict, .cacheOnly, after: 1) == .notCached)
        #expect(Self.decide(strict, .staleWhileRevalidate, after: 1) == .send(ifNoneMatch: "\"v2\"", ifModifiedSince: nil))
        let noCache = Self.stored([.cacheControl: "no-cache", .eTag: "\"v3\""])
        #expect(Self.decide(noCache, .cacheFirst, after: 0) == .send(ifNoneMatch: "\"v3\"", ifModifiedSince: nil))
    }

    @Test("decide: nothing stored sends a plain request, or nothing under cache-only")
    func decideNothingStored() {
        #expect(Self.decide(nil, .cacheFirst, after: 0) == .send(ifNoneMatch: nil, ifModifiedSince: nil))
        #expect(Self.decide(nil, .networkOnly, after: 0) == .send(ifNoneMatch: nil, ifModifiedSince: nil))
        #expect(Self.decide(nil, .cacheOnly, after: 0) == .notCached)
    }

    @Test("decide: a request with no-cache is never answered; one with validators of its own is sent as it is")
    func decideRequestDirectives() {
        let fresh = Self.stored([.cacheControl: "max-age=60", .eTag: "\"v1\""])
        let noCache = Self.request([.cacheControl: "no-cache"])
        #expect(Self.decide(fresh, .cacheFirst, after: 0, request: noCache) == .send(ifNoneMatch: "\"v1\"", ifModifiedSince: nil))
        #expect(Self.decide(fresh, .cacheOnly, after: 0, request: noCache) == .notCached)
        let own = Self.request([.ifNoneMatch: "\"mine\""])
        #expect(Self.decide(fresh, .networkOnly, after: 0, request: own) == .send(ifNoneMatch: nil, ifModifiedSince: nil))
    }

    @Test("UnsavedKeys: off notes nothing; on, a save takes the keys once, a failed one puts them back, a load keeps removals only")
    func unsavedKeys() {
        var keys = UnsavedKeys<String>()
        keys.insert("a")
        #expect(keys.keys == nil && keys.take().isEmpty)
        keys.track()
        keys.track()  // twice: still empty, nothing lost
        #expect(keys.keys == [])
        keys.insert("a")
        keys.insert("b")
        let taken = keys.take()
        #expect(taken == ["a", "b"] && keys.keys == [])
        keys.insert("c")
        keys.restore(taken)
        #expect(keys.keys == ["a", "b", "c"])
        keys.keepRemovals { $0 != "b" }
        #expect(keys.keys == ["b"])
        keys.removeAll()
        #expect(keys.keys == [] && keys.take().isEmpty)
    }

    @Test("RecordTable's oldest keys are the first of its records by use, ties in the order held, for every count", arguments: [1, 7, 42] as [UInt64])
    func oldestKeys(seed: UInt64) throws {
        var generator = SplitMix(seed: seed)
        var table = ResourceStore.RecordTable()
        for number in 0..<60 {
            // Few distinct uses: most records tie with others, as a page merged at one tick does.
            let use = UInt64.random(in: 0..<8, using: &generator)
            let record = try #require(
                ResourceStore.Record(object: ResourceObject(type: "tags", id: String(number)), lastUse: use))
            table.setRecord(record, for: ResourceStore.Key(type: "tags", id: String(number)))
        }
        let all = table.oldestFirst().map(\.key)
        for count in 0...(all.count + 1) {
            #expect(table.oldestKeys(count) == Array(all.prefix(count)), "count \(count)")
        }
        let evicted = table.evict(limit: 50)  // down to 45: the 15 oldest go
        #expect(evicted == Array(all.prefix(15)))
        #expect(table.count == 45)
    }

    @Test("RecordTable reading its database: a key is needed until read, held or removed; removing one not read notes its row for deletion; removeAll stops reading")
    func recordTableReads() throws {
        typealias Key = ResourceStore.Key
        var table = ResourceStore.RecordTable()
        let (one, two, three) = (Key(type: "tags", id: "1"), Key(type: "tags", id: "2"), Key(type: "tags", id: "3"))
        #expect(!table.needsRead(one) && !table.needsIDs(of: "tags"))  // in memory only: nothing to read
        table.noteRead([one])
        table.noteIDsRead(of: "tags")
        table.unsaved.track()
        table.readDisk()
        #expect(table.needsRead(one) && table.needsRead(two) && table.needsIDs(of: "tags"))  // noted before: nothing
        table.noteRead([one])
        #expect(!table.needsRead(one) && table.needsRead(two) && table.needsIDs(of: "tags") && table.needsIDs(of: "x"))
        #expect(table.removeRecord(two) == nil)
        #expect(!table.needsRead(two) && table.unsaved.keys == [two])
        #expect(table.removeRecord(two) == nil && table.unsaved.take() == [two])  // settled: noted once
        #expect(table.removeRecord(two) == nil && table.unsaved.keys == [])
        let record = try #require(ResourceStore.Record(object: ResourceObject(type: "tags", id: "3"), lastUse: 1))
        table.setRecord(record, for: three)
        // Placed over a row never read (its read failed): the row is still needed, to go beneath the record.
        #expect(table.needsRead(three) && table.unreadBeneath == [three])
        table.removeRecord(three)
        #expect(table.unreadBeneath.isEmpty)
        #expect(!table.needsRead(three))  // its row goes with the next save: never read back
        // A type listed read every row of it: a key of it the table does not hold has no row, and a record placed
        // over one is over nothing (no row to merge beneath it at the save).
        let four = Key(type: "tags", id: "4")
        #expect(table.needsRead(four))
        table.noteIDsRead(of: "tags")
        #expect(!table.needsIDs(of: "tags") && !table.needsRead(four) && table.rowNeed(four) == .readWithoutRecord)
        let placed = try #require(ResourceStore.Record(object: ResourceObject(type: "tags", id: "4"), lastUse: 2))
        table.setRecord(placed, for: four)
        #expect(!table.needsRead(four) && table.unreadBeneath.isEmpty)
        table.forgetReads()  // another connection committed: the type is listed again when asked
        #expect(table.needsIDs(of: "tags"))
        table.removeAll()
        #expect(!table.needsRead(Key(type: "tags", id: "4")) && !table.needsIDs(of: "x") && !table.readsDisk)
    }

    @Test("Which changes a persisted store's tables note for the next save: a set, a removal, a stored, changed or removed response; not a use, an uncounted placement or a validation already required")
    func tablesNoteUnsaved() throws {
        var table = ResourceStore.RecordTable()
        table.unsaved.track()
        let record = try #require(ResourceStore.Record(object: ResourceObject(type: "tags", id: "1"), lastUse: 1))
        _ = table.placeUncounted(record, for: .init(type: "tags", id: "0"))
        table.touch(.init(type: "tags", id: "0"), at: 2)
        #expect(table.unsaved.keys == [])
        table.setRecord(record, for: .init(type: "tags", id: "1"))
        table.removeRecord(.init(type: "tags", id: "0"))
        table.removeRecord(.init(type: "tags", id: "9"))  // not held: nothing to delete
        #expect(table.unsaved.keys == [.init(type: "tags", id: "1"), .init(type: "tags", id: "0")])
        table.removeAll()
        #expect(table.unsaved.keys == [])

        var cache = ResponseCache()
        cache.unsaved.track()
        func key(_ name: String) -> ResponseKey { ResponseKey(Self.request().with(path: name)) }
        cache.insert(Self.stored([:]), for: key("a"), at: 1, limit: 100)
        cache.insert(Self.stored([.cacheControl: "no-cache"]), for: key("b"), at: 2, limit: 100)
        #expect(cache.unsaved.take() == [key("a"), key("b")])
        _ = cache.use(key("a"), at: 3)
        cache.requireValidation { _, _ in true }  // b requires it already: only a changes
        #expect(cache.unsaved.take() == [key("a")])
        cache.update(key("b")) { $0.collectionTypes.insert("tags") }
        cache.remove(key("a"))
        #expect(cache.unsaved.take() == [key("a"), key("b")])
    }

    @Test("A stored response's strings read back only when they are UTF-8: U+FFFD and a 4-byte character itself read; a 4-byte sequence cut to 3 (repaired to as many bytes) does not")
    func responseStringsAreUTF8() throws {
        let url = "https://api.example.com/v1/tags?q=\u{FFFD}\u{1F600}"
        let key = ResponseKey(partition: CredentialDigest(credentialsOf: HTTPFields()), url: url, accept: "application/vnd.api+json")
        let bytes = RowCodec.responseBytes(Self.stored([.eTag: "\"\u{1F600}\""]), for: key)
        let read = try RowCodec.response(from: Data(bytes))
        #expect(read.key.url == url && read.response.entityTag == "\"\u{1F600}\"")
        // The URL's last character (F0 9F 98 80) with its last byte made "a": F0 9F 98 is cut short.
        let emoji = Array("\u{1F600}".utf8)
        let start = try #require((0...(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == emoji })
        var damaged = bytes
        damaged[start + 3] = UInt8(ascii: "a")
        #expect(String(decoding: damaged[start..<(start + 4)], as: UTF8.self).utf8.count == 4)  // the same length
        #expect(throws: RowCodec.Unreadable.self) { try RowCodec.response(from: Data(damaged)) }
    }

    @Test("ResponseCache.load: what a store opening read, oldest first, within the byte limit (exactly the limit kept, unread bodies counted); only the evicted noted unsaved")
    func responseLoad() {
        func key(_ name: String) -> ResponseKey { ResponseKey(Self.request().with(path: name)) }
        var unread = Self.stored([:])  // its body left in the database: 5 bytes counted, none held
        unread.response.body = Data()
        unread.unreadBody = StoredResponse.UnreadBody(id: 1, count: 5)
        let loaded = [(key("a"), Self.stored([:])), (key("b"), unread), (key("c"), Self.stored([:]))]
        var cache = ResponseCache()
        cache.unsaved.track()
        #expect(cache.load(loaded.map { (key: $0.0, response: $0.1) }, from: 10, limit: 9) == 13)
        #expect(cache.count == 3 && cache.bytes == 9)  // 2 + 5 + 2: exactly the limit
        #expect(cache.oldestFirst().map(\.key) == [key("a"), key("b"), key("c")])
        #expect(cache[key("c")]?.lastUse == 12 && cache.unsaved.keys == [])
        var smaller = ResponseCache()
        smaller.unsaved.track()
        #expect(smaller.load(loaded.map { (key: $0.0, response: $0.1) }, from: 1, limit: 8) == 4)
        #expect(smaller.count == 2 && smaller.bytes == 7 && smaller[key("a")] == nil)  // the oldest went
        #expect(smaller.unsaved.keys == [key("a")])
    }

    @Test("ResponseCache evicts the least recently used past its byte limit, and keeps exactly the limit")
    func responseEviction() {
        var cache = ResponseCache()
        func key(_ name: String) -> ResponseKey { ResponseKey(Self.request().with(path: name)) }
        let response = Self.stored([:])  // 2 bytes of body
        cache.insert(response, for: key("a"), at: 1, limit: 4)
        cache.insert(response, for: key("b"), at: 2, limit: 4)
        #expect(cache.count == 2 && cache.bytes == 4)  // exactly the limit: kept
        _ = cache.use(key("a"), at: 3)
        cache.insert(response, for: key("c"), at: 4, limit: 4)
        #expect(cache[key("b")] == nil && cache[key("a")] != nil && cache[key("c")] != nil)
        #expect(cache.oldestFirst().map(\.key) == [key("a"), key("c")])
        cache.insert(response, for: key("a"), at: 5, limit: 4)  // in place of itself: bytes counted once
        #expect(cache.bytes == 4)
        let removed = cache.remove(key("a"))
        #expect(removed != nil && cache.bytes == 2)
        cache.insert(response, for: key("big"), at: 6, limit: 1)  // larger than the limit: nothing stays
        #expect(cache.count == 0 && cache.bytes == 0)
    }

    @Test("WaitingBodies: full at exactly the maximum count or the byte limit, never when empty")
    func waitingLimits() throws {
        var waiting = ResourceStore.WaitingBodies()
        #expect(!waiting.isFull(adding: 100, limit: 10, maximum: 1))  // nothing waits: a big body waits alone
        waiting.append(Data("12345".utf8))
        #expect(!waiting.isFull(adding: 5, limit: 10, maximum: 2))  // 10 bytes: exactly the limit
        #expect(waiting.isFull(adding: 6, limit: 10, maximum: 2))
        #expect(waiting.isFull(adding: 0, limit: 10, maximum: 1))  // the count is reached
        #expect(waiting.isFull(adding: 1, limit: -1, maximum: 2))  // a negative limit counts as zero
        let second = Data("abc".utf8)
        waiting.append(second)
        let records = try JSONAPIDecoder().records(from: Data(#"{"data":null}"#.utf8))
        let handed = waiting.hand(records, for: second)
        #expect(handed)
        #expect(!waiting.contains(second))  // handed over: no longer waits as a body
        let notWaiting = waiting.take(through: second)
        #expect(notWaiting == nil)
        let older = waiting.take(through: Data("12345".utf8))
        #expect(older?.count == 0)
        #expect(waiting.count == 1 && waiting.bytes == 3)
        let all = waiting.takeAll()
        #expect(all.first?.records != nil && waiting.isEmpty && waiting.bytes == 0)
    }

    @Test("OptimisticOverlay: layers apply in order; a confirmed layer under an unsettled one waits to be folded")
    func overlayLayers() throws {
        var records = ResourceStore.RecordTable()
        let key = ResourceStore.Key(type: "articles", id: "1")
        let server = ResourceObject(type: "articles", id: "1", attributes: ["title": "Server", "body": "B"])
        _ = records.setRecord(try #require(ResourceStore.Record(object: server, lastUse: 1)), for: key)
        var overlay = ResourceStore.OptimisticOverlay()
        #expect(overlay.visibleObject(key, in: records) == server)
        #expect(overlay.layeredKeys(in: records).isEmpty)
        let first = overlay.add(.update, object: ResourceObject(type: "articles", id: "1", attributes: ["title": "One"]), for: key)
        let second = overlay.add(.update, object: ResourceObject(type: "articles", id: "1", attributes: ["title": "Two"]), for: key)
        #expect(overlay.visibleObject(key, in: records)?.attributes == ["title": "Two", "body": "B"])
        #expect(overlay.pendingChanges(key, in: records)?.writes == 2)
        let confirmed = overlay.confirm(second, answer: nil)
        #expect(confirmed)
        let held = overlay.takeConfirmedBottom(of: key)
        #expect(held.isEmpty)  // the first is not settled: nothing folds yet
        let undone = overlay.drop(first)
        #expect(undone?.attributes == ["title": "One"])
        let again = overlay.drop(first)
        #expect(again == nil)  // gone already
        let folded = overlay.takeConfirmedBottom(of: key)
        #expect(folded.map(\.number) == [second.number])
        #expect(overlay.isEmpty)
        let delete = overlay.add(.delete, object: ResourceObject(type: "articles", id: "1"), for: key)
        #expect(overlay.visibleObject(key, in: records) == nil)
        #expect(overlay.visibleKeys(of: "articles", in: records).isEmpty)
        let dropped = overlay.drop(delete)
        #expect(dropped != nil)
        #expect(overlay.visibleKeys(of: "articles", in: records) == [key])
    }

    @Test("RecordTable: the self-link index is made on first use and kept in step; eviction keeps nine tenths")
    func recordTable() throws {
        var table = ResourceStore.RecordTable()
        for id in 1...10 {
            let object = ResourceObject(type: "tags", id: "\(id)", links: Links(["self": Link(href: "https://x.test/tags/\(id)")]))
            _ = table.setRecord(try #require(ResourceStore.Record(object: object, lastUse: UInt64(id))), for: .init(type: "tags", id: "\(id)"))
        }
        #expect(!table.indexesSelfLinks)
        let index = table.selfLinkIndex()
        #expect(index["3"] == [ResourceStore.Key(type: "tags", id: "3")])
        table.removeRecord(.init(type: "tags", id: "3"))
        #expect(table.selfLinks?["3"] == nil)
        let none = table.evict(limit: 10)
        #expect(none.isEmpty)  // 9 records, under the limit
        let evicted = table.evict(limit: 5)  // 9 records: down to 5 - 5 / 10 = 5, the least recently used first
        #expect(evicted == [1, 2, 4, 5].map { ResourceStore.Key(type: "tags", id: "\($0)") })
        #expect(table.count == 5 && table.selfLinks?["1"] == nil)
        let rest = table.evict(limit: 0)
        #expect(rest.count == 5 && table.count == 0)
    }
}

extension HTTPRequest {
    /// The request at `path` under ``exampleBase``.
    fileprivate func with(path: String) -> HTTPRequest {
        var copy = self
        copy.url = exampleBase.appendingPathComponent(path)
        return copy
    }
}
