import Foundation

/// Sends a request again when the server says to try later or the connection failed: `429 Too Many Requests`,
/// `502 Bad Gateway`, `503 Service Unavailable`, `504 Gateway Timeout` and transport errors — never a security
/// failure (``JSONAPIClientError/Code/securityFailed``, or a `URLError` of TLS, certificate trust or App Transport
/// Security). It waits as long as the response's `Retry-After` header asks (seconds or an HTTP date), or backs off
/// exponentially, with jitter, when it does not say.
///
/// ```swift
/// configuration: .init(middlewares: [RetryMiddleware(configuration: .init(maxAttempts: 4))])
/// ```
///
/// A 502, 503, 504 or transport error is retried only for idempotent methods (GET, HEAD, OPTIONS, PUT, DELETE): a
/// `POST` or `PATCH` may have been processed. A 429 means the request was not processed, so it is retried whatever
/// the method. A wait longer than ``Configuration/maxDelay`` is not waited for, and neither is a `Retry-After` that
/// is neither a number of seconds nor an HTTP date: the response goes back to the caller as it is. Cancelling the
/// task ends the wait with `CancellationError`.
///
/// **Jitter.** Without `Retry-After`, the wait before attempt *n* + 1 is drawn from the backoff
/// `initialDelay × 2ⁿ⁻¹` by ``Configuration/jitter`` — ``Jitter/full`` (anywhere from zero to the backoff) by
/// default — so that clients that failed together do not all come back together. A server's `Retry-After` is waited
/// for exactly.
public struct RetryMiddleware: Middleware {
    /// When and how long to retry.
    public struct Configuration: Sendable {
        /// How many times a request is sent at most (the first time included): `1` (or less) never retries.
        public var maxAttempts: Int
        /// The first backoff when the server gives no `Retry-After`; it doubles with each attempt.
        public var initialDelay: Duration
        /// The longest wait; a server asking for more is not waited for.
        public var maxDelay: Duration
        /// The statuses retried for every method.
        public var retriedStatuses: Set<Int>
        /// The statuses retried only for idempotent methods.
        public var retriedIdempotentStatuses: Set<Int>
        /// Whether a transport error (no response: a reset connection, a timeout) is retried, for idempotent methods
        /// only. A security failure (``JSONAPIClientError/Code/securityFailed``) never is.
        public var retriesTransportErrors: Bool
        /// How a backoff is spread out.
        public var jitter: Jitter

        /// Creates a configuration; every parameter has a default.
        ///
        /// - Parameters:
        ///   - maxAttempts: The most times a request is sent, the first included.
        ///   - initialDelay: The wait before the first retry; it doubles each time.
        ///   - maxDelay: The longest wait, a `Retry-After` included.
        ///   - retriedStatuses: Statuses retried for any method.
        ///   - retriedIdempotentStatuses: Statuses retried only for idempotent methods.
        ///   - retriesTransportErrors: Whether a transport failure of an idempotent request is retried.
        ///   - jitter: How the waits are spread.
        public init(
            maxAttempts: Int = 3, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
            retriedStatuses: Set<Int> = [429], retriedIdempotentStatuses: Set<Int> = [502, 503, 504],
            retriesTransportErrors: Bool = true, jitter: Jitter = .full
        ) {
            self.maxAttempts = maxAttempts
            self.initialDelay = initialDelay
            self.maxDelay = maxDelay
            self.retriedStatuses = retriedStatuses
            self.retriedIdempotentStatuses = retriedIdempotentStatuses
            self.retriesTransportErrors = retriesTransportErrors
            self.jitter = jitter
        }
    }

    /// How a backoff is spread out: the wait for a backoff `b` and a random number `r` in `0..<1`.
    public struct Jitter: Sendable, Hashable, CustomStringConvertible {
        private enum Kind: Hashable {
            case none, full, equal
        }

        private let kind: Kind

        /// The backoff itself: `b`.
        public static let none = Jitter(kind: .none)
        /// Anywhere from zero to the backoff: `r × b` ("full jitter"). Spreads retries the most.
        public static let full = Jitter(kind: .full)
        /// At least half the backoff: `b/2 + r × b/2` ("equal jitter").
        public static let equal = Jitter(kind: .equal)

        /// The wait for `backoff` with `random`, a number in `0..<1` (clamped to it).
        ///
        /// - Parameters:
        ///   - backoff: The exponential backoff for this attempt.
        ///   - random: A random number in `0..<1`.
        /// - Returns: The wait, between zero and `backoff`.
        public func delay(for backoff: Duration, random: Double) -> Duration {
            let random = min(max(random, 0), 1)
            switch kind {
            case .none: return backoff
            case .full: return backoff * random
            case .equal: return backoff / 2 + (backoff / 2) * random
            }
        }

