/// A resource object as it is on the wire: `type`, `id` or `lid`, `attributes`, `relationships`, `links`, `meta`.
public struct ResourceObject: Sendable, Hashable {
    /// The resource type, e.g. `"articles"`.
    public var type: String
    /// The server's id; `nil` for a resource the client is creating.
    public var id: String?
    /// A local id that names a not-yet-created resource within one document.
    public var lid: String?
    /// The attributes; `nil` when the member is absent.
    public var attributes: [String: JSONValue]?
    /// The relationships by name; `nil` when the member is absent.
    public var relationships: [String: Relationship]?
    /// The resource's links (`self`).
    public var links: Links?
    /// Non-standard meta-information about the resource.
    public var meta: Meta?

    /// Creates a resource object.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The server's id.
    ///   - lid: A local id, for a resource not yet created.
    ///   - attributes: Attributes by name.
    ///   - relationships: Relationships by name.
    ///   - links: Links about the resource.
    ///   - meta: Non-standard meta-information.
    public init(
        type: String, id: String? = nil, lid: String? = nil, attributes: [String: JSONValue]? = nil,
        relationships: [String: Relationship]? = nil, links: Links? = nil, meta: Meta? = nil
    ) {
        self.type = type
        self.id = id
        self.lid = lid
        self.attributes = attributes
        self.relationships = relationships
        self.links = links
        self.meta = meta
    }

    /// The identifier of this resource (`type`, `id`, `lid`).
    public var identifier: ResourceIdentifier { ResourceIdentifier(type: type, id: id, lid: lid) }
}

extension ResourceObject {
    /// A resource object with only the identifier's members.
    ///
    /// - Parameter identifier: The resource's type, id, lid and meta.
    public init(_ identifier: ResourceIdentifier) {
        self.init(type: identifier.type, id: identifier.id, lid: identifier.lid, meta: identifier.meta)
    }
}
