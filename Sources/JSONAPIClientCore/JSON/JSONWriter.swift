import Foundation

/// Appends JSON text to a byte buffer it owns.
///
/// The primitives write one token each and leave separators to the caller (``append(_:)``, ``writeRaw(_:)``);
/// ``write(_:sortedKeys:)`` and ``writePretty(_:indent:)`` write whole values.
///
/// The buffer is raw memory rather than an `[UInt8]`: an array checks that it is uniquely referenced and has room on
/// every append, and a document is hundreds of thousands of small appends (a tenth of encoding one went there).
/// Non-copyable, so that nothing can share the buffer behind a writer's back.
struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The JSON text written so far (UTF-8), copied.
    var bytes: [UInt8] { withBytes { $0.array } }

    /// The JSON text written so far, as `Data` (one copy).
    var data: Data { withBytes { $0.data } }

    /// The JSON text as `Data` that takes over the writer's memory (no copy).
    consuming func takeData() -> Data {
        let (base, count) = (self.base, self.count)
        discard self
        guard count > 0 else {
            base.deallocate()
            return Data()
        }
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    /// Calls `body` with the text written so far.
    func withBytes<R>(_ body: (BorrowedBytes) throws -> R) rethrows -> R {
        try body(BorrowedBytes(UnsafeBufferPointer(start: base, count: count)))
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count &+ extra > capacity { grow(to: count + extra) }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let old = base
        base = .allocate(capacity: newCapacity)
        base.initialize(from: old, count: count)
        old.deallocate()
        capacity = newCapacity
    }

    /// Appends one byte, e.g. `{`, `,` or `:`.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// Appends `bytes` as they are (JSON text, or a string's body that needs no escaping).
    @inline(__always)
    mutating func append(_ bytes: BorrowedBytes) {
        reserve(bytes.count)
        count &+= bytes.copy(to: base + count)
    }

    /// Appends the bytes `range` of `other`'s text.
    mutating func append(_ range: Range<Int>, of other: borrowing JSONWriter) {
        other.withBytes { append($0[range]) }
    }

    // MARK: Primitives

    /// Writes `string` quoted. Escapes `"`, `\` and the control characters U+0000–U+001F (as `\n`, `\r`, `\t`, `\b`,
    /// `\f`, otherwise `\u00XX`); everything else, `/` and non-ASCII included, is written as is (UTF-8).
    mutating func writeString(_ string: String) {
        // In place when it can be: a copy for `withUTF8` is retained and released.
        BorrowedBytes.lending(string) { writeEscaped($0) }
    }

    /// Writes the UTF-8 text `utf8` quoted and escaped like ``writeString(_:)``.
    mutating func writeEscaped(_ utf8: BorrowedBytes) {
        append(UInt8(ascii: "\""))
        var runStart = 0
        var i = 0
        let n = utf8.count
        while i < n {
            // Eight bytes at a time while none needs escaping (non-ASCII bytes never do).
            while i &+ 8 <= n {
                let w = utf8.word(at: i)
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
            guard i < n else { break }
            let c = utf8[i]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                i &+= 1
                continue
            }
            if runStart < i { append(utf8[runStart..<i]) }
            append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): append(c)
            case 0x0A: append(UInt8(ascii: "n"))
            case 0x0D: append(UInt8(ascii: "r"))
            case 0x09: append(UInt8(ascii: "t"))
            case 0x08: append(UInt8(ascii: "b"))
            case 0x0C: append(UInt8(ascii: "f"))
            default:
                let hexDigits: StaticString = "0123456789abcdef"
                let digits = hexDigits.utf8Start
                append(UInt8(ascii: "u"))
                append(UInt8(ascii: "0"))
                append(UInt8(ascii: "0"))
                append(digits[Int(c >> 4)])
                append(digits[Int(c & 0xF)])
            }
            i &+= 1
            runStart = i
        }
        if runStart < n { append(utf8[runStart..<n]) }
        append(UInt8(ascii: "\""))
    }

    mutating func writeInt(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // At most 20 digits: written backwards at the end of room for 20, then moved to the front of it.
        reserve(20)
        let end = count &+ 20
        var i = end
        while magnitude > 0 {
            i &-= 1
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
            base[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remainder)
            magnitude = quotient
        }
        (base + count).update(from: base + i, count: end &- i)  // the regions may overlap: `update` allows it
        count &+= end &- i
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
        let isFloating = text.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        text.withUTF8 { append(BorrowedBytes($0)) }
        if !isFloating { writeRaw(".0") }
    }

    /// Writes a number's text verbatim (it is valid JSON: ``JSONNumber`` checks it).
    mutating func writeNumber(_ number: JSONNumber) {
        var text = number.text
        text.withUTF8 { append(BorrowedBytes($0)) }
    }

    mutating func writeBool(_ value: Bool) {
        if value { writeRaw("true") } else { writeRaw("false") }
    }

    mutating func writeNull() { writeRaw("null") }

    /// Appends `ascii` as is, e.g. `{`, `,` or a literal fragment.
    mutating func writeRaw(_ ascii: StaticString) {
        if ascii.hasPointerRepresentation {
            BorrowedBytes.lending(ascii) { append($0) }
        } else {
            // A single Unicode scalar.
            var scalarText = String(ascii.unicodeScalar)
            scalarText.withUTF8 { append(BorrowedBytes($0)) }
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
            append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                write(element, sortedKeys: sortedKeys)
            }
            append(UInt8(ascii: "]"))
        case .object(let members):
            append(UInt8(ascii: "{"))
            var first = true
            func member(_ key: String, _ memberValue: JSONValue) {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                writeString(key)
                append(UInt8(ascii: ":"))
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
            append(UInt8(ascii: "}"))
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
        append(0x0A)
        for _ in 0..<spaces { append(UInt8(ascii: " ")) }
    }

    private mutating func writePretty(_ value: JSONValue, indent: Int, level: Int) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { append(UInt8(ascii: ",")) }
                newline(indent * (level + 1))
                writePretty(element, indent: indent, level: level + 1)
            }
            newline(indent * level)
            append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            append(UInt8(ascii: "{"))
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { append(UInt8(ascii: ",")) }
                newline(indent * (level + 1))
                writeString(key)
                writeRaw(": ")
                writePretty(members[key] ?? .null, indent: indent, level: level + 1)
            }
            newline(indent * level)
            append(UInt8(ascii: "}"))
        default:
            write(value, sortedKeys: true)
        }
    }
}
