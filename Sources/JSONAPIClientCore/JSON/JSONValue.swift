import Foundation

/// Any JSON value: what `attributes`, `meta` and unknown members hold in the schema-less layer.
///
/// Numbers keep their value and the form they were written in: `1` is ``int(_:)``, `1.0` is ``double(_:)``, and a
/// number that neither `Int64` nor `Double` holds exactly (`1e400`, `123456789012345678901234567890`,
/// `12345678901234567.89`) is ``number(_:)``, its text kept as written. A value read and written again means the same
/// to the server.
///
/// The cases compare as written: `.int(1)` is not `.double(1.0)`. The decoder and encoder always choose the first
/// case that holds a number exactly (``int(_:)``, then ``double(_:)``, then ``number(_:)``), as ``init(_:)`` does.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in 64 bits.
    case int(Int64)
    /// A number with a fraction or exponent, or an integer beyond `Int64`, that a `Double` holds exactly: reading the
    /// text and writing the double's shortest form gives the same value (`0.1`, `1.5e3`, `1e308`).
    case double(Double)
    /// A number that neither ``int(_:)`` nor ``double(_:)`` holds exactly, kept as its text and written back verbatim.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order does not count.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, when this is a number with an exact integer value that `Int` holds (`2.0` and `1e2` count,
    /// `1.5` and `1e30` do not).
    public var intValue: Int? {
        switch self {
        case .int(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        case .number(let number): number.intValue
        default: nil
        }
    }
    /// The number as a `Double`, when this is a number: the nearest one, `nil` for a ``number(_:)`` beyond `Double`'s
    /// range.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .number(let number): number.doubleValue
        default: nil
        }
    }
    /// The Boolean, when this is one.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object; `nil` for other values or a missing member.
    ///
    /// - Parameter key: The member's name.
    /// - Returns: The member's value, or `nil`.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
    /// The element at `index` of an array; `nil` for other values or an index out of range.
    ///
    /// - Parameter index: The element's position, from 0.
    /// - Returns: The element, or `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is JSON `null`.
    ///
    /// - Parameter nilLiteral: The literal `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` and `false`.
    ///
    /// - Parameter value: The Boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is an ``int(_:)``.
    ///
    /// - Parameter value: The integer.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal is a ``double(_:)``, even when its value is whole. (Swift reads a literal as a
    /// `Double` first: write a number with more digits than that keeps as `JSONValue(JSONNumber("…")!)`.)
    ///
    /// - Parameter value: The number.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    ///
    /// - Parameter value: The string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    ///
    /// - Parameter elements: The elements, in order.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object; of repeated keys the last wins.
    ///
    /// - Parameter elements: The members' names and values.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// The number `number` denotes, in the case that holds it exactly: ``int(_:)`` when it is written as an integer
    /// that `Int64` holds, else ``double(_:)`` when a `Double` holds it exactly, else ``number(_:)``.
    ///
    /// `-0` is `.int(0)` (an integer has no negative zero); `-0.0` is `.double(-0.0)`.
    ///
    /// - Parameter number: A number in JSON's grammar, kept as written.
    public init(_ number: JSONNumber) { self.init(numberText: number.text) }

    /// The value of the number `text`, which is in JSON's grammar.
    init(numberText text: String) {
        let isInteger = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        if isInteger, let integer = Int64(text) {
            self = .int(integer)
        } else if let double = DecimalText.exactDouble(text) {
            self = .double(double)
        } else {
            self = .number(JSONNumber(validated: text))
        }
    }
}
