import Foundation

/// A JSON:API request as described, from the builder to the transport: method, endpoint, query options, pagination
/// strategy, header fields, body and media type. Builders change it; ``url()`` turns it into the URL, once per send.
struct JSONAPIRequest: Sendable {
    /// The request method.
    var method: HTTPMethod
    /// The endpoint as given — a router's URL or a link, with its own query, if any — or why it could not be built.
    var target: Result<URL, JSONAPIClientError>
    /// The builder's query options (`include`, `fields`, `filter`, `sort`, others).
    var options = QueryParameters()
    /// Header fields set on this request; they replace the session's of the same name.
    var headerFields = HTTPFields()
    /// The body, for writes.
    var body: Data?
    /// The pagination strategy that selects the page, if any.
    var pagination: (any PaginationStrategy)?
    /// The media type parameters, when this request sets its own.
    var mediaType: JSONAPIMediaType?
    /// The cache policy, when this request sets its own.
    var cachePolicy: CachePolicy?

    /// The full URL. A URL given with its own query and no options or strategy is used exactly as given; otherwise
    /// its query is merged with the options and the strategy's parameters, and the same calls always give the same
    /// bytes: parameters sorted by name, each once, form-encoded (`[` and `]` as `%5B` and `%5D`).
    func url() throws(JSONAPIClientError) -> URL {
        let given = try target.get()
        guard !options.hasNoOptions || pagination != nil else { return given }
        let (endpoint, inherited) = Self.split(given)
        var parameters = options
        parameters.inherited = inherited
        let query = parameters.encoded(pagination: pagination?.queryItems ?? [])
        guard !query.isEmpty else { return endpoint }
        guard let url = URL(string: endpoint.absoluteString + "?" + query) else {
            throw JSONAPIClientError(
                code: .invalidRequest, detail: "the query does not make a valid URL", method: method, url: endpoint)
        }
        return url
    }

    /// This request for another page of the same collection (include, fields, filter and sort kept).
    func with(pagination: any PaginationStrategy) -> JSONAPIRequest {
        var copy = self
        copy.pagination = pagination
        return copy
    }

    /// A `GET` of `url` exactly as given, with this request's headers and media type, and no options or strategy.
    func following(_ url: URL) -> JSONAPIRequest {
        JSONAPIRequest(
            method: .get, target: .success(url), headerFields: headerFields, mediaType: mediaType,
            cachePolicy: cachePolicy)
    }

    /// Splits a URL into its endpoint (without query or fragment) and its query parameters.
    static func split(_ url: URL) -> (endpoint: URL, items: [QueryItem]) {
        let text = url.absoluteString
        guard let mark = text.firstIndex(of: "?") else { return (url, []) }
        var query = String(text[text.index(after: mark)...])
        if let hash = query.firstIndex(of: "#") { query = String(query[..<hash]) }
        let endpoint = URL(string: String(text[..<mark])) ?? url
        return (endpoint, FormEncoding.decodeQuery(query).map { QueryItem($0.name, $0.value) })
    }
}
