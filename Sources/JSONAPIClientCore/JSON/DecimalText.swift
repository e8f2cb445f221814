/// The exact decimal value of a number's text, read in place: what the library compares to decide whether `Int64`,
/// `Double` or `Decimal` holds a number exactly, and what ``JSONNumber`` compares and hashes.
///
/// A number is `±0.d₁d₂…dₙ × 10^exponent` with `d₁` and `dₙ` not `0` (no digits for zero, which has no sign). Two
/// texts denote the same number exactly when their signs, exponents and significant digits agree: `1.5e3`, `1500`
/// and `15e2` do. Nothing is allocated: a document's numbers are classified as they are read.
struct DecimalText {
    private let utf8: BorrowedBytes
    private var isNegative = false
    /// Where the first and last significant digits are in `utf8`; `nil` for zero.
    private var significant: ClosedRange<Int>?
    private var exponent = 0

    /// Reads a number in JSON's grammar (or Swift's description of a finite `Double`, which is in it); `nil` for
    /// a byte no number has, and for an exponent beyond what `Int` holds.
    init?(_ utf8: BorrowedBytes) {
        self.utf8 = utf8
        var mantissaEnd = utf8.count, point: Int?, first = -1, last = -1
        var position = 0
        if position < utf8.count, utf8[position] == UInt8(ascii: "-") {
            isNegative = true
            position += 1
        }
        while position < utf8.count {
            let byte = utf8[position]
            if byte &- UInt8(ascii: "1") < 9 {
                if first < 0 { first = position }
                last = position
            } else if byte == UInt8(ascii: ".") {
                point = position
            } else if byte | 0x20 == UInt8(ascii: "e") {
                mantissaEnd = position
                break
            } else if byte != UInt8(ascii: "0") {
                return nil
            }
            position += 1
        }
        var written = 0
        position = mantissaEnd + 1
        if position < utf8.count {
            let negative = utf8[position] == UInt8(ascii: "-")
            if negative || utf8[position] == UInt8(ascii: "+") { position += 1 }
            while position < utf8.count {
                let digit = Int(utf8[position] &- UInt8(ascii: "0"))
                guard digit < 10 else { return nil }
                let (times10, o1) = written.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                if o1 || o2 { return nil }
                written = next
                position += 1
            }
        }
        guard first >= 0 else {
            isNegative = false
            return
        }
        significant = first...last
        // The first significant digit's place: `12.5` and `0.125e2` both have 2 digits before the point.
        let pointAt = point ?? mantissaEnd
        let (exponent, overflow) = written.addingReportingOverflow(first < pointAt ? pointAt - first : pointAt - first + 1)
        if overflow { return nil }
        self.exponent = exponent
    }

    /// Calls `body` with the number `text` read in place.
    static func reading<Result>(_ text: String, _ body: (DecimalText?) -> Result) -> Result {
        var text = text
        return text.withUTF8 { body(DecimalText(BorrowedBytes($0))) }
    }

    /// Calls `body` with each significant digit's ASCII byte, in order; stops when it returns `false`.
    private func forEachDigit(_ body: (UInt8) -> Bool) {
        guard let significant else { return }
        for position in significant where utf8[position] != UInt8(ascii: ".") {
            if !body(utf8[position]) { return }
        }
    }

    /// The number of significant digits (`0.0120` has 2; zero has none).
    var precision: Int {
        var count = 0
        forEachDigit { _ in
            count += 1
            return true
        }
        return count
    }

    /// Whether `other` denotes the same number.
    func hasSameValue(as other: DecimalText) -> Bool {
        guard isNegative == other.isNegative, exponent == other.exponent else { return false }
        guard let mine = significant, let theirs = other.significant else {
            return significant == nil && other.significant == nil
        }
        // Digit by digit, skipping the points (which are never at either end of a significant range).
        var i = mine.lowerBound, j = theirs.lowerBound
        while true {
            if utf8[i] == UInt8(ascii: ".") {
                i += 1
                continue
            }
            if other.utf8[j] == UInt8(ascii: ".") {
                j += 1
                continue
            }
            guard utf8[i] == other.utf8[j] else { return false }
            if i == mine.upperBound || j == theirs.upperBound { return i == mine.upperBound && j == theirs.upperBound }
            i += 1
            j += 1
        }
    }

    /// Feeds the value (not the spelling) to `hasher`, consistently with ``hasSameValue(as:)``.
    func hash(into hasher: inout Hasher) {
        hasher.combine(isNegative)
        hasher.combine(exponent)
        forEachDigit { digit in
            hasher.combine(digit)
            return true
        }
    }

    /// The value as `T`, when it is a whole number that `T` holds; `nil` for a fraction or a value out of range.
    func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        guard significant != nil else { return 0 }
        let digitCount = precision
        // A whole number exactly when no significant digit is after the point; 40 digits fit no 128-bit integer.
        guard exponent >= digitCount, exponent <= 40 else { return nil }
        var value: T = 0
        var overflow = false
        func append(_ digit: T) {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = isNegative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            overflow = overflow || o1 || o2
            value = next
        }
        forEachDigit { digit in
            append(T(digit &- UInt8(ascii: "0")))
            return !overflow
        }
        for _ in digitCount..<exponent where !overflow { append(0) }
        return overflow ? nil : value
    }

    /// The `Double` that holds exactly the number `text` (in JSON's grammar) denotes, or `nil`.
    ///
    /// A `Double` holds a number when reading the text and writing the double's shortest form gives back the same
    /// decimal value: `0.1` and `1.5e3` it holds; `1e400`, `123456789012345678901234567890`, `9223372036854775808`
    /// and `0.1000000000000000055511151231257827` (which reads as the same double as `0.1`) it does not.
    static func exactDouble(_ text: String) -> Double? {
        guard let double = Double(text), double.isFinite else { return nil }
        // Any decimal of at most 15 significant digits survives a round trip through a normal double (DBL_DIG), so
        // its shortest form is itself: nothing to compare (and a text of 15 bytes has no more digits). Longer ones,
        // subnormals and zero (which a tiny number underflows to) need the comparison.
        if double.isNormal, text.utf8.count <= 15 || reading(text, { ($0?.precision ?? 16) <= 15 }) { return double }
        return sameValue(text, double.description) ? double : nil
    }

    /// Whether the numbers `first` and `second` denote the same value (`false` when either cannot be read).
    static func sameValue(_ first: String, _ second: String) -> Bool {
        reading(first) { a in reading(second) { b in a.flatMap { a in b.map(a.hasSameValue(as:)) } ?? false } }
    }
}
