/// A relationship object: resource linkage (`data`), `links` and `meta`, each optional.
public struct Relationship: Sendable, Hashable {
    /// The linkage; `nil` when the `data` member is absent (a relationship known only by its links or meta).
    public var data: Linkage?
    /// The relationship's links: `self` (the relationship endpoint), `related`, and pagination links of a to-many.
    public var links: Links?
    /// Non-standard meta-information about the relationship.
    public var meta: Meta?

    /// Creates a relationship object.
    ///
    /// - Parameters:
    ///   - data: The linkage: one identifier, several, or `null`.
    ///   - links: Links, such as `self` and `related`.
    ///   - meta: Non-standard meta-information.
    public init(data: Linkage? = nil, links: Links? = nil, meta: Meta? = nil) {
        self.data = data
        self.links = links
        self.meta = meta
    }
}

/// Resource linkage: what a relationship's `data` holds.
public enum Linkage: Sendable, Hashable {
    /// A to-one relationship: an identifier, or `nil` for `null` (empty).
    case toOne(ResourceIdentifier?)
    /// A to-many relationship: identifiers, `[]` when empty.
    case toMany([ResourceIdentifier])

    /// The identifiers, whatever the cardinality.
    public var identifiers: [ResourceIdentifier] {
        switch self {
        case .toOne(let identifier): identifier.map { [$0] } ?? []
        case .toMany(let identifiers): identifiers
        }
    }
}
