import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Testing
import TestSupport

/// The session's resource store, against scripted transports: identity map, bounds, policies, conditional
/// requests, coalescing, observation and lazy relationships. (StoreServerTests does the same against the server.)
@Suite("Resource store")
struct StoreTests {
    struct Writer: Resource, Equatable {
        static let resourceType = "writers"
        var id: String
        var name: String
    }

    struct Label: Resource, Equatable {
        static let resourceType = "labels"
        var id: String
        var name: String
    }

    struct Post: Resource, Equatable {
        static let resourceType = "posts"
        var id: String
        var title: String
        var author: Writer?
        var labels: ToMany<Label>?
    }

    static let post1 = #"{"type":"posts","id":"1","attributes":{"title":"One"},"relationships":{"author":{"data":{"type":"writers","id":"7"},"links":{"related":"https://api.example.com/v1/posts/1/author"}},"labels":{"data":[{"type":"labels","id":"3"}]}}}"#
    static let writer7 = #"{"type":"writers","id":"7","attributes":{"name":"Ann"}}"#
    static let label3 = #"{"type":"labels","id":"3","attributes":{"name":"swift"}}"#

    /// A session whose transport answers `body` for every request (fresh for a minute), counting them.
    private func session(_ body: String, configuration: Session.Configuration = .init()) -> (Session, CountingClient) {
        let client = CountingClient(ScriptedClient { _ in
            var response = HTTPResponse.document(body)
            response.headerFields.append("Cache-Control", "max-age=60")
            return response
        })
        return (Session(baseURL: exampleBase, client: client, configuration: configuration), client)
    }

    @Test("Fetched resources are kept by (type, id): a later fetch without include still reads the author")
    func identityMap() async throws {
        let responses = [
            #"{"data":[\#(Self.post1)],"included":[\#(Self.writer7),\#(Self.label3)]}"#,
            #"{"data":\#(Self.post1)}"#,
        ]
        let counter = LockedCounter()
        let client = ScriptedClient { _ in .document(responses[min(counter.next() - 1, 1)]) }
        let api = Session(baseURL: exampleBase, client: client)
        let posts = api.source(Post.self, .path("posts/<id>"))
        _ = try await posts.fetch().include(["author", "labels"]).result()
        let store = try #require(api.store)
        #expect(store.count == 3)
        let single = try await posts.fetch(id: "1").result()
        #expect(single.data?.author == nil)  // not included in this response
        let kept = try #require(try store.resource(Post.self, id: "1"))
        #expect(kept.author == Writer(id: "7", name: "Ann"))
        #expect(kept.labels?.resources == [Label(id: "3", name: "swift")])
        #expect(try store.resources(Writer.self) == [Writer(id: "7", name: "Ann")])
        #expect(try store.resource(Writer.self, id: "8") == nil)
        #expect(store.record(type: "labels", id: "3")?.attributes?["name"] == "swift")
    }

    @Test("Newest wins member by member; a relationship without data keeps the linkage; identifiers add nothing")
    func merging() throws {
        let store = ResourceStore()
        store.merge([
            ResourceObject(
                type: "posts", id: "1", attributes: ["title": "One", "views": 1],
                relationships: ["author": Relationship(data: .toOne(ResourceIdentifier(type: "writers", id: "7")))])
        ])
        store.merge([
            ResourceObject(
                type: "posts", id: "1", attributes: ["views": 2],
                relationships: ["author": Relationship(links: Links(["related": Link(href: "/posts/1/author")]))])
        ])
        let record = try #require(store.record(type: "posts", id: "1"))
        #expect(record.attributes == ["title": "One", "views": 2])
        #expect(record.relationships?["author"]?.data == .toOne(ResourceIdentifier(type: "writers", id: "7")))
        #expect(record.relationships?["author"]?.links?.related?.href == "/posts/1/author")
        store.merge(RawDocument(data: .identifiers([ResourceIdentifier(type: "posts", id: "2")])))
        store.merge([ResourceObject(type: "posts", id: nil, attributes: ["title": "new"])])
        #expect(store.count == 1)
    }

