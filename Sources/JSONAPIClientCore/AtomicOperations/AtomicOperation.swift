/// One operation of the Atomic Operations extension (`https://jsonapi.org/ext/atomic`): add, update or remove a
/// resource, or change a relationship — applied with the others in one request, all or none.
///
/// ```swift
/// let operations: [AtomicOperation] = [
///     .add(ResourceObject(type: "people", lid: "p1", attributes: ["name": "Ann"])),
///     .add(ResourceObject(type: "articles", attributes: ["title": "Hello"],
///                         relationships: ["author": Relationship(data: .toOne(ResourceIdentifier(type: "people", lid: "p1")))])),
///     .remove(ResourceIdentifier(type: "articles", id: "13")),
/// ]
/// let body = try JSONAPIEncoder().encodeAtomicOperations(operations)
/// ```
/// A `lid` given in an earlier operation can be used by later ones.
public struct AtomicOperation: Sendable, Hashable {
    /// The extension's URI, for the `ext` media-type parameter.
    public static let extensionURI = "https://jsonapi.org/ext/atomic"

    /// What an operation does.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The `op` member's value.
        public let rawValue: String
        /// Creates a code.
        ///
        /// - Parameter rawValue: The `op` member's value, e.g. `"add"`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Create a resource, or add to a to-many relationship.
        public static let add = Code(rawValue: "add")
        /// Update a resource, or replace a relationship.
        public static let update = Code(rawValue: "update")
        /// Delete a resource, or remove from a to-many relationship.
        public static let remove = Code(rawValue: "remove")
    }

    /// What an operation targets: a resource, or one of its relationships.
    public struct Reference: Sendable, Hashable {
        /// The resource type.
        public var type: String
        /// The resource id.
        public var id: String?
        /// The local id given to a resource by an earlier operation.
        public var lid: String?
        /// The relationship, when the operation targets one.
        public var relationship: String?

        /// Creates a reference.
        ///
        /// - Parameters:
        ///   - type: The resource type.
        ///   - id: The resource id.
        ///   - lid: The local id an earlier operation gave the resource.
        ///   - relationship: The relationship's name, when the operation targets one.
        public init(type: String, id: String? = nil, lid: String? = nil, relationship: String? = nil) {
            self.type = type
            self.id = id
            self.lid = lid
            self.relationship = relationship
        }
    }

    /// `op`.
    public var op: Code
    /// `ref`: the target, when not given by `href` or by `data`.
    public var ref: Reference?
    /// `href`: the target as a URI.
    public var href: String?
    /// `data`: the resource, identifier(s) or `null` the operation carries.
    public var data: PrimaryData?
    /// Non-standard meta-information.
    public var meta: Meta?

    /// Creates an operation from its members.
    ///
    /// - Parameters:
    ///   - op: What the operation does.
    ///   - ref: The target, when `href` and `data` do not give it.
    ///   - href: The target as a URI.
    ///   - data: The resource, identifier(s) or `null` the operation carries.
    ///   - meta: Non-standard meta-information.
    public init(op: Code, ref: Reference? = nil, href: String? = nil, data: PrimaryData? = nil, meta: Meta? = nil) {
        self.op = op
        self.ref = ref
        self.href = href
        self.data = data
        self.meta = meta
    }

    /// Creates a resource (with a `lid` when later operations refer to it).
    ///
    /// - Parameter resource: The resource to create, with a `lid` when later operations refer to it.
    /// - Returns: An `add` operation carrying `resource`.
    public static func add(_ resource: ResourceObject) -> AtomicOperation {
        AtomicOperation(op: .add, data: .resource(resource))
    }

    /// Updates the members a resource object carries.
    ///
    /// - Parameter resource: The resource's type, id and the members to change.
    /// - Returns: An `update` operation carrying `resource`.
    public static func update(_ resource: ResourceObject) -> AtomicOperation {
        AtomicOperation(op: .update, data: .resource(resource))
    }

    /// Deletes a resource.
    ///
    /// - Parameter identifier: The resource to delete.
    /// - Returns: A `remove` operation targeting `identifier`.
    public static func remove(_ identifier: ResourceIdentifier) -> AtomicOperation {
        AtomicOperation(op: .remove, ref: Reference(type: identifier.type, id: identifier.id, lid: identifier.lid))
    }

    /// Replaces a to-one relationship (`nil` empties it).
    ///
    /// - Parameters:
    ///   - relationship: The to-one relationship's name.
    ///   - resource: The resource that has it.
    ///   - target: The new related resource; `nil` empties the relationship.
    /// - Returns: An `update` operation on the relationship.
    public static func replace(_ relationship: String, of resource: ResourceIdentifier, with target: ResourceIdentifier?)
        -> AtomicOperation
    {
        AtomicOperation(
            op: .update,
            ref: Reference(type: resource.type, id: resource.id, lid: resource.lid, relationship: relationship),
            data: target.map(PrimaryData.identifier) ?? .null)
    }

    /// Replaces (`.update`), adds to (`.add`) or removes from (`.remove`) a to-many relationship.
    ///
    /// - Parameters:
    ///   - op: `.update` replaces the members, `.add` adds them, `.remove` removes them.
    ///   - relationship: The to-many relationship's name.
    ///   - resource: The resource that has it.
    ///   - members: The related resources.
    /// - Returns: The operation on the relationship.
    public static func change(
        _ op: Code, _ relationship: String, of resource: ResourceIdentifier, members: [ResourceIdentifier]
    ) -> AtomicOperation {
        AtomicOperation(
            op: op, ref: Reference(type: resource.type, id: resource.id, lid: resource.lid, relationship: relationship),
            data: .identifiers(members))
    }
}

/// The result of one atomic operation, in request order.
public struct AtomicResult: Sendable, Hashable {
    /// The resource the operation produced (e.g. a created resource with its server id), or `nil`.
    public var data: PrimaryData?
    /// Non-standard meta-information.
    public var meta: Meta?

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - data: The resource the operation produced, if any.
    ///   - meta: Non-standard meta-information.
    public init(data: PrimaryData? = nil, meta: Meta? = nil) {
        self.data = data
        self.meta = meta
    }
}
