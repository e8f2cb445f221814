import Foundation

/// The `Decoder` your models see: a resource appears flattened (`id`, `type`, attributes and relationships side by
/// side), relationships resolve through the document, and everything else reads like plain JSON.
struct ResourceDecoder: Decoder {
    let context: ResourceDecodingContext
    let position: TapePosition

    var codingPath: [any CodingKey] { context.thread.isCurrent ? context.codingPath(to: position.index) : [] }
    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try context.thread.check()
        switch position {
        case .resource(let index):
            try context.expectKind(.object, at: index, "a resource object")
            return context.resourceContainer(keyedBy: Key.self, at: index)
        case .linked(let index):
            let resolved = context.resolve(index) ?? index
            try context.expectKind(.object, at: resolved, "a resource object")
            return context.resourceContainer(keyedBy: Key.self, at: resolved)
        case .value(let index), .resources(let index), .relationship(let index):
            try context.expectKind(.object, at: index, "an object")
            return context.objectContainer(keyedBy: Key.self, at: index)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try context.thread.check()
        switch position {
        case .resources(let index): return ArrayContainer(context: context, index: index, linked: true)
        default:
            try context.expectKind(.array, at: position.index, "an array")
            return ArrayContainer(context: context, index: position.index, linked: false)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try context.thread.check()
        return SingleValueContainer(context: context, position: position)
    }
}

extension ResourceDecodingContext {
    func expectKind(_ kind: JSONTape.Kind, at index: Int, _ expected: String) throws {
        guard tape.kind(index) == kind else {
            throw DecodingError.typeMismatch(Any.self, failure(at: index, expected: expected))
        }
    }

    // MARK: Primitives

    func decodeBool(at index: Int) throws -> Bool {
        switch tape.kind(index) {
        case .true: return true
        case .false: return false
        default: throw DecodingError.typeMismatch(Bool.self, failure(at: index, expected: "a Boolean"))
        }
    }

    func decodeString(at index: Int) throws -> String {
        guard tape.kind(index) == .string else {
            throw DecodingError.typeMismatch(String.self, failure(at: index, expected: "a string"))
        }
        return tape.string(index)
    }

    /// An integer; `lenientText` also accepts one written as a string (ids are strings on the wire).
    ///
    /// A number written with a fraction or exponent is read when its value is a whole number `T` holds (`1.0`,
    /// `1e2`); `1.5`, `1e-400` and `1e30` (for `Int`) are errors, never rounded or truncated.
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, at index: Int, lenientText: Bool = false) throws -> T {
        if tape.kind(index) == .number, let value = tape.int64(index) {
            // `T(exactly:)` without its `Optional<T>`, whose metadata the runtime would look up on every call.
            let exact = T(truncatingIfNeeded: value)
            if Int64(truncatingIfNeeded: exact) == value, (exact < 0) == (value < 0) { return exact }
        }
        return try decodeIntegerOtherwise(T.self, at: index, lenientText: lenientText)
    }

    /// ``decodeInteger(_:at:lenientText:)`` for what is not a plain integer in `T`'s range (on a path of its own:
    /// its optionals of `T` need metadata the runtime looks up on every call).
    @inline(never)
    private func decodeIntegerOtherwise<T: FixedWidthInteger>(_ type: T.Type, at index: Int, lenientText: Bool) throws
        -> T
    {
        switch tape.kind(index) {
        case .number:
            let text = tape.numberText(index)
            if let exact = DecimalText.reading(text, { $0?.integer(as: T.self) }) { return exact }
            throw DecodingError.dataCorrupted(
                failure(at: index, code: .invalidValue, expected: "an integer that fits \(T.self)", found: text))
        case .string where lenientText:
            if let value = T(tape.string(index)) { return value }
            throw DecodingError.dataCorrupted(
                failure(at: index, code: .invalidValue, expected: "an integer id", found: "\"\(tape.string(index))\""))
        default:
            throw DecodingError.typeMismatch(T.self, failure(at: index, expected: "an integer"))
        }
    }

