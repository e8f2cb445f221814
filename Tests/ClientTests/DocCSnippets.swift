import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import CryptoKit
import Security
#endif
import JSONAPIClient
import JSONAPIClientTesting
import Testing

// The DocC articles' code, verbatim, so that it keeps compiling: ToolTests/DocCArticleTests checks that every line of
// every Swift block of the articles (Sources/*/*.docc/*.md) stands here. Compiled, not run: what the code does is
// tested against the server by the integration tests.
enum DocCSnippets {
    // CachingResources.md, kept across launches: an app group's container and suspension.
    static func suspension() {
        // When the app is about to be suspended (sceneDidEnterBackground, or the end of its background work):
        ResourceStore.Persistence.suspend()  // a running write is rolled back; writes wait, nothing is lost
        // When it comes back (sceneWillEnterForeground, or the start of the next background work):
        ResourceStore.Persistence.resume()  // the writes that waited run now
    }

    struct Person: Resource {
        static let resourceType = "people"
        var id: String
        var name: String
    }

    struct Comment: Resource {
        static let resourceType = "comments"
        var id: String
        var body: String
        var author: Person?
    }

    struct Tag: Resource {
        static let resourceType = "tags"
        var id: String
        var name: String
    }

    // Getting started, Defining models
    struct Article: Resource {
        static let resourceType = "articles"
        var id: String?                   // nil until the server assigns one
        var title: String
        var body: String
        var created: Date
        var author: Person?               // to-one: the included resource, nil when not included
        var comments: [Comment]?          // to-many, resolved from `included`
        var tags: ToMany<Tag>?            // linkage always, resources when included, links and meta
        var links: Links?                 // the resource's own links
        var meta: Meta?                   // the resource's meta
    }

    static func show(_ value: Any) {}

    static func gettingStarted(baseURL: URL) async throws {
        let api = Session(baseURL: baseURL)
        let articles = api.source(Article.self, .path("articles/<id>"))

        let page = try await articles.fetch().include(["author"]).paginate(.pageBased(1, 10))
        for article in page.data ?? [] { print(article.title, article.author?.name ?? "-") }
        let next = try await page.next()           // nil after the last page

        let created = try await articles.create(Article(title: "Hello", body: "…", created: .now))
        print(created.status, created.data?.id ?? "")
        _ = next
    }

    static func models(data: Data) throws {
        let decoder = JSONAPIDecoder(keyStrategy: .snakeCase, dateStrategy: .iso8601)
        let document = try decoder.decode(Document<[Article]>.self, from: data)
        let raw = try JSONAPIDecoder().decode(RawDocument.self, from: data)     // any document, schema-less
        print(document.data?.count ?? 0, raw.included?.count ?? 0)
    }

    static func fetching(api: Session, articles: DataSource<Article>) async throws {
        let one = try await articles.fetch(id: "1").include(["author", "comments.author"]).result()
        let some = try await articles.fetch()
            .filter("title.icontains", "swift")
            .sort(["-created", "title"])
            .fields(["articles": ["title", "author"], "people": ["name"]])
            .query("locale", "en")
            .result()
        let author = try await articles.fetchRelated("author", of: "1", as: Person?.self).result()
        guard let firstFive = URL(percentEncoding: "articles?page[size]=5") else { return }   // raw brackets, any OS
        let raw = try await api.fetch(firstFive).result()   // PrimaryData
        print(one.data?.title ?? "", some.data?.count ?? 0, author.data??.name ?? "", raw.data?.resources.count ?? 0)
    }

    static func paging(articles: DataSource<Article>) async throws {
        var page: FetchResponse<[Article]>? = try await articles.fetch().paginate(.pageBased(1, 50))
        while let current = page {
            show(current.data ?? [])
            page = try await current.next()
        }

        var all = try await articles.fetch().paginate(.offsetBased(0, 100))
        while try await all.appendNext().hasMore {}

        for try await article in articles.fetch().page(.cursorBased(size: 50)).resources() {
            show(article)
        }
        for try await page in articles.fetch().page(.pageBased(1, 100)).pages(concurrency: 4) {
            show(page.data ?? [])
        }
    }

