/// A resource identifier object: `type` plus `id` (or, for a resource the client is creating, `lid`), and `meta`.
public struct ResourceIdentifier: Sendable, Hashable {
    /// The resource type, e.g. `"articles"`.
    public var type: String
    /// The server's id; `nil` for a resource not yet created.
    public var id: String?
    /// A local id that names a not-yet-created resource within one document.
    public var lid: String?
    /// Non-standard meta-information about the linkage.
    public var meta: Meta?

    /// Creates an identifier.
    ///
    /// - Parameters:
    ///   - type: The resource type.
    ///   - id: The server's id.
    ///   - lid: A local id, for a resource not yet created.
    ///   - meta: Non-standard meta-information.
    public init(type: String, id: String? = nil, lid: String? = nil, meta: Meta? = nil) {
        self.type = type
        self.id = id
        self.lid = lid
        self.meta = meta
    }
}

extension ResourceIdentifier: CustomStringConvertible {
    /// `type/id`, or `type/lid:x` for a local id.
    public var description: String {
        if let id { return "\(type)/\(id)" }
        return "\(type)/lid:\(lid ?? "")"
    }
}