    /// A floating-point number: the nearest `T` (a magnitude too small for `T` gives zero); a number beyond `T`'s
    /// range is an error, never infinity.
    func decodeFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, at index: Int) throws
        -> T
    {
        guard tape.kind(index) == .number else {
            throw DecodingError.typeMismatch(T.self, failure(at: index, expected: "a number"))
        }
        if let integer = tape.int64(index), integer.magnitude < (1 << 53) { return T(integer) }
        let text = tape.numberText(index)
        guard let value = T(text), value.isFinite else {
            throw DecodingError.dataCorrupted(
                failure(at: index, code: .invalidValue, expected: "a number within the range of \(T.self)", found: text))
        }
        return value
    }

    /// A `Decimal`, read from the number's digits (never through `Double`); a number that no `Decimal` holds exactly
    /// (more than 38 significant digits, or an exponent beyond its range) is an error, never rounded.
    func decodeDecimal(at index: Int) throws -> Decimal {
        guard tape.kind(index) == .number else {
            throw DecodingError.typeMismatch(Decimal.self, failure(at: index, expected: "a number"))
        }
        let text = tape.numberText(index)
        guard let decimal = JSONNumber(validated: text).exactDecimal else {
            throw DecodingError.dataCorrupted(
                failure(at: index, code: .invalidValue, expected: "a number that Decimal holds exactly", found: text))
        }
        return decimal
    }
}

// MARK: - Resources

