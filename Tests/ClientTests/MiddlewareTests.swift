import Foundation
import JSONAPIClient
import Testing
import TestSupport

@Suite("Middleware")
struct MiddlewareTests {
    /// Records its name on the way out and on the way back.
    struct Recorder: Middleware {
        let name: String
        let log: LogBox

        func intercept(
            _ request: HTTPRequest, context: MiddlewareContext,
            next: @Sendable (HTTPRequest) async throws -> HTTPResponse
        ) async throws -> HTTPResponse {
            log.append("\(name) out")
            var request = request
            request.headerFields.append("X-Order", name)
            let response = try await next(request)
            log.append("\(name) back")
            return response
        }
    }

    final class LogBox: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        func append(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    @Test("Requests pass middlewares in array order, responses in reverse")
    func order() async throws {
        let log = LogBox()
        let client = ScriptedClient { request in
            log.append("transport")
            return .document(#"{"meta":{}}"#)
        }
        let source = DataSource<Article>(
            baseURL: exampleBase, router: .path("articles/<id>"), client: client,
            configuration: .init(middlewares: [Recorder(name: "A", log: log), Recorder(name: "B", log: log)]))
        _ = try? await source.fetch(id: "1").result()
        #expect(log.all == ["A out", "B out", "transport", "B back", "A back"])
        #expect(client.requests.first?.headerFields.values(for: "x-order") == ["A", "B"])
    }

    @Test("The bearer token comes from the async provider, on every same-origin request")
    func bearerSameOrigin() async throws {
        let client = ScriptedClient(body: #"{"meta":{}}"#)
        let counter = LogBox()
        let auth = BearerTokenMiddleware {
            counter.append("token")
            return "t\(counter.all.count)"
        }
        let source = DataSource<Article>(
            baseURL: exampleBase, router: .path("articles/<id>"), client: client,
            configuration: .init(middlewares: [auth]))
        _ = try? await source.fetch(id: "1").result()
        _ = try? await source.fetch(id: "2").result()
        #expect(client.requests.map { $0.headerFields[.authorization] } == ["Bearer t1", "Bearer t2"])
    }

    @Test("Credentials never go to another origin, even an allowed one")
    func bearerOtherOrigin() async throws {
        let client = ScriptedClient(body: #"{"meta":{}}"#)
        let cdn = Origin(scheme: "https", host: "cdn.example.com", port: 443)
        let source = DataSource<Article>(
            baseURL: exampleBase, router: .path("articles/<id>"), client: client,
            configuration: .init(
                middlewares: [BearerTokenMiddleware { "secret" }],
                headerFields: ["Cookie": "session=1", "X-API-Key": "k-123"], allowedLinkOrigins: [cdn]))
        _ = try? await source.fetch(link: "https://cdn.example.com/articles/1", as: Article.self)
            .header(.authorization, "Bearer manual").header("X-Trace", "t-1").result()
        let request = try #require(client.requests.first)
        #expect(request.url.absoluteString == "https://cdn.example.com/articles/1")
        #expect(request.headerFields[.authorization] == nil)
        #expect(request.headerFields[.cookie] == nil)
        // The data source's configured headers are for its own server: an API key never leaves it.
        #expect(request.headerFields["X-API-Key"] == nil)
        #expect(request.headerFields["X-Trace"] == "t-1")
        #expect(request.headerFields[.accept] == "application/vnd.api+json")

        _ = try? await source.fetch(id: "1").result()
        #expect(client.requests.last?.headerFields["X-API-Key"] == "k-123")
        #expect(client.requests.last?.headerFields[.authorization] == "Bearer secret")
    }

    @Test("Logging reports method, URL, status and duration, and never a credential")
    func logging() async throws {
        let entries = LogBox()
        let client = ScriptedClient(status: 404, body: #"{"errors":[{"status":"404"}]}"#)
        let source = DataSource<Article>(
            baseURL: exampleBase, router: .path("articles/<id>"), client: client,
            configuration: .init(middlewares: [
                BearerTokenMiddleware { "top-secret-token" },
                LoggingMiddleware { entries.append("\($0.method) \($0.url.absoluteString) \($0.status?.code ?? 0) \($0.duration >= .zero) | \($0)") },
            ]))
        _ = try? await source.fetch(id: "5").result()
        let entry = try #require(entries.all.first)
        #expect(entry.hasPrefix("GET https://api.example.com/v1/articles/5 404 true | GET https://api.example.com/v1/articles/5 → 404 in "))
        #expect(!entry.contains("top-secret-token"))
        #expect(client.requests.first?.headerFields[.authorization] == "Bearer top-secret-token")
    }

    @Test("Header fields: case-insensitive, ordered, repeatable; credentials redacted in descriptions")
    func fields() {
        var fields: HTTPFields = ["Accept": "a", "X-Tag": "1"]
        fields.append("x-tag", "2")
        #expect(fields["ACCEPT"] == "a")
        #expect(fields.values(for: "X-TAG") == ["1", "2"])
        #expect(fields["x-tag"] == "1, 2")
        fields["X-Tag"] = "3"
        #expect(fields.map(\.value) == ["a", "3"])
        fields[.authorization] = "Bearer x"
        #expect(!fields.description.contains("Bearer x"))
        fields[.accept] = nil
        #expect(!fields.contains(.accept))
    }
}
