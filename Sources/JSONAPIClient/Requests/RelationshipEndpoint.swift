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
public struct RelationshipEndpoint: Sendable {
    let session: Session
    /// The endpoint's URL, or why it could not be built.
    let target: Result<URL, JSONAPIClientError>

    /// The endpoint's URL.
    public var url: URL { get throws(JSONAPIClientError) { try target.get() } }

    /// A fetch of a to-many linkage; pagination links on it page through the linkage like a collection.
    public func fetchToMany() -> FetchRequest<[ResourceIdentifier]> {
        FetchRequest(session: session, request: JSONAPIRequest(method: .get, target: target))
    }

    /// A fetch of a to-one linkage (`data` is `nil` for an empty relationship).
    public func fetchToOne() -> FetchRequest<ResourceIdentifier?> {
        FetchRequest(session: session, request: JSONAPIRequest(method: .get, target: target))
    }

    /// Replaces a to-one relationship (`PATCH`); `nil` empties it.
    ///
    /// - Parameters:
    ///   - identifier: The new related resource; `nil` empties the relationship.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    @discardableResult
    public func replace(with identifier: ResourceIdentifier?, headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.patch, headerFields) { try $0.encodeRelationshipBody(identifier) }
    }

    /// Replaces a to-many relationship (`PATCH`); `[]` empties it.
    ///
    /// - Parameters:
    ///   - identifiers: All the related resources from now on.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    @discardableResult
    public func replace(with identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.patch, headerFields) { try $0.encodeRelationshipBody(identifiers) }
    }

    /// Adds to a to-many relationship (`POST`).
    ///
    /// - Parameters:
    ///   - identifiers: The resources to add.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    @discardableResult
    public func add(_ identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.post, headerFields) { try $0.encodeRelationshipBody(identifiers) }
    }

    /// Removes from a to-many relationship (`DELETE` with a body).
    ///
    /// - Parameters:
    ///   - identifiers: The resources to remove.
    ///   - headerFields: Header fields for this request (replacing the session's of the same name).
    @discardableResult
    public func remove(_ identifiers: [ResourceIdentifier], headerFields: HTTPFields = HTTPFields()) async throws
        -> WriteResponse<PrimaryData>
    {
        try await write(.delete, headerFields) { try $0.encodeRelationshipBody(identifiers) }
    }

    private func write(_ method: HTTPMethod, _ headerFields: HTTPFields, body: (JSONAPIEncoder) throws -> Data) async throws
        -> WriteResponse<PrimaryData>
    {
        let url = try target.get()
        let data = try session.encode(method, url, body)
        return try await session.write(
            JSONAPIRequest(method: method, target: .success(url), headerFields: headerFields, body: data), as: PrimaryData.self)
    }
}
