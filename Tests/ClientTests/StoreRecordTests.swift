import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// The store's records kept as parsed: one parse per response, merges that read nothing when they need not, shared
/// tapes compacted once mostly replaced, and typed reads that follow linkage through them.
@Suite("Resource store records")
struct StoreRecordTests {
    struct Person: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    struct Article: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var author: Person?
    }

    static func article(_ id: Int, title: String, author: Int) -> String {
        #"{"type":"articles","id":"\#(id)","attributes":{"title":"\#(title)"},"relationships":{"author":{"data":{"type":"people","id":"\#(author)"}}}}"#
    }

    static func person(_ id: Int, _ name: String) -> String {
        #"{"type":"people","id":"\#(id)","attributes":{"name":"\#(name)"}}"#
    }

    static func body(_ data: [String], included: [String] = []) -> Data {
        Data(#"{"data":[\#(data.joined(separator: ","))],"included":[\#(included.joined(separator: ","))]}"#.utf8)
    }

    @Test("A shared tape counts each record let go once, and none it does not hold")
    func sharedRelease() throws {
        let records = try JSONAPIDecoder().records(from: Self.body([Self.person(1, "One"), Self.person(2, "Two")]))
        var shared = ResourceStore.SharedRecords(records: records, held: [true, false], live: 1)
        let first = shared.release(0)
        #expect(first)
        #expect(shared.held == [false, false])
        #expect(shared.live == 0)
        let again = shared.release(0), never = shared.release(1)
        #expect(!again)  // let go already
        #expect(!never)  // never held
        #expect(shared.live == 0)
    }

    @Test("A typed fetch parses its body once: its records come from the decode, nothing waits to be parsed again")
    func oneParse() async throws {
        let body = Self.body([Self.article(1, title: "One", author: 9)], included: [Self.person(9, "Nine")])
        let api = Session(baseURL: exampleBase, client: ScriptedClient { _ in HTTPResponse(status: .ok, body: body) })
        let store = try #require(api.store)
        _ = store.count  // the app uses the store
        _ = try await api.source(Article.self, .path("articles/<id>")).fetch().result()
        // Handed over as records: they wait (nobody has read the store), and merging them parses nothing.
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.bodies.first?.records != nil, $0.records.count) } == (1, true, 0))
        #expect(store.count == 2)
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.parsed) } == (0, 0))
        // The records lie in the response's tape, shared, not in one each.
        let shared = store.readParts { state in state.records.byKey.records.map { ObjectIdentifier($0.stored.records) } }
        #expect(Set(shared).count == 1)
        #expect(try store.resource(Article.self, id: "1")?.author?.name == "Nine")
    }

    @Test("Observed, a typed fetch still parses its body once, and the observer is told; 20 coalesced fetches too")
    func oneParseObserved() async throws {
        let body = Self.body([Self.article(1, title: "One", author: 9)], included: [Self.person(9, "Nine")])
        let api = Session(
            baseURL: exampleBase,
            client: ScriptedClient { _ in
                try await Task.sleep(for: .milliseconds(20))
                return HTTPResponse(status: .ok, body: body)
            })
        let store = try #require(api.store)
        let (changes, following) = Events.following(store.changes(of: Person.self))
        defer { following.cancel() }
        let articles = api.source(Article.self, .path("articles/<id>"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { _ = try await articles.fetch().result() } }
            try await group.waitForAll()
        }
        #expect(await changes.next("a change")?.id == "9")
        #expect(store.readParts { ($0.waiting.parsed, $0.waiting.bodies.count) } == (0, 0))
        // A body the decode cannot keep records of (a resource that would not read) is merged by the store, observed.
        let odd = Data(#"{"data":[{"type":"articles","id":"2","attributes":{"title":"Two"},"relationships":{"x":5}}]}"#.utf8)
        let other = Session(baseURL: exampleBase, client: ScriptedClient { _ in HTTPResponse(status: .ok, body: odd) })
        let otherStore = try #require(other.store)
        let observer = otherStore.changes(of: Article.self)
        _ = try await other.source(Article.self, .path("articles/<id>")).fetch().result()
        #expect(otherStore.readParts { ($0.waiting.parsed, $0.waiting.bodies.count, $0.records.count) } == (1, 0, 0))
        withExtendedLifetime(observer) {}
    }

    /// Holds the response of each path it names, after the store step (so its body waits for its decode), until
    /// that path's signal fires; fires `reached` first.
    struct Hold: Middleware {
        let paths: [String: (reached: Signal, release: Signal)]
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext, next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            let response = try await next(request)
            if let hold = paths[request.url.lastPathComponent] {
                hold.reached.fire()
                await hold.release.wait()
            }
            return response
        }
    }

    @Test("Observed, a fetch that handed its records over settles nothing: a newer body waiting for its own decode is not parsed by the store")
    func handedOverSettlesNothing() async throws {
        let bodies = [
            "1": Data(#"{"data":\#(Self.article(1, title: "One", author: 9)),"included":[\#(Self.person(9, "Nine"))]}"#.utf8),
            "2": Data(#"{"data":\#(Self.article(2, title: "Two", author: 8)),"included":[\#(Self.person(8, "Eight"))]}"#.utf8),
        ]
        let holds = ["1": (reached: Signal(), release: Signal()), "2": (reached: Signal(), release: Signal())]
        let api = Session(
            baseURL: exampleBase,
            client: ScriptedClient { request in HTTPResponse(status: .ok, body: bodies[request.url.lastPathComponent] ?? Data()) },
            configuration: .init(middlewares: [Hold(paths: holds)]))
        let store = try #require(api.store)
        let observer = store.changes(of: Person.self)
        let articles = api.source(Article.self, .path("articles/<id>"))
        let first = Task { try await articles.fetch(id: "1").result() }
        await holds["1"]?.reached.wait()
        let second = Task { try await articles.fetch(id: "2").result() }
        await holds["2"]?.reached.wait()
        // Both bodies wait, the first older; the first's decode hands its records over, and the second's waits on.
        holds["1"]?.release.fire()
        _ = try await first.value
        #expect(store.readParts { ($0.waiting.parsed, $0.waiting.bodies.count) } == (0, 1))
        holds["2"]?.release.fire()
        _ = try await second.value
        #expect(store.readParts { ($0.waiting.parsed, $0.waiting.bodies.count) } == (0, 0))
        withExtendedLifetime(observer) {}
    }

    @Test("A store never used takes no records: its bodies wait as they came, parsed only when it is first read")
    func unusedStoreKeepsBodies() async throws {
        let body = Self.body([Self.article(1, title: "One", author: 9)], included: [Self.person(9, "Nine")])
        let api = Session(baseURL: exampleBase, client: ScriptedClient { _ in HTTPResponse(status: .ok, body: body) })
        let store = try #require(api.store)
        _ = try await api.source(Article.self, .path("articles/<id>")).fetch().result()
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.bodies.first?.records == nil, $0.recordsUsed) } == (1, true, false))
        #expect(try store.resource(Article.self, id: "1")?.author?.name == "Nine")
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.parsed, $0.recordsUsed) } == (0, 1, true))
    }

    @Test("Records handed over from a decode go in their body's place among the bodies waiting: older first")
    func claimInOrder() async throws {
        let store = ResourceStore()
        _ = store.count  // used: it takes records
        let older = Self.body([Self.person(1, "Old")])
        let claimed = Self.body([Self.person(1, "Middle")])
        let newer = Self.body([Self.person(1, "New"), Self.person(2, "Two")])
        store.merge(from: older)
        store.merge(from: claimed)
        store.merge(from: newer)
        #expect(store.takesRecords(of: claimed))
        store.merge(try JSONAPIDecoder().records(from: claimed), from: claimed)
        // Nobody observes: the records wait in the body's place, and the body is no longer waiting as a body.
        #expect(store.readParts { $0.waiting.bodies.map { $0.records != nil } } == [false, true, false])
        #expect(!store.takesRecords(of: claimed))
        #expect(try store.resource(Person.self, id: "1")?.name == "New")
        #expect(store.readParts { $0.waiting.parsed } == 2)  // the two not handed over
        // Observed, handed-over records are merged at once, after the bodies before them, and the observer is told.
        let (changes, following) = Events.following(store.changes(of: Person.self))
        defer { following.cancel() }
        let first = Self.body([Self.person(3, "Three")])
        let second = Self.body([Self.person(3, "Three, again"), Self.person(4, "Four")])
        store.merge(from: first, awaitsDecode: true)
        store.merge(from: second, awaitsDecode: true)
        store.merge(try JSONAPIDecoder().records(from: second), from: second)
        #expect(await changes.next("a change")?.id == "3")
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.parsed) } == (0, 3))
        #expect(store.record(type: "people", id: "3")?.attributes?["name"] == "Three, again")
        // A body merged meanwhile (by a read) is not merged again over what came after it.
        store.merge(try JSONAPIDecoder().records(from: older), from: older)
        #expect(try store.resource(Person.self, id: "1")?.name == "New")
        #expect(!store.takesRecords(of: older))
    }

    @Test("The same bytes from a copy of a body are still that body; a body already waiting is not added again")
    func sameBody() throws {
        let store = ResourceStore()
        _ = store.count  // used: it takes records
        let body = Self.body([Self.person(1, "One")])
        store.merge(from: body)
        store.merge(from: body, awaitsDecode: true)
        store.merge(from: Data(Array(body)))
        #expect(store.readParts { ($0.waiting.bodies.count, $0.waiting.parsed) } == (1, 0))
        #expect(store.takesRecords(of: Data(Array(body))))  // other storage, same bytes
        #expect(!store.takesRecords(of: Self.body([Self.person(1, "Uno")])))
        #expect(!store.takesRecords(of: Data()))
    }

    @Test("A merge of what the store has, written the same, changes nothing; a fuller one replaces; a partial one merges")
    func mergeShapes() async throws {
        let store = ResourceStore()
        store.merge(try JSONAPIDecoder().records(from: Self.body([Self.person(1, "One")])))
        let key = ResourceStore.Key(type: "people", id: "1")
        let changed = store.readParts { $0.records[key]?.changed }
        let (changes, following) = Events.following(store.changes(of: Person.self))
        defer { following.cancel() }
        store.merge(try JSONAPIDecoder().records(from: Self.body([Self.person(1, "One"), Self.person(2, "Two")])))
        #expect(await changes.next("a change")?.id == "2")  // 1 is the same: no change for it
        #expect(store.readParts { $0.records[key]?.changed } == changed)
        // Every member the record has, and more: the newer record as it is.
        let fuller = #"{"type":"people","id":"1","attributes":{"name":"Uno","age":3}}"#
        let fullerRecords = try JSONAPIDecoder().records(from: Self.body([fuller]))
        store.merge(fullerRecords)
        #expect(store.readParts { $0.records[key]?.stored.records } === fullerRecords)
        #expect(await changes.next("a change")?.id == "1")
        // Fewer members: merged member by member, into a tape of its own.
        let partial = #"{"type":"people","id":"1","attributes":{"age":4}}"#
        store.merge(try JSONAPIDecoder().records(from: Self.body([partial])))
        #expect(store.record(type: "people", id: "1")?.attributes == ["name": "Uno", "age": 4])
        #expect(store.readParts { $0.records[key]?.stored.records.resources.count } == 1)
        #expect(await changes.next("a change")?.id == "1")
        // Fewer members that change nothing: no change.
        store.merge(try JSONAPIDecoder().records(from: Self.body([#"{"type":"people","id":"1","attributes":{"age":4}}"#])))
        store.merge(try JSONAPIDecoder().records(from: Self.body([Self.person(3, "Three")])))
        #expect(await changes.next("a change")?.id == "3")
    }

    @Test("A shared tape whose records are mostly replaced is let go: the rest are copied out (at exactly half, not yet)")
    func compaction() throws {
        let store = ResourceStore()
        // A document of one resource is that record's own tape: nothing to count.
        store.merge(try JSONAPIDecoder().records(from: Self.body([Self.person(9, "P9")])))
        #expect(store.readParts { $0.records.shared.isEmpty })
        let first = try JSONAPIDecoder().records(from: Self.body((1...4).map { Self.person($0, "P\($0)") }))
        store.merge(first)
        let id = ObjectIdentifier(first)
        #expect(store.readParts { $0.records.shared[id]?.live } == 4)
        store.merge([ResourceObject(type: "people", id: "1", attributes: ["name": "new"])])
        store.merge([ResourceObject(type: "people", id: "2", attributes: ["name": "new"])])
        #expect(store.readParts { $0.records.shared[id]?.live } == 2)  // half: kept
        store.remove(type: "people", id: "3")
        #expect(store.readParts { $0.records.shared[id] } == nil)  // fewer than half: compacted
        let kept = store.readParts { $0.records[ResourceStore.Key(type: "people", id: "4")]?.stored }
        #expect(kept?.records !== first)
        #expect(kept?.records.resources.count == 0)
        #expect(try store.resource(Person.self, id: "4")?.name == "P4")
        // A document whose records are mostly the same as the store's is not kept for the few it brings.
        let again = try JSONAPIDecoder().records(from: Self.body([Self.person(4, "P4"), Self.person(5, "P5"), Self.person(6, "P6")]))
        store.merge(again)
        #expect(store.readParts { $0.records.shared[ObjectIdentifier(again)]?.live } == 2)
        let mostlySame = try JSONAPIDecoder().records(
            from: Self.body([Self.person(4, "P4"), Self.person(5, "P5"), Self.person(6, "P6"), Self.person(7, "P7")]))
        store.merge(mostlySame)
        #expect(store.readParts { $0.records.shared[ObjectIdentifier(mostlySame)] } == nil)
        #expect(try store.resource(Person.self, id: "7")?.name == "P7")
    }

    @Test(
        "A response that replaces most of a shared tape's records lets the tape go once it is merged, in one merge of records or of objects"
    )
    func compactionAfterTheMerge() throws {
        let store = ResourceStore()
        let first = try JSONAPIDecoder().records(from: Self.body((1...5).map { Self.person($0, "P\($0)") }))
        store.merge(first)
        #expect(store.readParts { $0.records.shared[ObjectIdentifier(first)]?.live } == 5)
        // Three of five replaced in one response: two left, fewer than half.
        let newer = try JSONAPIDecoder().records(from: Self.body((1...3).map { Self.person($0, "new \($0)") }))
        store.merge(newer)
        #expect(store.readParts { $0.records.shared[ObjectIdentifier(first)] } == nil)
        #expect(store.readParts { $0.records[ResourceStore.Key(type: "people", id: "5")]?.stored.records.resources.count } == 0)
        #expect(try store.resources(Person.self).map(\.name).sorted() == ["P4", "P5", "new 1", "new 2", "new 3"])
        // The same through resource objects, each in a tape of its own.
        let second = try JSONAPIDecoder().records(from: Self.body((6...8).map { Self.person($0, "P\($0)") }))
        store.merge(second)
        store.merge((6...7).map { ResourceObject(type: "people", id: "\($0)", attributes: ["name": "new"]) })
        #expect(store.readParts { $0.records.shared[ObjectIdentifier(second)] } == nil)
        #expect(try store.resource(Person.self, id: "8")?.name == "P8")
    }

    @Test("A read follows linkage to the store's record: a newer one from elsewhere, none once removed, one of another response")
    func readsTheStoresRecord() throws {
        let store = ResourceStore()
        store.merge(
            try JSONAPIDecoder().records(
                from: Self.body(
                    [Self.article(1, title: "One", author: 9), Self.article(2, title: "Two", author: 8)],
                    included: [Self.person(9, "Nine"), Self.person(7, "Seven")])))
        #expect(try store.resources(Article.self).map(\.author?.name) == ["Nine", nil])
        store.merge(try JSONAPIDecoder().records(from: Self.body([Self.person(8, "Eight")])))
        #expect(try store.resources(Article.self).map(\.author?.name) == ["Nine", "Eight"])
        store.merge(try JSONAPIDecoder().records(from: Self.body([Self.person(9, "Nine, again")])))
        #expect(try store.resources(Article.self).map(\.author?.name) == ["Nine, again", "Eight"])
        #expect(try store.resources(Article.self).map(\.author?.name) == ["Nine, again", "Eight"])  // from the link table
        store.remove(type: "people", id: "9")
        #expect(try store.resources(Article.self).map(\.author?.name) == [nil, "Eight"])
        #expect(try store.resource(Article.self, id: "2")?.author?.name == "Eight")
        #expect(try store.resource(Article.self, id: "3") == nil)
    }

    @Test("With a write pending, a read shows it: every record is met by key")
    func readsPendingWrites() throws {
        let store = ResourceStore()
        store.merge(
            try JSONAPIDecoder().records(
                from: Self.body([Self.article(1, title: "One", author: 9)], included: [Self.person(9, "Nine")])))
        #expect(try store.resource(Article.self, id: "1")?.author?.name == "Nine")
        let layer = store.addPending(
            .update, object: ResourceObject(type: "people", id: "9", attributes: ["name": "Nine, soon"]), id: "9")
        #expect(try store.resource(Article.self, id: "1")?.author?.name == "Nine, soon")
        _ = store.dropPending(layer)
        #expect(try store.resource(Article.self, id: "1")?.author?.name == "Nine")
    }

    @Test("Against the server: a page with its authors and comments, parsed once, reads back from the store as fetched")
    func serverPage() async throws {
        let api = Session(baseURL: try TestServer.url())
        let store = try #require(api.store)
        _ = store.count  // the app uses the store
        let page = try await api.source(TestSupport.Article.self, .path("articles/<id>")).fetch()
            .include(["author", "comments"]).paginate(.pageBased(1, 20))
        let fetched = try #require(page.data)
        #expect(store.count > 20)
        #expect(store.readParts { ($0.waiting.parsed, $0.records.shared.count) } == (0, 1))  // the decode's records
        // The store resolves what it holds, however deep (the response's models stop where `include` did):
        // compared by what both know, never printed whole.
        func outline(_ articles: [TestSupport.Article]) -> [String] {
            articles.map { article in
                let comments = article.comments?.resources.map { "\($0.id):\($0.body)" } ?? []
                return "\(article.id) \(article.title) by \(article.author?.name ?? "-") \(comments)"
            }
        }
        let read = try store.resources(TestSupport.Article.self)
        #expect(read.count == 20)
        #expect(outline(read) == outline(fetched.sorted { $0.id < $1.id }))
        #expect(read.allSatisfy { $0.author != nil })
    }

    @Test("Reads through a link table agree with reads that resolve each identifier, over many shapes")
    func linkTableAgrees() throws {
        // Three responses overlapping: a person updated in a later one, one removed, one evicted.
        let store = ResourceStore(configuration: .init(maxResources: 40))
        for round in 0..<3 {
            let articles = (1...10).map { Self.article($0 + round * 5, title: "A\($0 + round * 5)", author: ($0 + round) % 6) }
            let people = (0..<6).map { Self.person($0, "P\($0)-\(round)") }
            store.merge(try JSONAPIDecoder().records(from: Self.body(articles, included: people)))
            store.remove(type: "people", id: String(round))
            let read = try store.resources(Article.self)
            for article in read {
                let authorID = store.record(type: "articles", id: article.id)?.relationships?["author"]?.data
                guard case .toOne(let identifier?) = authorID else { continue }
                let person = store.record(type: "people", id: identifier.id ?? "")
                #expect(article.author?.name == person?.attributes?["name"]?.stringValue)
            }
        }
    }
}
