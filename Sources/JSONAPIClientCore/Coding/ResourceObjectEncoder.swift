import Foundation

/// The `Encoder` a model writes itself to: `id`, `type`, `lid` become the identification, members holding
/// resources become relationships, `links` and `meta` (when typed as ``Links`` and ``Meta``) the resource's own,
/// everything else an attribute.
struct ResourceObjectEncoder: Encoder {
    let context: ResourceEncodingContext
    let capture: ResourceCapture

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // On another thread, a container of its own, whose first write throws (`EncodingThread`).
        guard context.thread.isCurrent else {
            return KeyedEncodingContainer(ResourceEncodingContainer<Key>(context: context, capture: ResourceCapture()))
        }
        return context.resourceContainer(keyedBy: Key.self, capture: capture)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        // A resource is an object; an unkeyed encoding has nowhere to go.
        let storage = ValueStorage()
        return ValueEncoder(context: context, storage: storage).unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ResourceSingleValueContainer(context: context, capture: capture)
    }
}

/// A wrapper (such as an enum over several resource types) that encodes the wrapped model as itself.
struct ResourceSingleValueContainer: SingleValueEncodingContainer {
    let context: ResourceEncodingContext
    let capture: ResourceCapture
    var codingPath: [any CodingKey] { [] }

    private func invalid(_ value: Any) -> EncodingError {
        EncodingError.invalidValue(
            value, EncodingError.Context(codingPath: [], debugDescription: "a resource must encode as an object"))
    }

    func encodeNil() throws { throw invalid(Optional<Int>.none as Any) }
    func encode(_ value: Bool) throws { throw invalid(value) }
    func encode(_ value: String) throws { throw invalid(value) }
    func encode(_ value: Double) throws { throw invalid(value) }
    func encode(_ value: Float) throws { throw invalid(value) }
    func encode(_ value: Int) throws { throw invalid(value) }
    func encode(_ value: Int8) throws { throw invalid(value) }
    func encode(_ value: Int16) throws { throw invalid(value) }
    func encode(_ value: Int32) throws { throw invalid(value) }
    func encode(_ value: Int64) throws { throw invalid(value) }
    func encode(_ value: UInt) throws { throw invalid(value) }
    func encode(_ value: UInt8) throws { throw invalid(value) }
    func encode(_ value: UInt16) throws { throw invalid(value) }
    func encode(_ value: UInt32) throws { throw invalid(value) }
    func encode(_ value: UInt64) throws { throw invalid(value) }
    func encode<T: Encodable>(_ value: T) throws {
        try context.thread.check()
        if let model = value as? any Resource, capture.type == nil { capture.type = type(of: model).resourceType }
        if let polymorphic = value as? any PolymorphicResource, capture.type == nil {
            capture.type = type(of: polymorphic.resource).resourceType
        }
        try value.encode(to: ResourceObjectEncoder(context: context, capture: capture))
    }
}

