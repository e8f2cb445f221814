import Foundation

/// A request validated and ready to send: the URL is built, the body encoded. Builders produce one with
/// `prepare()`; inspecting it shows exactly what will be sent (before the data source's headers and middleware).
public struct PreparedRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The URL without the builder's query parameters (a link's URL is kept exactly as given).
    public var endpoint: URL
    /// Header fields set on this request; they replace the data source's of the same name.
    public var headerFields: HTTPFields
    /// The body, for writes.
    public var body: Data?
    /// The pagination strategy that selected this page, if any.
    public var pagination: (any PaginationStrategy)?
    /// The media type parameters, when this request sets its own.
    public var mediaType: JSONAPIMediaType?
    var parameters: QueryParameters
    /// The URL as given (with its own query), used unchanged when no option or strategy adds parameters.
    var givenURL: URL?

    init(
        method: HTTPMethod, endpoint: URL, parameters: QueryParameters = QueryParameters(),
        headerFields: HTTPFields = HTTPFields(), body: Data? = nil, pagination: (any PaginationStrategy)? = nil,
        mediaType: JSONAPIMediaType? = nil
    ) {
        self.method = method
        self.endpoint = endpoint
        self.parameters = parameters
        self.headerFields = headerFields
        self.body = body
        self.pagination = pagination
        self.mediaType = mediaType
    }

    /// The query parameters, sorted by name: the endpoint's own, the builder's, and the pagination strategy's.
    public var queryItems: [QueryItem] { parameters.items(pagination: pagination?.queryItems ?? []) }

    /// The full URL. The same builder calls always give the same bytes: parameters sorted by name, each once,
    /// form-encoded (`[` and `]` as `%5B` and `%5D`). A URL given with its own query and no options is used
    /// exactly as given.
    public var url: URL {
        get throws(JSONAPIClientError) {
            if let givenURL, parameters.hasNoOptions, pagination == nil { return givenURL }
            let query = parameters.encoded(pagination: pagination?.queryItems ?? [])
            guard !query.isEmpty else { return endpoint }
            let text = endpoint.absoluteString
            let base = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? text
            guard let url = URL(string: base + "?" + query) else {
                throw JSONAPIClientError(
                    code: .invalidRequest, detail: "the query does not make a valid URL", method: method, url: endpoint)
            }
            return url
        }
    }

    /// This request for another page of the same collection (include, fields, filter and sort kept).
    func with(pagination: any PaginationStrategy) -> PreparedRequest {
        var copy = self
        copy.pagination = pagination
        return copy
    }

    /// A `GET` of `url` exactly as given, with this request's headers and media type, and no strategy.
    func following(_ url: URL) -> PreparedRequest {
        PreparedRequest(method: .get, endpoint: url, headerFields: headerFields, mediaType: mediaType)
    }

    /// Splits a URL into its endpoint (without query) and its query parameters.
    static func split(_ url: URL) -> (endpoint: URL, items: [QueryItem]) {
        let text = url.absoluteString
        guard let mark = text.firstIndex(of: "?") else { return (url, []) }
        var query = String(text[text.index(after: mark)...])
        if let hash = query.firstIndex(of: "#") { query = String(query[..<hash]) }
        let endpoint = URL(string: String(text[..<mark])) ?? url
        return (endpoint, FormEncoding.decodeQuery(query).map { QueryItem($0.name, $0.value) })
    }
}
