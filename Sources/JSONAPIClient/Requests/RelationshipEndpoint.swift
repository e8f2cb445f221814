import Foundation

/// A relationship endpoint (`/articles/1/relationships/tags`): read its linkage, replace a to-one, replace, add
/// to or remove from a to-many.
///
/// ```swift
/// let tags = source.relationship("tags", of: "1")
/// let linkage = try await tags.fetchToMany().result()         // Document<[ResourceIdentifier]>
/// try await tags.add([ResourceIdentifier(type: "tags", id: "3")])
/// try await source.relationship("author", of: "1").replace(with: nil)   // empties a to-one
/// ```
///
/// A successful write changes the linkage of the resource's record in the session's store too (to the linkage the
/// server answered with, when it answered with one), so that observers see it.
public struct RelationshipEndpoint: Sendable {
    /// The relationship an endpoint belongs to: whose linkage a write changes in the store.
    struct Owner: Sendable {
        var type: String
        var id: String
        var relationship: String
    }

    let session: Session
    /// The endpoint's URL, or why it could not be built.
    let target: Result<URL, JSONAPIClientError>
    /// The relationship, when the endpoint was made from a data source.
    var owner: Owner?

    /// The endpoint's URL.
    public var url: URL { get throws(JSONAPIClientError) { try target.get() } }

    /// A fetch of a to-many linkage; pagination links on it page through the linkage like a collection.
    ///
    /// - Returns: The request; nothing is sent until `result()`.
    public func fetchToMany() -> FetchRequest<[ResourceIdentifier]> {
        FetchRequest(session: session, request: JSONAPIRequest(method: .get, target: target))
    }

    /// A fetch of a to-one linkage (`data` is `nil` for an empty relationship).
    ///
    /// - Returns: The request; nothing is sent until `result()`.
    public func fetchToOne() -> FetchRequest<ResourceIdentifier?> {
        FetchRequest(session: session, request: JSONAPIRequest(method: .get, target: target))
    }

    /// Replaces a to-one relationship (`PATCH`); `nil` empties it.
    ///
    /// - Parameters:
    ///   - identifier: The new related resource; `nil` empties the relationship.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``: the owner's linkage shown at
    ///     once, the write queued when the server cannot be reached); the session's
    ///     ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func replace(
        with identifier: ResourceIdentifier?, headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<PrimaryData> {
        try await write(.patch, headerFields, options, { _ in .toOne(identifier) }) {
            try $0.encodeRelationshipBody(identifier)
        }
    }

    /// Replaces a to-many relationship (`PATCH`); `[]` empties it.
    ///
    /// - Parameters:
    ///   - identifiers: All the related resources from now on.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``: the owner's linkage shown at
    ///     once, the write queued when the server cannot be reached); the session's
    ///     ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func replace(
        with identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<PrimaryData> {
        try await write(.patch, headerFields, options, { _ in .toMany(identifiers) }) {
            try $0.encodeRelationshipBody(identifiers)
        }
    }

    /// Adds to a to-many relationship (`POST`).
    ///
    /// - Parameters:
    ///   - identifiers: The resources to add.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``: the owner's linkage shown at
    ///     once, the write queued when the server cannot be reached); the session's
    ///     ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func add(
        _ identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<PrimaryData> {
        let added: @Sendable (Linkage) -> Linkage = { old in
            .toMany(old.identifiers + identifiers.filter { !old.identifiers.contains($0) })
        }
        return try await write(.post, headerFields, options, added) {
            try $0.encodeRelationshipBody(identifiers)
        }
    }

    /// Removes from a to-many relationship (`DELETE` with a body).
    ///
    /// - Parameters:
    ///   - identifiers: The resources to remove.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    ///   - options: How the write meets the store and the network (``WriteOptions``: the owner's linkage shown at
    ///     once, the write queued when the server cannot be reached); the session's
    ///     ``Session/Configuration/writes`` when `nil`.
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func remove(
        _ identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields(), options: WriteOptions? = nil
    ) async throws -> WriteResponse<PrimaryData> {
        let removed: @Sendable (Linkage) -> Linkage = { old in .toMany(old.identifiers.filter { !identifiers.contains($0) }) }
        return try await write(.delete, headerFields, options, removed) {
            try $0.encodeRelationshipBody(identifiers)
        }
    }

    /// Sends the write; on success, sets the store's linkage to the server's answer, or to what `linkage` makes of
    /// the record's when the answer has none.
    /// Sends a write to the endpoint through the session's one write path (``WriteOptions`` apply), with what it
    /// does to the owner's linkage worked out from the linkage the store shows now (`linkage` maps it; an unknown
    /// one counts as empty), so that an optimistic or queued write shows it and the answer settles it.
    private func write(
        _ method: HTTPMethod, _ headerFields: HTTPFields, _ options: WriteOptions?,
        _ linkage: @escaping @Sendable (Linkage) -> Linkage, body: (JSONAPIEncoder) throws -> Data
    ) async throws -> WriteResponse<PrimaryData> {
        let url = try target.get()
        let data = try session.encode(method, url, body)
        // `…/articles/1/relationships/tags`: the owner by the recommended URL structure when the endpoint was made
        // from a URL alone.
        let ownerURL = url.deletingLastPathComponent().deletingLastPathComponent()
        let key = owner.map { ResourceStore.Key(type: $0.type, id: $0.id) } ?? Session.resourceKey(of: ownerURL)
        var write = WriteQueue.Entry(
            method: method, url: url, type: key.type, resourceID: key.id, body: data, headerFields: headerFields,
            kind: .update, clientGeneratedID: false)
        if let owner, let store = session.store, let record = store.record(type: owner.type, id: owner.id) {
            let old = record.relationships?[owner.relationship]?.data
            let new = linkage(old ?? .toMany([]))
            let shown = ResourceObject(
                type: owner.type, id: owner.id, relationships: [owner.relationship: Relationship(data: new)])
            write.relationship = owner.relationship
            write.shown = try? JSONAPIEncoder().encode(RawDocument(data: .resource(shown)))
        }
        return try await session.write(write, options: options, as: PrimaryData.self)
    }
}
