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
        KeyedEncodingContainer(ResourceEncodingContainer<Key>(context: context, capture: capture))
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
        if let model = value as? any Resource, capture.type == nil { capture.type = type(of: model).resourceType }
        if let polymorphic = value as? any PolymorphicResource, capture.type == nil {
            capture.type = type(of: polymorphic.resource).resourceType
        }
        try value.encode(to: ResourceObjectEncoder(context: context, capture: capture))
    }
}

struct ResourceEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let context: ResourceEncodingContext
    let capture: ResourceCapture
    var codingPath: [any CodingKey] { [] }

    private func attribute(_ key: Key, _ value: JSONValue) {
        capture.attributes[context.wireName(key.stringValue)] = value
    }

    func encodeNil(forKey key: Key) throws {
        switch key.stringValue {
        case "id", "lid", "type": return
        default: attribute(key, .null)
        }
    }

    func encode(_ value: Bool, forKey key: Key) throws { attribute(key, .bool(value)) }
    func encode(_ value: String, forKey key: Key) throws {
        switch key.stringValue {
        case "id": capture.id = value
        case "lid": capture.lid = value
        case "type": capture.type = value
        default: attribute(key, .string(value))
        }
    }
    func encode(_ value: Double, forKey key: Key) throws { attribute(key, .double(value)) }
    func encode(_ value: Float, forKey key: Key) throws { attribute(key, .double(Double(value))) }
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
        if key.stringValue == "id" { capture.id = String(value) } else { attribute(key, .int(value)) }
    }

    private func unsigned(_ value: UInt64, _ key: Key) throws {
        if key.stringValue == "id" {
            capture.id = String(value)
        } else {
            attribute(key, Int64(exactly: value).map(JSONValue.int) ?? .double(Double(value)))
        }
    }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let name = key.stringValue
        switch name {
        case "id", "lid", "type":
            let json = try context.jsonValue(of: value)
            let text: String? =
                switch json {
                case .string(let string): string
                case .int(let integer): String(integer)
                default: nil
                }
            guard let text else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: [key], debugDescription: "\(name) must be a string"))
            }
            if name == "id" { capture.id = text } else if name == "lid" { capture.lid = text } else { capture.type = text }
            return
        case "links":
            if let links = value as? Links {
                capture.links = links
                return
            }
        case "meta":
            if let meta = value as? Meta {
                capture.meta = meta
                return
            }
        default: break
        }
        if let model = value as? any Resource {
            capture.relationships[context.wireName(name)] = Relationship(data: .toOne(try context.link(model)))
        } else if let polymorphic = value as? any PolymorphicResource {
            capture.relationships[context.wireName(name)] = Relationship(
                data: .toOne(try context.link(polymorphic.resource)))
        } else if let relationship = value as? any RelationshipEncodable, Self.isRelationship(value) {
            capture.relationships[context.wireName(name)] = try relationship.relationship(in: context)
        } else {
            attribute(key, try context.jsonValue(of: value))
        }
    }

    /// Arrays are relationships only when they hold resources or identifiers.
    private static func isRelationship(_ value: Any) -> Bool {
        guard let array = value as? any Collection else { return true }
        return type(of: array).isRelationshipArray
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let storage = ValueStorage()
        capture.deferred.append((context.wireName(key.stringValue), storage))
        return ValueEncoder(context: context, storage: storage).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let storage = ValueStorage()
        capture.deferred.append((context.wireName(key.stringValue), storage))
        return ValueEncoder(context: context, storage: storage).unkeyedContainer()
    }

    func superEncoder() -> any Encoder { ResourceObjectEncoder(context: context, capture: capture) }

    func superEncoder(forKey key: Key) -> any Encoder {
        let storage = ValueStorage()
        capture.deferred.append((context.wireName(key.stringValue), storage))
        return ValueEncoder(context: context, storage: storage)
    }
}

extension Collection {
    static var isRelationshipArray: Bool {
        Element.self is any Resource.Type || Element.self is any PolymorphicResource.Type
            || Element.self == ResourceIdentifier.self
    }
}
