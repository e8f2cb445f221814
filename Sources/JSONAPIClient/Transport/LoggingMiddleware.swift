import Foundation

/// Reports each exchange to a closure: method, URL, status (or error) and duration.
///
/// ```swift
/// let logging = LoggingMiddleware { entry in print(entry) }   // "GET https://… → 200 in 0.031 s"
/// ```
///
/// The entry holds no header values, so credentials (`Authorization`) are never logged.
public struct LoggingMiddleware: Middleware {
    /// One finished exchange.
    public struct Entry: Sendable, CustomStringConvertible {
        /// The request method.
        public var method: HTTPMethod
        /// The request URL.
        public var url: URL
        /// The response status; `nil` when the request failed.
        public var status: HTTPResponse.Status?
        /// How long the rest of the chain and the transport took.
        public var duration: Duration
        /// The error, when the request failed (including `CancellationError`).
        public var error: (any Error)?

        /// `METHOD URL → STATUS in S s`, or `→ failed: error`.
        public var description: String {
            let seconds = String(format: "%.3f", duration.timeInterval)
            if let status { return "\(method) \(url.absoluteString) → \(status.code) in \(seconds) s" }
            return "\(method) \(url.absoluteString) → failed in \(seconds) s: \(error.map { "\($0)" } ?? "unknown")"
        }
    }

    private let log: @Sendable (Entry) -> Void

    /// A middleware that calls `log` once per exchange, after it ends.
    ///
    /// - Parameter log: Called with one entry per exchange: the request, the status or error, and the time taken.
    ///   Credentials are redacted.
    public init(_ log: @escaping @Sendable (Entry) -> Void) { self.log = log }

    /// Times the rest of the chain and reports it.
    ///
    /// - Parameters:
    ///   - request: The request, as the earlier middlewares left it.
    ///   - context: The session's base URL and whether the request goes to its origin.
    ///   - next: The rest of the chain: the later middlewares, then the transport.
    /// - Returns: The response `next` returned.
    /// - Throws: What `next` throws, after logging it.
    public func intercept(
        _ request: HTTPRequest, context: MiddlewareContext,
        next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let response = try await next(request)
            log(Entry(method: request.method, url: request.url, status: response.status, duration: clock.now - start))
            return response
        } catch {
            log(Entry(method: request.method, url: request.url, duration: clock.now - start, error: error))
            throw error
        }
    }
}
