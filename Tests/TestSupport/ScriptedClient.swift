import Foundation
import JSONAPIClient

/// A transport that answers from a closure and records every request it is given.
public final class ScriptedClient: Client, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [HTTPRequest] = []
    private let respond: @Sendable (HTTPRequest) async throws -> HTTPResponse

    public init(_ respond: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) { self.respond = respond }

    /// A client that answers every request with `status` and `body`.
    public convenience init(status: Int = 200, body: String, headers: HTTPFields = ["Content-Type": "application/vnd.api+json"]) {
        self.init { _ in HTTPResponse(status: .init(code: status), headerFields: headers, body: Data(body.utf8)) }
    }

    public var requests: [HTTPRequest] {
        lock.withLock { recorded }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { recorded.append(request) }
        return try await respond(request)
    }
}

extension HTTPResponse {
    /// A JSON:API response with `body`.
    public static func document(_ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: .init(code: status), headerFields: ["Content-Type": "application/vnd.api+json"], body: Data(body.utf8))
    }
}

/// A transport that counts requests and passes them to another.
public final class CountingClient: Client, @unchecked Sendable {
    private let lock = NSLock()
    private var sent = 0
    public let base: any Client

    public init(_ base: any Client) { self.base = base }

    public var count: Int {
        lock.withLock { sent }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { sent += 1 }
        return try await base.send(request)
    }
}

/// The base URL of scripted tests; nothing is ever sent there.
public let exampleBase = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")
