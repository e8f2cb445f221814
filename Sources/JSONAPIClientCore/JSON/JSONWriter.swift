/// Appends JSON text to a byte buffer.
///
/// The primitives write one token each and leave separators to the caller (``writeRaw(_:)``); ``write(_:sortedKeys:)``
/// and ``writePretty(_:indent:)`` write whole values.
struct JSONWriter {
    /// The JSON text written so far (UTF-8).
    var bytes: [UInt8]

    init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Primitives

    /// Writes `string` quoted. Escapes `"`, `\` and the control characters U+0000–U+001F (as `\n`, `\r`, `\t`, `\b`,
    /// `\f`, otherwise `\u00XX`); everything else, `/` and non-ASCII included, is written as is (UTF-8).
    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { writeEscaped($0) }
    }

    /// Writes the UTF-8 text `utf8` quoted and escaped like ``writeString(_:)``.
    mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var i = 0
        let n = utf8.count
        while i < n {
            // Eight bytes at a time while none needs escaping (non-ASCII bytes never do).
            if let base = utf8.baseAddress {
                while i &+ 8 <= n {
                    let w = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                    let q = w ^ 0x2222_2222_2222_2222
                    let b = w ^ 0x5C5C_5C5C_5C5C_5C5C
                    let m = ((q &- 0x0101_0101_0101_0101) & ~q | (b &- 0x0101_0101_0101_0101) & ~b
                        | (w &- 0x2020_2020_2020_2020) & ~w) & 0x8080_8080_8080_8080
                    if m != 0 {
                        i &+= m.trailingZeroBitCount >> 3
                        break
                    }
                    i &+= 8
                }
            }
            guard i < n else { break }
            let c = utf8[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                i &+= 1
                continue
            }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            bytes.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                let digits = hexDigits.utf8Start
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(digits[Int(c >> 4)])
                bytes.append(digits[Int(c & 0xF)])
            }
            i &+= 1
            runStart = i
        }
        if runStart < n { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<n])) }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func writeInt(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // At most 20 digits; write them backwards into a small buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var i = 20
            while magnitude > 0 {
                i &-= 1
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remainder)
                magnitude = quotient
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }

    /// Writes the shortest text that reads back as `value`, always in floating form (`1.0`, `1e-07`, `1e+100`).
    /// JSON has no NaN or infinity: those are written as `null`.
    mutating func writeDouble(_ value: Double) {
        guard value.isFinite else {
            writeNull()
            return
        }
        // Swift's description is the shortest round-trip form and valid JSON for finite values: an optional `-`,
        // digits, then `.digits` and/or `e` with a signed exponent; it always has a `.` or an `e`.
        var text = value.description
        let start = bytes.count
        text.withUTF8 { bytes.append(contentsOf: $0) }
        if !bytes[start...].contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            bytes.append(contentsOf: [UInt8(ascii: "."), UInt8(ascii: "0")])
        }
    }

    /// Writes a number's text verbatim (it is valid JSON: ``JSONNumber`` checks it).
    mutating func writeNumber(_ number: JSONNumber) {
        var text = number.text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func writeBool(_ value: Bool) {
        if value { writeRaw("true") } else { writeRaw("false") }
    }

    mutating func writeNull() { writeRaw("null") }

    /// Appends `ascii` as is, e.g. `{`, `,` or a literal fragment.
    mutating func writeRaw(_ ascii: StaticString) {
        if ascii.hasPointerRepresentation {
            bytes.append(contentsOf: UnsafeBufferPointer(start: ascii.utf8Start, count: ascii.utf8CodeUnitCount))
        } else {
            // A single Unicode scalar.
            var scalarText = String(ascii.unicodeScalar)
            scalarText.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    // MARK: Values

    /// Writes `value` compactly. Object members come in key order when `sortedKeys`, else in the dictionary's order.
    mutating func write(_ value: JSONValue, sortedKeys: Bool) {
        switch value {
        case .null: writeNull()
        case .bool(let flag): writeBool(flag)
        case .int(let integer): writeInt(integer)
        case .double(let number): writeDouble(number)
        case .number(let number): writeNumber(number)
        case .string(let text): writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                write(element, sortedKeys: sortedKeys)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            func member(_ key: String, _ memberValue: JSONValue) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                writeString(key)
                bytes.append(UInt8(ascii: ":"))
                write(memberValue, sortedKeys: sortedKeys)
            }
            if sortedKeys {
                for position in Self.sortedPositions(members) {
                    let (key, memberValue) = members[position]
                    member(key, memberValue)
                }
            } else {
                for (key, memberValue) in members { member(key, memberValue) }
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A dictionary's positions in key order: no second hash lookup per member, and no sorting for the small
    /// objects that are most of a document.
    static func sortedPositions<Value>(_ members: [String: Value]) -> [Dictionary<String, Value>.Index] {
        switch members.count {
        case 0: return []
        case 1: return [members.startIndex]
        case 2:
            let first = members.startIndex, second = members.index(after: first)
            return members[second].key < members[first].key ? [second, first] : [first, second]
        default: return members.indices.sorted(by: { members[$0].key < members[$1].key })
        }
    }

    /// Writes `value` over several lines, nested values indented by `indent` more spaces per level, object members
    /// in key order, `"key": value`, and empty containers as `[]` and `{}`. No newline at the end.
    mutating func writePretty(_ value: JSONValue, indent: Int = 2) {
        writePretty(value, indent: max(indent, 0), level: 0)
    }

    private mutating func newline(_ spaces: Int) {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: spaces))
    }

    private mutating func writePretty(_ value: JSONValue, indent: Int, level: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            bytes.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent * (level + 1))
                writePretty(element, indent: indent, level: level + 1)
            }
            newline(indent * level)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            bytes.append(UInt8(ascii: "{"))
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(indent * (level + 1))
                writeString(key)
                writeRaw(": ")
                writePretty(members[key] ?? .null, indent: indent, level: level + 1)
            }
            newline(indent * level)
            bytes.append(UInt8(ascii: "}"))
        default:
            write(value, sortedKeys: true)
        }
    }
}
