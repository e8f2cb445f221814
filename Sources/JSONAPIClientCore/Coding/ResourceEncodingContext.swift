import Foundation

/// The state of one typed encode: options, and the related resources collected for `included`.
final class ResourceEncodingContext {
    let keyStrategy: KeyStrategy
    let dateStrategy: DateStrategy
    let userInfo: [CodingUserInfoKey: Any]
    /// Whether related models are written to `included` (a compound document) or only linked (a request body).
    let collectsIncluded: Bool
    /// The only thread the encode's encoders and containers answer on.
    let thread = EncodingThread()
    /// Whether resources are written straight to bytes (``JSONAPIEncoder/encode(_:)`` of models) rather than kept
    /// as resource objects.
    let writesBytes: Bool
    // Exclusivity: the runtime would check every access to this scratch state (checked, the three `included`
    // properties cost `encode-document` 1.1 M instructions); it goes unchecked because no two
    // accesses to one property can overlap. A context is not `Sendable` and serves one encode on one thread, so a
    // second access could only begin during a first through a call into code outside this library that re-enters
    // the context — a model's `encode(to:)` (which re-enters through related models and `wireName`), a key
    // transform, a custom date strategy — made while the first is open. None is: `capture(_:type:into:)` runs
    // `encode(to:)` with no access open; `link` reads the model's identity first (`id` and `lid` may be computed),
    // then inserts it into `caches.reached` before the model's encoding runs, and appends to `included` and
    // `includedRanges` only after the model's encoding returned, each access instantaneous (arguments are
    // evaluated before a mutating access begins); `includedText` is passed `inout` only to
    // `DocumentWriter.write`, which writes captured values and holds no reference to the context; `role(of:)` reads
    // `caches.roles`, examines the type (casts, no user code), then appends; `wireName` reads the cache, calls the key
    // transform with no access open, then stores; `caches.containers` is accessed by `resourceContainer` and by the
    // release after a model's `encode(to:)` returned, each one access that runs no code outside this library (a
    // container or capture it lets go of is held elsewhere, so no `deinit` runs).
    /// The related resources written to `included`, as resource objects…
    @exclusivity(unchecked) private(set) var included: [ResourceObject] = []
    /// …or, when writing bytes, as JSON text: each resource's identifier and its bytes in `includedText`.
    @exclusivity(unchecked) private(set) var includedText = JSONWriter(capacity: 4096)
    @exclusivity(unchecked) private(set) var includedRanges: [IncludedRange] = []
    /// Read and written only under a key transform (checked: a transform costs far more than the check).
    private var wireNames: WireNames
    /// What the encode keeps so as not to do work twice (`FastPath/`).
    @exclusivity(unchecked) private var caches: EncodeCaches
    /// What a kept container writes into between models (nothing reads it).
    private let emptyCapture = ResourceCapture()

    init(options: JSONAPIEncoder, collectsIncluded: Bool, writesBytes: Bool = false) {
        keyStrategy = options.keyStrategy
        wireNames = WireNames()
        caches = EncodeCaches(poolsContainers: options.userInfo[plainPathKey] == nil)
        dateStrategy = options.dateStrategy
        userInfo = options.userInfo
        self.collectsIncluded = collectsIncluded
        self.writesBytes = writesBytes
    }

    /// The member name for a property name under the key strategy, worked out once per name.
    func wireName(_ key: String) -> String {
        guard let transform = keyStrategy.transform else { return key }
        if let name = wireNames.cached(key) { return name }
        let name = transform.wireName(for: key)
        wireNames.remember(name, for: key)
        return name
    }

    /// The resource object for a model.
    func resourceObject(for model: some Encodable, type: String?) throws -> ResourceObject {
        var capture = makeCapture()
        defer { recycle(&capture) }
        let resourceType = try self.capture(model, type: type, into: capture)
        return capture.resourceObject(type: resourceType)
    }

    /// A keyed container writing into `capture`; one handed out before when nothing holds it any more.
    func resourceContainer<Key: CodingKey>(
        keyedBy type: Key.Type, capture: ResourceCapture
    ) -> KeyedEncodingContainer<Key> {
        caches.containers.container(keyedBy: Key.self, capture: capture, context: self)
    }