/// A resource object, flattened: `id`, `type` and `lid`, then attributes, then relationships, by property name.
///
/// A class, so that the standard library's box, which copies the container for every call it forwards, copies one
/// reference; and a ``ResourceCursor``, so that the context can point it at another resource and hand it out again
/// once nothing holds it (``DecodingContainerPool``).
final class ResourceContainer<Key: CodingKey>: ResourceCursor, KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey] { context.thread.isCurrent ? context.codingPath(to: index) : [] }

    var allKeys: [Key] {
        guard context.thread.isCurrent else { return [] }
        let tape = context.tape
        var names: [String] = []
        if members.id != nil { names.append("id") }
        if members.lid != nil { names.append("lid") }
        if members.type != nil { names.append("type") }
        for object in [members.attributes, members.relationships].compactMap({ $0 }) where tape.kind(object) == .object {
            var child = object + 1
            for _ in 0..<tape.count(object) {
                names.append(tape.string(child))
                child = tape.skip(child + 1)
            }
        }
        return names.compactMap { Key(stringValue: $0) }
    }

    /// Where the member for `key` is; `nil` on another thread than the decode's (see ``lookUp(_:)``).
    private func position(of key: Key) -> TapePosition? {
        guard context.thread.isCurrent else { return nil }
        return members.position(of: key.stringValue, in: context)
    }

    /// Where the member for `key` is; throws on another thread than the decode's.
    private func lookUp(_ key: Key) throws -> TapePosition? {
        try context.thread.check()
        return members.position(of: key.stringValue, in: context)
    }

    private func require(_ key: Key) throws -> TapePosition {
        guard let position = try lookUp(key) else {
            let wire = context.wireName(key.stringValue)
            throw DecodingError.keyNotFound(
                key,
                context.failure(
                    at: members.attributes ?? index, member: wire, code: .missingMember,
                    expected: "member \"\(wire)\"",
                    detail: "the resource has no attribute or relationship of that name"))
        }
        return position
    }

    /// The value index of a plain member; relationships are not plain values.
    private func valueIndex(_ key: Key) throws -> Int {
        let position = try require(key)
        guard case .value(let valueIndex) = position else {
            throw DecodingError.typeMismatch(
                Any.self,
                context.failure(at: position.index, expected: "an attribute", found: "a relationship"))
        }
        return valueIndex
    }

    func contains(_ key: Key) -> Bool { position(of: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        switch try require(key) {
        case .relationship(let relationship):
            guard let data = ResourceMembers.data(of: relationship, in: context.tape) else { return true }
            return context.tape.kind(data) == .null
        case let position:
            return context.tape.kind(position.index) == .null
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try context.decodeBool(at: valueIndex(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let index = try valueIndex(key)
        // Only the key `id` finds the `id` member (attributes named `id` are not allowed).
        if index == members.id { return try DocumentReader.identifierString(index, in: context.tape) }
        return try context.decodeString(at: index)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try context.decodeFloatingPoint(type, at: valueIndex(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try context.decodeFloatingPoint(type, at: valueIndex(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        let index = try valueIndex(key)
        return try context.decodeInteger(type, at: index, lenientText: index == members.id)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(type, at: require(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let position = try lookUp(key) else { return nil }
        if case .relationship = position { return try context.decodeIfResolvable(type, at: position) }
        if context.tape.kind(position.index) == .null { return nil }
        return try context.decode(type, at: position)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let position = try lookUp(key), context.tape.kind(position.index) != .null else { return nil }
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let position = try lookUp(key), context.tape.kind(position.index) != .null else { return nil }
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let position = try lookUp(key), context.tape.kind(position.index) != .null else { return nil }
        return try decode(type, forKey: key)
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let position = try lookUp(key), context.tape.kind(position.index) != .null else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ResourceDecoder(context: context, position: require(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ResourceDecoder(context: context, position: require(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ResourceDecoder(context: context, position: .resource(index)) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ResourceDecoder(context: context, position: try require(key))
    }
}

// MARK: - Plain objects

/// A plain JSON object (inside attributes or meta).
///
/// A class, and a ``ContainerCursor``, for the same reasons as ``ResourceContainer``: the box copies one reference,
/// and the context can point it at another object and hand it out again.
final class ObjectContainer<Key: CodingKey>: ContainerCursor, KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey] { context.thread.isCurrent ? context.codingPath(to: index) : [] }

    var allKeys: [Key] {
        guard context.thread.isCurrent else { return [] }
        let tape = context.tape
        var keys: [Key] = []
        var child = index + 1
        for _ in 0..<tape.count(index) {
            if let key = Key(stringValue: tape.string(child)) { keys.append(key) }
            child = tape.skip(child + 1)
        }
        return keys
    }

    /// The value index of the member for `key`; `nil` on another thread than the decode's.
    private func valueIndex(_ key: Key) -> Int? {
        guard context.thread.isCurrent else { return nil }
        return ResourceMembers.member(context.wireName(key.stringValue), of: index, in: context.tape)
    }

    private func require(_ key: Key) throws -> Int {
        try context.thread.check()
        guard let value = valueIndex(key) else {
            let wire = context.wireName(key.stringValue)
            throw DecodingError.keyNotFound(
                key, context.failure(at: index, member: wire, code: .missingMember, expected: "member \"\(wire)\""))
        }
        return value
    }

    func contains(_ key: Key) -> Bool { valueIndex(key) != nil }
    func decodeNil(forKey key: Key) throws -> Bool { context.tape.kind(try require(key)) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try context.decodeBool(at: require(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try context.decodeString(at: require(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try context.decodeFloatingPoint(type, at: require(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try context.decodeFloatingPoint(type, at: require(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try context.decodeInteger(type, at: require(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try context.decodeInteger(type, at: require(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try context.decodeInteger(type, at: require(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try context.decodeInteger(type, at: require(key))
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(type, at: .value(require(key)))
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try context.thread.check()
        guard let value = valueIndex(key), context.tape.kind(value) != .null else { return nil }
        return try context.decode(type, at: .value(value))
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try ResourceDecoder(context: context, position: .value(require(key))).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ResourceDecoder(context: context, position: .value(require(key))).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { ResourceDecoder(context: context, position: .value(index)) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        ResourceDecoder(context: context, position: .value(try require(key)))
    }
}

// MARK: - Arrays

/// A JSON array: plain values, or (`linked`) resources and identifiers that resolve as they are read.
struct ArrayContainer: UnkeyedDecodingContainer {
    let context: ResourceDecodingContext
    let index: Int
    let linked: Bool
    private(set) var currentIndex = 0
    private var cursor: Int

    init(context: ResourceDecodingContext, index: Int, linked: Bool) {
        self.context = context
        self.index = index
        self.linked = linked
        self.cursor = index + 1
    }

    var codingPath: [any CodingKey] { context.thread.isCurrent ? context.codingPath(to: index) : [] }
    var count: Int? { context.tape.count(index) }
    var isAtEnd: Bool { currentIndex >= context.tape.count(index) }

    private mutating func next() throws -> Int {
        try context.thread.check()
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self,
                context.failure(at: index, code: .missingMember, detail: "no more elements after \(currentIndex)"))
        }
        let element = cursor
        cursor = context.tape.skip(cursor)
        currentIndex += 1
        return element
    }

    mutating func decodeNil() throws -> Bool {
        try context.thread.check()
        guard !isAtEnd, context.tape.kind(cursor) == .null else { return false }
        _ = try next()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try context.decodeBool(at: next()) }
    mutating func decode(_ type: String.Type) throws -> String { try context.decodeString(at: next()) }
    mutating func decode(_ type: Double.Type) throws -> Double { try context.decodeFloatingPoint(type, at: next()) }
    mutating func decode(_ type: Float.Type) throws -> Float { try context.decodeFloatingPoint(type, at: next()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try context.decodeInteger(type, at: next()) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try context.decodeInteger(type, at: next()) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let element = try next()
        return try context.decode(type, at: linked ? .linked(element) : .value(element))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let element = try next()
        return try ResourceDecoder(context: context, position: linked ? .linked(element) : .value(element))
            .container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try ResourceDecoder(context: context, position: .value(next())).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let element = try next()
        return ResourceDecoder(context: context, position: linked ? .linked(element) : .value(element))
    }
}

// MARK: - Single values

struct SingleValueContainer: SingleValueDecodingContainer {
    let context: ResourceDecodingContext
    let position: TapePosition

    var codingPath: [any CodingKey] { context.codingPath(to: position.index) }
    /// The value's index; throws on another thread than the decode's.
    private var index: Int {
        get throws {
            try context.thread.check()
            return position.index
        }
    }

    func decodeNil() -> Bool {
        guard context.thread.isCurrent else { return false }
        if case .relationship(let relationship) = position {
            guard let data = ResourceMembers.data(of: relationship, in: context.tape) else { return true }
            return context.tape.kind(data) == .null
        }
        return context.tape.kind(position.index) == .null
    }
    func decode(_ type: Bool.Type) throws -> Bool { try context.decodeBool(at: index) }
    func decode(_ type: String.Type) throws -> String { try context.decodeString(at: index) }
    func decode(_ type: Double.Type) throws -> Double { try context.decodeFloatingPoint(type, at: index) }
    func decode(_ type: Float.Type) throws -> Float { try context.decodeFloatingPoint(type, at: index) }
    func decode(_ type: Int.Type) throws -> Int { try context.decodeInteger(type, at: index) }
    func decode(_ type: Int8.Type) throws -> Int8 { try context.decodeInteger(type, at: index) }
    func decode(_ type: Int16.Type) throws -> Int16 { try context.decodeInteger(type, at: index) }
    func decode(_ type: Int32.Type) throws -> Int32 { try context.decodeInteger(type, at: index) }
    func decode(_ type: Int64.Type) throws -> Int64 { try context.decodeInteger(type, at: index) }
    func decode(_ type: UInt.Type) throws -> UInt { try context.decodeInteger(type, at: index) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try context.decodeInteger(type, at: index) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try context.decodeInteger(type, at: index) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try context.decodeInteger(type, at: index) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try context.decodeInteger(type, at: index) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.thread.check()
        if case .resource = position {
            // `Optional<Model>` and wrappers re-enter here: the resource is already being decoded.
            return try T(from: ResourceDecoder(context: context, position: position))
        }
        return try context.decode(type, at: position)
    }
}
