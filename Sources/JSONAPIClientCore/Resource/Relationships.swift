/// A to-one relationship that keeps everything the document says: the linkage, the related resource when the
/// document includes it, and the relationship's `links` and `meta`.
///
/// The related resource is stored out of line, so a model may refer to its own type through `ToOne`
/// (`var bestFriend: ToOne<Person>`), which a plain `Person?` property cannot.
public struct ToOne<Target: Sendable>: Sendable {
    /// The linkage; `nil` for an empty relationship (`null`) or when the document does not give linkage.
    public var identifier: ResourceIdentifier?
    // An array gives the out-of-line storage that recursive models need; it holds zero or one element.
    private var resourceStorage: [Target]
    /// The related resource, when it could be resolved (it is included, or its model needs only the identifier).
    public var resource: Target? {
        get { resourceStorage.first }
        set { resourceStorage = newValue.map { [$0] } ?? [] }
    }
    /// The relationship's links (`self`, `related`).
    public var links: Links?
    /// The relationship's meta.
    public var meta: Meta?
    /// Whether the relationship object has a `data` member (linkage); `false` when it has only links or meta.
    public var hasLinkage: Bool

    /// Creates a relationship from its parts.
    ///
    /// - Parameters:
    ///   - identifier: The linkage; `nil` for an empty relationship.
    ///   - resource: The related model, when it was included.
    ///   - links: Links, such as `self` and `related`.
    ///   - meta: Non-standard meta-information.
    ///   - hasLinkage: Whether the relationship object had `data` at all.
    public init(
        identifier: ResourceIdentifier?, resource: Target? = nil, links: Links? = nil, meta: Meta? = nil,
        hasLinkage: Bool = true
    ) {
        self.identifier = identifier
        self.resourceStorage = resource.map { [$0] } ?? []
        self.links = links
        self.meta = meta
        self.hasLinkage = hasLinkage
    }
}

extension ToOne where Target: Resource {
    /// A relationship to `resource` (or an empty one).
    ///
    /// - Parameter resource: The related model; `nil` for an empty relationship.
    public init(_ resource: Target?) {
        self.init(identifier: resource.map(ResourceIdentifier.init(of:)), resource: resource)
    }
}

/// A to-many relationship that keeps everything the document says: the linkage, the related resources the document
/// includes, and the relationship's `links` (which may page through the linkage) and `meta`.
public struct ToMany<Target: Sendable>: Sendable {
    /// The linkage, in order; empty for `[]` or when the document does not give linkage.
    public var identifiers: [ResourceIdentifier]
    /// The related resources that could be resolved, in linkage order.
    public var resources: [Target]
    /// The relationship's links (`self`, `related`, and pagination links).
    public var links: Links?
    /// The relationship's meta.
    public var meta: Meta?
    /// Whether the relationship object has a `data` member (linkage); `false` when it has only links or meta.
    public var hasLinkage: Bool

    /// Creates a relationship from its parts.
    ///
    /// - Parameters:
    ///   - identifiers: The linkage.
    ///   - resources: The related models that were included.
    ///   - links: Links, such as `self` and `related`.
    ///   - meta: Non-standard meta-information.
    ///   - hasLinkage: Whether the relationship object had `data` at all.
    public init(
        identifiers: [ResourceIdentifier], resources: [Target] = [], links: Links? = nil, meta: Meta? = nil,
        hasLinkage: Bool = true
    ) {
        self.identifiers = identifiers
        self.resources = resources
        self.links = links
        self.meta = meta
        self.hasLinkage = hasLinkage
    }
}

extension ToMany where Target: Resource {
    /// A relationship to `resources`.
    ///
    /// - Parameter resources: The related models.
    public init(_ resources: [Target]) {
        self.init(identifiers: resources.map(ResourceIdentifier.init(of:)), resources: resources)
    }
}

extension ToOne: Equatable where Target: Equatable {}
extension ToOne: Hashable where Target: Hashable {}
extension ToMany: Equatable where Target: Equatable {}
extension ToMany: Hashable where Target: Hashable {}
