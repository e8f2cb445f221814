import Foundation

/// A fetch being described: a value you refine with `include`, `fields`, `filter`, `sort`, `page`, `query` and
/// `header`, then perform with ``result()`` or ``paginate(_:)``. Nothing is sent until then, and the same calls
/// always give the same URL.
///
/// ```swift
/// let page = try await source.fetch()
///     .include(["author", "comments.author"])
///     .fields(["articles": ["title", "author"], "people": ["name"]])
///     .filter("title.icontains", "swift")
///     .sort("-created")
///     .paginate(.pageBased(1, 10))          // performs the request
/// let one = try await source.fetch(id: "1").include(["author"]).result()
/// ```
///
/// - Options accumulate: `include` and `sort` add items (duplicates dropped, first position kept); `fields`,
///   `filter` and `query` set a value per name (the last call wins).
/// - The URL's query: parameters sorted by name; `[`/`]` encoded as `%5B`/`%5D`; values form-encoded; parameters
///   already in the endpoint's URL are kept unless an option sets the same name.
public struct FetchRequest<Primary: Decodable & Sendable>: Sendable {
    let executor: RequestExecutor
    let target: Result<URL, JSONAPIClientError>
    private var parameters: QueryParameters
    private var headerFields = HTTPFields()
    private var pagination: (any PaginationStrategy)?
    private var mediaType: JSONAPIMediaType?
    private var givenURL: URL?

    init(executor: RequestExecutor, target: Result<URL, JSONAPIClientError>) {
        self.executor = executor
        var parameters = QueryParameters()
        if case .success(let url) = target {
            givenURL = url
            let (endpoint, items) = PreparedRequest.split(url)
            parameters.inherited = items
            self.target = .success(endpoint)
        } else {
            self.target = target
        }
        self.parameters = parameters
    }

    // MARK: Options

    /// Adds relationship paths to `include` (dot paths such as `comments.author`).
    public func include(_ paths: [String]) -> Self {
        var copy = self
        QueryParameters.appendingUnique(paths, to: &copy.parameters.include)
        return copy
    }

    /// Adds relationship paths to `include`.
    public func include(_ paths: String...) -> Self { include(paths) }

    /// Sets sparse fieldsets: `fields[TYPE]=a,b` for each type (an empty list asks for no fields).
    public func fields(_ fieldsets: [String: [String]]) -> Self {
        var copy = self
        for (type, names) in fieldsets {
            var unique: [String] = []
            QueryParameters.appendingUnique(names, to: &unique)
            copy.parameters.fields[type] = unique
        }
        return copy
    }

    /// Sets `filter[name]=value`; `name` may carry an operator (`title.icontains`).
    public func filter(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.parameters.filters[name] = value
        return copy
    }

    /// Sets `filter[name]=a,b,c` (a list, as for `author.in`).
    public func filter(_ name: String, _ values: [String]) -> Self { filter(name, values.joined(separator: ",")) }

    /// Adds sort fields (`-created` for descending), after any already given.
    public func sort(_ fields: [String]) -> Self {
        var copy = self
        QueryParameters.appendingUnique(fields, to: &copy.parameters.sort)
        return copy
    }

    /// Adds sort fields (`-created` for descending).
    public func sort(_ fields: String...) -> Self { sort(fields) }

    /// Sets any other query parameter; it replaces one of the same name from the URL, the options or the
    /// pagination strategy.
    public func query(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.parameters.other[name] = value
        return copy
    }

    /// Sets a header field for this request (replacing the data source's field of that name).
    public func header(_ name: HTTPField.Name, _ value: String) -> Self {
        var copy = self
        copy.headerFields[name] = value
        return copy
    }

    /// Sets the media type parameters (`ext`, `profile`) for this request instead of the data source's.
    public func mediaType(_ mediaType: JSONAPIMediaType) -> Self {
        var copy = self
        copy.mediaType = mediaType
        return copy
    }

    /// Selects a page by `strategy` without performing the request — for ``pages(progress:)``,
    /// ``resources(progress:)``, or a later ``result()``.
    public func page(_ strategy: some PaginationStrategy) -> Self {
        var copy = self
        copy.pagination = strategy
        return copy
    }

    // MARK: Performing

    /// The request as it will be sent (before the data source's headers and middleware); throws when it cannot
    /// be built (an empty id, an invalid URL).
    public func prepare() throws(JSONAPIClientError) -> PreparedRequest {
        let endpoint = try target.get()
        var prepared = PreparedRequest(
            method: .get, endpoint: endpoint, parameters: parameters, headerFields: headerFields,
            pagination: pagination, mediaType: mediaType)
        prepared.givenURL = givenURL
        _ = try prepared.url
        return prepared
    }

    /// The URL the request will be sent to.
    public var url: URL { get throws(JSONAPIClientError) { try prepare().url } }

    /// Performs the request and returns the document, which can navigate (`next()`, `reload()`, …).
    public func result() async throws -> Document<Primary> {
        try await executor.document(try prepare(), as: Primary.self)
    }

    /// Performs the request for the page `strategy` selects and returns it.
    public func paginate(_ strategy: some PaginationStrategy) async throws -> Document<Primary> {
        try await page(strategy).result()
    }

    /// The same request, decoding its document as `type` (for example ``PrimaryData`` for the schema-less form).
    public func decoding<Other: Decodable & Sendable>(as type: Other.Type) -> FetchRequest<Other> {
        var other = FetchRequest<Other>(executor: executor, target: givenURL.map { .success($0) } ?? target)
        other.parameters = parameters
        other.headerFields = headerFields
        other.pagination = pagination
        other.mediaType = mediaType
        return other
    }
}

extension FetchRequest where Primary: PageablePrimary {
    /// The pages, from this request's page on, fetched as you iterate; see ``PageSequence``.
    public func pages(progress: (@Sendable (PaginationProgress) -> Void)? = nil) -> PageSequence<Primary> {
        let request = self
        return PageSequence(start: { try await request.result() }, progress: progress)
    }

    /// The resources of every page, from this request's page on, fetched page by page as you iterate; see
    /// ``ResourceSequence``.
    public func resources(progress: (@Sendable (PaginationProgress) -> Void)? = nil) -> ResourceSequence<Primary> {
        ResourceSequence(pages: pages(progress: progress))
    }
}
