import Foundation

/// A JSON:API top-level document: primary data, `included`, `meta`, `links`, `jsonapi` and `errors`.
///
/// `Primary` is what `data` holds. ``RawDocument`` (`Document<PrimaryData>`) holds any valid document as it is on the
/// wire; a typed document such as `Document<[Article]>` or `Document<Article?>` holds your models, with their
/// relationships resolved from `included`.
///
/// `data` is `nil` when the member is absent (a meta-only or errors-only document). In a typed document whose
/// `Primary` is optional, `data` is `.some(nil)` for `"data": null`.
///
/// A document is plain data — `Sendable`, `Equatable` and `Codable` (with any coder, as ``JSONAPIDecoder`` and
/// ``JSONAPIEncoder`` read and write it) — and holds nothing but its members. Fetching its neighbours is the
/// client's job (`FetchResponse` in JSONAPIClient).
public struct Document<Primary: Sendable>: Sendable {
    /// The primary data; `nil` when the document has no `data` member.
    public var data: Primary?
    /// The resources of a compound document. A typed decode resolves them into the models instead and leaves this
    /// `nil`; a ``RawDocument`` keeps them.
    public var included: [ResourceObject]?
    /// Non-standard meta-information.
    public var meta: Meta?
    /// Top-level links: `self`, `related`, `describedby` and the pagination links.
    public var links: Links?
    /// The server's implementation information.
    public var jsonapi: JSONAPIObject?
    /// Error objects; a document never has both `errors` and `data`.
    public var errors: [ErrorObject]?
    /// Top-level members of extensions (`"atomic:results"`, `"version:id"`), by their full names: read and
    /// written as they are, so that nothing a server sent is lost.
    public var extensionMembers: [String: JSONValue]?

    /// Creates a document from its members.
    ///
    /// - Parameters:
    ///   - data: The primary data.
    ///   - included: Related resources.
    ///   - meta: Non-standard meta-information.
    ///   - links: Links about the document.
    ///   - jsonapi: The `jsonapi` object.
    ///   - errors: Error objects, instead of data.
    ///   - extensionMembers: Members of extensions, by name (`atomic:results`).
    public init(
        data: Primary? = nil, included: [ResourceObject]? = nil, meta: Meta? = nil, links: Links? = nil,
        jsonapi: JSONAPIObject? = nil, errors: [ErrorObject]? = nil, extensionMembers: [String: JSONValue]? = nil
    ) {
        self.data = data
        self.included = included
        self.meta = meta
        self.links = links
        self.jsonapi = jsonapi
        self.errors = errors
        self.extensionMembers = extensionMembers
    }
}

/// A document as it is on the wire, with primary data of any shape.
public typealias RawDocument = Document<PrimaryData>

/// Non-standard meta-information: a JSON object.
public typealias Meta = [String: JSONValue]

extension Document: Equatable where Primary: Equatable {}

extension Document: Hashable where Primary: Hashable {}

/// Primary data of any shape: what `data` holds in a ``RawDocument``.
public enum PrimaryData: Sendable, Hashable {
    /// `"data": null`: an empty to-one relationship or a missing singleton.
    case null
    /// One resource object.
    case resource(ResourceObject)
    /// An array of resource objects (a collection; `[]` when empty). When some elements are resource objects and
    /// others identifier-only (a sparse fieldset, meta-only resources), all are here: the identifier-only ones as
    /// resources with just `type`, `id`, `lid` and `meta`.
    case resources([ResourceObject])
    /// One resource identifier (a to-one relationship endpoint).
    case identifier(ResourceIdentifier)
    /// Resource identifiers (a to-many relationship endpoint): an array whose elements are all identifier-only
    /// (none has `attributes`, `relationships` or `links`).
    case identifiers([ResourceIdentifier])

    /// The resource objects: one, all, or none. Identifiers (primary data without attributes, relationships or
    /// links, as a sparse fieldset can give) count as resources with only `type`, `id` and `meta`.
    public var resources: [ResourceObject] {
        switch self {
        case .null: []
        case .resource(let resource): [resource]
        case .resources(let resources): resources
        case .identifier(let identifier): [ResourceObject(identifier)]
        case .identifiers(let identifiers): identifiers.map(ResourceObject.init)
        }
    }

    /// The resource identifiers of the primary data, whatever its shape.
    public var identifiers: [ResourceIdentifier] {
        switch self {
        case .null: []
        case .resource(let resource): [resource.identifier]
        case .resources(let resources): resources.map(\.identifier)
        case .identifier(let identifier): [identifier]
        case .identifiers(let identifiers): identifiers
        }
    }

    /// Whether the primary data is an array (a collection or to-many linkage).
    public var isCollection: Bool {
        switch self {
        case .resources, .identifiers: true
        default: false
        }
    }
}
