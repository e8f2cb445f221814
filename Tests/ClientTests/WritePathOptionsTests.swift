import Foundation
import JSONAPIClientTesting
import Testing
import TestSupport

@testable import JSONAPIClient

/// `WriteOptions` on every write path, not only a data source's: untyped writes (`Session.create(_:at:)`, `update`,
/// `delete`) and relationship endpoints show at once when optimistic, roll back when refused, and wait in the queue
/// when the server cannot be reached — against a held server, and the queue against the real test server.
@Suite("Write options on every write path")
struct WritePathOptionsTests {
    static let memoURL = URL(string: "memos/1")!

    /// A session on a held server whose store holds memo 1 ("Draft", linked to label 1 as its `labels`).
    static func setUp() throws -> (HeldWrites, Session) {
        let held = HeldWrites()
        let api = Session(baseURL: HeldWrites.baseURL, client: held.client)
        let memo = #"{"data":{"type":"memos","id":"1","attributes":{"title":"Draft"},"#
            + #""relationships":{"labels":{"data":[{"type":"labels","id":"1"}]}},"#
            + #""links":{"self":"https://api.example.com/memos/1"}}}"#
        try #require(api.store).merge(try JSONAPIDecoder().decode(RawDocument.self, from: Data(memo.utf8)))
        return (held, api)
    }

    static func labels(_ store: ResourceStore?) -> [String] {
        store?.record(type: "memos", id: "1")?.relationships?["labels"]?.data?.identifiers.compactMap(\.id) ?? []
    }

    @Test("An untyped optimistic update shows at once and the answer settles it; a refused one rolls back")
    func untypedUpdate() async throws {
        let (held, api) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let change = ResourceObject(type: "memos", id: "1", attributes: ["title": "Final"])
        let write = Task { try await api.update(change, at: Self.memoURL, options: .optimistic) }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        #expect(store.record(type: "memos", id: "1")?.attributes?["title"] == "Final")
        held.confirm(0, id: "1", title: "Final (server)")
        _ = try await write.value
        #expect(store.record(type: "memos", id: "1")?.attributes?["title"] == "Final (server)")
        #expect(store.pendingChanges().isEmpty)

        let refused = Task { try await api.update(change, at: Self.memoURL, options: .optimistic) }
        guard await held.arrivals.next("the second PATCH") != nil else { return }
        #expect(store.record(type: "memos", id: "1")?.attributes?["title"] == "Final")
        held.refuse(1)
        let error = try #require(await expectThrows(JSONAPIClientError.self) { try await refused.value })
        #expect(error.rolledBack?.attributes?["title"] == "Final")
        #expect(store.record(type: "memos", id: "1")?.attributes?["title"] == "Final (server)")
    }

    @Test("An untyped optimistic create shows under its local id; an untyped optimistic delete hides the record at once")
    func untypedCreateAndDelete() async throws {
        let (held, api) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let new = ResourceObject(type: "memos", lid: "draft-2", attributes: ["title": "Second"])
        let create = Task { try await api.create(new, at: URL(string: "memos")!, options: .optimistic) }
        guard await held.arrivals.next("the POST") != nil else { return }
        #expect(store.record(type: "memos", id: "draft-2")?.attributes?["title"] == "Second")
        held.confirm(0, id: "2", title: "Second")
        _ = try await create.value
        #expect(store.record(type: "memos", id: "2") != nil && store.record(type: "memos", id: "draft-2") == nil)

        let delete = Task { try await api.delete(URL(string: "https://api.example.com/memos/1")!, options: .optimistic) }
        guard let arrival = await held.arrivals.next("the DELETE") else { return }
        #expect(arrival.method == .delete && arrival.path == "/memos/1")
        #expect(store.record(type: "memos", id: "1") == nil)  // found by its self link, hidden at once
        held.settle(1, .success(HTTPResponse(status: .noContent)))
        _ = try await delete.value
        #expect(store.record(type: "memos", id: "1") == nil && store.pendingChanges().isEmpty)
    }

