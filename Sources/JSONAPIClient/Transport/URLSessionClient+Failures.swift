import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a failed URL task becomes: a cancellation, a timeout, a security failure (TLS, certificate trust, App
/// Transport Security, a cancelled authentication challenge) or a transport failure. Pure functions of the
/// `URLError` and of what the client knows about the task, so that every code is tested without a network.
extension URLSessionClient {
    /// What this client itself did to a task before it failed.
    enum Stop: Sendable, Hashable {
        /// Nothing: the task failed on its own (or the URL loading system ended it).
        case none
        /// The caller's task was cancelled, and the URL task with it.
        case cancelled
        /// ``Configuration/timeout`` passed, and the URL task was cancelled.
        case timedOut
    }

    /// The error ``send(_:)`` throws for a URL task that failed with `error`.
    ///
    /// - Parameters:
    ///   - error: The URL task's error.
    ///   - request: The request the task was sending.
    ///   - stop: What the client did to the task (a `cancelled` error after ``Stop/none`` came from the URL loading
    ///     system: an authentication challenge was cancelled).
    ///   - resent: Whether the request was sent again on a fresh connection.
    ///   - timeout: The configured timeout, for a timeout's detail.
    ///   - challenge: The challenge the ``ChallengeHandler`` cancelled for this task, if it did.
    /// - Returns: `CancellationError` for the caller's cancellation, else a ``JSONAPIClientError``:
    ///   ``JSONAPIClientError/Code/timedOut``, ``JSONAPIClientError/Code/securityFailed`` or
    ///   ``JSONAPIClientError/Code/transportFailed``.
    static func failure(
        _ error: URLError, of request: HTTPRequest, stop: Stop, resent: Bool, timeout: Duration,
        challenge: CancelledChallenge? = nil
    ) -> any Error {
        if error.code == .cancelled, stop == .cancelled { return CancellationError() }
        if error.code == .timedOut || (error.code == .cancelled && stop == .timedOut) {
            return JSONAPIClientError(
                code: .timedOut, detail: "no complete response within \(timeout)", method: request.method,
                url: request.url, underlyingError: error)
        }
        if let detail = challenge?.detail ?? securityDetail(for: error.code) {
            return JSONAPIClientError(
                code: .securityFailed, detail: detail, method: request.method, url: request.url,
                underlyingError: error)
        }
        return JSONAPIClientError(
            code: .transportFailed, detail: failureDetail(error, method: request.method, resent: resent),
            method: request.method, url: request.url, underlyingError: error)
    }

    /// What a security failure says, or `nil` when `code` is not one: TLS, the server's certificate, a client
    /// certificate, App Transport Security, or an authentication challenge cancelled (`cancelled` when the client
    /// did not cancel the task itself, `userCancelledAuthentication`). Each is refused for good on this network:
    /// none is retried, queued or taken for being offline.
    ///
    /// - Parameter code: A URL task's error code.
    /// - Returns: A sentence naming the failure and its `URLError` code (never a credential), or `nil`.
    static func securityDetail(for code: URLError.Code) -> String? {
        if code == .appTransportSecurityRequiresSecureConnection {
            return "App Transport Security blocked this http:// request before it was sent: use https://, or add an "
                + "NSAppTransportSecurity exception for this host to the app's Info.plist"
        }
        return securityFailures[code].map { "\($0) (URLError \(code.rawValue))" }
    }

    /// What each security failure's code means, but App Transport Security's (whose detail says what to do).
    private static let securityFailures: [URLError.Code: String] = [
        .secureConnectionFailed:
            "no secure (TLS) connection could be made to the server: the handshake failed (no TLS on that port, no "
            + "protocol version or cipher in common, or something between the app and the server)",
        .serverCertificateHasBadDate: "the server's certificate has expired or has invalid dates",
        .serverCertificateUntrusted:
            "the server's certificate is not trusted: self-signed, signed by an authority this device does not trust, "
            + "or not issued for this host",
        .serverCertificateHasUnknownRoot: "the server's certificate was signed by an unknown root authority",
        .serverCertificateNotYetValid: "the server's certificate is not valid yet (is the device's clock right?)",
        .clientCertificateRejected: "the server rejected the client certificate",
        .clientCertificateRequired:
            "the server requires a client certificate and none was given (answer the client-certificate challenge in "
            + "the challenge handler)",
        .userCancelledAuthentication: "an authentication challenge was cancelled",
        .cancelled:
            "the URL loading system cancelled the request while authenticating, not the caller: an authentication "
            + "challenge was cancelled (a server certificate that failed pinning, or credentials given up on)",
    ]

    /// Whether `error`, thrown by a transport, is a security failure: a ``JSONAPIClientError`` with
    /// ``JSONAPIClientError/Code/securityFailed``, or a `URLError` whose code ``securityDetail(for:)`` names (other
    /// than `cancelled`, which only ``URLSessionClient`` can tell from the caller's own cancellation).
    ///
    /// - Parameter error: An error from a transport or a middleware.
    /// - Returns: Whether it is a security failure.
    static func isSecurityFailure(_ error: any Error) -> Bool {
        if let error = error as? JSONAPIClientError { return error.code == .securityFailed }
        guard let error = error as? URLError, error.code != .cancelled else { return false }
        return securityDetail(for: error.code) != nil
    }

    /// What a transport failure's error says; a dropped connection says whether the request was sent again.
    static func failureDetail(_ error: URLError, method: HTTPMethod, resent: Bool) -> String {
        guard error.code == .networkConnectionLost else { return error.localizedDescription }
        if resent { return "the server closed the connection before answering, on a fresh connection too" }
        return "the server closed the connection before answering; a \(method) is not idempotent, so it was not sent again"
    }

    /// A challenge the ``ChallengeHandler`` answered with `.cancelAuthenticationChallenge`, which ends the request
    /// as `cancelled`: this names the challenge.
    struct CancelledChallenge: Error, Sendable {
        /// The challenge's authentication method (`NSURLAuthenticationMethodServerTrust`, …).
        var authenticationMethod: String
        /// The host (and port) that challenged.
        var host: String
        /// The error the request ends with (`cancelled`).
        var underlying: URLError

        /// What happened, by the kind of challenge: a server certificate refused (pinning), a client certificate,
        /// or HTTP credentials given up on. Neither the realm nor any credential is named.
        ///
        /// The server-trust and client-certificate methods are matched by their values: FoundationNetworking marks
        /// the constants unavailable, and one spelling serves every platform.
        var detail: String {
            let what =
                switch authenticationMethod {
                case "NSURLAuthenticationMethodServerTrust":
                    "the challenge handler refused the server's certificate (server trust; a pinning check failed?)"
                case "NSURLAuthenticationMethodClientCertificate":
                    "the challenge handler cancelled the server's request for a client certificate"
                case NSURLAuthenticationMethodHTTPBasic: "the challenge handler gave up on the HTTP Basic challenge"
                case NSURLAuthenticationMethodHTTPDigest: "the challenge handler gave up on the HTTP Digest challenge"
                default: "the challenge handler cancelled an authentication challenge"
                }
            return "\(what) of \(host) (URLError \(underlying.code.rawValue))"
        }
    }
}
