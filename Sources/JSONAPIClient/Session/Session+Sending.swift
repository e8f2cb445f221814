import Foundation

/// How a session sends a request: adds content negotiation and the configured headers, runs the middleware chain and
/// the transport, maps failures to ``JSONAPIClientError``, and decodes the response once into a ``FetchResponse``.
/// `GET`s pass the store first (Session+Store.swift).
/// Every request of every data source passes here.
extension Session {
    // MARK: Sending

    /// The HTTP request for `request` at `url`: `Accept`, `Content-Type` with a body, the configuration's headers,
    /// then the request's own (replacing those of the same name). To another (allowed) origin, the configuration's
    /// headers — meant for the session's own server, and where API keys live — are not sent, and credentials are
    /// removed from the request's own.
    func httpRequest(for request: JSONAPIRequest, url: URL) -> HTTPRequest {
        let sameOrigin = isSameOrigin(url)
        let mediaType = (request.mediaType ?? configuration.mediaType).headerValue
        var fields: HTTPFields = [.accept: mediaType]
        if request.body != nil { fields[.contentType] = mediaType }
        for layer in sameOrigin ? [configuration.headerFields, request.headerFields] : [request.headerFields] {
            for name in Set(layer.map(\.name)) { fields.remove(name) }
            for field in layer { fields.append(field) }
        }
        if !sameOrigin {
            for name in [HTTPField.Name.authorization, .proxyAuthorization, .cookie] { fields.remove(name) }
        }
        return HTTPRequest(method: request.method, url: url, headerFields: fields, body: request.body)
    }

    /// Sends `description` to `url` (its URL, built by the caller once); returns the request as sent and a
    /// successful (2xx) response, or throws.
    func send(_ description: JSONAPIRequest, to url: URL) async throws -> (HTTPRequest, HTTPResponse) {
        let request = httpRequest(for: description, url: url)
        return (request, try await send(request))
    }

