import Foundation
import JSONAPIClient

/// A transport for tests: answers from a closure and records every request it is given — no network.
///
/// ```swift
/// let client = ScriptedClient { request in
///     .document(#"{"data": [{"type": "articles", "id": "1", "attributes": {"title": "Hi"}}]}"#)
/// }
/// let source = Session(baseURL: url, client: client).source(Article.self, .path("articles/<id>"))
/// let page = try await source.fetch().result()
/// #expect(client.requests.first?.url.absoluteString == "https://api.example.com/articles")
/// ```
public final class ScriptedClient: Client, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []
    private let respond: @Sendable (HTTPRequest) async throws -> HTTPResponse

    /// A client that answers each request with what `respond` returns (or throws).
    ///
    /// - Parameter respond: Answers a request, or throws to fail it as a transport would.
    public init(_ respond: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) { self.respond = respond }

    /// A client that answers every request with `status` and `body`.
    ///
    /// - Parameters:
    ///   - status: The status of every answer.
    ///   - body: The body of every answer.
    ///   - headers: The header fields of every answer.
    public convenience init(
        status: Int = 200, body: String, headers: HTTPFields = ["Content-Type": "application/vnd.api+json"]
    ) {
        self.init { _ in HTTPResponse(status: .init(code: status), headerFields: headers, body: Data(body.utf8)) }
    }

    /// The requests sent so far, in order.
    public var requests: [HTTPRequest] {
        lock.withLock { recorded }
    }

    /// Records `request` and answers it.
    ///
    /// - Parameter request: The request.
    /// - Returns: What `respond` returns.
    /// - Throws: What `respond` throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { recorded.append(request) }
        return try await respond(request)
    }
}

extension HTTPResponse {
    /// A JSON:API response (`Content-Type: application/vnd.api+json`) with `body`.
    ///
    /// - Parameters:
    ///   - body: The document's JSON text.
    ///   - status: The status.
    /// - Returns: The response.
    public static func document(_ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: .init(code: status), headerFields: ["Content-Type": "application/vnd.api+json"], body: Data(body.utf8))
    }
}
