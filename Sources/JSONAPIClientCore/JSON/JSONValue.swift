import Foundation

/// Any JSON value: what `attributes`, `meta` and unknown members hold in the schema-less layer.
///
/// Numbers keep the form they were written in: `1` is ``int(_:)`` and `1.0` is ``double(_:)``, so a value read and
/// written again means the same to the server.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in 64 bits.
    case int(Int64)
    /// A number with a fraction or exponent, or an integer too large for `Int64`.
    case double(Double)
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
    /// The integer, when this is an integer, or a floating-point number with an exact integer value.
    public var intValue: Int? {
        switch self {
        case .int(let value): Int(exactly: value)
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }
    /// The number as a `Double`, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
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
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
    /// The element at `index` of an array; `nil` for other values or an index out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `nil` is JSON `null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` and `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal is an ``int(_:)``.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A floating-point literal is a ``double(_:)``, even when its value is whole.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object; of repeated keys the last wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