    /// Ends the encode: lets go of the kept containers (which hold this context), and keeps no more.
    func endEncode() {
        caches.containers.removeAll()
    }

    /// An empty capture: a spare one, or a new one.
    func makeCapture() -> ResourceCapture { caches.captures.popLast() ?? ResourceCapture() }

    /// Takes back a capture the caller is done with, to reuse it, unless something else still holds it (a model that
    /// kept its encoder would otherwise write into another model's capture).
    func recycle(_ capture: inout ResourceCapture) {
        guard isKnownUniquelyReferenced(&capture) else { return }
        capture.empty()
        caches.captures.append(capture)
    }

    /// Runs the model's encoding into `capture`; returns its resource type.
    func capture(_ model: some Encodable, type: String?, into capture: ResourceCapture) throws -> String {
        defer { caches.containers.release(capture, pointingAt: emptyCapture) }
        try model.encode(to: ResourceObjectEncoder(context: self, capture: capture))
        guard let resourceType = capture.type ?? type else {
            throw EncodingError.invalidValue(
                model,
                EncodingError.Context(
                    codingPath: [], debugDescription: "\(Swift.type(of: model)) has no resource type: conform it to Resource"))
        }
        return resourceType
    }

    /// The linkage for a related model, writing the model itself to `included` in a compound document.
    ///
    /// The linkage is the model's declared identity (``ResourceIdentifier/init(of:)``), read without encoding it.
    /// A model is encoded only to be written, which happens once per resource: the first time the encode reaches
    /// it in a compound document, never in a request body. Every later path to it — another article by the same
    /// author, each of the many paths through a layered graph, a cycle back to a model still being written — costs
    /// one set lookup, so an encode's work is linear in the models it writes whatever the graph's shape. (Walking
    /// a reached model's relationships again on every path made a 7 KB graph of 20 layers take seconds.)
    ///
    /// Generic rather than taking `any Resource`: a model larger than three words would be boxed on the heap for
    /// every link (an existential argument opens into this without a box).
    func link<Model: Resource>(_ model: Model) throws -> ResourceIdentifier {
        let identifier = ResourceIdentifier(of: model)
        // Marked before its encoding runs, so that a cycle back to it finds it.
        guard collectsIncluded, caches.reached.insert(identifier) else { return identifier }
        var capture = makeCapture()
        defer { recycle(&capture) }
        let resourceType = try self.capture(model, type: Model.resourceType, into: capture)
        if writesBytes {
            let start = includedText.count
            DocumentWriter.write(capture, type: resourceType, into: &includedText)
            let written = ResourceIdentifier(type: resourceType, id: capture.id, lid: capture.lid)
            includedRanges.append(IncludedRange(identifier: written, range: start..<includedText.count))
        } else {
            included.append(capture.resourceObject(type: resourceType))
        }
        return identifier
    }

    /// The role of each type encoded so far.
    func role<T>(of type: T.Type) -> EncodingRole {
        let identifier = ObjectIdentifier(T.self)
        for (known, role) in caches.roles where known == identifier { return role }
        let role = EncodingRole.of(T.self)
        caches.roles.append((identifier, role))
        return role
    }

    /// The JSON value of a plain (non-resource) value.
    func jsonValue<T: Encodable>(of value: T) throws -> JSONValue {
        let role = role(of: T.self)
        if role.isDynamic {
            if let special = try specialValue(value) { return special }
        } else if let special = role.special {
            return try specialValue(value, special)
        } else if role.isStringArray {
            return .array(try reinterpret(value, as: [String].self).map(JSONValue.string))
        }
        let storage = ValueStorage()
        try value.encode(to: ValueEncoder(context: self, storage: storage))
        return storage.value
    }

    /// The JSON value of a value whose role says it is written directly.
    func specialValue<T>(_ value: T, _ special: EncodingRole.Special) throws -> JSONValue {
        switch special {
        case .jsonValue: return try reinterpret(value, as: JSONValue.self)
        case .date: return try dateStrategy.encode(reinterpret(value, as: Date.self))
        case .url: return .string(try reinterpret(value, as: URL.self).absoluteString)
        case .decimal: return try Self.value(of: reinterpret(value, as: Decimal.self))
        case .links: return DocumentWriter.value(of: try reinterpret(value, as: Links.self))
        case .link: return DocumentWriter.value(of: try reinterpret(value, as: Link.self))
        case .identifier: return DocumentWriter.value(of: try reinterpret(value, as: ResourceIdentifier.self))
        case .resourceObject: return DocumentWriter.value(of: try reinterpret(value, as: ResourceObject.self))
        }
    }

