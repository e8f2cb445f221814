import Foundation

/// Writes without a model: resource objects as they are on the wire, to URLs rather than routes — what a
/// schema-less client (the `jsonapi` tool, a generic admin screen) needs beside ``Session/fetch(_:)``.
extension Session {
    /// Creates a resource: `POST` of `resource` to the collection at `url`. The session's stored lists of its type
    /// (and of `url`) become stale.
    ///
    /// ```swift
    /// let created = try await api.create(
    ///     ResourceObject(type: "articles", attributes: ["title": "Hello"]), at: URL(string: "articles")!)
    /// ```
    ///
    /// - Parameters:
    ///   - resource: The resource object to send; its `id` only when the server accepts client-generated ids.
    ///   - url: The collection's URL; a relative one resolves under the base URL as a folder, as for ``fetch(_:)``.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``: shown at once, queued when the
    ///     server cannot be reached); the session's ``Configuration/writes`` when `nil`.
    /// - Returns: The response: the created resource (201) and its `Location`, or no document (202, 204).
    /// - Throws: ``JSONAPIClientError``: a refused URL, the server's error response, a transport failure.
    @discardableResult
    public func create(
        _ resource: ResourceObject, at url: URL, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<PrimaryData> {
        let target = try resolve(url).get()
        let body = try encode(.post, target) { try $0.encode(RawDocument(data: .resource(resource))) }
        let id = resource.id.flatMap { $0.isEmpty ? nil : $0 }
        let write = WriteQueue.Entry(
            method: .post, url: target, type: resource.type, resourceID: id ?? resource.lid ?? UUID().uuidString,
            body: body, headerFields: headerFields, kind: .create, clientGeneratedID: id != nil)
        return try await self.write(write, options: options, as: PrimaryData.self)
    }

    /// Updates a resource: `PATCH` of `resource` to its URL. Only the members `resource` has are sent: an attribute
    /// or relationship it leaves out stays as the server has it, and one set to `null` is emptied.
    ///
    /// ```swift
    /// try await api.update(
    ///     ResourceObject(type: "articles", id: "1", attributes: ["title": "New title", "subtitle": nil]),
    ///     at: URL(string: "articles/1")!)
    /// ```
    ///
    /// - Parameters:
    ///   - resource: The resource object with `type`, `id` and the members to change.
    ///   - url: The resource's URL; a relative one resolves under the base URL as a folder.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``: shown at once, queued when the
    ///     server cannot be reached); the session's ``Configuration/writes`` when `nil`.
    /// - Returns: The response: the updated resource (200), or no document (202, 204).
    /// - Throws: ``JSONAPIClientError``: a refused URL, the server's error response, a transport failure.
    @discardableResult
    public func update(
        _ resource: ResourceObject, at url: URL, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<PrimaryData> {
        let target = try resolve(url).get()
        let body = try encode(.patch, target) { try $0.encode(RawDocument(data: .resource(resource))) }
        let write = WriteQueue.Entry(
            method: .patch, url: target, type: resource.type, resourceID: resource.id ?? "", body: body,
            headerFields: headerFields, kind: .update, clientGeneratedID: false)
        return try await self.write(write, options: options, as: PrimaryData.self)
    }

    /// Deletes the resource at `url` (`DELETE`). The session's store forgets the record whose `links.self` is that
    /// URL, and its stored lists of that record's type (and of the parent URL) become stale.
    ///
    /// - Parameters:
    ///   - url: The resource's URL; a relative one resolves under the base URL as a folder.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``); the session's
    ///     ``Configuration/writes`` when `nil`. Optimistic, the record whose `links.self` is `url` disappears at once.
    /// - Returns: The response: a document with meta (200), or none (202, 204).
    /// - Throws: ``JSONAPIClientError``: a refused URL, the server's error response, a transport failure.
    @discardableResult
    public func delete(_ url: URL, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil)
        async throws -> WriteResponse<PrimaryData>
    {
        let target = try resolve(url).get()
        let key = store?.key(selfLink: target) ?? Self.resourceKey(of: target)
        let write = WriteQueue.Entry(
            method: .delete, url: target, type: key.type, resourceID: key.id, body: nil, headerFields: headerFields,
            kind: .delete, clientGeneratedID: false)
        return try await self.write(write, options: options, as: PrimaryData.self)
    }

    /// The resource a URL names when the store has no record with that `links.self`: by the recommended URL
    /// structure (`…/articles/1`), its last two path segments.
    static func resourceKey(of url: URL) -> ResourceStore.Key {
        let segments = url.pathComponents.filter { $0 != "/" }
        return ResourceStore.Key(type: segments.dropLast().last ?? "", id: segments.last ?? "")
    }

    /// The relationship endpoint at `url` (`…/articles/1/relationships/tags`): read, replace, add to, remove from.
    ///
    /// - Parameter url: The endpoint's URL, e.g. a relationship's `links.self`; a relative one resolves under the
    ///   base URL as a folder. Only URLs of the session's origin or an allowed one are used, as for links.
    /// - Returns: The endpoint; a refused URL fails when it is used.
    public func relationship(at url: URL) -> RelationshipEndpoint {
        RelationshipEndpoint(session: self, target: resolve(url))
    }

    private func resolve(_ url: URL) -> Result<URL, JSONAPIClientError> {
        Result { () throws(JSONAPIClientError) -> URL in
            try resolveLink(url.absoluteString, relativeTo: Self.folder(baseURL))
        }
    }
}
