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
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func replace(with identifier: ResourceIdentifier?, headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.patch, headerFields, { _ in .toOne(identifier) }) { try $0.encodeRelationshipBody(identifier) }
    }

    /// Replaces a to-many relationship (`PATCH`); `[]` empties it.
    ///
    /// - Parameters:
    ///   - identifiers: All the related resources from now on.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func replace(with identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.patch, headerFields, { _ in .toMany(identifiers) }) { try $0.encodeRelationshipBody(identifiers) }
    }

    /// Adds to a to-many relationship (`POST`).
    ///
    /// - Parameters:
    ///   - identifiers: The resources to add.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func add(_ identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.post, headerFields, { old in .toMany(old.identifiers + identifiers.filter { !old.identifiers.contains($0) }) }) {
            try $0.encodeRelationshipBody(identifiers)
        }
    }

    /// Removes from a to-many relationship (`DELETE` with a body).
    ///
    /// - Parameters:
    ///   - identifiers: The resources to remove.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    /// - Returns: The server's answer: status, `Location`, and its document, if any.
    /// - Throws: ``JSONAPIClientError`` (an error status, a transport or decoding failure, a refused link);
    ///   `CancellationError` when the task is cancelled.
    @discardableResult
    public func remove(_ identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.delete, headerFields, { old in .toMany(old.identifiers.filter { !identifiers.contains($0) }) }) {
            try $0.encodeRelationshipBody(identifiers)
        }
    }

    /// Sends the write; on success, sets the store's linkage to the server's answer, or to what `linkage` makes of
    /// the record's when the answer has none.
    private func write(
        _ method: HTTPMethod, _ headerFields: HTTPFields, _ linkage: @escaping @Sendable (Linkage) -> Linkage,
        body: (JSONAPIEncoder) throws -> Data
    ) async throws -> WriteResponse<PrimaryData> {
        let url = try target.get()
        let data = try session.encode(method, url, body)
        let response = try await session.write(
            JSONAPIRequest(method: method, target: .success(url), headerFields: headerFields, body: data),
            as: PrimaryData.self)
        if let owner, let store = session.store {
            let answered: Linkage? =
                switch response.data {
                case .identifier(let identifier): .toOne(identifier)
                case .identifiers(let identifiers): .toMany(identifiers)
                case .null: .toOne(nil)
                default: nil
                }
            store.changeLinkage(of: owner.relationship, type: owner.type, id: owner.id) { old in
                answered ?? old.map(linkage) ?? linkage(.toMany([]))
            }
        }
        return response
    }
}