    /// A `Decimal` from its own digits (never through `Double`), in the case that holds it exactly.
    private static func value(of decimal: Decimal) throws -> JSONValue {
        guard let number = JSONNumber(decimal: decimal) else {
            throw EncodingError.invalidValue(
                decimal, EncodingError.Context(codingPath: [], debugDescription: "a Decimal NaN has no JSON form"))
        }
        return JSONValue(number)
    }

    /// The special JSON value of a value whose type is only known by casting (classes, optionals).
    func specialValue(_ value: some Encodable) throws -> JSONValue? {
        switch value {
        case let value as JSONValue: return value
        case let date as Date: return try dateStrategy.encode(date)
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return try Self.value(of: decimal)
        case let links as Links: return DocumentWriter.value(of: links)
        case let link as Link: return DocumentWriter.value(of: link)
        case let identifier as ResourceIdentifier: return DocumentWriter.value(of: identifier)
        case let resource as ResourceObject: return DocumentWriter.value(of: resource)
        default: return nil
        }
    }
}

/// What a model's encoding says about its resource.
///
/// One model's encoding fills it, on one thread, one member at a time. Its properties go without runtime
/// exclusivity checks (checked, they cost `encode-document` about 6.6 M instructions: `empty()` alone is 1.9 M)
/// because every access is instantaneous — an assignment, or an append whose argument (which may
/// call `wireName` or encode a value) is evaluated before the append begins — or a read in this library's code;
/// none spans a call into a model's `encode(to:)`, so none can overlap another.
final class ResourceCapture {
    @exclusivity(unchecked) var type: String?
    @exclusivity(unchecked) var id: String?
    @exclusivity(unchecked) var lid: String?
    /// In the order written; of the same name written twice, the last counts (attributes written through nested
    /// containers, in `deferred`, count last of all).
    @exclusivity(unchecked) var attributes: [CapturedAttribute] = []
    @exclusivity(unchecked) var relationships: [CapturedRelationship] = []
    @exclusivity(unchecked) var links: Links?
    @exclusivity(unchecked) var meta: Meta?
    /// Attributes written through nested containers, read when the model is done.
    @exclusivity(unchecked) var deferred: [DeferredAttribute] = []

    /// Forgets everything captured, keeping the arrays' storage.
    func empty() {
        type = nil
        id = nil
        lid = nil
        attributes.removeAll(keepingCapacity: true)
        relationships.removeAll(keepingCapacity: true)
        links = nil
        meta = nil
        deferred.removeAll(keepingCapacity: true)
    }

    /// The attributes, nested containers' included, in member order; of equal names the first spelling with the
    /// last value, as a dictionary filled in writing order would hold them.
    func orderedAttributes() -> [CapturedAttribute] {
        var all = attributes
        for member in deferred { all.append(CapturedAttribute(name: member.name, value: member.storage.value)) }
        return Self.ordered(all)
    }

    /// The relationships in member order (of equal names, the last written).
    func orderedRelationships() -> [CapturedRelationship] {
        Self.ordered(relationships)
    }

    private static func ordered<Member: CapturedMember>(_ members: [Member]) -> [Member] {
        switch members.count {
        case 0, 1: return members
        case 2 where members[0].name < members[1].name: return members
        case 2 where members[1].name < members[0].name: return [members[1], members[0]]
        default: break
        }
        let order = members.indices.sorted { a, b in
            members[a].name < members[b].name || (members[a].name == members[b].name && a < b)
        }
        var result: [Member] = []
        result.reserveCapacity(members.count)
        for position in order {
            if let last = result.last, last.name == members[position].name {
                result[result.count - 1].value = members[position].value
            } else {
                result.append(members[position])
            }
        }
        return result
    }