    static func writing(articles: DataSource<Article>, article: Article, api: Session) async throws {
        let created = try await articles.create(Article(title: "Hello", body: "…", created: .now))
        print(created.status, created.location ?? "")

        var change = ResourceUpdate<Article>(id: "7")
        change.set("title", to: "New title")          // sent
        change.setNull("body")                         // sent as null
        try await articles.update(change)              // everything else is left alone
        try await articles.update(article) { $0.title = "Edited" }   // the differences of an edited copy

        try await articles.relationship("tags", of: "7").add([ResourceIdentifier(type: "tags", id: "3")])
        try await articles.relationship("author", of: "7").replace(with: nil)
        try await articles.delete(id: "7")

        let results = try await api.atomic([
            .add(ResourceObject(type: "people", lid: "p1", attributes: ["name": "Ann"])),
            .replace("author", of: ResourceIdentifier(type: "articles", id: "7"), with: ResourceIdentifier(type: "people", lid: "p1")),
        ])
        print(results.count)
    }

    // Writing: a graph of new resources
    struct Writer: Resource {
        static let resourceType = "people"
        var id: String?                    // nil until the server names it
        var lid: String?                   // its name until then
        var name: String
    }

    struct Label: Resource {
        static let resourceType = "tags"
        var id: String?
        var lid: String?
        var name: String
    }

    struct Post: Resource {
        static let resourceType = "articles"
        var id: String?
        var lid: String?
        var title: String
        var author: Writer?                // sent as {"type": "people", "lid": "w1"}
        var tags: [Label]
    }

    static func graph(api: Session) async throws {
        let writer = Writer(lid: "w1", name: "Ann")
        let labels = [Label(lid: "l1", name: "swift"), Label(lid: "l2", name: "graphs")]
        var graph = ResourceGraph()
        graph.add(Post(lid: "p1", title: "Hello", author: writer, tags: labels))   // in any order
        graph.add(writer)
        graph.add(labels)
        do {
            let result = try await api.create(graph)
            let post = try result.created(Post.self, lid: "p1")      // as the server returned it, author and tags resolved
            print(result.isAtomic, result.id(Writer.self, lid: "w1") ?? "", post?.id ?? "")
        } catch let error as ResourceGraphError {
            for done in error.created { print("created", done.type, done.lid ?? "-", done.id) }   // created all the same
            print("failed", error.failed?.description ?? "-", error.clientError?.status?.code ?? 0)
            print("not sent", error.notCreated)
        }
    }

    actor Auth {
        func token() async throws -> String? { "token" }
        func refresh(_ rejected: String) async throws -> String? { "new token" }
    }

