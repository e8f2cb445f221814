import Foundation

/// The entry point: reads and writes one resource type on a JSON:API server.
///
/// A data source pairs a base URL and a ``URLStrategy`` (where each endpoint is) with a ``Client`` (how
/// requests travel; ``URLSessionClient`` by default) and a ``Configuration`` (middleware, headers, media type,
/// coders, link safety).
///
/// ```swift
/// let source = DataSource<Article>(baseURL: url, strategy: .path("articles/<id>"))
///
/// let page = try await source.fetch().include(["author"]).paginate(.pageBased(1, 10))  // Document<[Article]>
/// let next = try await page.next()                                                    // Document<[Article]>?
/// let one = try await source.fetch(id: "1").include(["author"]).result()              // Document<Article>
/// for try await article in source.fetch().page(.pageBased(1, 50)).resources() { print(article.title) }
///
/// let created = try await source.create(Article(id: "", title: "Hello", body: "…"))   // 201 + Location
/// var change = ResourceUpdate<Article>(id: "7"); change.set("title", to: "Hi")
/// try await source.update(change)                                                   // PATCH, only title
/// try await source.delete(id: "7")
/// ```
///
/// Fetches are builders (``FetchRequest``): values that send nothing until `result()` or `paginate(_:)`.
/// Failures are ``JSONAPIClientError``s; a cancelled task gets `CancellationError`.
public actor DataSource<Model: Resource> {
    /// How a data source talks to its server; see ``DataSourceConfiguration``.
    public typealias Configuration = DataSourceConfiguration

    /// The base URL: paths resolve against it, and its origin is the one links may lead to by default.
    public nonisolated let baseURL: URL
    /// Where each endpoint is.
    public nonisolated let strategy: URLStrategy
    /// The configuration.
    public nonisolated let configuration: Configuration
    nonisolated let executor: RequestExecutor

    /// Creates a data source.
    ///
    /// - Parameters:
    ///   - baseURL: The server's base URL, e.g. `https://api.example.com/v1`.
    ///   - strategy: `.path("articles/<id>")` or `.router(yourRouter)`.
    ///   - client: The transport; a new ``URLSessionClient`` by default.
    ///   - configuration: Middleware, headers, media type, coders and link safety.
    public init(
        baseURL: URL, strategy: URLStrategy, client: any Client = URLSessionClient(),
        configuration: Configuration = Configuration()
    ) {
        self.baseURL = baseURL
        self.strategy = strategy
        self.configuration = configuration
        self.executor = RequestExecutor(baseURL: baseURL, client: client, configuration: configuration)
    }

    // MARK: Reading

    /// A fetch of the collection (`GET /articles`); perform it with `result()` or `paginate(_:)`.
    public nonisolated func fetch() -> FetchRequest<[Model]> { FetchRequest(executor: executor, target: collectionURL()) }

    /// A fetch of the collection address decoded as `type`: `fetch(as: Person.self)` reads a singleton such as
    /// `/me`, `fetch(as: PrimaryData.self)` the schema-less document.
    public nonisolated func fetch<Primary: Decodable & Sendable>(as type: Primary.Type) -> FetchRequest<Primary> {
        FetchRequest(executor: executor, target: collectionURL())
    }

    /// A fetch of one resource (`GET /articles/1`); the id is percent-encoded as a path segment.
    public nonisolated func fetch(id: String) -> FetchRequest<Model> {
        FetchRequest(executor: executor, target: routed { try $0.resourceURL(type: Model.resourceType, id: id, baseURL: $1) })
    }

    /// A fetch of a URL or link, decoded as `type`: a related resource's `links.related`, a URL from elsewhere.
    /// Its query parameters are kept (options add to them). A relative `href` resolves against `base` — pass the
    /// URL of the document the link came from (`document.origin?.url`) — or, by default, under the base URL as a
    /// folder (`articles/1/author` with base `https://api.example.com/v1` is `…/v1/articles/1/author`, as path
    /// templates are). Only `http`/`https` URLs of the data source's origin or an allowed one are fetched.
    public nonisolated func fetch<Primary: Decodable & Sendable>(
        link: Link, relativeTo base: URL? = nil, as type: Primary.Type
    ) -> FetchRequest<Primary> {
        let executor = self.executor
        let target: Result<URL, JSONAPIClientError> = Result { () throws(JSONAPIClientError) -> URL in
            try executor.resolveLink(link.href, relativeTo: base ?? Self.folder(executor.baseURL))
        }
        return FetchRequest(executor: executor, target: target)
    }

    /// `url` with a trailing slash, so that relative references resolve beneath it.
    static func folder(_ url: URL) -> URL {
        guard !url.path.hasSuffix("/"), var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url
        }
        components.path += "/"
        return components.url ?? url
    }

    /// A fetch of a related-resource endpoint (`GET /articles/1/author`), decoded as `type`.
    public nonisolated func fetchRelated<Primary: Decodable & Sendable>(
        _ relationship: String, of id: String, as type: Primary.Type
    ) -> FetchRequest<Primary> {
        FetchRequest(
            executor: executor,
            target: routed {
                try $0.relatedURL(type: Model.resourceType, id: id, relationship: relationship, baseURL: $1)
            })
    }

    /// A fetch of one page of a to-many relationship's linkage, by the relationship object's pagination link
    /// (`"next"`, `"prev"`, `"first"` or `"last"`); `nil` when it has no such link. The result pages on like a
    /// collection (`next()`, `appendNext()`, `resources()`).
    ///
    /// ```swift
    /// if let more = source.fetchLinkage("next", of: article.tags) {
    ///     for try await tag in more.resources() { print(tag.id ?? "") }
    /// }
    /// ```
    public nonisolated func fetchLinkage<Target>(_ relation: String, of relationship: ToMany<Target>)
        -> FetchRequest<[ResourceIdentifier]>?
    {
        guard let link = relationship.links?[relation] else { return nil }
        return fetch(link: link, as: [ResourceIdentifier].self)
    }

    /// The relationship endpoint `relationship` of resource `id` (`/articles/1/relationships/tags`).
    public nonisolated func relationship(_ relationship: String, of id: String) -> RelationshipEndpoint {
        RelationshipEndpoint(
            executor: executor,
            target: routed {
                try $0.relationshipURL(type: Model.resourceType, id: id, relationship: relationship, baseURL: $1)
            })
    }

    // MARK: Writing

    /// Creates a resource (`POST` to the collection) with the model's attributes and relationships, and its `id`
    /// only when set (client-generated ids). 201 returns the created resource and `Location`; 202 and 204 are
    /// successes too (see ``WriteResponse``).
    @discardableResult
    public func create(_ model: Model, headerFields: HTTPFields = HTTPFields()) async throws -> WriteResponse<Model> {
        let url = try collectionURL().get()
        let body = try encode(.post, url) { try $0.encodeCreateBody(for: model) }
        return try await executor.write(
            PreparedRequest(method: .post, endpoint: url, headerFields: headerFields, body: body), as: Model.self)
    }

    /// Updates a resource (`PATCH`) with only the members `update` sets: absent members stay unchanged, `null`
    /// empties one.
    @discardableResult
    public func update(_ update: ResourceUpdate<Model>, headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<Model>
    {
        let url = try routed { try $0.resourceURL(type: Model.resourceType, id: update.id, baseURL: $1) }.get()
        let body = try encode(.patch, url) { try $0.encodeUpdateBody(for: update) }
        return try await executor.write(
            PreparedRequest(method: .patch, endpoint: url, headerFields: headerFields, body: body), as: Model.self)
    }

    /// Updates a resource by editing a copy of its model: exactly the members the edit changes are sent (a
    /// property set to `nil` is sent as `null`), the rest stay as the server has them.
    ///
    /// ```swift
    /// try await articles.update(article) { $0.title = "New title" }
    /// ```
    @discardableResult
    public nonisolated func update(
        _ model: Model, headerFields: HTTPFields = HTTPFields(), _ edit: (inout Model) throws -> Void
    ) async throws -> WriteResponse<Model> {
        let change = try ResourceUpdate(from: model, encoder: configuration.encoder, edit)
        return try await update(change, headerFields: headerFields)
    }

    /// Deletes a resource (`DELETE`). 200 may carry meta (``WriteResponse/meta``); 202 and 204 are successes.
    @discardableResult
    public func delete(id: String, headerFields: HTTPFields = HTTPFields()) async throws -> WriteResponse<Model> {
        let url = try routed { try $0.resourceURL(type: Model.resourceType, id: id, baseURL: $1) }.get()
        return try await executor.write(
            PreparedRequest(method: .delete, endpoint: url, headerFields: headerFields), as: Model.self)
    }

    // MARK: URLs

    private nonisolated func collectionURL() -> Result<URL, JSONAPIClientError> {
        routed { try $0.collectionURL(type: Model.resourceType, baseURL: $1) }
    }

    private nonisolated func routed(_ make: (any Router, URL) throws -> URL) -> Result<URL, JSONAPIClientError> {
        do {
            return .success(try make(strategy.router, baseURL))
        } catch let error as JSONAPIClientError {
            return .failure(error)
        } catch {
            return .failure(
                JSONAPIClientError(code: .invalidRequest, detail: "the router failed: \(error)", underlyingError: error))
        }
    }

    nonisolated func encode(_ method: HTTPMethod, _ url: URL, _ body: (JSONAPIEncoder) throws -> Data) throws(
        JSONAPIClientError
    ) -> Data {
        do {
            return try body(configuration.encoder)
        } catch {
            throw JSONAPIClientError(
                code: .encodingFailed, detail: "the request body could not be encoded: \(error)", method: method,
                url: url, underlyingError: error)
        }
    }
}
