/// A change to one record of a ``ResourceStore``: a resource that a fetch or a write added or changed, that a
/// delete removed, or that the store let go of.
public struct StoreChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the record.
    public enum Kind: Sendable, Hashable {
        /// Added, or changed by a newer version.
        case updated
        /// Deleted through the session.
        case removed
        /// Let go of by the store: evicted past ``ResourceStore/Configuration/maxResources``, or removed by
        /// ``ResourceStore/clear()``. The resource may still exist on the server; fetch it again to see it.
        case evicted
    }

    /// The resource's type.
    public var type: String
    /// The resource's id.
    public var id: String
    /// What happened.
    public var kind: Kind

    /// Creates a change.
    ///
    /// - Parameters:
    ///   - type: The resource's type.
    ///   - id: The resource's id.
    ///   - kind: What happened.
    public init(type: String, id: String, kind: Kind) {
        self.type = type
        self.id = id
        self.kind = kind
    }

    /// `updated articles 1`, `removed articles 1`, `evicted articles 1`.
    public var description: String {
        let verb =
            switch kind {
            case .updated: "updated"
            case .removed: "removed"
            case .evicted: "evicted"
            }
        return "\(verb) \(type) \(id)"
    }
}
