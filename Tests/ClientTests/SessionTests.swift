import Foundation
import JSONAPIClient
import Testing
import TestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Session: one transport under every data source")
struct SessionTests {
    @Test("Data sources of one session share its URLSession: one connection for both types; two sessions open two")
    func sharedConnection() async throws {
        let server = try KeepAliveServer()
        defer { server.stop() }
        let api = Session(baseURL: server.url)
        let articles = api.source(Article.self, .path("articles/<id>"))
        let people = api.source(Person.self, .path("people/<id>"))
        _ = try await articles.fetch().result()
        _ = try await people.fetch().result()
        _ = try await articles.fetch().result()
        #expect(server.requests == 3)
        #expect(server.connections == 1)

        // The check sees the difference: sources with sessions of their own connect once each.
        let own = try KeepAliveServer()
        defer { own.stop() }
        _ = try await DataSource<Article>(baseURL: own.url, router: .path("articles/<id>")).fetch().result()
        _ = try await DataSource<Person>(baseURL: own.url, router: .path("people/<id>")).fetch().result()
        #expect(own.requests == 2)
        #expect(own.connections == 2)
    }

    @Test("A data source is an actor on its session; its builders need no await, its writes run on it")
    func dataSourceIsAnActor() async throws {
        let client = ScriptedClient { _ in .document("", status: 204) }
        let api = Session(baseURL: exampleBase, client: client)
        let source = api.source(Article.self, .path("articles/<id>"))
        let actor: any Actor = source
        #expect(actor is DataSource<Article>)
        #expect(source.session === api)
        let request = source.fetch(id: "9").include(["author"])  // no await: a value
        #expect(try request.url.absoluteString == "https://api.example.com/v1/articles/9?include=author")
        try await source.delete(id: "9")
        #expect(client.requests.map(\.method) == [.delete])
    }

    @Test("A session's data sources send its configuration: headers and middleware, for every type")
    func sharedConfiguration() async throws {
        let client = ScriptedClient { _ in .document(#"{"data": []}"#) }
        let api = Session(
            baseURL: exampleBase, client: client,
            configuration: .init(middlewares: [BearerTokenMiddleware { "t" }], headerFields: ["X-Key": "k"]))
        _ = try await api.source(Article.self, .path("articles/<id>")).fetch().result()
        _ = try await api.source(Person.self, .path("people/<id>")).fetch().result()
        #expect(client.requests.map(\.url.path) == ["/v1/articles", "/v1/people"])
        #expect(client.requests.allSatisfy { $0.headerFields[.authorization] == "Bearer t" && $0.headerFields["X-Key"] == "k" })
    }

    @Test("The session fetches any URL schema-less, and the document navigates")
    func untypedFetch() async throws {
        let client = ScriptedClient { request in
            request.url.query == nil
                ? .document(#"{"data": [{"type": "tags", "id": "1"}], "links": {"next": "/v1/tags?page=2"}}"#)
                : .document(#"{"data": [{"type": "tags", "id": "2", "attributes": {"name": "b"}}], "links": {"next": null}}"#)
        }
        let api = Session(baseURL: exampleBase, client: client)
        var document = try await api.fetch(exampleBase.appendingPathComponent("tags")).result()
        #expect(try await document.appendNext().hasMore == false)
        #expect(document.data?.resources.compactMap(\.id) == ["1", "2"])
        #expect(client.requests.map(\.url.absoluteString) == [
            "https://api.example.com/v1/tags", "https://api.example.com/v1/tags?page=2",
        ])
        await #expect(throws: JSONAPIClientError.self) {
            try await api.fetch(URL(string: "https://elsewhere.example/tags")!).result()
        }
        #expect(client.requests.count == 2)
    }

    @Test("URLSessionClient sends through the URLSessionConfiguration it is given (a URLProtocol stub answers)")
    func sessionConfiguration() async throws {
        let settings = URLSessionConfiguration.ephemeral
        settings.protocolClasses = [StubProtocol.self]
        // Port 1 on 127.0.0.1 refuses connections: only the stub can answer.
        let base = try #require(URL(string: "http://127.0.0.1:1/v1"))
        let api = Session(baseURL: base, client: URLSessionClient(sessionConfiguration: settings))
        let page = try await api.source(Article.self, .path("articles/<id>")).fetch().result()
        #expect(page.data?.isEmpty == true)
        #expect(StubProtocol.answered.contains("http://127.0.0.1:1/v1/articles"))

        let plain = Session(baseURL: base)
        let error = await expectThrows(JSONAPIClientError.self) {
            try await plain.source(Article.self, .path("articles/<id>")).fetch().result()
        }
        #expect(error?.code == .transportFailed)
    }
}

extension SessionTests {
    @Test("URLSessionClient follows a redirect within the origin and refuses one to another origin (one delegate for Linux and Apple)")
    func redirects() async throws {
        let target = try KeepAliveServer()
        defer { target.stop() }
        let away = try KeepAliveServer(status: "302 Found", headers: ["Location: \(target.url.absoluteString)articles"])
        defer { away.stop() }
        let error = await expectThrows(JSONAPIClientError.self) {
            try await Session(baseURL: away.url).source(Article.self, .path("articles/<id>")).fetch().result()
        }
        #expect(error?.status?.code == 302)
        #expect(target.requests == 0)

        let within = try KeepAliveServer(status: "302 Found", headers: ["Location: /elsewhere"])
        defer { within.stop() }
        let error2 = await expectThrows(JSONAPIClientError.self) {
            try await Session(baseURL: within.url).source(Article.self, .path("articles/<id>")).fetch().result()
        }
        // Followed within the origin: the server answers 302 again, so URLSession follows until it gives up.
        #expect(within.requests > 1)
        _ = error2
    }
}

/// Answers every request with an empty collection and records the URLs it answered.
final class StubProtocol: URLProtocol {
    private static let log = Log()

    static var answered: [String] { log.all }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/vnd.api+json"])
        else { return }
        Self.log.append(url.absoluteString)
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data(#"{"data": []}"#.utf8))
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func append(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }
}