    /// Sends `request`, built already; returns a successful (2xx) response, or throws.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await transmit(request)
        guard response.status.kind == .successful else { throw failure(for: request, response: response) }
        writeQueue.requestSucceeded()  // the network is back: queued writes go
        return response
    }

    /// Runs `request` through the middleware chain and the transport (or `terminal` in its place), whatever the
    /// status; failures become ``JSONAPIClientError``s (cancellation stays `CancellationError`).
    func transmit(
        _ request: HTTPRequest, terminal: (@Sendable (HTTPRequest) async throws -> HTTPResponse)? = nil
    ) async throws -> HTTPResponse {
        let send = terminal ?? { [client] in try await client.send($0) }
        return try await transmit(request, lineage: lineage) { [self] request, sameOrigin in
            if sameOrigin { noteCredentials(of: request) }
            return try await send(request)
        }
    }

    /// Runs `request` through the middleware chain and then `terminal`, which is told whether the request goes to
    /// the session's origin and notes its credentials itself (``noteCredentials(of:)``; the store's step does it in
    /// its own event). `lineage` is the one the request was made with.
    func transmit(
        _ request: HTTPRequest, lineage: CredentialLineage,
        noting terminal: @escaping @Sendable (HTTPRequest, _ sameOrigin: Bool) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try Task.checkCancellation()
        do {
            let context = MiddlewareContext(baseURL: baseURL, origin: origin, request: request, lineage: lineage)
            return try await chain.send(request, context: context) { request in
                try await terminal(request, context.isSameOrigin)
            }
        } catch let error as CancellationError {
            throw error
        } catch let error as JSONAPIClientError {
            throw error.adding(request: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            // A transport of the app's own that throws a URLError of TLS, trust or App Transport Security is
            // refused as URLSessionClient's would be, not taken for being offline.
            if let urlError = error as? URLError, URLSessionClient.isSecurityFailure(urlError),
                let detail = URLSessionClient.securityDetail(for: urlError.code)
            {
                throw JSONAPIClientError(
                    code: .securityFailed, detail: detail, method: request.method, url: request.url,
                    underlyingError: error)
            }
            throw JSONAPIClientError(
                code: .transportFailed, detail: "the transport failed: \(error)", method: request.method,
                url: request.url, underlyingError: error)
        }
    }

    /// The error for a non-2xx response: 406 and 415 get their own codes; the body's error objects when it is an
    /// error document (read with the session's configured decoder, like every other body), the raw body in any case.
    func failure(for request: HTTPRequest, response: HTTPResponse) -> JSONAPIClientError {
        let errors = configuration.decoder.decodeErrorDocument(from: response.body).errors ?? []
        let code: JSONAPIClientError.Code =
            switch response.status.code {
            case 406: .notAcceptable
            case 415: .unsupportedMediaType
            default: .errorResponse
            }
        var detail = "HTTP \(response.status.code)"
        switch response.status.code {
        case 406: detail += ": the server cannot answer in the requested JSON:API media type (Not Acceptable)"
        case 415: detail += ": the server does not accept the request's media type (Unsupported Media Type)"
        default: break
        }
        if let first = errors.first { detail += " — \(first)" }
        return JSONAPIClientError(
            code: code, detail: detail, method: request.method, url: request.url, status: response.status,
            responseHeaders: response.headerFields, responseBody: response.body, errors: errors)
    }

    // MARK: Decoding

    /// Sends `request` and decodes the response once: the document, and what navigation needs to know about the page
    /// (its size, and the meta of its first and last resources only when the strategy reads them).
    ///
    /// - Parameters:
    ///   - trail: The pages this iteration has visited; a new trail when `nil`.
    ///   - walk: The strategy the iteration began with, when `request` (a link's) has none.
    func response<Primary: Decodable & Sendable>(
        to request: JSONAPIRequest, at url: URL? = nil, as type: Primary.Type, trail: PageTrail? = nil,
        walk: (any PaginationStrategy)? = nil
    ) async throws -> FetchResponse<Primary> {
        let listing = ListedTypes.of(Primary.self)
        let exchanged = try await exchange(request, url: try url ?? request.url(), listing: listing, decodes: true)
        let (sent, response, source, credentials) = (
            exchanged.request, exchanged.response, exchanged.source, exchanged.credentials
        )
        // A new body the store keeps waits for this decode's records (one parse); when the decode hands none over
        // (it failed), the store merges the body itself if someone observes it (`settle`, which finds nothing to do
        // otherwise). Only then: a body that came again meanwhile — the same response, for a request that shared
        // this exchange and arrived late — waits for its own decode's records, not for this settle's parse.
        let keeping = exchanged.takesRecords ? store : nil
        var handed = false
        defer { if !handed { keeping?.settle() } }
        guard !response.body.isEmpty else {
            throw JSONAPIClientError(
                code: .decodingFailed, detail: "HTTP \(response.status.code) with an empty body; expected a document",
                method: sent.method, url: sent.url, status: response.status,
                responseHeaders: response.headerFields, responseBody: response.body)
        }
        let readsResourceMeta = request.pagination?.readsResourceMeta ?? false
        // A body the store answered with again (not sent, or revalidated): its decode of last time, when it was this
        // very body's.
        let stored = (source == .cache || source == .revalidated) ? store : nil
        let clears = exchanged.clears ?? 0  // the lookup's, which every answer from the store passed
        if stored != nil,
            let decoded = storedDecodes.decoded(
                Primary.self, from: response.body, resourceMeta: readsResourceMeta, clears: clears)
        {
            return self.response(
                decoded.0, outline: decoded.1, records: nil, sent: sent, response: response, source: source,
                credentials: credentials, request: request, trail: trail, walk: walk)
        }
        let (document, outline, records) = try decode(Primary.self, request: sent, response: response) {
            decoder, body throws(JSONAPIDecodingError) -> (Document<Primary>, PrimaryDataOutline, ResourceRecords?) in
            guard keeping != nil else {
                let (document, outline) = try decoder.decodeWithOutline(
                    Document<Primary>.self, from: body, resourceMeta: readsResourceMeta)
                return (document, outline, nil)
            }
            return try decoder.decodeKeepingRecords(Document<Primary>.self, from: body, resourceMeta: readsResourceMeta)
        }
        if let keeping, let records {
            keeping.merge(records, from: response.body, decoded: document.data)
            handed = true
        }
        if stored != nil {
            storedDecodes.remember(
                document, outline: outline, from: response.body, resourceMeta: readsResourceMeta, clears: clears)
        }
        return self.response(
            document, outline: outline, records: handed ? records : nil, sent: sent, response: response,
            source: source, credentials: credentials, request: request, trail: trail, walk: walk)
    }

    /// The response of a fetch whose body decoded to `document`, with the navigation to its neighbours.
    private func response<Primary: Decodable & Sendable>(
        _ document: Document<Primary>, outline: PrimaryDataOutline, records: ResourceRecords?, sent: HTTPRequest,
        response: HTTPResponse, source: ResponseSource, credentials: CredentialDigest?, request: JSONAPIRequest,
        trail: PageTrail?, walk: (any PaginationStrategy)?
    ) -> FetchResponse<Primary> {
        let page = PageContext(
            count: outline.count, meta: document.meta, firstResourceMeta: outline.firstResourceMeta,
            lastResourceMeta: outline.lastResourceMeta)
        return FetchResponse(
            document: document, status: response.status, headerFields: response.headerFields, source: source,
            credentials: credentials, records: records,
            navigation: Navigation(
                session: self, request: request, url: sent.url, page: page,
                trail: trail ?? PageTrail(start: sent.url), walk: request.pagination ?? walk))
    }

    /// Decodes the body of a successful response with `body`, mapping a failure to ``JSONAPIClientError``.
    func decode<Primary, Result>(
        _ type: Primary.Type, request: HTTPRequest, response: HTTPResponse,
        _ body: (JSONAPIDecoder, Data) throws(JSONAPIDecodingError) -> Result
    ) throws(JSONAPIClientError) -> Result {
        do {
            return try body(configuration.decoder, response.body)
        } catch {
            throw JSONAPIClientError(
                code: .decodingFailed, detail: "the response is not the expected document: \(error)",
                method: request.method, url: request.url, status: response.status,
                responseHeaders: response.headerFields, responseBody: response.body, decodingError: error)
        }
    }
}
