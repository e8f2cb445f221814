import Foundation

/// What ``Session/create(_:operationsPath:headerFields:)`` created: each resource with its local id and the id the
/// server gave it, in the order they were created.
///
/// ```swift
/// let result = try await session.create(graph)
/// let authorID = result.id(Person.self, lid: "p1")
/// let article = try result.created(Article.self, lid: "a1")   // Article?, its author and tags resolved
/// ```
public struct ResourceGraphResult: Sendable {
    /// The created resources, in the order they were created (dependencies first).
    public var created: [ResourceGraph.Created]
    /// Whether the graph went as one Atomic Operations request (all or nothing), rather than as ordered requests.
    public var isAtomic: Bool
    /// Reads ``created(_:lid:)``'s models, with the session's coders.
    let decoder: JSONAPIDecoder
    let encoder: JSONAPIEncoder

    /// The id the server gave the resource of `type` added with local id `lid`; `nil` when the graph had none.
    ///
    /// - Parameters:
    ///   - type: The resource type, e.g. `"articles"`.
    ///   - lid: The local id it was added with.
    /// - Returns: The server's id, or `nil`.
    public func id(type: String, lid: String) -> String? {
        created.first { $0.type == type && $0.lid == lid }?.id
    }

    /// The id the server gave the `Model` added with local id `lid`; `nil` when the graph had none.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - lid: The local id it was added with.
    /// - Returns: The server's id, or `nil`.
    public func id<Model: Resource>(_ type: Model.Type, lid: String) -> String? {
        id(type: Model.resourceType, lid: lid)
    }

    /// The `Model` added with local id `lid`, as the server returned it: its relationships to the graph's other new
    /// resources resolve from what the server returned of them.
    ///
    /// - Parameters:
    ///   - type: The model type.
    ///   - lid: The local id it was added with.
    /// - Returns: The model, or `nil` when the graph created none of that type with that local id.
    /// - Throws: `JSONAPIDecodingError` when the returned resource does not make a `Model`.
    public func created<Model: Resource>(_ type: Model.Type, lid: String) throws -> Model? {
        guard let index = created.firstIndex(where: { $0.type == Model.resourceType && $0.lid == lid }) else {
            return nil
        }
        var others = created.map(\.resource)
        others.remove(at: index)
        let document = RawDocument(data: .resource(created[index].resource), included: others.isEmpty ? nil : others)
        return try decoder.decode(Document<Model>.self, from: try encoder.encode(document)).data
    }
}
