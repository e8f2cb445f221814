/// Adds `Authorization: Bearer <token>` to requests for the session's own origin, with the token from an
/// async provider (a keychain read, a refresh when expired); optionally refreshes the token once when the server
/// answers `401 Unauthorized`.
///
/// ```swift
/// let auth = BearerTokenMiddleware { try await auth.accessToken() }
/// let source = DataSource<Person>(baseURL: url, router: .path("me"), configuration: .init(middlewares: [auth]))
/// ```
///
/// The provider runs once per request. Requests to another origin (a link the configuration allows) go without
/// the header, and a `nil` token sends the request without it.
///
/// **Refreshing.** With a `refresh` closure, a `401` to a request that carried a token calls it once with the
/// rejected token and sends the request once more with the new token (whatever the method: a 401 means the request
/// was not processed). A second 401, or a `nil` from `refresh`, goes back to the caller as it is:
///
/// ```swift
/// let auth = BearerTokenMiddleware(
///     token: { await tokens.current() },
///     refresh: { rejected in try await tokens.refresh(replacing: rejected) })
/// ```
///
/// The new token is the same user's: in a session that names no account, the store and the write queue keep
/// answering and sending what the rejected token stored and queued (``MiddlewareContext/noteRenewal(from:to:)``).
///
/// Concurrent requests that all get a 401 each call `refresh`: let your token store share one refresh between them
/// (an actor that remembers the task in flight).
public struct BearerTokenMiddleware: Middleware {
    private let token: @Sendable () async throws -> String?
    private let refresh: (@Sendable (String) async throws -> String?)?

    /// A middleware that asks `token` for the token before each request.
    ///
    /// - Parameter token: Returns the current token; `nil` sends the request without `Authorization`.
    public init(token: @escaping @Sendable () async throws -> String?) {
        self.token = token
        self.refresh = nil
    }

    /// A middleware that asks `token` for the token before each request, and `refresh` for a new one when the server
    /// rejects it with a 401.
    ///
    /// - Parameters:
    ///   - token: The current token; `nil` sends the request without `Authorization`.
    ///   - refresh: Given the rejected token, returns a new one (or `nil` to give up). Called at most once per
    ///     request; an error it throws fails the request.
    public init(
        token: @escaping @Sendable () async throws -> String?,
        refresh: @escaping @Sendable (_ rejected: String) async throws -> String?
    ) {
        self.token = token
        self.refresh = refresh
    }

    /// Sets `Authorization` (replacing any) on same-origin requests, then passes the request on; on a 401, refreshes
    /// the token and sends the request once more when a `refresh` closure was given.
    ///
    /// - Parameters:
    ///   - request: The request, as the earlier middlewares left it.
    ///   - context: The session's base URL and whether the request goes to its origin.
    ///   - next: The rest of the chain: the later middlewares, then the transport.
    /// - Returns: The response, from the second attempt after a refresh.
    /// - Throws: What `token`, `refresh` or `next` throws.
    public func intercept(
        _ request: HTTPRequest, context: MiddlewareContext,
        next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard context.isSameOrigin, let token = try await token() else { return try await next(request) }
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        let response = try await next(request)
        guard response.status.code == 401, let refresh, let renewed = try await refresh(token) else { return response }
        let rejected = request
        request.headerFields[.authorization] = "Bearer \(renewed)"
        context.noteRenewal(from: rejected, to: request)  // the same user: what the old token kept stays theirs
        return try await next(request)
    }
}
