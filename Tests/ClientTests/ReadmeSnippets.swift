import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIClient
import JSONAPIClientTesting

// The README's code, verbatim, so that it keeps compiling: ToolTests/ReadmeTests checks that every Swift block of the
// README (but the package manifest lines) stands here. These functions are compiled, not run; what they do is tested
// against the server by the integration tests.
enum ReadmeSnippets {
    struct Person: Resource {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    struct Article: Resource {
        static let resourceType = "articles"
        var id: String?
        var title: String
        var body: String
        var created: Date
        var subtitle: String?
        var author: Person?
    }

    struct ArticleTitle: Resource {
        static let resourceType = "articles"
        var id: String
        var title: String?
    }

    static func handle(_ value: Any) {}

    actor TokenStore {
        func currentToken() async throws -> String? { "token" }
        func refresh(replacing rejected: String) async throws -> String? { "new token" }
    }

    static func fetching(baseURL: URL) async throws {
        let api = Session(baseURL: baseURL, configuration: .init(middlewares: [RetryMiddleware()]))
        let articles = api.source(Article.self, .path("articles/<id>"))
        let people = api.source(Person.self, .path("people/<id>"))
        let raw = try await api.fetch(baseURL.appendingPathComponent("tags")).result()     // schema-less, navigates too
        handle((people, raw))

        let page = try await articles.fetch()
            .include(["author", "comments.author"])      // include=author,comments.author
            .filter("title.icontains", "swift")          // filter[title.icontains]=swift
            .filter("author.in", ["1", "2"])             // filter[author.in]=1,2
            .sort("-created")                            // sort=-created
            .paginate(.pageBased(1, 10))                 // page[number]=1&page[size]=10, and sends it

        let article = try await articles.fetch(id: "1").include(["author"]).result()   // FetchResponse<Article>
        let me = try await api.source(Person.self, .path("me")).fetch(as: Person.self).result()   // a singleton; 401 without a token (see Authentication)

        // Sparse fieldsets: fields[articles]=title,author — with a model whose other members are optional.
        let titles = try await api.source(ArticleTitle.self, .path("articles/<id>"))
            .fetch().fields(["articles": ["title", "author"]]).result()
        handle((page, article, me, titles))
    }

    static func paging(articles: DataSource<Article>) async throws {
        // Page by page, following the server's links exactly (query and all).
        var page: FetchResponse<[Article]>? = try await articles.fetch().paginate(.pageBased(1, 50))
        while let current = page {
            handle(current.data ?? [])
            page = try await current.next()            // nil after the last page; prev(), first(), last(), reload() too
        }

        // Or keep one growing document.
        var all = try await articles.fetch().paginate(.offsetBased(0, 100))
        while try await all.appendNext().hasMore {}

        // Or stream: the next page is fetched while you work on this one; requests stop when the task is cancelled.
        for try await article in articles.fetch().page(.cursorBased(size: 50)).resources(progress: { print($0) }) {
            handle(article)
        }

        // Up to 4 pages at once (by number or offset, when the first page tells the total), still in order.
        for try await page in articles.fetch().page(.pageBased(1, 100)).pages(concurrency: 4) {
            handle(page.data ?? [])
        }
    }

    static func writing(articles: DataSource<Article>, article: Article) async throws {
        let created = try await articles.create(Article(title: "Hello", body: "…", created: .now))   // no id: the server assigns it
        print(created.status, created.location ?? "")       // 201 and Location; 202 and 204 are handled too

        var change = ResourceUpdate<Article>(id: "7")       // PATCH only what you set:
        change.set("title", to: "New title")                //   a value
        change.setNull("subtitle")                          //   null
        try await articles.update(change)                   //   everything else absent
        // or edit a copy, and exactly the differences are sent:
        try await articles.update(article) { $0.title = "New title" }

        try await articles.relationship("author", of: "7").replace(with: ResourceIdentifier(type: "people", id: "9"))
        try await articles.relationship("tags", of: "7").add([ResourceIdentifier(type: "tags", id: "3")])
        try await articles.delete(id: "7")
    }

    struct Writer: Resource {
        static let resourceType = "people"
        var id: String?
        var lid: String?
        var name: String
    }

    struct Post: Resource {
        static let resourceType = "articles"
        var id: String?
        var lid: String?
        var title: String
        var author: Writer?
    }

    static func graph(api: Session) async throws {
        let author = Writer(lid: "w1", name: "Ann")         // struct Writer: Resource { var id: String?; var lid: String?; … }
        var graph = ResourceGraph()
        graph.add(Post(lid: "p1", title: "Hello", author: author))   // in any order: what it names goes first
        graph.add(author)
        let result = try await api.create(graph)            // ResourceGraphResult
        print(result.id(Post.self, lid: "p1") ?? "", result.isAtomic)
    }

    static func writingOffline(articles: DataSource<Article>, article: Article, api: Session) async throws {
        let sent = try await articles.update(article, options: .offline) { $0.title = "Written on a train" }
        if sent.queued != nil { api.writeQueue.resume() }   // later, when the network is back
    }

