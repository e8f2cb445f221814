import Foundation

/// Reads and writes one resource type: a typed view of a ``Session`` with a ``Router`` (where each endpoint is).
///
/// Take data sources from one session per server, so they share its transport (one URLSession) and configuration:
///
/// ```swift
/// let api = Session(baseURL: url)
/// let source = api.source(Article.self, .path("articles/<id>"))
///
/// let page = try await source.fetch().include(["author"]).paginate(.pageBased(1, 10))  // FetchResponse<[Article]>
/// let next = try await page.next()                                                    // FetchResponse<[Article]>?
/// let one = try await source.fetch(id: "1").include(["author"]).result()              // FetchResponse<Article>
/// for try await article in source.fetch().page(.pageBased(1, 50)).resources() { print(article.title) }
///
/// let created = try await source.create(Article(title: "Hello", body: "…"))            // 201 + Location
/// var change = ResourceUpdate<Article>(id: "7"); change.set("title", to: "Hi")
/// try await source.update(change)                                                   // PATCH, only title
/// try await source.delete(id: "7")
/// ```
///
/// For a single type, `DataSource<Article>(baseURL: url, router: .path("articles/<id>"))` makes its own session.
///
/// A data source is an actor: one per resource type, safe to share between tasks. What several types share — the
/// transport, the configuration — lives in its session, so a data source is cheap to make. Its builders are
/// `nonisolated` (a fetch chain needs one `await`, at the end); the writes run on the actor. Fetches are builders
/// (``FetchRequest``): values that send nothing until `result()` or `paginate(_:)`. Failures are
/// ``JSONAPIClientError``s; a cancelled task gets `CancellationError`.
public actor DataSource<Model: Resource> {
    /// The session that sends this data source's requests.
    public nonisolated let session: Session
    /// Where each endpoint is.
    public nonisolated let router: any Router

    /// The session's base URL: paths resolve against it.
    public nonisolated var baseURL: URL { session.baseURL }
    /// The session's configuration.
    public nonisolated var configuration: Session.Configuration { session.configuration }

    /// Creates a data source with a session of its own.
    ///
    /// - Parameters:
    ///   - baseURL: The server's base URL, e.g. `https://api.example.com/v1`.
    ///   - router: Where its endpoints are: `.path("articles/<id>")` or a ``Router`` of your own.
    ///   - client: The transport; a new ``URLSessionClient`` by default.
    ///   - configuration: Middleware, headers, media type, coders and link safety.
    public init(
        baseURL: URL, router: some Router, client: any Client = URLSessionClient(),
        configuration: Session.Configuration = Session.Configuration()
    ) {
        self.init(session: Session(baseURL: baseURL, client: client, configuration: configuration), router: router)
    }

    /// A data source on `session`; the same as `session.source(Model.self, router)`.
    ///
    /// - Parameters:
    ///   - session: The session that sends its requests.
    ///   - router: Where its endpoints are: `.path("articles/<id>")` or a ``Router`` of your own.
    public init(session: Session, router: some Router) {
        self.session = session
        self.router = router
        session.store?.register(Model.self)
    }

    // MARK: Reading

    /// A fetch of the collection (`GET /articles`); perform it with `result()` or `paginate(_:)`.
    ///
    /// - Returns: A fetch of the collection; nothing is sent until it is performed.
    public nonisolated func fetch() -> FetchRequest<[Model]> { fetchRequest(collectionURL()) }

    /// A fetch of the collection address decoded as `type`: `fetch(as: Person.self)` reads a singleton such as
    /// `/me`, `fetch(as: PrimaryData.self)` the schema-less document.
    ///
    /// - Parameter type: The primary data to decode.
    /// - Returns: A fetch of the collection address; nothing is sent until it is performed.
    public nonisolated func fetch<Primary: Decodable & Sendable>(as type: Primary.Type) -> FetchRequest<Primary> {
        fetchRequest(collectionURL())
    }

    /// A fetch of one resource (`GET /articles/1`); the id is percent-encoded as a path segment.
    ///
    /// - Parameter id: The resource's id.
    /// - Returns: A fetch of the resource; nothing is sent until it is performed.
    public nonisolated func fetch(id: String) -> FetchRequest<Model> {
        fetchRequest(routed { try $0.resourceURL(type: Model.resourceType, id: id, baseURL: $1) })
    }

    /// A fetch of a URL or link, decoded as `type`; see ``Session/fetch(link:relativeTo:as:)``.
    ///
    /// - Parameters:
    ///   - link: The link to follow (`links.related`, a URL from elsewhere).
    ///   - base: The URL relative links resolve against (the ``FetchResponse/url`` the link came from); the base
    ///     URL as a folder when `nil`.
    ///   - type: The primary data to decode.
    /// - Returns: A fetch of the link; nothing is sent until it is performed.
    public nonisolated func fetch<Primary: Decodable & Sendable>(
        link: Link, relativeTo base: URL? = nil, as type: Primary.Type
    ) -> FetchRequest<Primary> {
        session.fetch(link: link, relativeTo: base, as: type)
    }

    /// A fetch of a related-resource endpoint (`GET /articles/1/author`), decoded as `type`.
    ///
    /// - Parameters:
    ///   - relationship: The relationship's name (`"author"`).
    ///   - id: The id of the resource that has the relationship.
    ///   - type: The primary data to decode (`Person?.self`, `[Comment].self`).
    /// - Returns: A fetch of the related resources; nothing is sent until it is performed.
    public nonisolated func fetchRelated<Primary: Decodable & Sendable>(
        _ relationship: String, of id: String, as type: Primary.Type
    ) -> FetchRequest<Primary> {
        fetchRequest(routed { try $0.relatedURL(type: Model.resourceType, id: id, relationship: relationship, baseURL: $1) })
    }

    /// A fetch of one page of a to-many relationship's linkage, by the relationship object's pagination link;
    /// `nil` when it has no such link. The result pages on like a collection (`next()`, `appendNext()`,
    /// `resources()`).
    ///
    /// ```swift
    /// if let more = source.fetchLinkage(.next, of: article.tags) {
    ///     for try await tag in more.resources() { print(tag.id ?? "") }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - relation: Which page: `.next`, `.prev`, `.first` or `.last`.
    ///   - relationship: The to-many relationship, as a model decoded it.
    /// - Returns: A fetch of that page of the linkage; `nil` when the relationship has no such link.
    public nonisolated func fetchLinkage<Target>(_ relation: PageRelation, of relationship: ToMany<Target>)
        -> FetchRequest<[ResourceIdentifier]>?
    {
        guard let link = relationship.links?[relation.rawValue] else { return nil }
        return fetch(link: link, as: [ResourceIdentifier].self)
    }

    /// The relationship endpoint `relationship` of resource `id` (`/articles/1/relationships/tags`).
    ///
    /// - Parameters:
    ///   - relationship: The relationship's name (`"tags"`).
    ///   - id: The id of the resource that has it.
    /// - Returns: The endpoint, to fetch or change its linkage.
    public nonisolated func relationship(_ relationship: String, of id: String) -> RelationshipEndpoint {
        RelationshipEndpoint(
            session: session,
            target: routed {
                try $0.relationshipURL(type: Model.resourceType, id: id, relationship: relationship, baseURL: $1)
            },
            owner: RelationshipEndpoint.Owner(type: Model.resourceType, id: id, relationship: relationship))
    }

    // MARK: Writing

    /// Creates a resource (`POST` to the collection) with the model's attributes and relationships, and its `id`
    /// only when it has one (client-generated ids; a model with `var id: String?` set to `nil` sends none). 201
    /// returns the created resource and `Location`; 202 and 204 are successes too (see ``WriteResponse``). The
    /// session's stored lists of the model's type become stale, so the next list asks the server.
    ///
    /// Optimistic (``WriteOptions/isOptimistic``), the store shows the resource at once: under its `id`, or, without
    /// one, under its `lid` or a new UUID (the entry's ``WriteQueue/Entry/resourceID``) until the server's answer
    /// names it. Set the `id` on the client when the server accepts it: a queued create is then never made twice.
    ///
    /// - Parameters:
    ///   - model: The resource to create.
    ///   - headerFields: Header fields of this request.
    ///   - options: Optimistic and queued or not; the session's ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's response, or a queued one (``WriteResponse/queued``).
    /// - Throws: ``JSONAPIClientError`` (with ``JSONAPIClientError/rolledBack`` when an optimistic change was undone).
    @discardableResult
    public func create(_ model: Model, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil)
        async throws -> WriteResponse<Model>
    {
        let url = try collectionURL().get()
        let body = try session.encode(.post, url) { try $0.encodeCreateBody(for: model) }
        let id = model.id.resourceID.flatMap { $0.isEmpty ? nil : $0 }  // an empty id is sent as none
        let write = WriteQueue.Entry(
            method: .post, url: url, type: Model.resourceType, resourceID: id ?? model.lid ?? UUID().uuidString,
            body: body, headerFields: headerFields, kind: .create, clientGeneratedID: id != nil)
        return try await session.write(write, options: options, as: Model.self)
    }

    /// Updates a resource (`PATCH`) with only the members `update` sets: absent members stay unchanged, `null`
    /// empties one.
    ///
    /// - Parameters:
    ///   - update: The resource's id and the members to set.
    ///   - headerFields: Header fields of this request.
    ///   - options: Optimistic and queued or not; the session's ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's response, or a queued one (``WriteResponse/queued``).
    /// - Throws: ``JSONAPIClientError`` (with ``JSONAPIClientError/rolledBack`` when an optimistic change was undone).
    @discardableResult
    public func update(
        _ update: ResourceUpdate<Model>, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<Model> {
        let url = try routed { try $0.resourceURL(type: Model.resourceType, id: update.id, baseURL: $1) }.get()
        let body = try session.encode(.patch, url) { try $0.encodeUpdateBody(for: update) }
        let write = WriteQueue.Entry(
            method: .patch, url: url, type: Model.resourceType, resourceID: update.id, body: body,
            headerFields: headerFields, kind: .update, clientGeneratedID: false)
        return try await session.write(write, options: options, as: Model.self)
    }

    /// Updates a resource by editing a copy of its model: exactly the members the edit changes are sent (a
    /// property set to `nil` is sent as `null`), the rest stay as the server has them.
    ///
    /// ```swift
    /// try await articles.update(article) { $0.title = "New title" }
    /// try await articles.update(article, options: .offline) { $0.title = "Written on a train" }
    /// ```
    ///
    /// - Parameters:
    ///   - model: The resource as it is now.
    ///   - headerFields: Header fields of this request.
    ///   - options: Optimistic and queued or not; the session's ``Session/Configuration/writes`` when `nil`.
    ///   - edit: Changes the copy.
    /// - Returns: The server's response, or a queued one (``WriteResponse/queued``).
    /// - Throws: What `edit` throws; ``JSONAPIClientError``.
    @discardableResult
    public nonisolated func update(
        _ model: Model, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil,
        _ edit: sending (inout Model) throws -> Void
    ) async throws -> WriteResponse<Model> {
        let change = try ResourceUpdate(from: model, encoder: configuration.encoder, edit)
        return try await update(change, headerFields: headerFields, options: options)
    }

    /// Deletes a resource (`DELETE`). 200 may carry meta (``WriteResponse/meta``); 202 and 204 are successes. The
    /// session's store forgets the resource, and its stored lists of the model's type become stale.
    ///
    /// - Parameters:
    ///   - id: The resource's id.
    ///   - headerFields: Header fields of this request.
    ///   - options: Optimistic and queued or not; the session's ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's response, or a queued one (``WriteResponse/queued``).
    /// - Throws: ``JSONAPIClientError`` (with ``JSONAPIClientError/rolledBack`` when an optimistic change was undone).
    @discardableResult
    public func delete(id: String, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil)
        async throws -> WriteResponse<Model>
    {
        let url = try routed { try $0.resourceURL(type: Model.resourceType, id: id, baseURL: $1) }.get()
        let write = WriteQueue.Entry(
            method: .delete, url: url, type: Model.resourceType, resourceID: id, body: nil, headerFields: headerFields,
            kind: .delete, clientGeneratedID: false)
        return try await session.write(write, options: options, as: Model.self)
    }

    // MARK: URLs

    private nonisolated func fetchRequest<Primary>(_ target: Result<URL, JSONAPIClientError>) -> FetchRequest<Primary> {
        FetchRequest(session: session, request: JSONAPIRequest(method: .get, target: target))
    }

    private nonisolated func collectionURL() -> Result<URL, JSONAPIClientError> {
        routed { try $0.collectionURL(type: Model.resourceType, baseURL: $1) }
    }

    private nonisolated func routed(_ make: (any Router, URL) throws -> URL) -> Result<URL, JSONAPIClientError> {
        do {
            return .success(try make(router, baseURL))
        } catch let error as JSONAPIClientError {
            return .failure(error)
        } catch {
            return .failure(
                JSONAPIClientError(code: .invalidRequest, detail: "the router failed: \(error)", underlyingError: error))
        }
    }
}
