/// Primary data that is a list and can be merged page by page: `[Model]`, `[ResourceIdentifier]`,
/// `[ResourceObject]`, or the schema-less `PrimaryData`. Internal: `appendNext()` is the
/// public face.
protocol PageList {
    /// One resource of the list.
    associatedtype Element
    /// The resources, in order.
    var pageElements: [Element] { get }
    /// Appends `elements` to the list.
    mutating func appendPageElements(_ elements: [Element])
    /// The `(type, id)` of `element`, to leave out duplicates; `nil` when it has none.
    static func pageIdentity(of element: Element) -> ResourceIdentifier?
}

extension Array: PageList {
    var pageElements: [Element] { self }

    mutating func appendPageElements(_ elements: [Element]) { append(contentsOf: elements) }

    /// The identity a model declares, a `ResourceObject`'s or a `ResourceIdentifier`'s; `nil` for anything
    /// else, and for a resource without `id` or `lid`.
    static func pageIdentity(of element: Element) -> ResourceIdentifier? {
        let identity: ResourceIdentifier? =
            switch element {
            case let identifier as ResourceIdentifier:
                ResourceIdentifier(type: identifier.type, id: identifier.id, lid: identifier.lid)
            case let resource as ResourceObject: resource.identifier
            case let model as any Resource: ResourceIdentifier(of: model)
            default: nil
            }
        guard let identity, identity.id != nil || identity.lid != nil else { return nil }
        return identity
    }
}

extension PrimaryData: PageList {
    var pageElements: [ResourceObject] { resources }

    /// Appends resources; to linkage (identifiers) their identifiers are appended.
    mutating func appendPageElements(_ elements: [ResourceObject]) {
        let identifiers = elements.map { ResourceIdentifier(type: $0.type, id: $0.id, lid: $0.lid, meta: $0.meta) }
        switch self {
        case .identifiers(let existing): self = .identifiers(existing + identifiers)
        case .identifier(let identifier): self = .identifiers([identifier] + identifiers)
        default: self = .resources(resources + elements)
        }
    }

    static func pageIdentity(of element: ResourceObject) -> ResourceIdentifier? { element.identifier }
}