    static func caching(baseURL: URL, folder: URL) async throws {
        let api = Session(baseURL: baseURL)                  // a store by default; .init(store: nil) opts out
        let articles = api.source(Article.self, .path("articles/<id>"))
        let list = try await articles.fetch().include(["author"]).result()
        let again = try await articles.fetch().include(["author"]).result()   // conditional: a 304 reuses the stored body
        print(again.source)                                  // .revalidated (or .network when it changed)

        let first = try await articles.fetch(id: "1").cachePolicy(.cacheFirst).result()   // no request while fresh
        for try await response in articles.fetch().updates() { print(response.source) }   // .cache, then the server's
        let offline = try await articles.fetch().cachePolicy(.networkFirst).result()      // .offline if the transport fails

        guard let store = api.store else { return }
        let article = try store.resource(Article.self, id: "1")     // with its author, from the store
        let author: Person? = try await articles.load("author", of: first.data!)         // lazily: store, else server
        for await change in store.changes(of: Article.self) { print(change) }           // "updated articles 1", …
        store.clear()                                                // every record and response goes

        let kept = Session(baseURL: baseURL, configuration: .init(store: .init(persistence: .init(directory: folder))))
        try await kept.store?.flush()                                // on disk when it returns (it also saves by itself)
        let alice = Session(baseURL: baseURL, configuration: .init(store: .init(persistence: .init(directory: folder)), account: "user-42"))
        try await alice.signIn(account: "user-7")                    // another user: none of user-42's data shows
        try await alice.signOut(removingData: true)                  // user-7's data off the device
        _ = (list, article, author, offline)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    static func swiftUI(articles: DataSource<Article>) async {
        let list = articles.fetch().sort("-created").page(.pageBased(1, 20)).liveList()
        await list.load()                                        // .task { }: the first page, by the cache policy
        if list.hasMore { await list.loadMore() }                // the last row appeared; the next page was prefetched
        await list.refresh()                                     // .refreshable { }
        let article = articles.live(id: "1")                     // article.resource, .isLoading, .error
        _ = article
    }

    static func middleware(baseURL: URL, tokenStore: TokenStore, password: String) {
        let api = Session(
            baseURL: baseURL,
            configuration: .init(middlewares: [
                BearerTokenMiddleware { try await tokenStore.currentToken() },   // Authorization: Bearer …, own origin only
                LoggingMiddleware { entry in print(entry.method, entry.url, entry.status ?? 0, entry.duration) },
                RetryMiddleware(),                            // 429 always; 502/503/504, transport errors if idempotent
            ]))
        handle(api)

        // On a 401, refresh the token once and send the request again with the new one:
        let refreshing = BearerTokenMiddleware(
            token: { try await tokenStore.currentToken() },
            refresh: { rejected in try await tokenStore.refresh(replacing: rejected) })
        handle(refreshing)

        // URLSession settings are yours: proxies, TLS, connections per host, URLProtocol stubs. Its URL cache is
        // bypassed (the session's store is the one cache) unless `URLSessionClient.Configuration(usesURLCache: true)`.
        let settings = URLSessionConfiguration.default
        settings.httpMaximumConnectionsPerHost = 4
        let tuned = Session(baseURL: baseURL, client: URLSessionClient(sessionConfiguration: settings))
        handle(tuned)

        // Cookies are off by default (an ephemeral session that neither keeps nor sends them); turn them on with a
        // configuration that has them. The store never sees the cookies URLSession adds: clear it when the user changes.
        let cookies = URLSessionConfiguration.ephemeral
        cookies.httpCookieAcceptPolicy = .always
        cookies.httpShouldSetCookies = true
        let withCookies = Session(baseURL: baseURL, client: URLSessionClient(sessionConfiguration: cookies))
        handle(withCookies)

        // HTTP Basic, client certificates, certificate pinning: answer the challenge, the same way on every platform. The
        // handler runs on URLSession's delegate queue and must not block. Pinning: the DocC article on authentication.
        let basic = URLSessionClient(challengeHandler: { challenge in
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic else {
                return (.performDefaultHandling, nil)
            }
            // Refused once: give up (the call throws .securityFailed) rather than send the same password again.
            guard challenge.previousFailureCount == 0 else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(user: "reader", password: password, persistence: .forSession))
        })
        handle(basic)
    }

    static func testing(baseURL: URL) async throws {
        // In a test target that depends on the JSONAPIClientTesting product:
        let client = ScriptedClient { _ in .document(#"{"data": []}"#) }
        let tested = Session(baseURL: baseURL, client: client).source(Article.self, .path("articles/<id>"))
        _ = try await tested.fetch().include(["author"]).result()
        print(client.requests.map(\.url))                    // exactly what your code sent
    }

    // A transport of your own (a test double, another HTTP stack):
    struct StubClient: Client {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(status: 200, body: Data(#"{"data": []}"#.utf8)) }
    }
}
