import Foundation

/// Everything that can go wrong between building a request and decoding its response, with the context to act on
/// it: the request, the status, the server's JSON:API error objects, the raw body, the decoding error and its JSON
/// Pointer, or the transport's error.
///
/// ```swift
/// do {
///     _ = try await source.create(article)
/// } catch let error as JSONAPIClientError where error.code == .errorResponse {
///     for object in error.errors { print(object.source?.pointer ?? "-", object.detail ?? "") }
/// }
/// ```
///
/// Cancellation is not wrapped: a cancelled task sees `CancellationError`.
public struct JSONAPIClientError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure. New kinds may be added; compare with the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case invalidRequest, encodingFailed, transportFailed, timedOut, responseTooLarge, errorResponse,
                notAcceptable, unsupportedMediaType, decodingFailed, linkRefused, paginationLoop, tooManyPages,
                redirectRefused, notCached, storeNotSaved, storeNotRead, accountChanged, securityFailed
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The request could not be built (an empty id, a URL that does not parse, an invalid header).
        public static let invalidRequest = Code(.invalidRequest)
        /// The request body could not be encoded.
        public static let encodingFailed = Code(.encodingFailed)
        /// The transport failed (connection refused, DNS, a dropped connection, …); see ``underlyingError``. The
        /// server may be back later: ``RetryMiddleware`` retries it, a write with ``WriteOptions/isQueued`` waits in
        /// the ``WriteQueue``, and ``CachePolicy/networkFirst`` answers from the store instead.
        public static let transportFailed = Code(.transportFailed)
        /// The connection was refused for its security, not for want of a network: TLS could not be negotiated, the
        /// server's certificate is not trusted (expired, not yet valid, an unknown root, a host it was not issued
        /// to), a client certificate was required or rejected, App Transport Security blocked a plain `http://`
        /// request, or an authentication challenge was cancelled (the ``URLSessionClient/ChallengeHandler`` refused
        /// the server's certificate when pinning, or gave up on HTTP credentials). ``detail`` says which;
        /// ``underlyingError`` is the `URLError`. Trying again on the same network changes nothing, and going on
        /// may be exactly what an attacker between the app and the server wants: it is never retried by
        /// ``RetryMiddleware``, never queued (``WriteOptions/isQueued``), and never answered from the store as if
        /// offline (``CachePolicy/networkFirst``). (On Linux, FoundationNetworking reports a TLS handshake that
        /// fails as `URLError` `unknown`, which stays ``transportFailed``.)
        public static let securityFailed = Code(.securityFailed)
        /// The request took longer than the transport's timeout.
        public static let timedOut = Code(.timedOut)
        /// The response body was larger than the transport's limit.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// The server answered with an error status (other than 406 and 415); see ``status``, ``errors`` and
        /// ``responseBody``.
        public static let errorResponse = Code(.errorResponse)
        /// 406 Not Acceptable: the server cannot answer in `application/vnd.api+json` with the requested
        /// extensions or profiles.
        public static let notAcceptable = Code(.notAcceptable)
        /// 415 Unsupported Media Type: the server does not accept the request's `Content-Type` (or its `ext`).
        public static let unsupportedMediaType = Code(.unsupportedMediaType)
        /// A successful response's body is not the expected JSON:API document; see ``decodingError``.
        public static let decodingFailed = Code(.decodingFailed)
        /// A link was not followed: its scheme is not `http`/`https`, or its origin is not allowed.
        public static let linkRefused = Code(.linkRefused)
        /// The server redirected to another origin (scheme, host, port), which the transport does not follow so
        /// that credentials never leave the request's origin; ``detail`` names that origin, ``status`` and
        /// ``responseHeaders`` are the redirect's.
        public static let redirectRefused = Code(.redirectRefused)
        /// Pagination came back to a page it had already visited (a repeated or cyclic `next` link).
        public static let paginationLoop = Code(.paginationLoop)
        /// Pagination went past the configured maximum number of pages.
        public static let tooManyPages = Code(.tooManyPages)
        /// A request under ``CachePolicy/cacheOnly`` has no stored response (or the session has no store); nothing
        /// was sent.
        public static let notCached = Code(.notCached)
        /// A persisted ``ResourceStore`` could not write its file, or its ``WriteQueue`` a queued write's entry (the
        /// disk is full, the directory is gone or not writable); ``detail`` says which step failed and
        /// ``underlyingError`` is the system's error. What was on disk before is intact; a write whose entry was not
        /// saved was neither sent nor queued.
        public static let storeNotSaved = Code(.storeNotSaved)
        /// A persisted ``ResourceStore`` could not read the rows a read needed from its file (an I/O error, a file
        /// another process holds locked, a damaged file — which is then set aside, and the store goes on empty), after
        /// trying again at once; ``underlyingError`` is SQLite's error. Nothing is taken for absent: the next read
        /// reads those rows again. Thrown by ``ResourceStore/resource(_:id:)`` and ``ResourceStore/resources(_:)``,
        /// never by a request (whose answer from the store is then fetched instead).
        public static let storeNotRead = Code(.storeNotRead)
        /// A queued write was made by another account than the one whose credentials the request carries now (one
        /// signed out, another in): it was not sent, and stays in the ``WriteQueue`` until its account is back or
        /// the app discards it.
        public static let accountChanged = Code(.accountChanged)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public var code: Code
    /// The request's method, when a request was made or prepared.
    public var method: HTTPMethod?
    /// The request's URL, when a request was made or prepared.
    public var url: URL?
    /// The HTTP status, when a response arrived.
    public var status: HTTPResponse.Status?
    /// The response's header fields, when a response arrived.
    public var responseHeaders: HTTPFields?
    /// The response body, when a response arrived; kept whatever it holds (an HTML page from a proxy, a truncated
    /// document).
    public var responseBody: Data?
    /// The error objects of the response, when its body is a JSON:API error document.
    public var errors: [ErrorObject]
    /// Why the body could not be decoded, with the JSON Pointer of the offending member.
    public var decodingError: JSONAPIDecodingError?
    /// The error underneath: the transport's, or the encoder's.
    public var underlyingError: (any Error)?
    /// A sentence about what happened.
    public var detail: String
    /// What an optimistic write had shown in the store and was rolled back when it failed: the members it set (its
    /// `type` and `id` name the record); `nil` for any other failure. See ``WriteOptions/isOptimistic``.
    public var rolledBack: ResourceObject?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure.
    ///   - detail: What happened, for people.
    ///   - method: The request's method.
    ///   - url: The request's URL.
    ///   - status: The response's status.
    ///   - responseHeaders: The response's header fields.
    ///   - responseBody: The response's body.
    ///   - errors: The error objects of the response's document.
    ///   - decodingError: The decoding failure, for ``Code/decodingFailed``.
    ///   - underlyingError: The error that caused this one.
    public init(
        code: Code, detail: String, method: HTTPMethod? = nil, url: URL? = nil, status: HTTPResponse.Status? = nil,
        responseHeaders: HTTPFields? = nil, responseBody: Data? = nil, errors: [ErrorObject] = [],
        decodingError: JSONAPIDecodingError? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.detail = detail
        self.method = method
        self.url = url
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.errors = errors
        self.decodingError = decodingError
        self.underlyingError = underlyingError
    }

    /// The JSON Pointer of the decoding failure, when there is one.
    public var pointer: String? { decodingError?.pointer }

    /// The response body as text (UTF-8, invalid bytes replaced), when there is one.
    public var responseText: String? { responseBody.map { String(decoding: $0, as: UTF8.self) } }

    /// `code: detail`, the request, the status, the error objects, and the decoding or underlying error.
    public var description: String {
        var lines = ["JSONAPIClientError.\(code): \(detail)"]
        if let method, let url { lines.append("request: \(method) \(url.absoluteString)") }
        else if let url { lines.append("url: \(url.absoluteString)") }
        if let status { lines.append("status: \(status.code)") }
        for error in errors { lines.append("error: \(error)") }
        if let decodingError { lines.append("decoding: \(decodingError)") }
        if let underlyingError { lines.append("cause: \(underlyingError)") }
        if errors.isEmpty, decodingError == nil, let text = responseText, !text.isEmpty {
            lines.append("body: " + (text.count > 500 ? String(text.prefix(500)) + "…" : text))
        }
        return lines.joined(separator: "\n")
    }
}

extension JSONAPIClientError {
    /// Fills in the request when it is not set yet, so each stage adds what it knows instead of nesting errors.
    func adding(request: HTTPRequest) -> JSONAPIClientError {
        var copy = self
        if copy.method == nil { copy.method = request.method }
        if copy.url == nil { copy.url = request.url }
        return copy
    }
}
