import Foundation

/// A step around the transport: sees (and may change) each request on its way out and each response on its way
/// back.
///
/// Middleware is how you add authentication, logging, retries or tracing without writing a ``Client``:
///
/// ```swift
/// struct UserAgent: Middleware {
///     func intercept(
///         _ request: HTTPRequest, context: MiddlewareContext,
///         next: @Sendable (HTTPRequest) async throws -> HTTPResponse
///     ) async throws -> HTTPResponse {
///         var request = request
///         request.headerFields[.userAgent] = "MyApp/1.0"
///         return try await next(request)
///     }
/// }
/// let source = DataSource<Article>(
///     baseURL: url, router: .path("articles/<id>"),
///     configuration: .init(middlewares: [BearerTokenMiddleware { try await tokens.current() }, UserAgent()]))
/// ```
///
/// **Order.** Middlewares run in array order on the way out and in reverse order on the way back: with
/// `[A, B]`, A sees the request first, then B, then the transport; B sees the response first, then A. Put logging
/// last to see the request as it is sent, first to time everything including the other middlewares.
///
/// **The store.** A `GET` of a session with a store passes the middlewares even when the store answers it (the
/// transport is then not called): the store looks at the request as the last middleware passes it on, so that the
/// credentials a middleware adds decide whose stored responses may answer.
///
/// **Credentials.** The ``MiddlewareContext`` says whether the request goes to the session's own origin.
/// Middleware that adds credentials must add them only then (``BearerTokenMiddleware`` does), so that following a
/// link to another allowed origin never leaks them.
public protocol Middleware: Sendable {
    /// Handles `request`: call `next` to pass it on (zero, one or several times) and return a response.
    func intercept(
        _ request: HTTPRequest, context: MiddlewareContext,
        next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse
}

/// What a ``Middleware`` knows about the request besides the request itself.
public struct MiddlewareContext: Sendable, Hashable {
    /// The base URL of the session that sends the request.
    public var baseURL: URL
    /// Whether the request's URL has the same origin (scheme, host, port) as ``baseURL``.
    public var isSameOrigin: Bool
    /// The session's record of refreshed credentials (``noteRenewal(from:to:)``); `nil` in a context made by hand.
    var lineage: CredentialLineage?

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - baseURL: The session's base URL.
    ///   - isSameOrigin: Whether the request goes to the base URL's origin.
    public init(baseURL: URL, isSameOrigin: Bool) {
        self.baseURL = baseURL
        self.isSameOrigin = isSameOrigin
    }

    /// A context for `request` sent by a session at `baseURL`, whose origin is `origin`.
    init(baseURL: URL, origin: Origin?, request: HTTPRequest, lineage: CredentialLineage? = nil) {
        self.init(baseURL: baseURL, isSameOrigin: origin != nil && origin == Origin(request.url))
        self.lineage = lineage
    }

    /// Tells the session that `renewed` carries the same user's new credentials in place of those of `rejected` — a
    /// token the middleware refreshed after a `401`, as ``BearerTokenMiddleware`` does — so that, in a session that
    /// names no account (``Session/Configuration/account``), the new credentials are the same account: the stored
    /// responses still answer and revalidate, the records stay, and the write queue sends what the older
    /// credentials queued. Call it before sending `renewed`. Nothing for a request to another origin, nor in a
    /// session that names its account (credentials are only credentials there).
    ///
    /// - Parameters:
    ///   - rejected: The request as it was sent with the old credentials.
    ///   - renewed: The same request with the new credentials.
    public func noteRenewal(from rejected: HTTPRequest, to renewed: HTTPRequest) {
        guard isSameOrigin else { return }
        lineage?.noteRenewal(from: rejected.headerFields, to: renewed.headerFields)
    }

    /// Whether two contexts have the same base URL and origin answer (the session's record is not compared).
    ///
    /// - Parameters:
    ///   - lhs: A context.
    ///   - rhs: Another context.
    /// - Returns: `true` when their base URLs and ``isSameOrigin`` are equal.
    public static func == (lhs: MiddlewareContext, rhs: MiddlewareContext) -> Bool {
        lhs.baseURL == rhs.baseURL && lhs.isSameOrigin == rhs.isSameOrigin
    }

    /// Hashes the base URL and ``isSameOrigin``.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(baseURL)
        hasher.combine(isSameOrigin)
    }
}

/// Runs a request through the middlewares, then the transport; see ``Middleware`` for the order.
struct MiddlewareChain: Sendable {
    var transport: any Client
    var middlewares: [any Middleware]

    /// Sends `request` through the middlewares to `terminal` — the transport when `nil`; the session's store step
    /// for a `GET` through the store, so that it sees the request as the middlewares made it.
    func send(
        _ request: HTTPRequest, context: MiddlewareContext,
        terminal: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil
    ) async throws -> HTTPResponse {
        try await send(request, context: context, from: middlewares[...], terminal: terminal ?? transport.send)
    }

    private func send(
        _ request: HTTPRequest, context: MiddlewareContext, from remaining: ArraySlice<any Middleware>,
        terminal: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard let first = remaining.first else {
            // A request whose task was cancelled before it got here is not sent, whatever the transport does with
            // cancellation; nor a page of a walk whose consumer is cancelled, or is running its own code (then it
            // waits for the consumer to come back): PageGate. Nothing suspends between this and the terminal's call.
            try await PageGate.admit(request)
            return try await terminal(request)
        }
        let rest = remaining.dropFirst()
        return try await first.intercept(request, context: context) { request in
            try await send(request, context: context, from: rest, terminal: terminal)
        }
    }
}
