import Foundation
import JSONAPIClient
import Testing
import TestSupport

/// `BearerTokenMiddleware(token:refresh:)`: on a 401, one refresh and one more attempt with the new token.
@Suite("Token refresh")
struct TokenRefreshTests {
    /// The current token, and the rejected tokens each refresh was given.
    final class Tokens: @unchecked Sendable {
        private let lock = NSLock()
        private var token: String
        private var refreshed: [String] = []
        private let next: String?
        init(_ token: String, next: String?) {
            self.token = token
            self.next = next
        }
        var current: String { lock.withLock { token } }
        var refreshes: [String] { lock.withLock { refreshed } }
        func refresh(_ rejected: String) -> String? {
            lock.withLock {
                refreshed.append(rejected)
                if let next { token = next }
                return next
            }
        }
    }

    static let ok = HTTPResponse.document(#"{"data": []}"#)
    static var unauthorized: HTTPResponse { .document(#"{"errors": [{"status": "401"}]}"#, status: 401) }

    /// Answers 401 unless the request carries `Bearer good`.
    static func server() -> ScriptedClient {
        ScriptedClient { request in request.headerFields[.authorization] == "Bearer good" ? ok : unauthorized }
    }

    func source(_ client: ScriptedClient, _ tokens: Tokens, baseURL: URL = exampleBase) -> DataSource<ArticleTag> {
        let auth = BearerTokenMiddleware(token: { tokens.current }, refresh: { tokens.refresh($0) })
        return DataSource<ArticleTag>(
            baseURL: baseURL, router: .path("tags/<id>"), client: client, configuration: .init(middlewares: [auth]))
    }

    @Test("A 401 refreshes the token once and repeats the request with the new one")
    func refreshes() async throws {
        let client = Self.server()
        let tokens = Tokens("stale", next: "good")
        let document = try await source(client, tokens).fetch().result()
        #expect(document.data?.isEmpty == true)
        #expect(tokens.refreshes == ["stale"])
        #expect(client.requests.map { $0.headerFields[.authorization] } == ["Bearer stale", "Bearer good"])
        // The next request uses the refreshed token at once.
        _ = try await source(client, tokens).fetch().result()
        #expect(tokens.refreshes == ["stale"])
        #expect(client.requests.count == 3)
    }

    @Test("A 401 to a POST is repeated too, with the same body: the server did not process it")
    func post() async throws {
        let client = Self.server()
        let tokens = Tokens("stale", next: "good")
        let created = HTTPResponse.document(#"{"data": {"type": "tags", "id": "9", "attributes": {"name": "new"}}}"#, status: 201)
        let scripted = ScriptedClient { request in
            _ = try await client.send(request)
            return request.headerFields[.authorization] == "Bearer good" ? created : Self.unauthorized
        }
        let response = try await source(scripted, tokens).create(ArticleTag(id: "", name: "new"))
        #expect(response.data?.id == "9")
        #expect(scripted.requests.map(\.method) == [.post, .post])
        #expect(scripted.requests[0].body == scripted.requests[1].body)
    }

    @Test("A second 401 goes back to the caller: one refresh, two requests, never more")
    func onlyOnce() async throws {
        let client = ScriptedClient { _ in Self.unauthorized }
        let tokens = Tokens("stale", next: "also-bad")
        let error = await expectThrows(JSONAPIClientError.self) { try await source(client, tokens).fetch().result() }
        #expect(error?.status?.code == 401)
        #expect(tokens.refreshes == ["stale"])
        #expect(client.requests.count == 2)
    }

    @Test("A refresh that gives nil returns the 401 without repeating; no refresh closure, no repeat")
    func noNewToken() async throws {
        let client = Self.server()
        let tokens = Tokens("stale", next: nil)
        let error = await expectThrows(JSONAPIClientError.self) { try await source(client, tokens).fetch().result() }
        #expect(error?.status?.code == 401)
        #expect(tokens.refreshes == ["stale"])
        #expect(client.requests.count == 1)

        let plain = Self.server()
        let withoutRefresh = DataSource<ArticleTag>(
            baseURL: exampleBase, router: .path("tags/<id>"), client: plain,
            configuration: .init(middlewares: [BearerTokenMiddleware { "stale" }]))
        await #expect(throws: JSONAPIClientError.self) { try await withoutRefresh.fetch().result() }
        #expect(plain.requests.count == 1)
    }

    @Test("Other statuses and other origins never refresh")
    func otherStatusesAndOrigins() async throws {
        let forbidden = ScriptedClient { _ in .document(#"{"errors": [{"status": "403"}]}"#, status: 403) }
        let tokens = Tokens("stale", next: "good")
        await #expect(throws: JSONAPIClientError.self) { try await source(forbidden, tokens).fetch().result() }
        #expect(forbidden.requests.count == 1)

        // A link to another (allowed) origin goes without the token, so a 401 there is not the token's.
        let client = Self.server()
        let auth = BearerTokenMiddleware(token: { tokens.current }, refresh: { tokens.refresh($0) })
        let session = Session(
            baseURL: exampleBase, client: client,
            configuration: .init(
                middlewares: [auth], allowedLinkOrigins: [Origin(scheme: "https", host: "cdn.example.com", port: 443)]))
        let other = try #require(URL(string: "https://cdn.example.com/tags"))
        await #expect(throws: JSONAPIClientError.self) { try await session.fetch(other).result() }
        #expect(client.requests.count == 1)
        #expect(client.requests.first?.headerFields[.authorization] == nil)
        #expect(tokens.refreshes.isEmpty)
    }
}
