import Foundation
import JSONAPIClient
import JSONAPIClientTesting
import Observation
import Testing

/// ``LiveResource`` against a scripted server, watched as a view would: through `withObservationTracking`.
@Suite("Live resource")
@MainActor
struct LiveResourceTests {
    let server: ScriptedArticles
    let api: Session
    let articles: DataSource<Headline>

    init() {
        server = ScriptedArticles(count: 3)
        api = Session(baseURL: ScriptedArticles.baseURL, client: server.client)
        articles = api.source(Headline.self, .path("articles/<id>"))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Made, it sends nothing; load() fetches it, loading while it does")
    func load() async throws {
        let article = articles.live(id: "1")
        #expect(article.id == "1")
        #expect(article.resource == nil)
        #expect(!article.isLoading)
        #expect(server.client.requests.isEmpty)

        server.hold(article: "1")
        let loading = Task { await article.load() }
        await Observed.until("the article is loading") { article.isLoading }
        #expect(article.resource == nil)
        server.release(article: "1")
        await loading.value
        #expect(!article.isLoading)
        #expect(article.resource == Headline(id: "1", title: "Article 1"))
        #expect(article.error == nil)
        await article.load()  // shown already: nothing is sent
        #expect(server.client.requests.map(\.url.path) == ["/articles/1"])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A PATCH through another data source, a later response and a delete show up without a fetch")
    func followsTheStore() async throws {
        let article = articles.live(id: "2")
        await article.load()
        let other = api.source(Headline.self, .path("articles/<id>"))
        var change = ResourceUpdate<Headline>(id: "2")
        change.set("title", to: "Patched")
        try await other.update(change)
        await Observed.until("the PATCH shows") { article.resource?.title == "Patched" }

        server.retitle("2", "From a list")
        _ = try await articles.fetch().page(.pageBased(1, 2)).result()
        await Observed.until("the list's version shows") { article.resource?.title == "From a list" }

        try await other.delete(id: "2")
        await Observed.until("the delete shows") { article.resource == nil }
        #expect(server.client.requests.filter { $0.url.path == "/articles/2" && $0.method == .get }.count == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A failure is shown as the error and keeps what was shown; a later success clears it")
    func failure() async throws {
        let article = articles.live(id: "3")
        server.fail(with: 404)
        await article.load()
        #expect(article.error?.status?.code == 404)
        #expect(article.resource == nil)
        await article.load()
        #expect(article.error == nil)
        #expect(article.resource?.title == "Article 3")
        server.fail(with: 500)
        await article.refresh()
        #expect(article.error?.status?.code == 500)
        #expect(article.resource?.title == "Article 3")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A request for one resource learns its id from the response, then follows it")
    func learnsItsID() async throws {
        let article = articles.fetch(id: "1").live()
        #expect(article.id == nil)
        await article.load()
        #expect(article.id == "1")
        var change = ResourceUpdate<Headline>(id: "1")
        change.set("title", to: "Followed")
        try await articles.update(change)
        await Observed.until("the change shows") { article.resource?.title == "Followed" }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("The cache policy is honoured: cacheFirst answers from the store, refresh() asks the server")
    func cachePolicy() async throws {
        let server = ScriptedArticles(count: 3, cacheControl: "max-age=600")
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client, configuration: .init(cachePolicy: .cacheFirst))
        let articles = api.source(Headline.self, .path("articles/<id>"))
        await articles.live(id: "1").load()
        let again = articles.live(id: "1")
        await again.load()
        #expect(again.resource?.title == "Article 1")
        #expect(server.client.requests.count == 1)
        await again.refresh()
        #expect(server.client.requests.count == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("clear() when the account changes: nothing of the old account stays, and it loads as the new one")
    func accountChange() async throws {
        let token = TokenBox("alice")
        let server = ScriptedArticles(count: 3)
        let api = TokenBox.session(server.client, token: token)
        let article = api.source(Headline.self, .path("articles/<id>")).live(id: "1")
        await article.load()
        #expect(article.resource?.title == "alice: Article 1")
        token.value = "bob"
        let shown = await Observed.values(
            "bob's article shows", of: { article.resource?.title }, until: { $0 == "bob: Article 1" },
            then: { api.store?.clear() })
        // clear() on the main thread empties it before it returns; nothing of alice's is shown after it.
        #expect(shown.dropFirst().first == .some(nil), "\(shown)")
        #expect(!shown.dropFirst().contains { $0?.hasPrefix("alice") == true }, "\(shown)")
        #expect(server.client.requests.count == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Evicted to make room in the store, it keeps showing its copy, fetches nothing, and follows it again")
    func evictedForRoom() async throws {
        let server = ScriptedArticles(count: 3)
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client,
            configuration: .init(store: .init(maxResources: 1)))
        let articles = api.source(Headline.self, .path("articles/<id>"))
        let article = articles.live(id: "1")
        await article.load()
        _ = try await articles.fetch(id: "2").result()  // the store keeps one record: article 1's goes
        var change = ResourceUpdate<Headline>(id: "1")
        change.set("title", to: "Patched")
        try await api.source(Headline.self, .path("articles/<id>")).update(change)  // and comes back
        // The store's changes reach the object in order: the eviction was applied before the PATCH shows.
        await Observed.until("the PATCH shows") { article.resource?.title == "Patched" }
        #expect(server.client.requests.map { "\($0.method.rawValue) \($0.url.path)" } == [
            "GET /articles/1", "GET /articles/2", "PATCH /articles/1",
        ])
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A store that keeps nothing: it shows what it fetched")
    func storeKeepsNothing() async throws {
        let server = ScriptedArticles(count: 3)
        let api = Session(
            baseURL: ScriptedArticles.baseURL, client: server.client,
            configuration: .init(store: .init(maxResources: 0)))
        let article = api.source(Headline.self, .path("articles/<id>")).live(id: "1")
        await article.load()
        #expect(article.resource?.title == "Article 1")
        #expect(article.error == nil)
        #expect(server.client.requests.count == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Dropping it mid-fetch cancels the fetch; nothing more is sent")
    func droppedMidFetch() async throws {
        var article: LiveResource<Headline>? = articles.live(id: "1")
        await article?.load()
        #expect(await server.arrivals.next("the first fetch") == "GET /articles/1")
        // The store lets go of the record: the object fetches it again by itself, and nobody awaits that fetch.
        server.hold(article: "1")
        api.store?.clear()
        #expect(await server.arrivals.next("the fetch again") == "GET /articles/1")
        let dropped = Weak(article)
        article = nil
        #expect(dropped.value == nil, "nothing else holds it")
        #expect(await server.cancellations.next("the fetch's cancellation") == "article 1")
        #expect(server.client.requests.count == 2)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("clear() while the object's fetch is in flight and the store holds nothing: that answer is never shown; the new account's is")
    func accountChangeMidFetch() async throws {
        let token = TokenBox("alice")
        let server = ScriptedArticles(count: 3)
        let api = TokenBox.session(server.client, token: token)
        let article = api.source(Headline.self, .path("articles/<id>")).live(id: "1")
        server.hold(article: "1")
        let loading = Task { await article.load() }
        await Observed.polling("alice's fetch is sent") { server.client.requests.count == 1 }
        token.value = "bob"
        let shown = await Observed.values(
            "the object shows bob's article", of: { article.resource?.title },
            until: { $0 == "bob: Article 1" },
            then: {
                api.store?.clear()
                server.release(article: "1")
            })
        await loading.value
        #expect(!shown.contains { $0?.hasPrefix("alice") == true }, "\(shown)")
    }
}
