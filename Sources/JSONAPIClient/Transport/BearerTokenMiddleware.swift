/// Adds `Authorization: Bearer <token>` to requests for the session's own origin, with the token from an
/// async provider (a keychain read, a refresh when expired).
///
/// ```swift
/// let auth = BearerTokenMiddleware { try await auth.accessToken() }
/// let source = DataSource<Person>(baseURL: url, strategy: .path("me"), configuration: .init(middlewares: [auth]))
/// ```
///
/// The provider runs once per request. Requests to another origin (a link the configuration allows) go without
/// the header, and a `nil` token sends the request without it.
public struct BearerTokenMiddleware: Middleware {
    private let token: @Sendable () async throws -> String?

    /// A middleware that asks `token` for the token before each request.
    public init(token: @escaping @Sendable () async throws -> String?) { self.token = token }

    /// Sets `Authorization` (replacing any) on same-origin requests, then passes the request on.
    public func intercept(
        _ request: HTTPRequest, context: MiddlewareContext,
        next: @Sendable (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard context.isSameOrigin, let token = try await token() else { return try await next(request) }
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request)
    }
}
