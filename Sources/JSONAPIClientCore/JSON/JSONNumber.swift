/// A JSON number kept as its text: what ``JSONValue/number(_:)`` holds for a number that neither `Int64` nor `Double`
/// holds exactly.
///
/// `1e400` is beyond `Double`'s range, `123456789012345678901234567890` beyond `Int64`'s, and
/// `12345678901234567.89` has more digits than a `Double` keeps; read into either, each would change. A `JSONNumber`
/// keeps the text, so the value is written back exactly as it was read.
///
/// ```swift
/// let price = JSONNumber("12345678901234567.89")   // nil for text that is not a JSON number
/// let value = JSONValue(price!)                      // .number, since no Double holds it exactly
/// ```
///
/// Two numbers are equal when they denote the same decimal value (`1e400 == 10e399`), whatever their spelling.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    // The text alone, so that a `JSONValue` stays as small as its string case; the rare uses that need the value
    // (comparing, hashing, converting) read it from the text.
    /// The number as written, in JSON's grammar (e.g. `1e400`).
    public let text: String

    /// The number `text` denotes; `nil` when `text` is not a number in JSON's grammar
    /// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, no spaces).
    ///
    /// - Parameter text: The number's text, e.g. `"1.5e3"`.
    public init?(_ text: String) {
        var text = text
        let valid = text.withUTF8 { JSONNumber.isValid(BorrowedBytes($0)) }
        guard valid else { return nil }
        self.text = text
    }

    /// A number whose text is known to be valid (the parser or the library wrote it).
    init(validated text: String) { self.text = text }

    /// The text, as written.
    public var description: String { text }

    /// The value as an `Int`, when it is a whole number within `Int`'s range (`2.5e1` is 25); otherwise `nil`.
    public var intValue: Int? { DecimalText.reading(text) { $0?.integer(as: Int.self) } }

    /// The nearest `Double`; `nil` when the magnitude is beyond `Double`'s range (a tiny magnitude gives `0`).
    public var doubleValue: Double? {
        guard let double = Double(text), double.isFinite else { return nil }
        return double
    }

    /// Whether two numbers denote the same decimal value. (A number whose exponent is beyond `Int` equals only the
    /// same text.)
    ///
    /// - Parameters:
    ///   - lhs: A number.
    ///   - rhs: Another number.
    /// - Returns: Whether their decimal values are equal (`1500` and `1.5e3` are).
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.text == rhs.text || DecimalText.sameValue(lhs.text, rhs.text)
    }

    /// Hashes the decimal value, consistently with `==`.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        DecimalText.reading(text) { value in
            if let value { value.hash(into: &hasher) } else { hasher.combine(text) }
        }
    }

    /// Whether `utf8` is a number in JSON's grammar (exponents of any size allowed).
    static func isValid(_ utf8: BorrowedBytes) -> Bool {
        let n = utf8.count
        var i = 0
        func digits() -> Bool {
            let start = i
            while i < n, utf8[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            return i > start
        }
        if i < n, utf8[i] == UInt8(ascii: "-") { i += 1 }
        if i < n, utf8[i] == UInt8(ascii: "0") {
            i += 1
        } else if !digits() {
            return false
        }
        if i < n, utf8[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() else { return false }
        }
        if i < n, utf8[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n, utf8[i] == UInt8(ascii: "+") || utf8[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() else { return false }
        }
        return i == n
    }
}