    /// The resource object: `attributes` present when there are attributes or relationships.
    func resourceObject(type resourceType: String) -> ResourceObject {
        let attributes = orderedAttributes(), relationships = orderedRelationships()
        return ResourceObject(
            type: resourceType, id: id, lid: lid,
            attributes: attributes.isEmpty && relationships.isEmpty
                ? nil : Dictionary(attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last }),
            relationships: relationships.isEmpty
                ? nil : Dictionary(relationships.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last }),
            links: links, meta: meta)
    }
}

/// Where a related resource's object is in ``ResourceEncodingContext/includedText``. (A struct, not a tuple: see
/// ``CapturedMember``.)
struct IncludedRange {
    var identifier: ResourceIdentifier
    var range: Range<Int>
}

/// A captured attribute or relationship. Structs of their own rather than tuples or one generic struct: emptying an
/// array destroys each element through its type's value witness, which for a tuple (or an instance of a generic
/// struct) is the runtime's generic walk over the fields (5 % of encoding a document).
protocol CapturedMember {
    associatedtype Value
    var name: String { get }
    var value: Value { get set }
}

struct CapturedAttribute: CapturedMember {
    var name: String
    var value: JSONValue
}

struct CapturedRelationship: CapturedMember {
    var name: String
    var value: Relationship
}

/// An attribute written through a nested container, read when the model is done.
struct DeferredAttribute {
    var name: String
    var storage: ValueStorage
}

/// Types that are written as a relationship rather than an attribute.
protocol RelationshipEncodable {
    func relationship(in context: ResourceEncodingContext) throws -> Relationship
}

extension ResourceIdentifier: RelationshipEncodable {
    func relationship(in context: ResourceEncodingContext) throws -> Relationship { Relationship(data: .toOne(self)) }
}

extension Relationship: RelationshipEncodable {
    func relationship(in context: ResourceEncodingContext) throws -> Relationship { self }
}

extension Array: RelationshipEncodable where Element: Encodable {
    func relationship(in context: ResourceEncodingContext) throws -> Relationship {
        // An array of one resource type (the usual `[Comment]`) is linked without casting each element to
        // `any Resource`, a conformance lookup per element.
        if let resourceType = Element.self as? any Resource.Type { return try linkAll(as: resourceType, in: context) }
        var identifiers: [ResourceIdentifier] = []
        identifiers.reserveCapacity(count)
        for element in self {
            switch element {
            case let model as any Resource: identifiers.append(try context.link(model))
            case let polymorphic as any PolymorphicResource: identifiers.append(try context.link(polymorphic.resource))
            case let identifier as ResourceIdentifier: identifiers.append(identifier)
            default:
                throw EncodingError.invalidValue(
                    element, EncodingError.Context(codingPath: [], debugDescription: "not a resource"))
            }
        }
        return Relationship(data: .toMany(identifiers))
    }

    private func linkAll<Model: Resource>(as type: Model.Type, in context: ResourceEncodingContext) throws
        -> Relationship
    {
        var identifiers: [ResourceIdentifier] = []
        identifiers.reserveCapacity(count)
        for element in self { identifiers.append(try context.link(reinterpret(element, as: Model.self))) }
        return Relationship(data: .toMany(identifiers))
    }
}

extension ToOne: RelationshipEncodable {
    func relationship(in context: ResourceEncodingContext) throws -> Relationship {
        var identifier = identifier
        if let model = resource as? any Resource {
            identifier = try context.link(model)
        } else if let polymorphic = resource as? any PolymorphicResource {
            identifier = try context.link(polymorphic.resource)
        }
        return Relationship(data: hasLinkage ? .toOne(identifier) : nil, links: links, meta: meta)
    }
}

extension ToMany: RelationshipEncodable {
    func relationship(in context: ResourceEncodingContext) throws -> Relationship {
        var identifiers = identifiers
        if !resources.isEmpty, let models = resources as? [any Resource] {
            identifiers = try models.map { try context.link($0) }
        } else if !resources.isEmpty, let models = resources as? [any PolymorphicResource] {
            identifiers = try models.map { try context.link($0.resource) }
        }
        return Relationship(data: hasLinkage ? .toMany(identifiers) : nil, links: links, meta: meta)
    }
}
