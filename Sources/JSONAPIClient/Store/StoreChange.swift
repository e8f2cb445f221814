/// A change to one record of a ``ResourceStore``: a resource that a fetch or a write added or changed, or that a
/// delete removed.
public struct StoreChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the record.
    public enum Kind: Sendable, Hashable {
        /// Added, or changed by a newer version.
        case updated
        /// Deleted through the session (eviction and ``ResourceStore/clear()`` are not changes).
        case removed
    }

    /// The resource's type.
    public var type: String
    /// The resource's id.
    public var id: String
    /// What happened.
    public var kind: Kind

    /// Creates a change.
    public init(type: String, id: String, kind: Kind) {
        self.type = type
        self.id = id
        self.kind = kind
    }

    /// `updated articles 1`, `removed articles 1`.
    public var description: String { "\(kind == .updated ? "updated" : "removed") \(type) \(id)" }
}
