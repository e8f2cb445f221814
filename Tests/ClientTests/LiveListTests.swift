import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Observation
import Testing

/// ``LiveList`` against a scripted server, watched as a view would: through `withObservationTracking`.
@Suite("Live list")
@MainActor
struct LiveListTests {
    static let firstPage = "GET /articles?page%5Bnumber%5D=1&page%5Bsize%5D=2"
    static func page(_ number: Int) -> String { "GET /articles?page%5Bnumber%5D=\(number)&page%5Bsize%5D=2" }

    let server: ScriptedArticles
    let api: Session
    let articles: DataSource<Headline>

    init() {
        server = ScriptedArticles(count: 5)
        api = Session(baseURL: ScriptedArticles.baseURL, client: server.client)
        articles = api.source(Headline.self, .path("articles/<id>"))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    func list(prefetch: Int = 1) -> LiveList<Headline> {
        articles.fetch().page(.pageBased(1, 2)).liveList(prefetch: prefetch)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Made, it sends nothing; load() shows the first page in the server's order, loading then loaded")
    func firstPage() async throws {
        let list = list(prefetch: 0)
        #expect(list.resources.isEmpty)
        guard case .idle = list.phase else { Issue.record("not idle: \(list.phase)"); return }
        #expect(server.client.requests.isEmpty)

        server.hold(page: 1)
        let loading = Task { await list.load() }
        await Observed.until("the list is loading") { list.isLoading }
        guard case .loading = list.phase else { Issue.record("not loading: \(list.phase)"); return }
        server.release(page: 1)
        await loading.value
        #expect(list.resources.map(\.id) == ["1", "2"])
        #expect(list.resources.map(\.title) == ["Article 1", "Article 2"])
        guard case .loaded = list.phase else { Issue.record("not loaded: \(list.phase)"); return }
        #expect(list.hasMore)
        #expect(!list.isLoading)
        #expect(list.error == nil)
        #expect(server.client.requests.map(\.url.query) == ["page%5Bnumber%5D=1&page%5Bsize%5D=2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("loadMore() until hasMore is false gives every article once, in order, one request per page")
    func loadMoreToTheEnd() async throws {
        let list = list()
        await list.load()
        var rounds = 0
        while list.hasMore, rounds < 10 {
            await list.loadMore()
            rounds += 1
        }
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(!list.hasMore)
        #expect(server.client.requests.map { "GET \($0.url.path)?\($0.url.query ?? "")" } == [1, 2, 3].map(Self.page))
        await list.loadMore()  // nothing more to fetch
        #expect(server.client.requests.count == 3)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("While the view shows a page, the next one is already asked for, and loadMore() takes it")
    func prefetch() async throws {
        let list = list(prefetch: 1)
        await list.load()
        #expect(await server.arrivals.next("first page") == Self.firstPage)
        #expect(await server.arrivals.next("the prefetched page") == Self.page(2))
        await list.loadMore()
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4"])
        #expect(await server.arrivals.next("the page after") == Self.page(3))
        await list.loadMore()
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(server.client.requests.count == 3)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A list longer than the store keeps pages to its end: records evicted for room stay in the list")
    func longerThanTheStore() async throws {
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client,
            configuration: .init(store: .init(maxResources: 3)))
        let articles = api.source(Headline.self, .path("articles/<id>"))
        let list = articles.fetch().page(.pageBased(1, 2)).liveList(prefetch: 0)
        await list.load()
        while list.hasMore { await list.loadMore() }
        var change = ResourceUpdate<Headline>(id: "5")
        change.set("title", to: "Patched")
        try await articles.update(change)
        // The store's changes reach the list in order: every eviction was applied before the PATCH shows.
        await Observed.until("the PATCH shows") { list.resources.last?.title == "Patched" }
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(server.client.requests.count == 4)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A PATCH through another data source changes the element in place")
    func patchElsewhere() async throws {
        let list = list()
        await list.load()
        let other = api.source(Headline.self, .path("articles/<id>"))
        var change = ResourceUpdate<Headline>(id: "2")
        change.set("title", to: "Renamed")
        try await other.update(change)
        await Observed.until("article 2 is renamed") { list.resources.map(\.title) == ["Article 1", "Renamed"] }
        #expect(list.resources.map(\.id) == ["1", "2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A later response that includes an element changes it; nothing is fetched for the list")
    func laterResponse() async throws {
        let list = list(prefetch: 0)
        await list.load()
        server.retitle("1", "Changed on the server")
        _ = try await articles.fetch(id: "1").result()
        await Observed.until("article 1 shows the new title") { list.resources.first?.title == "Changed on the server" }
        #expect(server.client.requests.count == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A deleted element leaves the list")
    func delete() async throws {
        let list = list()
        await list.load()
        try await articles.delete(id: "1")
        await Observed.until("article 1 is gone") { list.resources.map(\.id) == ["2"] }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A failed page leaves what was shown and says why; refresh() recovers")
    func failure() async throws {
        let list = list(prefetch: 0)
        await list.load()
        server.fail(with: 500)
        await list.loadMore()
        #expect(list.error?.status?.code == 500)
        #expect(list.resources.map(\.id) == ["1", "2"])
        #expect(list.hasMore)
        await list.loadMore()
        #expect(list.error == nil)
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4"])

        server.fail(with: 503)
        await list.refresh()
        #expect(list.error?.status?.code == 503)
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4"])
        await list.refresh()
        guard case .loaded = list.phase else { Issue.record("not loaded: \(list.phase)"); return }
        #expect(list.resources.map(\.id) == ["1", "2"], "a refresh shows the first page alone")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A prefetched page that failed is not shown twice: the next loadMore() asks again")
    func prefetchedFailure() async throws {
        let list = list(prefetch: 2)
        server.hold(page: 2)
        await list.load()
        #expect(await server.arrivals.next("first page") == Self.firstPage)
        #expect(await server.arrivals.next("page 2, prefetched") == Self.page(2))
        server.fail(with: 500)  // the next request to arrive: page 2 is past the failures' check, so page 3's
        server.release(page: 2)
        #expect(await server.arrivals.next("page 3, prefetched after page 2") == Self.page(3))
        await list.loadMore()  // page 2
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4"])
        await list.loadMore()  // page 3, which failed
        #expect(list.error?.status?.code == 500)
        await list.loadMore()  // asks again
        #expect(list.error == nil)
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4", "5"])
        #expect(server.client.requests.count == 4)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A first page that fails is a failed list; load() tries again")
    func firstPageFails() async throws {
        let list = list()
        server.fail(with: 404)
        await list.load()
        #expect(list.error?.code == .errorResponse)
        #expect(list.resources.isEmpty)
        #expect(!list.hasMore)
        await list.load()
        #expect(list.resources.map(\.id) == ["1", "2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Dropping the list mid-page cancels the page in flight and sends nothing more")
    func droppedMidPage() async throws {
        var list: LiveList<Headline>? = list(prefetch: 1)
        server.hold(page: 2)
        await list?.load()
        #expect(await server.arrivals.next("first page") == Self.firstPage)
        #expect(await server.arrivals.next("the prefetched page") == Self.page(2))
        let dropped = Weak(list)
        list = nil
        #expect(dropped.value == nil, "nothing else holds the list")
        #expect(await server.cancellations.next("the page's cancellation") == "page 2")
        #expect(server.client.requests.count == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("The cache policy is honoured: cacheFirst answers from the store, refresh() asks the server")
    func cachePolicy() async throws {
        let server = ScriptedArticles(count: 5, cacheControl: "max-age=600")
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client, configuration: .init(cachePolicy: .cacheFirst))
        let request = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2))
        let first = request.liveList(prefetch: 0)
        await first.load()
        let second = request.liveList(prefetch: 0)
        await second.load()
        #expect(second.resources.map(\.id) == ["1", "2"])
        #expect(server.client.requests.count == 1)
        await second.refresh()
        #expect(server.client.requests.count == 2)
        #expect(second.resources.map(\.id) == ["1", "2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("clear() when the account changes: the list shows nothing of the old account and loads as the new one")
    func accountChange() async throws {
        let token = TokenBox("alice")
        let server = ScriptedArticles(count: 5)
        let api = TokenBox.session(server.client, token: token)
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2)).liveList()
        await list.load()
        await list.loadMore()
        #expect(list.resources.map(\.title) == (1...4).map { "alice: Article \($0)" })

        token.value = "bob"
        let shown = await Observed.values(
            "the list shows bob's first page", of: { list.resources.map(\.title) },
            until: { $0 == ["bob: Article 1", "bob: Article 2"] }, then: { api.store?.clear() })
        // clear() on the main thread empties the list before it returns; nothing of alice's is shown after it.
        #expect(shown.dropFirst().first == [], "\(shown)")
        #expect(!shown.dropFirst().contains { $0.contains { $0.hasPrefix("alice") } }, "\(shown)")
        #expect(list.resources.count == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("clear() with nothing of the list in the store: an empty list loads as the new account; one never loaded stays idle")
    func emptyListAccountChange() async throws {
        let token = TokenBox("alice")
        let client = Self.noneForAlice()
        let api = TokenBox.session(client, token: token)
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().liveList()
        let idle = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2)).liveList()
        await list.load()
        #expect(list.resources.isEmpty)
        #expect(client.requests.count == 1)
        token.value = "bob"
        api.store?.clear()
        #expect(await Observed.until("bob's article shows") { list.resources.map(\.title) == ["bob's"] })
        // One request as bob: the first after clear() owns the store's records, without emptying it again.
        #expect(client.requests.count == 2)
        #expect(idle.resources.isEmpty)
        #expect(!idle.isLoading)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("clear() while the first page is in flight and the store holds nothing: that page is never shown; the new account's is")
    func accountChangeMidFirstPage() async throws {
        let token = TokenBox("alice")
        let server = ScriptedArticles(count: 5)
        let api = TokenBox.session(server.client, token: token)
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2)).liveList(prefetch: 0)
        server.hold(page: 1)
        let loading = Task { await list.load() }
        await Observed.polling("alice's first page is asked for") { server.client.requests.count == 1 }
        token.value = "bob"
        let shown = await Observed.values(
            "the list shows bob's first page", of: { list.resources.map(\.title) },
            until: { $0 == ["bob: Article 1", "bob: Article 2"] },
            then: {
                api.store?.clear()
                server.release(page: 1)
            })
        await loading.value
        #expect(!shown.contains { $0.contains { $0.hasPrefix("alice") } }, "\(shown)")
        #expect(list.resources.map(\.title) == ["bob: Article 1", "bob: Article 2"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test(
        "A next page fetched with other credentials is not appended: the list starts again as the new user",
        arguments: [true, false])
    func credentialsChangeWithoutClear(store: Bool) async throws {
        let token = TokenBox("alice")
        let server = ScriptedArticles(count: 5)
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { token.value }], store: store ? .init() : nil))
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2))
            .liveList(prefetch: 0)
        await list.load()
        token.value = "bob"
        await list.loadMore()
        await Observed.until("bob's first page shows") {
            list.resources.map(\.title) == ["bob: Article 1", "bob: Article 2"]
        }
        // Bob's first page went last. His page 2 went before it — unless, with a store, the list had already
        // started again (his request took Alice's records away: the store told the list, which cancelled the page
        // before it was sent).
        let queries = server.client.requests.map { $0.url.query ?? "" }
        #expect(queries.last == "page%5Bnumber%5D=1&page%5Bsize%5D=2")
        if !store { #expect(queries.suffix(2).first == "page%5Bnumber%5D=2&page%5Bsize%5D=2") }
        #expect((store ? 2...3 : 3...3).contains(queries.count), "\(queries)")
        await list.loadMore()
        #expect(list.resources.map(\.title) == ["bob: Article 1", "bob: Article 2", "bob: Article 3", "bob: Article 4"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("In one batch of changes, a model removed then written again stays in the list, with what was written")
    func removedThenUpdatedInOneBatch() async throws {
        let list = list(prefetch: 0)
        await list.load()
        let store = try #require(api.store)
        let renamed = ResourceObject(type: "articles", id: "1", attributes: ["title": "Back"])
        // Both changes made off the main actor while it waits: they reach the list in one batch.
        DispatchQueue.global().sync {
            store.remove(type: "articles", id: "1")
            store.merge([renamed])
        }
        await Observed.until("the list shows the article written again") {
            list.resources.first?.title == "Back"
        }
        #expect(list.resources.count == 2, "\(list.resources.map(\.title))")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Without a store the list still pages, and shows what its fetches return")
    func withoutStore() async throws {
        let api = Session(baseURL: ScriptedArticles.baseURL, client: server.client, configuration: .init(store: nil))
        let list = api.source(Headline.self, .path("articles/<id>")).fetch().page(.pageBased(1, 2)).liveList()
        await list.load()
        while list.hasMore { await list.loadMore() }
        #expect(list.resources.map(\.id) == ["1", "2", "3", "4", "5"])
    }
}

extension LiveListTests {
    /// A server of articles that has none for alice and one, "bob's", for bob (by the bearer token).
    nonisolated static func noneForAlice() -> ScriptedClient {
        ScriptedClient { request in
            let bob = request.headerFields[.authorization] == "Bearer bob"
            return .document(bob ? #"{"data":[{"type":"articles","id":"1","attributes":{"title":"bob's"}}]}"# : #"{"data":[]}"#)
        }
    }
}

/// The token a test signs in with.
final class TokenBox: @unchecked Sendable {
    /// A session with a store on `client` (at ``ScriptedArticles/baseURL``) that sends `token` as a bearer token.
    static func session(_ client: ScriptedClient, token: TokenBox) -> Session {
        Session(
            baseURL: ScriptedArticles.baseURL, client: client,
            configuration: .init(middlewares: [BearerTokenMiddleware { token.value }]))
    }

    private let lock = NSLock()
    private var current: String
    init(_ value: String) { current = value }
    var value: String {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
