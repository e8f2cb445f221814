import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``Client``: URLSession, on Apple platforms and on Linux.
///
/// - Cancelling the calling task cancels the URL task; the call then throws `CancellationError`.
/// - ``Configuration/timeout`` bounds the whole exchange; past it the call throws a ``JSONAPIClientError`` with
///   code ``JSONAPIClientError/Code/timedOut``.
/// - ``Configuration/maxResponseBodySize`` bounds the body; a larger one (announced by `Content-Length` or
///   received) stops the transfer with ``JSONAPIClientError/Code/responseTooLarge``.
/// - Redirects are followed only to the same origin (scheme, host, port), so credentials never leave it; a redirect
///   to another origin throws ``JSONAPIClientError/Code/redirectRefused``, naming that origin.
///
/// - A reused keep-alive connection the server drops before answering is retried once on a fresh connection when
///   the method is idempotent (`GET`, `HEAD`, `OPTIONS`, `PUT`, `DELETE`); otherwise the call throws
///   ``JSONAPIClientError/Code/transportFailed`` at once, never waiting for the timeout.
/// - A connection refused for its security throws ``JSONAPIClientError/Code/securityFailed``, never
///   ``JSONAPIClientError/Code/transportFailed``: TLS that cannot be negotiated, a server certificate not trusted,
///   a client certificate required or rejected, App Transport Security, and a challenge the `challengeHandler`
///   cancelled (a certificate that fails pinning), whose detail names the kind of challenge. None of them is
///   retried, queued or answered from the store as if offline.
///
/// - The requests bypass the URL loading system's cache (`URLCache`) unless ``Configuration/usesURLCache`` says
///   otherwise: the session's ``ResourceStore`` is the one cache, and it must see every `ETag` and every `304`.
/// - Authentication challenges (certificate pinning, client certificates, HTTP Basic or Digest) go to the
///   `challengeHandler` given to ``init(configuration:sessionConfiguration:challengeHandler:)``; without one,
///   URLSession's default handling applies.
///
/// Any other response status is returned as a response; only transport failures throw.
public final class URLSessionClient: Client {
    /// Limits of the transport; every parameter has a default.
    public struct Configuration: Sendable {
        /// The longest a request may take, from start to the end of the body. A duration too long for a timer
        /// (more than about 292 years) means no deadline.
        public var timeout: Duration
        /// The largest response body accepted, in bytes.
        public var maxResponseBodySize: Int
        /// Whether the URL loading system's own cache may answer or revalidate requests. `false` by default: with
        /// `URLCache.shared` (which `URLSessionConfiguration.default` keeps), Apple's URL loading answers fresh
        /// responses and `304`s itself, and the session's store would see neither the `ETag` nor the `304`.
        public var usesURLCache: Bool

        /// Creates a configuration: 60 seconds, 64 MiB, no URL cache by default.
        ///
        /// - Parameters:
        ///   - timeout: The longest a request may take, from start to the end of the body.
        ///   - maxResponseBodySize: The largest response body accepted, in bytes.
        ///   - usesURLCache: Whether the URL loading system's cache may answer requests (see ``usesURLCache``).
        public init(timeout: Duration = .seconds(60), maxResponseBodySize: Int = 64 << 20, usesURLCache: Bool = false) {
            self.timeout = timeout
            self.maxResponseBodySize = maxResponseBodySize
            self.usesURLCache = usesURLCache
        }
    }

    /// How an app answers an authentication challenge: pins a server's certificate (`.useCredential` with
    /// `URLCredential(trust:)`, or `.cancelAuthenticationChallenge`), presents a client certificate, or gives a
    /// user and password to an HTTP Basic or Digest challenge. `.performDefaultHandling` leaves it to URLSession, and
    /// so does `.useCredential` without a credential.
    ///
    /// It is called on URLSession's delegate queue, once per challenge, with the challenge of the request's own
    /// origin (redirects are followed only within it); it must answer without blocking for long.
    public typealias ChallengeHandler =
        @Sendable (URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?)

    /// The configuration in use.
    public let configuration: Configuration
    let session: URLSession
    private let delegate: SessionDelegate