        /// `none`, `full` or `equal`.
        public var description: String {
            switch kind {
            case .none: "none"
            case .full: "full"
            case .equal: "equal"
            }
        }
    }

    /// When and how long to retry.
    public var configuration: Configuration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let now: @Sendable () -> Date
    private let random: @Sendable () -> Double

    /// Creates the middleware.
    ///
    /// - Parameter configuration: When and how long to wait between attempts.
    public init(configuration: Configuration = Configuration()) {
        self.init(
            configuration: configuration, sleep: { try await Task.sleep(for: $0) }, now: { Date() },
            random: { Double.random(in: 0..<1) })
    }

    /// Creates the middleware with your own clock and random numbers (for tests).
    ///
    /// - Parameters:
    ///   - configuration: When and how long to retry.
    ///   - sleep: Waits the given duration (throws `CancellationError` when cancelled).
    ///   - now: The current time, to read a `Retry-After` date.
    ///   - random: A random number in `0..<1`, for the jitter.
    public init(
        configuration: Configuration, sleep: @escaping @Sendable (Duration) async throws -> Void,
        now: @escaping @Sendable () -> Date, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.sleep = sleep
        self.now = now
        self.random = random
    }

    /// Sends `request`, again after a wait while the response (or a transport error) says to.
    ///
    /// - Parameters:
    ///   - request: The request, as the earlier middlewares left it.
    ///   - context: The session's base URL and whether the request goes to its origin.
    ///   - next: The rest of the chain: the later middlewares, then the transport.
    /// - Returns: The last response.
    /// - Throws: What `next` throws on the last attempt; `CancellationError` when the task is cancelled during a wait.
    public func intercept(
        _ request: HTTPRequest, context: MiddlewareContext,
        next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        var attempt = 1
        while true {
            let response: HTTPResponse
            do {
                response = try await next(request)
            } catch {
                guard attempt < configuration.maxAttempts, isRetried(error, method: request.method),
                    let delay = delay(for: nil, attempt: attempt)
                else { throw error }
                try await sleep(delay)
                attempt += 1
                continue
            }
            guard attempt < configuration.maxAttempts, isRetried(response.status.code, method: request.method),
                let delay = delay(for: response, attempt: attempt)
            else { return response }
            try await sleep(delay)
            attempt += 1
        }
    }

    func isRetried(_ status: Int, method: HTTPMethod) -> Bool {
        if configuration.retriedStatuses.contains(status) { return true }
        return configuration.retriedIdempotentStatuses.contains(status) && method.isIdempotent
    }

    /// Whether `error`, thrown on the way to the transport, is a transport failure worth another attempt: not a
    /// cancellation, nor a security failure (TLS, certificate trust, App Transport Security, a cancelled
    /// authentication challenge: see ``JSONAPIClientError/Code/securityFailed``), nor an error of this library other
    /// than a transport failure or a timeout (a refused request stays refused).
    func isRetried(_ error: any Error, method: HTTPMethod) -> Bool {
        guard configuration.retriesTransportErrors, method.isIdempotent, !Task.isCancelled,
            !(error is CancellationError), !URLSessionClient.isSecurityFailure(error)
        else { return false }
        if let error = error as? JSONAPIClientError { return error.code == .transportFailed || error.code == .timedOut }
        return true
    }

    /// How long to wait before the next attempt, or `nil` when the response is not to be retried: its `Retry-After`
    /// asks for longer than ``Configuration/maxDelay`` or cannot be read as seconds or an HTTP date, or the backoff
    /// has grown past `maxDelay`.
    ///
    /// Everything is compared in floating-point seconds before a `Duration` is made, so no server value can overflow
    /// an integer (`Int` is 32 bits on watchOS's `arm64_32`, where a wait beyond 24.8 days in milliseconds would
    /// trap).
    ///
    /// - Parameters:
    ///   - response: The response to retry; `nil` after a transport error.
    ///   - attempt: The attempt that failed, from 1.
    func delay(for response: HTTPResponse?, attempt: Int) -> Duration? {
        let maxSeconds = configuration.maxDelay.timeInterval
        if let value = response?.headerFields[.retryAfter]?.trimmingCharacters(in: .whitespaces) {
            guard let seconds = RetryAfter.seconds(value, now: now()), seconds <= maxSeconds else { return nil }
            return .milliseconds(Int64((max(seconds, 0) * 1000).rounded(.up)))
        }
        let backoff = configuration.initialDelay * (1 << min(max(attempt, 1) - 1, 20))
        let delay = configuration.jitter.delay(for: backoff, random: random())
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