    struct RequestID: Middleware {
        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            var request = request
            request.headerFields[HTTPField.Name("X-Request-ID")] = UUID().uuidString
            return try await next(request)
        }
    }

    static func middleware(baseURL: URL, auth: Auth) {
        let api = Session(
            baseURL: baseURL,
            configuration: .init(middlewares: [
                BearerTokenMiddleware(token: { try await auth.token() }, refresh: { try await auth.refresh($0) }),
                RetryMiddleware(),
                RequestID(),
                LoggingMiddleware { entry in print(entry) },
            ]))
        _ = api
    }

    static func cookies(baseURL: URL) {
        let cookies = URLSessionConfiguration.ephemeral      // in memory; .default shares HTTPCookieStorage.shared
        cookies.httpCookieAcceptPolicy = .always
        cookies.httpShouldSetCookies = true
        let withCookies = Session(baseURL: baseURL, client: URLSessionClient(sessionConfiguration: cookies))
        _ = withCookies
    }

    static func challenges(baseURL: URL, password: String) {
        let client = URLSessionClient(challengeHandler: { challenge in
            guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic else {
                return (.performDefaultHandling, nil)  // server trust: the system's checks (or pinning, below)
            }
            guard challenge.previousFailureCount == 0 else { return (.cancelAuthenticationChallenge, nil) }  // refused
            return (.useCredential, URLCredential(user: "reader", password: password, persistence: .forSession))
        })
        let api = Session(baseURL: baseURL, client: client)
        _ = api
    }

    // Compiled where Security is (Apple platforms); FoundationNetworking asks no server-trust challenge.
    #if canImport(Security)
    static func pinning() {
        /// The SHA-256 of each accepted public key, Base64, as `SecKeyCopyExternalRepresentation` gives its bytes:
        /// the server's key and a backup key kept offline.
        let pinnedKeys: Set<String> = ["<the server key's SHA-256, Base64>", "<the backup key's SHA-256, Base64>"]

        let pinning = URLSessionClient(challengeHandler: { challenge in
            let space = challenge.protectionSpace
            guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
                return (.performDefaultHandling, nil)
            }
            guard SecTrustEvaluateWithError(trust, nil),
                let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate]
            else { return (.cancelAuthenticationChallenge, nil) }
            let pinned = chain.contains { certificate in
                guard let key = SecCertificateCopyKey(certificate),
                    let bytes = SecKeyCopyExternalRepresentation(key, nil) as Data?
                else { return false }
                return pinnedKeys.contains(Data(SHA256.hash(data: bytes)).base64EncodedString())
            }
            return pinned ? (.useCredential, URLCredential(trust: trust)) : (.cancelAuthenticationChallenge, nil)
        })
        _ = pinning
    }
    #endif

    struct VersionedRouter: Router {
        var version: String

        func collectionURL(type: String, baseURL: URL) throws -> URL {
            baseURL.appendingPathComponent(version).appendingPathComponent(type)
        }

        func resourceURL(type: String, id: String, baseURL: URL) throws -> URL {
            try collectionURL(type: type, baseURL: baseURL).appendingPathComponent(id)
        }
    }

    static func routers(api: Session) {
        let articles = api.source(Article.self, VersionedRouter(version: "v2"))
        let people = api.source(Person.self, .path("<type>/<id>"))
        _ = (articles, people)
    }

    static func errors(articles: DataSource<Article>) async {
        do {
            _ = try await articles.fetch(id: "999").result()
        } catch let error as JSONAPIClientError where error.code == .errorResponse {
            print(error.status?.code ?? 0, error.url?.absoluteString ?? "")
            for object in error.errors { print(object.status ?? "", object.title ?? "", object.source?.pointer ?? "") }
        } catch let error as JSONAPIClientError where error.code == .decodingFailed {
            print(error.pointer ?? "", error.detail)   // where in the document, and what
        } catch {
            print(error)                               // CancellationError, …
        }
    }

    static func landingPages(url: URL, data: Data, articles: [Article]) async throws {
        let api = Session(baseURL: url)
        let source = api.source(Article.self, .path("articles/<id>"))
        let page = try await source.fetch().include(["author"]).paginate(.pageBased(1, 10))
        let next = try await page.next()
        let document = try JSONAPIDecoder().decode(Document<[Article]>.self, from: data)
        let body = try JSONAPIEncoder().encode(Document(data: articles))
        _ = (next, document, body)
    }

    static func caching(baseURL: URL) async throws {
        let api = Session(baseURL: baseURL)
        let articles = api.source(Article.self, .path("articles/<id>"))
        _ = try await articles.fetch().include(["author"]).result()
        let article = try api.store?.resource(Article.self, id: "1")   // its author from the store
        _ = article
    }

    // Building SwiftUI screens (the views themselves are not compiled here: no SwiftUI on Linux)
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    static func swiftUIScreens(api: Session, people: DataSource<Person>) async throws {
        let articles = api.source(Article.self, .path("articles/<id>"))
        let list = articles.fetch().include(["author"]).sort("-created").page(.pageBased(1, 20)).liveList()

        await list.load()                                      // the first page, by the cache policy
        if list.hasMore { await list.loadMore() }              // the next page, each resource once
        if case .failed(let error) = list.phase { print(error.detail) }
        await list.refresh()                                   // the first page again, in place of every page shown

        let article = articles.live(id: "1")                   // follows the store from now on
        let withAuthor = articles.fetch(id: "1").include(["author"]).live()

        var change = ResourceUpdate<Article>(id: "1")
        change.set("title", to: "New title")
        try await articles.update(change)                      // the list and the detail screen show it, no fetch
        try await articles.delete(id: "1")                     // it leaves the list; the detail screen shows nil

        let user = (id: "bob", name: "Bob")
        try await api.signIn(account: user.id)                 // live objects empty, then load as the new user
        try await api.signOut()                                // keep the account's data for its next sign-in
        try await api.signOut(removingData: true)              // or remove it from the device

        // The symbol documentation's examples
        await article.load()                                   // in .task { }: by the cache policy
        print(article.resource?.title ?? "", article.isLoading, article.error?.detail ?? "")
        await article.refresh()                                // in .refreshable { }: asks the server
        for article in list.resources { print(article.title) }
        let me = people.fetch(as: Person.self).live()          // GET /people, a singleton such as /me
        _ = (withAuthor, me)
    }

    struct Note: Resource {
        static let resourceType = "notes"
        var id: String
        var text: String
    }

    static func writingOffline(url: URL, article: Article, notes: DataSource<Note>) async throws {
        let api = Session(baseURL: url, configuration: .init(writes: .offline))
        let articles = api.source(Article.self, .path("articles/<id>"))

        let sent = try await articles.update(article) { $0.title = "Written on a train" }  // shown at once
        if let entry = sent.queued { print("queued:", entry.id) }          // no network: it waits in the queue

        try await articles.relationship("tags", of: "7").add([ResourceIdentifier(type: "tags", id: "3")], options: .offline)

        if let diff = api.store?.pendingChanges(type: "articles", id: "7") {
            print(diff.changedMembers, diff.server?.attributes?["title"] ?? "")   // ["title"] "Old title"
            api.writeQueue.discard(type: "articles", id: "7")                      // drop the unsent edits
        }

        Task {
            for await event in api.writeQueue.events() {
                switch event.outcome {
                case .delivered(let status): print("sent", event.entry.url, status)
                case .rejected(let error): print("refused and rolled back:", error.rolledBack?.id ?? "", error)
                case .failing(let error): print("still not sent; ask the user:", error)   // then retry() or discard
                default: break
                }
            }
        }
        api.writeQueue.resume()   // the network is back

        let note = Note(id: UUID().uuidString, text: "Buy milk")
        try await notes.create(note, options: .offline)    // replayed after a lost answer: 409, counted as made
    }

    // Writing offline and optimistically, at launch
    static func offlineLaunch(url: URL, directory: URL) {
        let api = Session(baseURL: url, configuration: .init(store: .init(persistence: .init(directory: directory)), writes: .offline))
        Task { for await event in api.writeQueue.events() { print(event) } }
        let stuck = api.writeQueue.entries.filter(\.isFailing)   // show them: retry() or discard(type:id:)
        if !stuck.isEmpty { print("writes waiting for you:", stuck.map(\.url)) }
        api.writeQueue.resume()   // when the path monitor says the network is there; the others are sent meanwhile
    }

    // Writing offline and optimistically, accounts
    static func offlineAccounts(api: Session, notes: DataSource<Note>) async throws {
        try await notes.create(Note(id: UUID().uuidString, text: "Buy milk"), options: .offline)  // queued as Alice's
        try await api.signIn(account: "bob")           // Alice's queue waits, unsent; api.writeQueue is Bob's
        try await api.signIn(account: "alice")         // her queue again: its writes go once the network is back
        try await api.signOut(removingData: true)      // or: her writes are removed, never sent
    }

    // Caching resources, Accounts
    static func accounts(
        baseURL: URL, folder: URL, savedUserID: String?, token: @escaping @Sendable () async throws -> String?,
        signedIn newUserID: String
    ) async throws {
        let api = Session(
            baseURL: baseURL,
            configuration: .init(
                middlewares: [BearerTokenMiddleware(token: token)],
                store: .init(persistence: .init(directory: folder)),
                account: savedUserID))                          // who was signed in at the last launch, if anyone
        try await api.signIn(account: newUserID)                // after your sign-in screen: this user's data now
        try await api.signOut()                                 // hidden, kept for this user's next sign-in
        try await api.signOut(removingData: true)               // or: gone from the device, queued writes too
    }

    static func keptAcrossLaunches(baseURL: URL) async throws {
        // On macOS, Application Support is one folder for every app that is not sandboxed: keep yours under your bundle
        // identifier.
        let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
            .appendingPathComponent(Bundle.main.bundleIdentifier ?? "com.example.app", isDirectory: true)
            .appendingPathComponent("api-store", isDirectory: true)
        let api = Session(baseURL: baseURL, configuration: .init(store: .init(persistence: .init(directory: folder))))
        try await api.store?.flush()   // returns when what the store holds is on disk
    }

    @Test("A view model's fetch, with a scripted transport")
    static func testingYourCode() async throws {
        let client = ScriptedClient { request in
            .document(#"{"data": [{"type": "people", "id": "1", "attributes": {"name": "Ann"}}]}"#)
        }
        let api = Session(baseURL: try #require(URL(string: "https://api.example.com")), client: client)
        let people = try await api.source(Person.self, .path("people/<id>")).fetch().result()
        #expect(people.data?.first?.name == "Ann")
        #expect(client.requests.first?.url.absoluteString == "https://api.example.com/people")
    }
}

// Defining models: inverse relationships (an extension must stand at file scope).
private typealias Article = DocCSnippets.Article

extension Article {
    static let inverseRelationships = [InverseRelationship("author", of: Person.self, "articles")]
}

private typealias Person = DocCSnippets.Person