    /// Creates a client with a URLSession of its own.
    ///
    /// - Parameters:
    ///   - configuration: The client's timeout, response size limit and URL cache use.
    ///   - sessionConfiguration: The URLSession configuration to start from — proxies, TLS versions,
    ///     `waitsForConnectivity`, `protocolClasses` (URLProtocol stubs), a cookie store, extra headers. It is
    ///     copied; its timeouts are set as a backstop for ``Configuration/timeout``, and its URL cache is turned off
    ///     unless ``Configuration/usesURLCache``. When `nil`, an ephemeral configuration without cookies.
    ///   - challengeHandler: Answers authentication challenges (see ``ChallengeHandler``); `nil` for URLSession's
    ///     default handling.
    public init(
        configuration: Configuration = Configuration(), sessionConfiguration: URLSessionConfiguration? = nil,
        challengeHandler: ChallengeHandler? = nil
    ) {
        self.configuration = configuration
        let sessionConfiguration = Self.sessionConfiguration(from: sessionConfiguration)
        // URLSession's own timeouts are a backstop (some implementations count whole seconds); the exact deadline
        // is enforced in send(_:).
        sessionConfiguration.timeoutIntervalForRequest = configuration.backstopInterval
        sessionConfiguration.timeoutIntervalForResource = configuration.backstopInterval
        if !configuration.usesURLCache {
            sessionConfiguration.urlCache = nil
            sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        }
        let delegate = SessionDelegate(challengeHandler: challengeHandler)
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    /// A copy of `given`, or the default: ephemeral, with cookies off (opt in by passing a configuration that has
    /// them).
    private static func sessionConfiguration(from given: URLSessionConfiguration?) -> URLSessionConfiguration {
        if let given, let copy = given.copy() as? URLSessionConfiguration { return copy }
        let ephemeral = URLSessionConfiguration.ephemeral
        ephemeral.httpCookieAcceptPolicy = .never
        ephemeral.httpShouldSetCookies = false
        return ephemeral
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends `request` through URLSession and returns the response, whatever its status.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``JSONAPIClientError`` for a transport failure, a timeout or a body over the limit;
    ///   `CancellationError` when the task is cancelled.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        // A timer due now still races a fast server; a zero deadline is past before anything is sent.
        guard configuration.timeout > .zero else {
            throw JSONAPIClientError(
                code: .timedOut, detail: "no complete response within \(configuration.timeout)", method: request.method,
                url: request.url)
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = configuration.backstopInterval
        if !configuration.usesURLCache { urlRequest.cachePolicy = .reloadIgnoringLocalCacheData }
        urlRequest.httpBody = request.body
        for field in request.headerFields {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
        }
        let cancellation = LockedValue<CancellationState>(.idle)
        let limit = configuration.maxResponseBodySize
        let session = self.session
        let delegate = self.delegate
        // One dispatch timer per request, cancelled (and freed) as soon as the exchange ends. A `Task.sleep` here
        // stayed allocated until its deadline even when cancelled: about 0.8 KB per request for the whole
        // timeout, 40–50 MB at 1,000 requests a second with the default 60 s.
        let deadline = DispatchSource.makeTimerSource(queue: .global())
        deadline.setEventHandler {
            let task = cancellation.withLock { state -> URLSessionTask? in
                switch state {
                case .idle:
                    state = .timedOut
                    return nil
                case .running(let task):
                    state = .timedOut
                    return task
                case .cancelled, .timedOut:
                    return nil
                }
            }
            task?.cancel()
        }
        deadline.schedule(deadline: .now() + configuration.timeout.dispatchInterval)
        deadline.resume()
        defer { deadline.cancel() }
        var resent = false
        while true {
            do {
                return try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                        let task = session.dataTask(with: urlRequest)
                        delegate.register(task, limit: limit, continuation: continuation)
                        let alreadyCancelled = cancellation.withLock { state -> Bool in
                            switch state {
                            case .cancelled, .timedOut: return true
                            case .idle, .running:
                                state = .running(task)
                                return false
                            }
                        }
                        if alreadyCancelled { task.cancel() }
                        task.resume()
                    }
                } onCancel: {
                    let task = cancellation.withLock { state -> URLSessionTask? in
                        defer { state = .cancelled }
                        if case .running(let task) = state { return task }
                        return nil
                    }
                    task?.cancel()
                }
            } catch let error as URLError where error.code == .networkConnectionLost && !resent
                && request.method.isIdempotent
            {
                // The server dropped a reused connection under the request; the pool has let it go, so the second
                // attempt goes out on a fresh connection.
                resent = true
            } catch let error as URLError {
                throw Self.failure(
                    error, of: request, stop: stop(cancellation), resent: resent, timeout: configuration.timeout)
            } catch let error as CancelledChallenge {
                throw Self.failure(
                    error.underlying, of: request, stop: stop(cancellation), resent: resent,
                    timeout: configuration.timeout, challenge: error)
            } catch let error as InterruptedResponse {
                throw JSONAPIClientError(
                    code: .transportFailed, detail: error.detail, method: request.method, url: request.url,
                    underlyingError: error.underlying)
            } catch let error as JSONAPIClientError {
                throw error.adding(request: request)
            }
        }
    }

    /// What the client did to the task before it failed: cancelled it with the caller's task, or at the timeout.
    private func stop(_ cancellation: LockedValue<CancellationState>) -> Stop {
        if Task.isCancelled { return .cancelled }
        return cancellation.withLock { state -> Stop in
            switch state {
            case .cancelled: .cancelled
            case .timedOut: .timedOut
            case .idle, .running: .none
            }
        }
    }

    private enum CancellationState {
        case idle
        case running(URLSessionTask)
        case cancelled
        case timedOut
    }
}

extension URLSessionClient.Configuration {
    /// URLSession's own timeout, a second or two past ``timeout``: whole seconds, and at most ten years, since
    /// Linux's URLSession turns it into integer milliseconds (a larger value traps there).
    var backstopInterval: TimeInterval {
        min(max(timeout.timeInterval.rounded(.up), 1) + 1, 315_360_000)
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration for a dispatch timer, at least zero: whole nanoseconds while they fit in an `Int`, else whole
    /// milliseconds, else whole seconds; `.never` past what either holds (292 years on 64 bits). `Int` is 32 bits on watchOS's `arm64_32`, where nanoseconds
    /// hold only 2.1 s: a 60 s timeout is then counted in milliseconds, not turned into "never".
    var dispatchInterval: DispatchTimeInterval { dispatchInterval(intMax: Int64(Int.max)) }

    /// ``dispatchInterval`` for a platform whose `Int` holds at most `intMax` (a parameter so that tests run the
    /// 32-bit case on a 64-bit machine).
    func dispatchInterval(intMax: Int64) -> DispatchTimeInterval {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return .nanoseconds(0) }
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .never }  // past 292 years
        if nanoseconds <= intMax - 1_000_000_000 {
            return .nanoseconds(Int(nanoseconds + attoseconds / 1_000_000_000))
        }
        // Strictly below, so that the milliseconds of the last second still fit.
        if seconds < intMax / 1000 { return .milliseconds(Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000)) }
        if seconds <= intMax { return .seconds(Int(seconds)) }
        return .never
    }
}
