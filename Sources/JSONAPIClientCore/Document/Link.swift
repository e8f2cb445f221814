/// A link: written as a URI-reference string or as a link object with `href` and optional details.
public struct Link: Sendable, Hashable {
    /// The link's URI reference; may be relative to the request's URL.
    public var href: String
    /// The link relation type.
    public var rel: String?
    /// A human-readable title.
    public var title: String?
    /// The media type of the target.
    public var type: String?
    /// The languages of the target; written as one string when there is one.
    public var hreflang: [String]?
    /// Non-standard meta-information about the link.
    public var meta: Meta?
    // An array keeps the recursive member boxed; it holds zero or one element.
    private var describedByStorage: [Link]

    /// A link to a description document (e.g. an OpenAPI or JSON Schema) of the target.
    public var describedBy: Link? {
        get { describedByStorage.first }
        set { describedByStorage = newValue.map { [$0] } ?? [] }
    }

    /// Creates a link.
    ///
    /// - Parameters:
    ///   - href: The link's URI.
    ///   - rel: The link relation type.
    ///   - describedBy: A link to a description document.
    ///   - title: A human-readable title.
    ///   - type: The target's media type.
    ///   - hreflang: The target's languages.
    ///   - meta: Non-standard meta-information.
    public init(
        href: String, rel: String? = nil, describedBy: Link? = nil, title: String? = nil, type: String? = nil,
        hreflang: [String]? = nil, meta: Meta? = nil
    ) {
        self.href = href
        self.rel = rel
        self.title = title
        self.type = type
        self.hreflang = hreflang
        self.meta = meta
        self.describedByStorage = describedBy.map { [$0] } ?? []
    }

    /// Whether the link has nothing but `href`, so it is written as a plain string.
    public var isPlain: Bool {
        rel == nil && title == nil && type == nil && hreflang == nil && meta == nil && describedByStorage.isEmpty
    }
}

extension Link: ExpressibleByStringLiteral {
    /// A plain link.
    ///
    /// - Parameter href: The link's URI.
    public init(stringLiteral href: String) { self.init(href: href) }
}

/// A links object: links by name, each a ``Link`` or `null` (unavailable).
///
/// `links.next` is `nil` both when the member is absent and when it is `null`; ``isNull(_:)`` and ``contains(_:)``
/// tell the two apart.
public struct Links: Sendable, Hashable {
    /// The members; a `nil` value is a member written as `null`.
    public var members: [String: Link?]
    /// Members of extensions (`"ns:name"`), which the specification allows in a links object and which need not be
    /// links: kept as they came, and written back.
    public var extensionMembers: [String: JSONValue]

    /// Creates a links object.
    ///
    /// - Parameters:
    ///   - members: Links by name; `nil` is `null`.
    ///   - extensionMembers: Members of extensions, by name.
    public init(_ members: [String: Link?] = [:], extensionMembers: [String: JSONValue] = [:]) {
        self.members = members
        self.extensionMembers = extensionMembers
    }

    /// The link named `name`; `nil` when absent or `null`.
    ///
    /// - Parameter name: The link's name, e.g. `next`.
    /// - Returns: The link, or `nil`.
    public subscript(name: String) -> Link? {
        get { members[name] ?? nil }
        set { members[name] = .some(newValue) }
    }

    /// Whether a member named `name` is present (possibly `null`).
    ///
    /// - Parameter name: The link's name.
    /// - Returns: `true` when present, even as `null`.
    public func contains(_ name: String) -> Bool { members[name] != nil }
    /// Whether the member named `name` is present and `null`.
    ///
    /// - Parameter name: The link's name.
    /// - Returns: `true` only for a `null` member.
    public func isNull(_ name: String) -> Bool {
        if case .some(.none) = members[name] { return true }
        return false
    }
    /// Removes the member named `name`.
    ///
    /// - Parameter name: The link's name.
    public mutating func remove(_ name: String) { members[name] = nil }

    /// Whether there are no members.
    public var isEmpty: Bool { members.isEmpty && extensionMembers.isEmpty }

    /// `self`: the link that produced the document or identifies the resource.
    public var `self`: Link? { self["self"] }
    /// `related`: the related resource(s) of a relationship.
    public var related: Link? { self["related"] }
    /// `describedby`: a description document.
    public var describedBy: Link? { self["describedby"] }
    /// `first` page.
    public var first: Link? { self["first"] }
    /// `last` page.
    public var last: Link? { self["last"] }
    /// `prev` page.
    public var prev: Link? { self["prev"] }
    /// `next` page.
    public var next: Link? { self["next"] }
    /// `about`: an error's further details.
    public var about: Link? { self["about"] }
}
