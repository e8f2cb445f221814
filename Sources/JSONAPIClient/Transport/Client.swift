/// The transport: sends one HTTP request and returns its response.
///
/// This is the one extension point for networking. ``URLSessionClient`` is the default; a test double is a few
/// lines:
///
/// ```swift
/// struct ScriptedClient: Client {
///     let respond: @Sendable (HTTPRequest) async throws -> HTTPResponse
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await respond(request) }
/// }
/// ```
///
/// To add headers (authentication) or observe traffic (logging), prefer a ``Middleware`` in
/// ``Session/Configuration/middlewares``; wrapping another `Client` works too.
///
/// A client returns every response it receives, whatever its status: mapping statuses to errors is the
/// ``Session``'s job. It throws for transport failures only, and `CancellationError` when the calling task is
/// cancelled.
public protocol Client: Sendable {
    /// Sends `request` and returns the response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