/// A model's keyed container: a class, and an ``EncodingCursor``, so that the context can point it at the next model's
/// capture and hand it out again (``EncodingContainerPool``).
final class ResourceEncodingContainer<Key: CodingKey>: EncodingCursor, KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }

    /// An attribute, from an entry point that has not compared the thread yet.
    private func attribute(_ key: Key, _ value: JSONValue) throws {
        try context.thread.check()
        append(key, value)
    }

    private func append(_ key: Key, _ value: JSONValue) {
        capture.attributes.append(CapturedAttribute(name: context.wireName(key.stringValue), value: value))
    }

    func encodeNil(forKey key: Key) throws {
        switch ReservedMember(key.stringValue) {
        case .id, .lid, .type: return
        default: try attribute(key, .null)
        }
    }

    func encode(_ value: Bool, forKey key: Key) throws { try attribute(key, .bool(value)) }
    func encode(_ value: String, forKey key: Key) throws {
        try context.thread.check()
        switch ReservedMember(key.stringValue) {
        case .id: capture.id = value
        case .lid: capture.lid = value
        case .type: capture.type = value
        default: append(key, .string(value))
        }
    }
    func encode(_ value: Double, forKey key: Key) throws { try attribute(key, .double(value)) }
    func encode(_ value: Float, forKey key: Key) throws { try attribute(key, .double(Double(value))) }
    func encode(_ value: Int, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: Int8, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: Int16, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: Int32, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try unsigned(UInt64(value), key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try integer(Int64(value), key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try unsigned(value, key) }

    private func integer(_ value: Int64, _ key: Key) throws {
        // Ids are strings on the wire, whatever the model uses.
        try context.thread.check()
        if ReservedMember(key.stringValue) == .id {
            capture.id = String(value)
        } else {
            append(key, .int(value))
        }
    }

    private func unsigned(_ value: UInt64, _ key: Key) throws {
        try context.thread.check()
        if ReservedMember(key.stringValue) == .id {
            capture.id = String(value)
        } else {
            append(key, unsignedValue(value))
        }
    }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try context.thread.check()
        let name = key.stringValue
        let role = context.role(of: T.self)
        switch ReservedMember(name) {
        case .id, .lid, .type:
            let json = try context.jsonValue(of: value)
            let text: String? =
                switch json {
                case .string(let string): string
                case .int(let integer): String(integer)
                case .number(let number): number.text
                default: nil
                }
            guard let text else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: [key], debugDescription: "\(name) must be a string"))
            }
            if name == "id" { capture.id = text } else if name == "lid" { capture.lid = text } else { capture.type = text }
            return
        case .links:
            if role.isDynamic, let links = value as? Links {
                capture.links = links
                return
            }
            if role.special == .links {
                capture.links = try reinterpret(value, as: Links.self)
                return
            }
        case .meta:
            if role.isDynamic, let meta = value as? Meta {
                capture.meta = meta
                return
            }
            if role.isMeta {
                capture.meta = try reinterpret(value, as: Meta.self)
                return
            }
        default: break
        }
        guard role.isDynamic else {
            switch role.relation {
            case .resource(let type):
                let relationship = Relationship(data: .toOne(try Self.link(value, as: type, in: context)))
                capture.relationships.append(CapturedRelationship(name: context.wireName(name), value: relationship))
            case .polymorphic(let type):
                let model = try Self.polymorphic(value, as: type).resource
                let relationship = Relationship(data: .toOne(try context.link(model)))
                capture.relationships.append(CapturedRelationship(name: context.wireName(name), value: relationship))
            case .relationship(let type):
                let relationship = try Self.relationship(value, as: type).relationship(in: context)
                capture.relationships.append(CapturedRelationship(name: context.wireName(name), value: relationship))
            case .none:
                append(key, try context.jsonValue(of: value))
            }
            return
        }
        if let model = value as? any Resource {
            let relationship = Relationship(data: .toOne(try context.link(model)))
            capture.relationships.append(CapturedRelationship(name: context.wireName(name), value: relationship))
        } else if let polymorphic = value as? any PolymorphicResource {
            let relationship = Relationship(data: .toOne(try context.link(polymorphic.resource)))
            capture.relationships.append(CapturedRelationship(name: context.wireName(name), value: relationship))
        } else if let relationship = value as? any RelationshipEncodable, Self.isRelationship(value) {
            let relationship = try relationship.relationship(in: context)
            capture.relationships.append(CapturedRelationship(name: context.wireName(name), value: relationship))
        } else {
            append(key, try context.jsonValue(of: value))
        }
    }

    // The value linked as the model type its role names (its type is that type: no cast, no existential box).
    private static func link<T, R: Resource>(_ value: T, as type: R.Type, in context: ResourceEncodingContext) throws
        -> ResourceIdentifier
    {
        try context.link(reinterpret(value, as: R.self))
    }

    private static func polymorphic<T, P: PolymorphicResource>(_ value: T, as type: P.Type) throws
        -> any PolymorphicResource
    {
        try reinterpret(value, as: P.self)
    }

    private static func relationship<T, R: RelationshipEncodable>(_ value: T, as type: R.Type) throws
        -> any RelationshipEncodable
    {
        try reinterpret(value, as: R.self)
    }

    /// Arrays are relationships only when they hold resources or identifiers.
    private static func isRelationship(_ value: Any) -> Bool {
        guard let array = value as? any Collection else { return true }
        return type(of: array).isRelationshipArray
    }

    // On another thread, the nested containers and encoders write into storage of their own (nothing of the
    // model's is touched), whose first write throws (`EncodingThread`).

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let storage = ValueStorage()
        if context.thread.isCurrent { deferred(key, storage) }
        return ValueEncoder(context: context, storage: storage).container(keyedBy: keyType)
    }

    private func deferred(_ key: Key, _ storage: ValueStorage) {
        capture.deferred.append(DeferredAttribute(name: context.wireName(key.stringValue), storage: storage))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let storage = ValueStorage()
        if context.thread.isCurrent { deferred(key, storage) }
        return ValueEncoder(context: context, storage: storage).unkeyedContainer()
    }

    func superEncoder() -> any Encoder { ResourceObjectEncoder(context: context, capture: capture) }

    func superEncoder(forKey key: Key) -> any Encoder {
        let storage = ValueStorage()
        if context.thread.isCurrent { deferred(key, storage) }
        return ValueEncoder(context: context, storage: storage)
    }
}

extension Collection {
    static var isRelationshipArray: Bool {
        Element.self is any Resource.Type || Element.self is any PolymorphicResource.Type
            || Element.self == ResourceIdentifier.self
    }
}

/// The property names a resource's encoding treats specially.
enum ReservedMember {
    case id, lid, type, links, meta, other

    /// Compares the length first: `==` on strings that differ goes the slow way round (canonical equivalence), and
    /// most names are attributes that match none of these. (No other text is canonically equivalent to these ASCII
    /// names, so comparing lengths first changes no answer.)
    init(_ name: String) {
        // The first byte too: `==` on strings of equal length that differ is still the slow comparison.
        switch (name.utf8.count, name.utf8.first) {
        case (2, UInt8(ascii: "i")) where name == "id": self = .id
        case (3, UInt8(ascii: "l")) where name == "lid": self = .lid
        case (4, UInt8(ascii: "t")) where name == "type": self = .type
        case (4, UInt8(ascii: "m")) where name == "meta": self = .meta
        case (5, UInt8(ascii: "l")) where name == "links": self = .links
        default: self = .other
        }
    }
}
