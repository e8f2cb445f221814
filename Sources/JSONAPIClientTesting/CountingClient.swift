import Foundation
import JSONAPIClient

/// A transport that counts the requests it passes on to another, e.g. to assert that nothing more was sent.
public final class CountingClient: Client, @unchecked Sendable {
    private let lock = NSLock()
    private var sent = 0
    /// The transport requests go on to.
    public let base: any Client

    /// Counts what goes to `base`.
    ///
    /// - Parameter base: The client that answers.
    public init(_ base: any Client) { self.base = base }

    /// The number of requests sent so far.
    public var count: Int {
        lock.withLock { sent }
    }

    /// Counts `request` and passes it on.
    ///
    /// - Parameter request: The request.
    /// - Returns: What `base` answers.
    /// - Throws: What `base` throws.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        lock.withLock { sent += 1 }
        return try await base.send(request)
    }
}
