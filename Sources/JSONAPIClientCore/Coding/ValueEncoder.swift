/// A value being encoded: filled in by containers, read when the encoding is done.
final class ValueStorage {
    enum Content {
        case single(JSONValue)
        case object([String: Node])
        case array([Node])
    }
    enum Node {
        case value(JSONValue)
        case nested(ValueStorage)
        var value: JSONValue {
            switch self {
            case .value(let value): value
            case .nested(let storage): storage.value
            }
        }
    }

    var content: Content = .single(.object([:]))

    var value: JSONValue {
        switch content {
        case .single(let value): value
        case .object(let members): .object(members.mapValues(\.value))
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    func set(_ key: String, _ node: Node) {
        if case .object(var members) = content {
            content = .single(.null)  // release the old buffer so the dictionary is uniquely referenced
            members[key] = node
            content = .object(members)
        } else {
            content = .object([key: node])
        }
    }

    func append(_ node: Node) {
        if case .array(var elements) = content {
            content = .single(.null)
            elements.append(node)
            content = .array(elements)
        } else {
            content = .array([node])
        }
    }

    var count: Int {
        switch content {
        case .single: 0
        case .object(let members): members.count
        case .array(let elements): elements.count
        }
    }
}

/// Encodes plain values (attributes, meta) into JSON values.
struct ValueEncoder: Encoder {
    let context: ResourceEncodingContext
    let storage: ValueStorage

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = storage.content {} else { storage.content = .object([:]) }
        return KeyedEncodingContainer(ValueKeyedContainer<Key>(context: context, storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = storage.content {} else { storage.content = .array([]) }
        return ValueUnkeyedContainer(context: context, storage: storage)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ValueSingleContainer(context: context, storage: storage)
    }
}

extension ResourceEncodingContext {
    /// The node for a value: simple values directly, others through their own encoding.
    func node<T: Encodable>(_ value: T) throws -> ValueStorage.Node {
        let role = role(of: T.self)
        if role.isDynamic {
            if let special = try specialValue(value) { return .value(special) }
        } else if let special = role.special {
            return .value(try specialValue(value, special))
        } else if role.isStringArray {
            return .value(.array(try reinterpret(value, as: [String].self).map(JSONValue.string)))
        }
        let storage = ValueStorage()
        try value.encode(to: ValueEncoder(context: self, storage: storage))
        return .nested(storage)
    }
}

struct ValueKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let context: ResourceEncodingContext
    let storage: ValueStorage
    var codingPath: [any CodingKey] { [] }

    private func set(_ key: Key, _ value: JSONValue) { storage.set(context.wireName(key.stringValue), .value(value)) }

    func encodeNil(forKey key: Key) throws { set(key, .null) }
    func encode(_ value: Bool, forKey key: Key) throws { set(key, .bool(value)) }
    func encode(_ value: String, forKey key: Key) throws { set(key, .string(value)) }
    func encode(_ value: Double, forKey key: Key) throws { set(key, .double(value)) }
    func encode(_ value: Float, forKey key: Key) throws { set(key, .double(Double(value))) }
    func encode(_ value: Int, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: Int8, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: Int16, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: Int32, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: Int64, forKey key: Key) throws { set(key, .int(value)) }
    func encode(_ value: UInt, forKey key: Key) throws { set(key, unsignedValue(UInt64(value))) }
    func encode(_ value: UInt8, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: UInt16, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: UInt32, forKey key: Key) throws { set(key, .int(Int64(value))) }
    func encode(_ value: UInt64, forKey key: Key) throws { set(key, unsignedValue(value)) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        storage.set(context.wireName(key.stringValue), try context.node(value))
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ValueStorage()
        storage.set(context.wireName(key.stringValue), .nested(nested))
        return ValueEncoder(context: context, storage: nested).container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ValueStorage()
        storage.set(context.wireName(key.stringValue), .nested(nested))
        return ValueEncoder(context: context, storage: nested).unkeyedContainer()
    }
    func superEncoder() -> any Encoder { superEncoder(named: "super") }
    func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: context.wireName(key.stringValue)) }
    private func superEncoder(named name: String) -> any Encoder {
        let nested = ValueStorage()
        storage.set(name, .nested(nested))
        return ValueEncoder(context: context, storage: nested)
    }
}

/// An unsigned integer: ``JSONValue/int(_:)`` when `Int64` holds it, else its digits (never a rounded `Double`).
func unsignedValue(_ value: UInt64) -> JSONValue {
    if let integer = Int64(exactly: value) { return .int(integer) }
    let text = String(value)
    return .number(JSONNumber(validated: text))
}

struct ValueUnkeyedContainer: UnkeyedEncodingContainer {
    let context: ResourceEncodingContext
    let storage: ValueStorage
    var codingPath: [any CodingKey] { [] }
    var count: Int { storage.count }

    private func append(_ value: JSONValue) { storage.append(.value(value)) }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(.double(value)) }
    mutating func encode(_ value: Float) throws { append(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { append(.int(value)) }
    mutating func encode(_ value: UInt) throws { append(unsignedValue(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { append(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { append(unsignedValue(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { storage.append(try context.node(value)) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ValueStorage()
        storage.append(.nested(nested))
        return ValueEncoder(context: context, storage: nested).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ValueStorage()
        storage.append(.nested(nested))
        return ValueEncoder(context: context, storage: nested).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        let nested = ValueStorage()
        storage.append(.nested(nested))
        return ValueEncoder(context: context, storage: nested)
    }
}

struct ValueSingleContainer: SingleValueEncodingContainer {
    let context: ResourceEncodingContext
    let storage: ValueStorage
    var codingPath: [any CodingKey] { [] }

    private func set(_ value: JSONValue) { storage.content = .single(value) }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(.double(value)) }
    mutating func encode(_ value: Float) throws { set(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { set(.int(value)) }
    mutating func encode(_ value: UInt) throws { set(unsignedValue(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { set(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { set(unsignedValue(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        switch try context.node(value) {
        case .value(let json): set(json)
        case .nested(let nested): storage.content = nested.content
        }
    }
}
