import Foundation

/// Sends prepared requests for one data source: adds content negotiation and the configured headers, runs the
/// middleware chain and the transport, maps failures to ``JSONAPIClientError``, decodes documents and gives them
/// an origin for navigation. Shared by the data source, its builders and the documents they return.
struct RequestExecutor: Sendable {
    let baseURL: URL
    let chain: MiddlewareChain
    let configuration: DataSourceConfiguration

    init(baseURL: URL, client: any Client, configuration: DataSourceConfiguration) {
        self.baseURL = baseURL
        self.chain = MiddlewareChain(transport: client, middlewares: configuration.middlewares)
        self.configuration = configuration
    }

    // MARK: Sending

    /// The HTTP request for `prepared`: `Accept`, `Content-Type` with a body, the configuration's headers, then the
    /// request's own (replacing those of the same name). To another (allowed) origin, the configuration's headers
    /// — meant for the data source's own server, and where API keys live — are not sent, and credentials are
    /// removed from the request's own.
    func httpRequest(for prepared: PreparedRequest) throws(JSONAPIClientError) -> HTTPRequest {
        let url = try prepared.url
        let sameOrigin = isSameOrigin(url)
        let mediaType = (prepared.mediaType ?? configuration.mediaType).headerValue
        var fields: HTTPFields = [.accept: mediaType]
        if prepared.body != nil { fields[.contentType] = mediaType }
        for layer in sameOrigin ? [configuration.headerFields, prepared.headerFields] : [prepared.headerFields] {
            for name in Set(layer.map(\.name)) { fields.remove(name) }
            for field in layer { fields.append(field) }
        }
        if !sameOrigin {
            for name in [HTTPField.Name.authorization, .proxyAuthorization, .cookie] { fields.remove(name) }
        }
        return HTTPRequest(method: prepared.method, url: url, headerFields: fields, body: prepared.body)
    }

    /// Sends `prepared`; returns the request as sent and a successful (2xx) response, or throws.
    func send(_ prepared: PreparedRequest) async throws -> (HTTPRequest, HTTPResponse) {
        let request = try httpRequest(for: prepared)
        try Task.checkCancellation()
        let response: HTTPResponse
        do {
            response = try await chain.send(request, context: MiddlewareContext(baseURL: baseURL, request: request))
        } catch let error as CancellationError {
            throw error
        } catch let error as JSONAPIClientError {
            throw error.adding(request: request)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw JSONAPIClientError(
                code: .transportFailed, detail: "the transport failed: \(error)", method: request.method,
                url: request.url, underlyingError: error)
        }
        guard response.status.kind == .successful else { throw Self.failure(for: request, response: response) }
        return (request, response)
    }

    /// The error for a non-2xx response: 406 and 415 get their own codes; the body's error objects when it is an
    /// error document, the raw body in any case.
    static func failure(for request: HTTPRequest, response: HTTPResponse) -> JSONAPIClientError {
        let errors = JSONAPIDecoder().decodeErrorDocument(from: response.body).errors ?? []
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

    /// Decodes the body of a successful response as `Document<Primary>`.
    func decode<Primary: Decodable & Sendable>(
        _ type: Primary.Type, request: HTTPRequest, response: HTTPResponse
    ) throws(JSONAPIClientError) -> Document<Primary> {
        guard !response.body.isEmpty else {
            throw JSONAPIClientError(
                code: .decodingFailed, detail: "HTTP \(response.status.code) with an empty body; expected a document",
                method: request.method, url: request.url, status: response.status,
                responseHeaders: response.headerFields, responseBody: response.body)
        }
        do {
            return try configuration.decoder.decode(Document<Primary>.self, from: response.body)
        } catch {
            throw JSONAPIClientError(
                code: .decodingFailed, detail: "the response is not the expected document: \(error)",
                method: request.method, url: request.url, status: response.status,
                responseHeaders: response.headerFields, responseBody: response.body, decodingError: error)
        }
    }

    /// Sends `prepared` and decodes the response as a document that can navigate.
    func document<Primary: Decodable & Sendable>(
        _ prepared: PreparedRequest, as type: Primary.Type, trail: PageTrail? = nil
    ) async throws -> Document<Primary> {
        let (request, response) = try await send(prepared)
        var document = try decode(Primary.self, request: request, response: response)
        let navigator = Navigator<Primary>(
            executor: self, prepared: prepared, url: request.url,
            page: pageContext(of: document, body: response.body, prepared: prepared),
            trail: trail ?? PageTrail(start: request.url))
        document.origin = DocumentOrigin(
            url: request.url,
            navigate: { relation, document in try await navigator.navigate(relation, from: document) },
            canNavigate: { relation, document in navigator.canNavigate(relation, from: document) })
        return document
    }

    /// What navigation needs to know about a page: its size and meta, and (only when a strategy may have to
    /// compute neighbours from them) the meta of its first and last resources.
    private func pageContext<Primary>(of document: Document<Primary>, body: Data, prepared: PreparedRequest)
        -> PageContext
    {
        let count = (document.data as? any PageablePrimary)?.pageElementCount ?? 0
        var context = PageContext(count: count, meta: document.meta)
        let strategyReadsResourceMeta = prepared.pagination.map {
            !($0 is PageBasedPagination || $0 is OffsetPagination)
        } ?? false
        if strategyReadsResourceMeta, !hasPaginationLinks(document.links),
            let raw = try? configuration.decoder.decode(RawDocument.self, from: body)
        {
            let resources = raw.data?.resources ?? []
            context.firstResourceMeta = resources.first?.meta
            context.lastResourceMeta = resources.last?.meta
        }
        return context
    }

    // MARK: Links

    /// Whether `url` has the data source's origin.
    func isSameOrigin(_ url: URL) -> Bool {
        guard let base = Origin(baseURL) else { return false }
        return Origin(url) == base
    }

    /// Resolves `href` against `base` and checks that it may be followed: `http`/`https` only, and the data
    /// source's origin or an allowed one.
    func resolveLink(_ href: String, relativeTo base: URL?) throws(JSONAPIClientError) -> URL {
        guard let url = URL(string: href, relativeTo: base)?.absoluteURL else {
            throw JSONAPIClientError(code: .linkRefused, detail: "the link \"\(href)\" is not a valid URL", url: base)
        }
        guard let origin = Origin(url) else {
            throw JSONAPIClientError(
                code: .linkRefused, detail: "only http and https links are followed, not \"\(href)\"", url: url)
        }
        guard isSameOrigin(url) || configuration.allowedLinkOrigins.contains(origin) else {
            throw JSONAPIClientError(
                code: .linkRefused,
                detail: "the link leads to \(origin), which is neither the data source's origin nor allowed "
                    + "(DataSource.Configuration.allowedLinkOrigins)",
                url: url)
        }
        return url
    }
}