    @Test("A relationship endpoint's optimistic add shows the whole linkage at once, and a refusal rolls it back")
    func relationshipOptimistic() async throws {
        let (held, api) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let endpoint = api.source(Memo.self, .path("memos/<id>")).relationship("labels", of: "1")
        let label2 = ResourceIdentifier(type: "labels", id: "2")
        let add = Task { try await endpoint.add([label2], options: .optimistic) }
        guard let arrival = await held.arrivals.next("the POST") else { return }
        #expect(arrival.method == .post && arrival.path == "/memos/1/relationships/labels")
        #expect(Self.labels(store) == ["1", "2"])
        held.settle(0, .success(HTTPResponse(status: .noContent)))
        _ = try await add.value
        #expect(Self.labels(store) == ["1", "2"])
        #expect(store.pendingChanges().isEmpty)

        let remove = Task { try await endpoint.remove([label2], options: .optimistic) }
        guard await held.arrivals.next("the DELETE") != nil else { return }
        #expect(Self.labels(store) == ["1"])
        held.refuse(1, status: 403)
        await #expect(throws: JSONAPIClientError.self) { try await remove.value }
        #expect(Self.labels(store) == ["1", "2"])
    }

    @Test("Not optimistic, a relationship write changes the linkage once answered: the server's when it says it")
    func relationshipAnswered() async throws {
        let (held, api) = try Self.setUp()
        defer { held.finish() }
        let store = try #require(api.store)
        let endpoint = api.source(Memo.self, .path("memos/<id>")).relationship("labels", of: "1")
        let replace = Task { try await endpoint.replace(with: [ResourceIdentifier(type: "labels", id: "3")]) }
        guard await held.arrivals.next("the PATCH") != nil else { return }
        #expect(Self.labels(store) == ["1"])  // not shown before the answer
        held.settle(0, .success(.document(#"{"data":[{"type":"labels","id":"3"},{"type":"labels","id":"4"}]}"#)))
        _ = try await replace.value
        #expect(Self.labels(store) == ["3", "4"])  // the server's linkage, not only what was sent
    }

    @Test("Offline, an untyped update and a relationship change wait in the queue and reach the real server after")
    func queuedAgainstServer() async throws {
        let network = NetworkSwitch()
        let api = Session(
            baseURL: try TestServer.url(),
            configuration: .init(
                middlewares: [network], writes: .offline,
                writeQueue: .init(firstDelay: .milliseconds(10), maxDelay: .milliseconds(50))))
        let articles = api.source(Article.self, .path("articles/<id>"))
        let article = try await Sources.createArticle(articles)
        _ = try await articles.fetch(id: article.id).include("tags").result()
        network.go(offline: true)
        let title = "Queued \(UUID().uuidString)"
        let update = try await api.update(
            ResourceObject(type: "articles", id: article.id, attributes: ["title": .string(title)]),
            at: URL(string: "articles/\(article.id)")!)
        #expect(update.queued != nil)
        let tags = articles.relationship("tags", of: article.id)
        #expect(try await tags.add([ResourceIdentifier(type: "tags", id: "2")]).queued != nil)
        #expect(api.writeQueue.entries.count == 2)
        #expect(api.store?.record(type: "articles", id: article.id)?.attributes?["title"] == .string(title))
        #expect(api.store?.record(type: "articles", id: article.id)?.relationships?["tags"]?.data?.identifiers.compactMap(\.id) == ["2"])
        network.go(offline: false)
        api.writeQueue.resume()
        await api.writeQueue.replay()
        #expect(api.writeQueue.entries.isEmpty)
        let fresh = try await Sources.articles().fetch(id: article.id).include("tags").result().data
        #expect(fresh?.title == title)
        #expect(fresh?.tags?.identifiers.map(\.id) == ["2"])
        try await articles.delete(id: article.id)
    }
}
