import Foundation

/// A fetch being described: a value you refine with `include`, `fields`, `filter`, `sort`, `page`, `query` and
/// `header`, then perform with ``result()`` or ``paginate(_:)``, which return a ``FetchResponse``. Nothing is sent
/// until then, and the same calls always give the same URL.
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
    /// The session that sends it.
    let session: Session
    var request: JSONAPIRequest

    init(session: Session, request: JSONAPIRequest) {
        self.session = session
        self.request = request
    }

    // MARK: Options

    /// Adds relationship paths to `include` (dot paths such as `comments.author`).
    ///
    /// - Parameter paths: Relationship paths, such as `["author", "comments.author"]`; repeats are dropped.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func include(_ paths: [String]) -> Self {
        var copy = self
        QueryParameters.appendingUnique(paths, to: &copy.request.options.include)
        return copy
    }

    /// Adds relationship paths to `include`.
    ///
    /// - Parameter paths: Relationship paths, such as `"author", "comments.author"`.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func include(_ paths: String...) -> Self { include(paths) }

    /// Sets sparse fieldsets: `fields[TYPE]=a,b` for each type (an empty list asks for no fields).
    ///
    /// - Parameter fieldsets: The fields to ask for, by resource type: `["articles": ["title", "author"]]`.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func fields(_ fieldsets: [String: [String]]) -> Self {
        var copy = self
        for (type, names) in fieldsets {
            var unique: [String] = []
            QueryParameters.appendingUnique(names, to: &unique)
            copy.request.options.fields[type] = unique
        }
        return copy
    }

    /// Sets `filter[name]=value`; `name` may carry an operator (`title.icontains`).
    ///
    /// - Parameters:
    ///   - name: The filter's name inside `filter[…]`, e.g. `title.icontains`.
    ///   - value: Its value.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func filter(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.request.options.filters[name] = value
        return copy
    }

    /// Sets `filter[name]=a,b,c` (a list, as for `author.in`).
    ///
    /// - Parameters:
    ///   - name: The filter's name inside `filter[…]`, e.g. `author.in`.
    ///   - values: Its values, joined with commas.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func filter(_ name: String, _ values: [String]) -> Self { filter(name, values.joined(separator: ",")) }

    /// Adds sort fields (`-created` for descending), after any already given.
    ///
    /// - Parameter fields: Sort fields in order; a leading `-` sorts that field descending.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func sort(_ fields: [String]) -> Self {
        var copy = self
        QueryParameters.appendingUnique(fields, to: &copy.request.options.sort)
        return copy
    }

    /// Adds sort fields (`-created` for descending).
    ///
    /// - Parameter fields: Sort fields in order; a leading `-` sorts that field descending.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func sort(_ fields: String...) -> Self { sort(fields) }

    /// Sets any other query parameter; it replaces one of the same name from the URL, the options or the
    /// pagination strategy.
    ///
    /// - Parameters:
    ///   - name: The parameter's name, as it appears in the URL before encoding.
    ///   - value: Its value.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func query(_ name: String, _ value: String) -> Self {
        var copy = self
        copy.request.options.other[name] = value
        return copy
    }

    /// Sets a header field for this request (replacing the session's field of that name).
    ///
    /// - Parameters:
    ///   - name: The field's name, e.g. `"If-None-Match"`.
    ///   - value: Its value.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func header(_ name: HTTPField.Name, _ value: String) -> Self {
        var copy = self
        copy.request.headerFields[name] = value
        return copy
    }

    /// Sets the media type parameters (`ext`, `profile`) for this request instead of the session's.
    ///
    /// - Parameter mediaType: The `ext` and `profile` parameters to send in `Accept` (and `Content-Type`).
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func mediaType(_ mediaType: JSONAPIMediaType) -> Self {
        var copy = self
        copy.request.mediaType = mediaType
        return copy
    }

    /// Selects a page by `strategy` without performing the request — for ``pages(prefetch:concurrency:progress:)``,
    /// ``resources(prefetch:concurrency:progress:)``, or a later ``result()``.
    ///
    /// - Parameter strategy: The page to ask for, e.g. `.pageBased(1, 10)` or `.cursorBased(size: 20)`.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func page(_ strategy: some PaginationStrategy) -> Self {
        var copy = self
        copy.request.pagination = strategy
        return copy
    }

    /// The same request under `policy` instead of the session's ``Session/Configuration/cachePolicy``.
    ///
    /// - Parameter policy: How this request uses the session's store, e.g. `.networkOnly`.
    /// - Returns: The same request with that change; the receiver is unchanged.
    public func cachePolicy(_ policy: CachePolicy) -> Self {
        var copy = self
        copy.request.cachePolicy = policy
        return copy
    }

    // MARK: Performing

    /// The HTTP request exactly as it will reach the middlewares: the URL, `Accept`, the session's header fields
    /// (to its own origin only) and this request's own.
    ///
    /// - Throws: ``JSONAPIClientError`` with code ``JSONAPIClientError/Code/invalidRequest`` (an empty id, an
    ///   invalid URL) or ``JSONAPIClientError/Code/linkRefused`` (a link the session does not follow).
    /// - Returns: The request the middleware chain would be given; nothing is sent.
    public func prepare() throws(JSONAPIClientError) -> HTTPRequest {
        session.httpRequest(for: request, url: try request.url())
    }

    /// The URL the request will be sent to.
    public var url: URL { get throws(JSONAPIClientError) { try request.url() } }

    /// Performs the request.
    ///
    /// - Returns: The response: its document's members read directly (`response.data`), and it fetches its
    ///   neighbours (`next()`, `reload()`, …).
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure); `CancellationError`
    ///   when the task is cancelled.
    public func result() async throws -> FetchResponse<Primary> {
        try await session.response(to: request, as: Primary.self)
    }

    /// The stored document at once, when the session's store has one it may use for this request (as
    /// ``CachePolicy/cacheOnly`` would), then the server's answer (``ResponseSource/revalidated`` when the stored
    /// one is still current): stale-while-revalidate, for a view that shows what it has and updates when the
    /// network answers. Without a stored document, the server's answer alone.
    ///
    /// - Returns: A sequence of one or two responses; a failure of the network request ends it with its error.
    public func updates() -> AsyncThrowingStream<FetchResponse<Primary>, any Error> {
        let cached = cachePolicy(.cacheOnly)
        let fresh = cachePolicy(.networkOnly)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    if session.store != nil, let stored = try? await cached.result() { continuation.yield(stored) }
                    continuation.yield(try await fresh.result())
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Performs the request for the page `strategy` selects and returns it; see ``result()``.
    ///
    /// - Parameter strategy: The page to fetch, e.g. `.pageBased(1, 10)`.
    /// - Returns: The response for that page, which fetches its neighbours.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure); `CancellationError` when
    ///   the task is cancelled.
    public func paginate(_ strategy: some PaginationStrategy) async throws -> FetchResponse<Primary> {
        try await page(strategy).result()
    }

    /// The same request, decoding its document as `type` (for example `PrimaryData` for the schema-less form).
    ///
    /// - Parameter type: The type to decode the document's primary data as.
    /// - Returns: A request for the same URL whose response is a `FetchResponse<Other>`.
    public func decoding<Other: Decodable & Sendable>(as type: Other.Type) -> FetchRequest<Other> {
        FetchRequest<Other>(session: session, request: request)
    }

    /// The pages, from this request's page on, as you iterate; see ``PageSequence``.
    ///
    /// - Parameters:
    ///   - prefetch: How many pages along `next` to ask for ahead of the consumer; 1 by default, 0 for none.
    ///   - concurrency: How many pages to fetch at once when the strategy addresses pages (by number or offset)
    ///     and the first page tells where the last is; 1 (none) by default.
    ///   - progress: Called after each page with the pages and resources so far.
    /// - Returns: A sequence of pages; nothing is sent until it is iterated.
    public func pages(
        prefetch: Int = 1, concurrency: Int = 1, progress: (@Sendable (PaginationProgress) -> Void)? = nil
    ) -> PageSequence<Primary> {
        PageSequence(request: self, prefetch: prefetch, concurrency: concurrency, progress: progress)
    }

    /// The resources of every page, from this request's page on, as you iterate; see ``ResourceSequence`` and
    /// ``pages(prefetch:concurrency:progress:)`` for the parameters.
    ///
    /// - Parameters:
    ///   - prefetch: How many pages along `next` to ask for ahead of the consumer; 1 by default, 0 for none.
    ///   - concurrency: How many addressed pages to fetch at once; 1 (none) by default.
    ///   - progress: Called after each page with the pages and resources so far.
    /// - Returns: A sequence of the resources, page after page; nothing is sent until it is iterated.
    public func resources<Element>(
        prefetch: Int = 1, concurrency: Int = 1, progress: (@Sendable (PaginationProgress) -> Void)? = nil
    ) -> ResourceSequence<Element> where Primary == [Element] {
        ResourceSequence(pages: pages(prefetch: prefetch, concurrency: concurrency, progress: progress))
    }
}