    @Test("The record limit holds at every merge; the least recently used go first", arguments: [0, 1, 10, 100])
    func recordLimit(limit: Int) throws {
        let store = ResourceStore(configuration: .init(maxResources: limit))
        store.merge([ResourceObject(type: "labels", id: "keep", attributes: ["name": "k"])])
        for batch in 0..<30 {
            _ = store.record(type: "labels", id: "keep")  // used: stays while others go
            store.merge((0..<10).map { ResourceObject(type: "labels", id: "\(batch)-\($0)", attributes: ["name": "x"]) })
            #expect(store.count <= limit)
        }
        // Eviction keeps nine tenths of the limit: "keep" outlives a batch of 10 newer records only with room for 11.
        #expect((store.record(type: "labels", id: "keep") != nil) == (limit - limit / 10 > 10))
        #expect(store.record(type: "labels", id: "0-0") == nil)
        store.clear()
        #expect(store.count == 0)
    }

    @Test("Response bytes stay under their limit; a body larger than the limit is not kept")
    func responseLimit() async throws {
        let body = #"{"data":[\#(Self.label3)]}"#
        let (api, client) = session(body, configuration: .init(store: .init(maxResponseBytes: body.utf8.count * 2)))
        let labels = api.source(Label.self, .path("labels/<id>"))
        for page in 1...5 { _ = try await labels.fetch().query("n", "\(page)").result() }
        _ = try await labels.fetch().query("n", "5").cachePolicy(.cacheOnly).result()
        _ = try await labels.fetch().query("n", "4").cachePolicy(.cacheOnly).result()
        await #expect(throws: JSONAPIClientError.self) {
            try await labels.fetch().query("n", "3").cachePolicy(.cacheOnly).result()
        }
        #expect(client.count == 5)
        let (small, _) = session(body, configuration: .init(store: .init(maxResponseBytes: body.utf8.count - 1)))
        let tiny = small.source(Label.self, .path("labels/<id>"))
        _ = try await tiny.fetch().result()
        await #expect(throws: JSONAPIClientError.self) { try await tiny.fetch().cachePolicy(.cacheOnly).result() }
        #expect(small.store?.count == 1)  // the resources are kept all the same
    }

    @Test("Bodies wait to be merged until the store is read; past the byte limit those waiting are merged, none dropped")
    func pendingBodies() async throws {
        let client = ScriptedClient { request in
            let page = request.url.query ?? ""
            return .document(#"{"data":[{"type":"labels","id":"\#(page)","attributes":{"name":"\#(page)"}}]}"#)
        }
        let size = #"{"data":[{"type":"labels","id":"n=1","attributes":{"name":"n=1"}}]}"#.utf8.count
        let api = Session(baseURL: exampleBase, client: client, configuration: .init(store: .init(maxResponseBytes: size * 2)))
        let labels = api.source(Label.self, .path("labels/<id>"))
        for page in 1...4 { _ = try await labels.fetch().query("n", "\(page)").result() }
        let store = try #require(api.store)
        #expect(try store.resources(Label.self).map(\.id) == ["n=1", "n=2", "n=3", "n=4"])
        // Once read, later bodies wait again; each read merges them in order.
        _ = try await labels.fetch().query("n", "5").result()
        #expect(store.count == 5)
    }

    @Test("cacheFirst sends nothing the second time while fresh; cacheOnly never sends; networkOnly always does")
    func policies() async throws {
        let (api, client) = session(#"{"data":[\#(Self.label3)]}"#)
        let labels = api.source(Label.self, .path("labels/<id>"))
        let error = await expectThrows(JSONAPIClientError.self) {
            try await labels.fetch().cachePolicy(.cacheOnly).result()
        }
        #expect(error?.code == .notCached)
        #expect(client.count == 0)
        let first = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(first.source == .network)
        let second = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(second.source == .cache)
        #expect(second.document == first.document)
        #expect(try await labels.fetch().cachePolicy(.cacheOnly).result().source == .cache)
        #expect(client.count == 1)
        #expect(try await second.reload().source == .network)  // a reload asks the server
        #expect(client.count == 2)
        _ = try await labels.fetch().result()
        #expect(client.count == 3)
        // The session's policy applies when the request sets none.
        let (cached, cachedClient) = session(#"{"data":[]}"#, configuration: .init(cachePolicy: .cacheFirst))
        _ = try await cached.fetch(URL(string: "labels")!).result()
        _ = try await cached.fetch(URL(string: "labels")!).result()
        #expect(cachedClient.count == 1)
    }

    @Test("Without a store nothing is kept, nothing is conditional, and cacheOnly fails")
    func optOut() async throws {
        let (api, client) = session(#"{"data":[\#(Self.label3)]}"#, configuration: .init(store: nil))
        #expect(api.store == nil)
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().cachePolicy(.cacheFirst).result()
        _ = try await labels.fetch().cachePolicy(.cacheFirst).result()
        #expect(client.count == 2)
        let error = await expectThrows(JSONAPIClientError.self) { try await labels.fetch().cachePolicy(.cacheOnly).result() }
        #expect(error?.code == .notCached)
        #expect(error?.detail.contains("no store") == true)
    }

    /// A server that sends `ETag: "v<version>"` and answers a matching `If-None-Match` with an empty 304.
    private final class ConditionalServer: @unchecked Sendable {
        let lock = NSLock()
        var version = 1
        var log: [(ifNoneMatch: String?, status: Int)] = []

        func respond(_ request: HTTPRequest) -> HTTPResponse {
            lock.withLock {
                let tag = "\"v\(version)\""
                let condition = request.headerFields[.ifNoneMatch]
                if condition == tag {
                    log.append((condition, 304))
                    return HTTPResponse(status: .notModified, headerFields: [.eTag: tag])
                }
                log.append((condition, 200))
                var response = HTTPResponse.document(#"{"data":[{"type":"labels","id":"3","attributes":{"name":"v\#(version)"}}]}"#)
                response.headerFields[.eTag] = tag
                return response
            }
        }
    }

    @Test("A stored response with an ETag makes the next GET conditional; a 304 answers with the stored document")
    func conditionalRequests() async throws {
        let server = ConditionalServer()
        let api = Session(baseURL: exampleBase, client: ScriptedClient { server.respond($0) })
        let labels = api.source(Label.self, .path("labels/<id>"))
        let first = try await labels.fetch().result()
        let second = try await labels.fetch().result()
        #expect(second.source == .revalidated)
        #expect(second.document == first.document)
        #expect(second.status == .ok)
        server.lock.withLock { server.version = 2 }
        let third = try await labels.fetch().result()
        #expect(third.source == .network)
        #expect(third.data?.first?.name == "v2")
        #expect(server.log.map(\.ifNoneMatch) == [nil, "\"v1\"", "\"v1\""])
        #expect(server.log.map(\.status) == [200, 304, 200])
        // A request that sets its own validator gets the 304 as the error it is for it.
        let own = await expectThrows(JSONAPIClientError.self) {
            try await labels.fetch().header(.ifNoneMatch, "\"v2\"").result()
        }
        #expect(own?.status == .notModified)
    }

    @Test("updates() yields the stored document, then the server's; stale-while-revalidate answers at once")
    func staleWhileRevalidate() async throws {
        let server = ConditionalServer()
        let counting = CountingClient(ScriptedClient { server.respond($0) })
        let api = Session(baseURL: exampleBase, client: counting)
        let labels = api.source(Label.self, .path("labels/<id>"))
        var sources: [ResponseSource] = []
        for try await response in labels.fetch().updates() { sources.append(response.source) }
        #expect(sources == [.network])  // nothing stored yet
        server.lock.withLock { server.version = 2 }
        var names: [String?] = []
        sources = []
        for try await response in labels.fetch().updates() {
            sources.append(response.source)
            names.append(response.data?.first?.name)
        }
        #expect(sources == [.cache, .network])
        #expect(names == ["v1", "v2"])
        let stale = try await labels.fetch().cachePolicy(.staleWhileRevalidate).result()
        #expect(stale.source == .cache)
        #expect(stale.data?.first?.name == "v2")
    }

    @Test("Identical GETs at the same time share one request; a cancelled waiter does not cancel the others")
    func coalescing() async throws {
        let gate = OpenGate()
        let client = CountingClient(ScriptedClient { _ in
            await gate.wait()
            return .document(#"{"data":[\#(Self.label3)]}"#)
        })
        let api = Session(baseURL: exampleBase, client: client)
        let labels = api.source(Label.self, .path("labels/<id>"))
        let cancelled = Task { try await labels.fetch().result() }
        let results = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<100 { group.addTask { try await labels.fetch().result().data?.count ?? -1 } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        while await gate.waiting == 0 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        await gate.open()
        #expect(try await results.value == Array(repeating: 1, count: 100))
        #expect(client.count == 1)
        // Different URLs are different requests.
        async let a = labels.fetch().query("a", "1").result()
        async let b = labels.fetch().query("a", "2").result()
        _ = try await (a, b)
        #expect(client.count == 3)
    }

    @Test("GETs that differ only in a header field (its value, its presence) are different exchanges")
    func coalescingByHeaders() async throws {
        let gate = OpenGate()
        let client = CountingClient(ScriptedClient { _ in
            await gate.wait()
            return .document(#"{"data":[\#(Self.label3)]}"#)
        })
        let labels = Session(baseURL: exampleBase, client: client).source(Label.self, .path("labels/<id>"))
        async let plain = labels.fetch().result()
        async let french = labels.fetch().header(HTTPField.Name("Accept-Language"), "fr").result()
        async let german = labels.fetch().header(HTTPField.Name("Accept-Language"), "de").result()
        async let frenchAgain = labels.fetch().header(HTTPField.Name("Accept-Language"), "fr").result()
        while await gate.waiting < 3 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(50))
        await gate.open()
        _ = try await (plain, french, german, frenchAgain)
        #expect(client.count == 3)  // the second French one shares the first's exchange
    }

    @Test("Observers see fetches, writes and deletes of their resources")
    func observing() async throws {
        let api = Session(baseURL: exampleBase, client: ScriptedClient { request in
            switch request.method {
            case .patch: .document(#"{"data":{"type":"labels","id":"3","attributes":{"name":"renamed"}}}"#)
            case .delete: HTTPResponse(status: .noContent)
            default: .document(#"{"data":[\#(Self.label3),{"type":"labels","id":"4","attributes":{"name":"four"}}]}"#)
            }
        })
        let store = try #require(api.store)
        let labels = api.source(Label.self, .path("labels/<id>"))
        let values = StreamProbe(store.updates(of: Label.self, id: "3"))
        let changes = StreamProbe(store.changes(of: Label.self))
        #expect(await values.next() == .some(nil))  // nothing yet
        _ = try await labels.fetch().result()
        #expect(await values.next() == Label(id: "3", name: "swift"))
        #expect(await changes.next() == StoreChange(type: "labels", id: "3", kind: .updated))
        #expect(await changes.next() == StoreChange(type: "labels", id: "4", kind: .updated))
        _ = try await labels.fetch().result()  // the same again: no change
        var change = ResourceUpdate<Label>(id: "3")
        change.set("name", to: "renamed")
        try await labels.update(change)
        #expect(await values.next() == Label(id: "3", name: "renamed"))
        #expect(await changes.next() == StoreChange(type: "labels", id: "3", kind: .updated))
        try await labels.delete(id: "3")
        #expect(await values.next() == .some(nil))
        #expect(await changes.next() == StoreChange(type: "labels", id: "3", kind: .removed))
        #expect(store.record(type: "labels", id: "3") == nil)
    }

    @Test("A delete by URL forgets the record whose self link it is, and only that one")
    func deleteByURL() async throws {
        let api = Session(baseURL: exampleBase, client: ScriptedClient { request in
            request.method == .delete
                ? HTTPResponse(status: .noContent)
                : .document(#"{"data":[{"type":"labels","id":"3","attributes":{"name":"a"},"links":{"self":"https://api.example.com/v1/labels/3"}},{"type":"labels","id":"4","attributes":{"name":"b"},"links":{"self":"/v1/labels/4"}}]}"#)
        })
        let store = try #require(api.store)
        _ = try await api.source(Label.self, .path("labels/<id>")).fetch().result()
        try await api.delete(URL(string: "https://api.example.com/v1/labels/3")!)
        #expect(store.record(type: "labels", id: "3") == nil)
        #expect(store.record(type: "labels", id: "4") != nil)
        try await api.delete(URL(string: "https://api.example.com/v1/labels/4")!)  // a relative self link
        #expect(store.record(type: "labels", id: "4") == nil)
        try await api.delete(URL(string: "https://api.example.com/v1/labels/9")!)  // none: nothing changes
        #expect(store.count == 0)
    }

    @Test("A 204 to a PATCH merges the members sent")
    func noContentUpdate() async throws {
        let api = Session(baseURL: exampleBase, client: ScriptedClient { request in
            request.method == .patch ? HTTPResponse(status: .noContent) : .document(#"{"data":[\#(Self.label3)]}"#)
        })
        let labels = api.source(Label.self, .path("labels/<id>"))
        _ = try await labels.fetch().result()
        var change = ResourceUpdate<Label>(id: "3")
        change.set("name", to: "sent")
        try await labels.update(change)
        #expect(try api.store?.resource(Label.self, id: "3") == Label(id: "3", name: "sent"))
    }

    @Test("Relationship endpoint writes change the record's linkage: replace, add, remove, or the server's answer")
    func relationshipWrites() async throws {
        let api = Session(baseURL: exampleBase, client: ScriptedClient { request in
            switch (request.method, request.url.lastPathComponent) {
            case (.get, _): .document(#"{"data":\#(Self.post1)}"#)
            case (.patch, "author"): .document(#"{"data":{"type":"writers","id":"9"}}"#)  // the server's linkage
            default: HTTPResponse(status: .noContent)
            }
        })
        let posts = api.source(Post.self, .path("posts/<id>"))
        let store = try #require(api.store)
        _ = try await posts.fetch(id: "1").result()
        let changes = StreamProbe(store.changes(of: Post.self))
        func linkage(_ name: String) -> Linkage? { store.record(type: "posts", id: "1")?.relationships?[name]?.data }
        let label = { (id: String) in ResourceIdentifier(type: "labels", id: id) }
        try await posts.relationship("labels", of: "1").add([label("4"), label("3")])
        #expect(linkage("labels") == .toMany([label("3"), label("4")]))
        #expect(await changes.next() == StoreChange(type: "posts", id: "1", kind: .updated))
        try await posts.relationship("labels", of: "1").remove([label("3")])
        #expect(linkage("labels") == .toMany([label("4")]))
        try await posts.relationship("labels", of: "1").replace(with: [])
        #expect(linkage("labels") == .toMany([]))
        try await posts.relationship("author", of: "1").replace(with: ResourceIdentifier(type: "writers", id: "8"))
        #expect(linkage("author") == .toOne(ResourceIdentifier(type: "writers", id: "9")))
        // A resource the store does not hold gets no record.
        try await posts.relationship("labels", of: "2").add([label("4")])
        #expect(store.record(type: "posts", id: "2") == nil)
    }

    @Test("Lazy relationships load from the store, else by the related link or endpoint")
    func lazyRelationships() async throws {
        let client = CountingClient(ScriptedClient { request in
            switch request.url.path {
            case "/v1/posts/1": .document(#"{"data":\#(Self.post1)}"#)
            case "/v1/posts/1/author": .document(#"{"data":\#(Self.writer7)}"#)
            case "/v1/posts/1/labels": .document(#"{"data":[\#(Self.label3)]}"#)
            default: HTTPResponse(status: .notFound)
            }
        })
        let api = Session(baseURL: exampleBase, client: client)
        let posts = api.source(Post.self, .path("posts/<id>"))
        let post = try #require(try await posts.fetch(id: "1").result().data)
        #expect(post.author == nil)
        // Not in the store: by the related link (to-one) and the related endpoint (to-many).
        let author: Writer? = try await posts.load("author", of: post)
        #expect(author == Writer(id: "7", name: "Ann"))
        let labels: [Label] = try await posts.load("labels", of: post)
        #expect(labels == [Label(id: "3", name: "swift")])
        #expect(client.count == 3)
        // Now in the store: no request, by name or by relationship value.
        #expect(try await posts.load("author", of: post) == Writer(id: "7", name: "Ann"))
        #expect(try await posts.load(try #require(post.labels)) == [Label(id: "3", name: "swift")])
        #expect(client.count == 3)
        // An empty to-one loads as nil without a request.
        #expect(try await posts.load(ToOne<Writer>(identifier: nil, hasLinkage: true)) == nil)
        #expect(client.count == 3)
    }
}

/// A counter shared by a scripted transport's calls.
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
