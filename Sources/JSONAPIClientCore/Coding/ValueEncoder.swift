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

    // On another thread than the encode's, a container writes into storage of its own, whose first write throws
    // (`EncodingThread`).
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let storage = context.thread.isCurrent ? storage : ValueStorage()
        if case .object = storage.content {} else { storage.content = .object([:]) }
        return KeyedEncodingContainer(ValueKeyedContainer<Key>(context: context, storage: storage))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let storage = context.thread.isCurrent ? storage : ValueStorage()
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

    private func set(_ key: Key, _ value: JSONValue) throws {
        try context.thread.check()
        storage.set(context.wireName(key.stringValue), .value(value))
    }

    func encodeNil(forKey key: Key) throws { try set(key, .null) }
    func encode(_ value: Bool, forKey key: Key) throws { try set(key, .bool(value)) }
    func encode(_ value: String, forKey key: Key) throws { try set(key, .string(value)) }
    func encode(_ value: Double, forKey key: Key) throws { try set(key, .double(value)) }
    func encode(_ value: Float, forKey key: Key) throws { try set(key, .double(Double(value))) }
    func encode(_ value: Int, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: Int8, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: Int16, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: Int32, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: Int64, forKey key: Key) throws { try set(key, .int(value)) }
    func encode(_ value: UInt, forKey key: Key) throws { try set(key, unsignedValue(UInt64(value))) }
    func encode(_ value: UInt8, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: UInt16, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: UInt32, forKey key: Key) throws { try set(key, .int(Int64(value))) }
    func encode(_ value: UInt64, forKey key: Key) throws { try set(key, unsignedValue(value)) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try context.thread.check()
        storage.set(context.wireName(key.stringValue), try context.node(value))
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ValueStorage()
        if context.thread.isCurrent { storage.set(context.wireName(key.stringValue), .nested(nested)) }
        return ValueEncoder(context: context, storage: nested).container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ValueStorage()
        if context.thread.isCurrent { storage.set(context.wireName(key.stringValue), .nested(nested)) }
        return ValueEncoder(context: context, storage: nested).unkeyedContainer()
    }
    func superEncoder() -> any Encoder { superEncoder(named: "super") }
    func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: context.thread.isCurrent ? context.wireName(key.stringValue) : key.stringValue)
    }
    private func superEncoder(named name: String) -> any Encoder {
        let nested = ValueStorage()
        if context.thread.isCurrent { storage.set(name, .nested(nested)) }
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

    private func append(_ value: JSONValue) throws {
        try context.thread.check()
        storage.append(.value(value))
    }

    mutating func encodeNil() throws { try append(.null) }
    mutating func encode(_ value: Bool) throws { try append(.bool(value)) }
    mutating func encode(_ value: String) throws { try append(.string(value)) }
    mutating func encode(_ value: Double) throws { try append(.double(value)) }
    mutating func encode(_ value: Float) throws { try append(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { try append(.int(value)) }
    mutating func encode(_ value: UInt) throws { try append(unsignedValue(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { try append(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { try append(unsignedValue(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try context.thread.check()
        storage.append(try context.node(value))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = ValueStorage()
        if context.thread.isCurrent { storage.append(.nested(nested)) }
        return ValueEncoder(context: context, storage: nested).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ValueStorage()
        if context.thread.isCurrent { storage.append(.nested(nested)) }
        return ValueEncoder(context: context, storage: nested).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        let nested = ValueStorage()
        if context.thread.isCurrent { storage.append(.nested(nested)) }
        return ValueEncoder(context: context, storage: nested)
    }
}

struct ValueSingleContainer: SingleValueEncodingContainer {
    let context: ResourceEncodingContext
    let storage: ValueStorage
    var codingPath: [any CodingKey] { [] }

    private func set(_ value: JSONValue) throws {
        try context.thread.check()
        storage.content = .single(value)
    }

    mutating func encodeNil() throws { try set(.null) }
    mutating func encode(_ value: Bool) throws { try set(.bool(value)) }
    mutating func encode(_ value: String) throws { try set(.string(value)) }
    mutating func encode(_ value: Double) throws { try set(.double(value)) }
    mutating func encode(_ value: Float) throws { try set(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { try set(.int(value)) }
    mutating func encode(_ value: UInt) throws { try set(unsignedValue(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: UInt16) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: UInt32) throws { try set(.int(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { try set(unsignedValue(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try context.thread.check()
        switch try context.node(value) {
        case .value(let json): storage.content = .single(json)
        case .nested(let nested): storage.content = nested.content
        }
    }
}
