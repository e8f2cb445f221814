/// Primary data that is a list and can be paged: `[Model]`, `[ResourceIdentifier]`, `[ResourceObject]`, or the
/// schema-less ``PrimaryData``.
///
/// Navigation, ``Document/appendNext()`` and the page and resource streams work on documents whose primary data
/// conforms.
public protocol PageablePrimary {
    /// One resource of the list.
    associatedtype Element
    /// The resources, in order.
    var pageElements: [Element] { get }
    /// Appends `elements` to the list.
    mutating func appendPageElements(_ elements: [Element])
    /// The `(type, id)` of `element`, to leave out duplicates; `nil` when it has none.
    static func pageIdentity(of element: Element) -> ResourceIdentifier?
}

extension PageablePrimary {
    var pageElementCount: Int { pageElements.count }
}

extension Array: PageablePrimary {
    /// The array itself.
    public var pageElements: [Element] { self }

    /// Appends `elements`.
    public mutating func appendPageElements(_ elements: [Element]) { append(contentsOf: elements) }

    /// The identity of a model conforming to ``Resource`` (its type and encoded `id`), a ``ResourceObject`` or a
    /// ``ResourceIdentifier``; `nil` for anything else.
    public static func pageIdentity(of element: Element) -> ResourceIdentifier? {
        switch element {
        case let identifier as ResourceIdentifier: return identifier.withoutMeta
        case let resource as ResourceObject: return resource.identifier
        case let model as any Resource: return try? identity(of: model)
        default: return nil
        }
    }

    private static func identity<Model: Resource>(of model: Model) throws -> ResourceIdentifier {
        try ResourceIdentifier(of: model)
    }
}

extension PrimaryData: PageablePrimary {
    /// The resource objects (identifiers count as resources with only `type`, `id` and `meta`).
    public var pageElements: [ResourceObject] { resources }

    /// Appends resources; to linkage (identifiers) their identifiers are appended.
    public mutating func appendPageElements(_ elements: [ResourceObject]) {
        switch self {
        case .identifiers(let identifiers):
            self = .identifiers(identifiers + elements.map { ResourceIdentifier(type: $0.type, id: $0.id, lid: $0.lid, meta: $0.meta) })
        case .identifier(let identifier):
            self = .identifiers([identifier] + elements.map { ResourceIdentifier(type: $0.type, id: $0.id, lid: $0.lid, meta: $0.meta) })
        default:
            self = .resources(resources + elements)
        }
    }

    /// The resource's `(type, id)`.
    public static func pageIdentity(of element: ResourceObject) -> ResourceIdentifier? { element.identifier }
}

extension ResourceIdentifier {
    var withoutMeta: ResourceIdentifier { ResourceIdentifier(type: type, id: id, lid: lid) }
}
