import Foundation

extension JSONValue: Codable {
    /// Reads any JSON value from any decoder (the library's own decoder reads it straight from the bytes).
    ///
    /// Another decoder does not show a number's text: a number is read as a `Decimal` (which `JSONDecoder` reads
    /// from the number's digits, where it would read `12345678901234567.89` as the `Int64` 12345678901234567), else
    /// as an `Int64`, else as a `Double`, and takes the case that holds that value exactly.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not JSON.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var members: [String: JSONValue] = [:]
            for key in container.allKeys { members[key.stringValue] = try container.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let decimal = try? container.decode(Decimal.self), let number = JSONNumber(decimal: decimal) {
            self = JSONValue(number)
        } else if let integer = try? container.decode(Int64.self) {
            self = .int(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Writes the value to any encoder (the library's own encoder writes it straight to the bytes).
    ///
    /// - Throws: `EncodingError.invalidValue` for a ``number(_:)`` that no `Decimal` holds exactly (more than 38
    ///   digits, or an exponent beyond ±128): another encoder could only write it changed. Within that range it is
    ///   written as a `Decimal`, which `JSONEncoder` writes digit for digit.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in members { try container.encode(value, forKey: AnyCodingKey(key)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let number):
            guard let decimal = number.exactDecimal else {
                throw EncodingError.invalidValue(
                    self,
                    EncodingError.Context(
                        codingPath: encoder.codingPath,
                        debugDescription: "the number \(number) has no exact form this encoder can write"))
            }
            var container = encoder.singleValueContainer()
            try container.encode(decimal)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }
}
