import Foundation
import JSONAPIClientTesting
import Testing

@testable import JSONAPIClient

/// A live list takes the models a fetch elsewhere decoded (``ResourceStore/FetchedModels``) instead of decoding their
/// records again — only when the store confirms it shows them as that fetch had them
/// (``ResourceStore/shownAsFetched(_:type:depth:)``); otherwise it reads them again, as it always did.
@Suite("Live list: the models a fetch decoded")
struct LiveFetchedModelsTests {
    // MARK: The list

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A fetch elsewhere of the list's model type: the list shows its models, each decoded once")
    @MainActor
    func decodedOnce() async throws {
        let server = AuthoredArticles(count: 4)
        let decodes = DecodeCounter()
        let api = server.session(decodes: decodes)
        let request = api.source(CountedArticle.self, .path("articles/<id>")).fetch().include("author")
        let list = request.page(.pageBased(1, 10)).liveList(prefetch: 0)
        await list.load()
        #expect(list.resources.map(\.title) == ["Article 1", "Article 2", "Article 3", "Article 4"])

        for id in ["1", "2", "3", "4"] { server.retitle(id, "New \(id)") }
        let before = decodes.count
        let fetched = try await request.page(.pageBased(1, 10)).result()
        #expect(fetched.data?.count == 4)
        await Observed.until("the list shows the new titles") {
            list.resources.map(\.title) == ["New 1", "New 2", "New 3", "New 4"]
        }
        #expect(decodes.count - before == 4, "the fetch decoded each article; the list decoded none again")
        #expect(list.resources.map(\.author?.name) == ["Person 1", "Person 2", "Person 1", "Person 2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("An article with a pending optimistic write shows the write, not the fetch's model")
    @MainActor
    func pendingWrite() async throws {
        let server = AuthoredArticles(count: 2)
        let api = server.session()
        let request = api.source(CountedArticle.self, .path("articles/<id>")).fetch().include("author")
        let list = request.page(.pageBased(1, 10)).liveList(prefetch: 0)
        await list.load()
        let store = try #require(api.store)
        _ = store.addPending(
            .update, object: ResourceObject(type: "articles", id: "1", attributes: ["title": "Local"]), id: "1")
        await Observed.until("the list shows the pending write") { list.resources.first?.title == "Local" }

        server.retitle("1", "Server 1")
        server.retitle("2", "Server 2")
        _ = try await request.page(.pageBased(1, 10)).result()
        await Observed.until("article 2 shows the fetch's title") { list.resources.last?.title == "Server 2" }
        #expect(list.resources.map(\.title) == ["Local", "Server 2"])
        #expect(try store.resource(CountedArticle.self, id: "1")?.title == "Local")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A fetch of another model type of the same resource type: the list reads its own models again")
    @MainActor
    func otherModelType() async throws {
        let server = AuthoredArticles(count: 2)
        let decodes = DecodeCounter()
        let api = server.session(decodes: decodes)
        let list = api.source(CountedArticle.self, .path("articles/<id>")).fetch().include("author")
            .page(.pageBased(1, 10)).liveList(prefetch: 0)
        await list.load()
        server.retitle("1", "New 1")
        server.retitle("2", "New 2")
        let before = decodes.count
        let titles = try await api.source(ArticleTitle.self, .path("articles/<id>")).fetch().include("author")
            .page(.pageBased(1, 10)).result()
        #expect(titles.data?.map(\.title) == ["New 1", "New 2"])
        await Observed.until("the list shows the new titles") { list.resources.map(\.title) == ["New 1", "New 2"] }
        #expect(decodes.count - before == 2, "the list decoded its two articles from the store")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("An author renamed after the fetch that included it shows in the list")
    @MainActor
    func authorRenamedAfterTheFetch() async throws {
        let server = AuthoredArticles(count: 2)
        let api = server.session()
        let request = api.source(CountedArticle.self, .path("articles/<id>")).fetch().include("author")
        let list = request.page(.pageBased(1, 10)).liveList(prefetch: 0)
        await list.load()
        server.retitle("1", "New 1")
        _ = try await request.page(.pageBased(1, 10)).result()
        let store = try #require(api.store)
        store.merge([ResourceObject(type: "people", id: "1", attributes: ["name": "Renamed"])])
        await Observed.until("the list shows the new title and the new name") {
            list.resources.first?.title == "New 1" && list.resources.first?.author?.name == "Renamed"
        }
    }

    // MARK: What the store confirms

    @Test("After the fetch's merge the store confirms every model, with what each reaches")
    func confirmed() async throws {
        let (api, store, fetched) = try await Self.fetchObserved(AuthoredArticles(count: 3))
        let shown = store.shownAsFetched(Self.offers(fetched), type: "articles", depth: LiveDependencies.depth)
        let linked = store.linkedKeys(from: ["1", "2", "3"].map { .init(type: "articles", id: $0) }, depth: 3)
        #expect(shown.count == 3)
        for (index, id) in ["1", "2", "3"].enumerated() {
            #expect(shown[index] == linked[.init(type: "articles", id: id)], "article \(id)")
        }
        #expect(shown[0]?.count == 1, "article 1 reaches its author")
        withExtendedLifetime(api) {}
    }

    @Test("Not confirmed: an article or its author with a pending write, an author merged since")
    func notConfirmed() async throws {
        let (_, store, fetched) = try await Self.fetchObserved(AuthoredArticles(count: 4))
        // Articles 1 and 3 are by person 1, 2 and 4 by person 2.
        let article = ResourceObject(type: "articles", id: "2", attributes: ["title": "L"])
        _ = store.addPending(.update, object: article, id: "2")
        #expect(Self.confirmedIDs(store, fetched) == ["1", "3", "4"])
        let person = ResourceObject(type: "people", id: "1", attributes: ["name": "L"])
        _ = store.addPending(.update, object: person, id: "1")
        #expect(Self.confirmedIDs(store, fetched) == ["4"])

        let (_, other, again) = try await Self.fetchObserved(AuthoredArticles(count: 4))
        other.merge([ResourceObject(type: "people", id: "2", attributes: ["name": "Renamed"])])
        #expect(Self.confirmedIDs(other, again) == ["1", "3"])
    }

    @Test("A newer response of an article: only its own fetch's model is confirmed")
    func newerResponse() async throws {
        let server = AuthoredArticles(count: 2)
        let (api, store, first) = try await Self.fetchObserved(server)
        server.retitle("1", "New 1")
        let second = try #require(
            try await Self.observing(store) {
                _ = try await api.source(CountedArticle.self, .path("articles/<id>")).fetch(id: "1").include("author")
                    .result()
            })
        #expect(Self.confirmedIDs(store, first) == ["2"], "the first page's article 1 is not what the store shows")
        #expect(Self.confirmedIDs(store, second) == ["1"])
        #expect(second.models(CountedArticle.self).map(\.title) == ["New 1"])
    }

    @Test("An author included again as it was is confirmed; one the response does not include must be unknown")
    func sameTextAndDangling() async throws {
        let server = AuthoredArticles(count: 2)
        let (api, store, first) = try await Self.fetchObserved(server)
        // The same page again: nothing changed, the store keeps the first page's records.
        let again = try await Self.observing(store) {
            _ = try await api.source(CountedArticle.self, .path("articles/<id>")).fetch().include("author")
                .page(.pageBased(1, 10)).result()
        }
        #expect(again == nil, "nothing changed: no change, nothing handed over")
        #expect(Self.confirmedIDs(store, first) == ["1", "2"])

        // Article 1 alone, its author not included: confirmed while the store has no person 1.
        let lone = AuthoredArticles(count: 1, includesAuthors: false)
        let (_, bare, fetched) = try await Self.fetchObserved(lone)
        #expect(fetched.records.resources.count == 1)
        #expect(Self.confirmedIDs(bare, fetched) == [], "a response of one resource has no shared tape: read again")
        let (_, twoStore, two) = try await Self.fetchObserved(AuthoredArticles(count: 2, includesAuthors: false))
        #expect(Self.confirmedIDs(twoStore, two) == ["1", "2"])
        twoStore.merge([ResourceObject(type: "people", id: "1", attributes: ["name": "Known"])])
        #expect(Self.confirmedIDs(twoStore, two) == ["2"], "the store resolves person 1, the fetch did not")
    }

    @Test("A fetch of another model type offers no models")
    func otherTypeOffersNone() async throws {
        let (_, _, fetched) = try await Self.fetchObserved(AuthoredArticles(count: 2))
        #expect(fetched.models(CountedArticle.self).map(\.id) == ["1", "2"])
        #expect(fetched.models(ArticleTitle.self).isEmpty)
        #expect(fetched.models(Writer.self).isEmpty)
    }

    // MARK: Helpers

    /// A session on `server` whose store is observed, after a fetch of every article with their authors: what the
    /// fetch handed the observers.
    static func fetchObserved(
        _ server: AuthoredArticles
    ) async throws -> (Session, ResourceStore, ResourceStore.FetchedModels) {
        let api = server.session()
        let store = try #require(api.store)
        let fetched = try await observing(store) {
            _ = try await api.source(CountedArticle.self, .path("articles/<id>")).fetch().include("author")
                .page(.pageBased(1, 10)).result()
        }
        return (api, store, try #require(fetched))
    }

    /// What `body`'s fetch handed the observers of `store` (the last one), if any.
    static func observing(
        _ store: ResourceStore, _ body: () async throws -> Void
    ) async throws -> ResourceStore.FetchedModels? {
        let handed = LockedValue<ResourceStore.FetchedModels?>(nil)
        let observer = store.addObserver(type: nil) { _, fetched in
            if let fetched { handed.withLock { $0 = fetched } }
        }
        defer { store.removeObserver(observer) }
        try await body()
        return handed.withLock { $0 }
    }

    /// The ids and records of the articles `fetched` holds, as a live list offers them.
    static func offers(_ fetched: ResourceStore.FetchedModels) -> [(id: String, records: ResourceRecords)] {
        fetched.models(CountedArticle.self).map { ($0.id, fetched.records) }
    }

    /// The ids of the articles of `fetched` the store confirms.
    static func confirmedIDs(_ store: ResourceStore, _ fetched: ResourceStore.FetchedModels) -> [String] {
        let offers = offers(fetched)
        let shown = store.shownAsFetched(offers, type: "articles", depth: LiveDependencies.depth)
        return zip(offers, shown).compactMap { $1 == nil ? nil : $0.id }
    }
}

extension LiveFetchedModelsTests {
    /// Counts the decodes of ``CountedArticle`` by the session whose decoder carries it.
    final class DecodeCounter: Sendable {
        static let key = CodingUserInfoKey(rawValue: "decodes")!
        private let value = LockedValue(0)
        var count: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }

    /// An article with its author, counting its decodes (``DecodeCounter``).
    struct CountedArticle: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
        var author: Writer?

        private enum CodingKeys: String, CodingKey { case id, title, author }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            author = try container.decodeIfPresent(Writer.self, forKey: .author)
            (decoder.userInfo[DecodeCounter.key] as? DecodeCounter)?.add()
        }
    }

    /// The articles' authors.
    struct Writer: Resource, Equatable {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    /// The same articles as another model.
    struct ArticleTitle: Resource, Equatable {
        static let resourceType = "articles"
        var id: String
        var title: String
    }

    /// Articles `1...count` titled `Article <id>`, article `n` by person `2 - n % 2` (`Person 1` or `Person 2`), in
    /// memory: `GET /articles` (one page of all, the authors included unless told not to) and `GET /articles/<id>`.
    final class AuthoredArticles: Sendable {
        static let baseURL = URL(string: "https://api.example.com")!
        private let titles: LockedValue<[String: String]>
        private let count: Int
        private let includesAuthors: Bool

        init(count: Int, includesAuthors: Bool = true) {
            self.count = count
            self.includesAuthors = includesAuthors
            titles = LockedValue(Dictionary(uniqueKeysWithValues: (1...count).map { ("\($0)", "Article \($0)") }))
        }

        /// Changes an article's title on the server only.
        func retitle(_ id: String, _ title: String) { titles.withLock { $0[id] = title } }

        /// A session on this server (its store on), decoding with `decodes` counting.
        func session(decodes: DecodeCounter = DecodeCounter()) -> Session {
            let client = ScriptedClient { [self] request in respond(request) }
            return Session(
                baseURL: Self.baseURL, client: client,
                configuration: .init(decoder: JSONAPIDecoder(userInfo: [DecodeCounter.key: decodes])))
        }

        private func author(of id: String) -> String { (Int(id) ?? 1) % 2 == 1 ? "1" : "2" }

        private func object(_ id: String) -> String {
            let title = titles.withLock { $0[id] } ?? ""
            let author = #"{"author": {"data": {"type": "people", "id": "\#(author(of: id))"}}}"#
            return #"{"type": "articles", "id": "\#(id)", "attributes": {"title": "\#(title)"}, "relationships": \#(author)}"#
        }

        private func included(_ ids: [String]) -> String {
            guard includesAuthors else { return "" }
            let people = Set(ids.map(author(of:))).sorted().map {
                #"{"type": "people", "id": "\#($0)", "attributes": {"name": "Person \#($0)"}}"#
            }
            return #", "included": [\#(people.joined(separator: ", "))]"#
        }

        private func respond(_ request: HTTPRequest) -> HTTPResponse {
            let segments = request.url.path.split(separator: "/").map(String.init)
            if segments.count == 2 {
                return .document(#"{"data": \#(object(segments[1]))\#(included([segments[1]]))}"#)
            }
            let ids = (1...count).map(String.init)
            return .document(#"{"data": [\#(ids.map(object).joined(separator: ", "))]\#(included(ids))}"#)
        }
    }
}

@Suite("Live dependencies")
struct LiveDependenciesTests {
    static func keys(_ ids: [String]) -> [ResourceStore.Key] { ids.map { ResourceStore.Key(type: "people", id: $0) } }

    @Test(
        "A model that reaches other records now moves only the keys that differ: a dropped one no longer reaches it, a kept one and a new one do",
        arguments: [8, 40])  // compared by scanning (8 × 8 ≤ 256), and through a set (40 × 40)
    func noteMovesTheDifference(count: Int) {
        var dependencies = LiveDependencies()
        let before = (0..<count).map(String.init)
        let after = Array(before.dropFirst()) + ["new"]
        dependencies.note("a1", reaches: Self.keys(before))
        dependencies.note("a2", reaches: Self.keys(["0"]))
        dependencies.note("a1", reaches: Self.keys(after))
        #expect(Set(dependencies.models(reaching: "people", id: "0")) == ["a2"])  // dropped by a1
        #expect(Set(dependencies.models(reaching: "people", id: "1")) == ["a1"])  // kept
        #expect(Set(dependencies.models(reaching: "people", id: "new")) == ["a1"])  // added
        dependencies.note("a1", reaches: [])
        #expect(dependencies.models(reaching: "people", id: "1").isEmpty)
        dependencies.forget("a2")
        #expect(dependencies.models(reaching: "people", id: "0").isEmpty)
    }

    @Test("The models that reach a record: one kept as it is, more in a set; each once; the first removed gives way to another")
    func reaching() {
        var reaching = LiveDependencies.Reaching()
        #expect(reaching.isEmpty)
        #expect(Array(reaching).isEmpty)
        reaching.insert("a1")
        reaching.insert("a1")
        #expect(Array(reaching) == ["a1"])
        reaching.insert("a2")
        reaching.insert("a3")
        reaching.insert("a2")
        #expect(Array(reaching).count == 3)
        #expect(Set(reaching) == ["a1", "a2", "a3"])
        reaching.remove("a1")  // the first: another takes its place
        #expect(!reaching.isEmpty)
        #expect(Set(reaching) == ["a2", "a3"])
        reaching.remove("absent")
        #expect(Set(reaching) == ["a2", "a3"])
        reaching.remove("a3")
        reaching.remove("a2")
        #expect(reaching.isEmpty)
        reaching.remove("a2")
        #expect(reaching.isEmpty)
    }
}
