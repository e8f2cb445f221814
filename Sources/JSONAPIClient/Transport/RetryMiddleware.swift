import Foundation

/// Sends a request again when the server says to try later: `429 Too Many Requests` and
/// `503 Service Unavailable`, waiting as long as its `Retry-After` header asks (seconds or an HTTP date), or backing
/// off exponentially when it does not say.
///
/// ```swift
/// configuration: .init(middlewares: [RetryMiddleware(configuration: .init(maxAttempts: 4))])
/// ```
///
/// A 503 is retried only for idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE): a `POST` may have been
/// processed. A 429 means the request was not processed, so it is retried whatever the method. A wait longer than
/// ``Configuration/maxDelay`` is not waited for: the response goes back to the caller as it is. Cancelling the task
/// ends the wait with `CancellationError`.
public struct RetryMiddleware: Middleware {
    /// When and how long to retry.
    public struct Configuration: Sendable {
        /// How many times a request is sent at most (the first time included).
        public var maxAttempts: Int
        /// The first wait when the server gives no `Retry-After`; it doubles with each attempt.
        public var initialDelay: Duration
        /// The longest wait; a server asking for more is not waited for.
        public var maxDelay: Duration
        /// The statuses retried for every method.
        public var retriedStatuses: Set<Int>
        /// The statuses retried only for idempotent methods.
        public var retriedIdempotentStatuses: Set<Int>

        /// Creates a configuration; every parameter has a default.
        public init(
            maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
            retriedStatuses: Set<Int> = [429], retriedIdempotentStatuses: Set<Int> = [503]
        ) {
            self.maxAttempts = maxAttempts
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.retriedStatuses = retriedStatuses
            self.retriedIdempotentStatuses = retriedIdempotentStatuses
        }
    }

    /// When and how long to retry.
    public var configuration: Configuration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let now: @Sendable () -> Date

    /// Creates the middleware.
    public init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, sleep: { try await Task.sleep(for: $0) }, now: { Date() })
    }

    /// Creates the middleware with your own clock (for tests).
    public init(
        configuration: Configuration, sleep: @escaping @Sendable (Duration) async throws -> Void,
        now: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.sleep = sleep
        self.now = now
    }

    /// Sends `request`, again after a wait while the response says to.
    public func intercept(
        _ request: HTTPRequest, context: MiddlewareContext,
        next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var attempt = 1
        while true {
            let response = try await next(request)
            guard attempt < configuration.maxAttempts, isRetried(response.status.code, method: request.method),
                let delay = delay(for: response, attempt: attempt)
            else { return response }
            try await sleep(delay)
            attempt += 1
        }
    }

    func isRetried(_ status: Int, method: HTTPMethod) -> Bool {
        if configuration.retriedStatuses.contains(status) { return true }
        let idempotent: Set<HTTPMethod> = [.get, .head, .options, .put, .delete]
        return configuration.retriedIdempotentStatuses.contains(status) && idempotent.contains(method)
    }

    /// How long to wait before the next attempt, or `nil` when that is longer than ``Configuration/maxDelay``.
    func delay(for response: HTTPResponse, attempt: Int) -> Duration? {
        var delay = configuration.initialDelay * (1 << min(attempt - 1, 20))
        if let value = response.headerFields[.retryAfter]?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Int(value), seconds >= 0 {
                delay = .seconds(seconds)
            } else if let date = Self.httpDate(value) {
                delay = .milliseconds(max(0, Int(date.timeIntervalSince(now()) * 1000)))
            }
        }
        return delay <= configuration.maxDelay ? delay : nil
    }

    /// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form `Retry-After` dates take.
    static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}
