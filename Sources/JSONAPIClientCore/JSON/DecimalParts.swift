/// The exact decimal value of a JSON number's text: what the library compares to decide whether `Int64`, `Double`
/// or `Decimal` holds a number exactly.
///
/// The value is `digits × 10^exponent`, where `digits` are the significant digits without leading or trailing zeros
/// (empty for zero, which is never negative: `-0`, `0.0` and `0e5` are all zero). Two texts denote the same number
/// exactly when their parts are equal: `1.5e3`, `1500` and `15e2` have the same parts.
struct DecimalParts: Hashable {
    var isNegative: Bool
    /// ASCII digits, the first and last not `0`.
    var digits: [UInt8]
    var exponent: Int

    /// Reads a number written in JSON's grammar (RFC 8259: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`); `nil`
    /// for anything else, and for an exponent beyond what `Int` holds.
    init?(_ utf8: UnsafeBufferPointer<UInt8>) {
        let n = utf8.count
        var i = 0
        isNegative = false
        if i < n, utf8[i] == UInt8(ascii: "-") {
            isNegative = true
            i += 1
        }
        func isDigit(_ at: Int) -> Bool { at < n && utf8[at] &- UInt8(ascii: "0") < 10 }
        guard isDigit(i) else { return nil }
        // All digits, integer part then fraction; `pointShift` counts the fraction's digits.
        var all: [UInt8] = []
        if utf8[i] == UInt8(ascii: "0") {
            i += 1
            guard !isDigit(i) else { return nil }
        } else {
            while isDigit(i) {
                all.append(utf8[i])
                i += 1
            }
        }
        var pointShift = 0
        if i < n, utf8[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return nil }
            while isDigit(i) {
                all.append(utf8[i])
                pointShift += 1
                i += 1
            }
        }
        var written = 0
        if i < n, utf8[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var negativeExponent = false
            if i < n, utf8[i] == UInt8(ascii: "+") || utf8[i] == UInt8(ascii: "-") {
                negativeExponent = utf8[i] == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else { return nil }
            while isDigit(i) {
                let digit = Int(utf8[i] &- UInt8(ascii: "0"))
                let (times10, o1) = written.multipliedReportingOverflow(by: 10)
                let (next, o2) = negativeExponent ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                guard !o1, !o2 else { return nil }
                written = next
                i += 1
            }
        }
        guard i == n else { return nil }
        // Strip leading zeros (they do not count) and trailing zeros (each is a power of ten).
        let first = all.firstIndex { $0 != UInt8(ascii: "0") } ?? all.endIndex
        let last = all.lastIndex { $0 != UInt8(ascii: "0") }.map { $0 + 1 } ?? first
        let trailingZeros = all.endIndex - last
        let (shifted, o1) = written.subtractingReportingOverflow(pointShift)
        let (exponent, o2) = shifted.addingReportingOverflow(trailingZeros)
        guard !o1, !o2 else { return nil }
        digits = Array(all[first..<max(first, last)])
        self.exponent = digits.isEmpty ? 0 : exponent
        if digits.isEmpty { isNegative = false }
    }

    /// Reads `text` as ``init(_:)-(UnsafeBufferPointer<UInt8>)`` does.
    init?(_ text: String) {
        var text = text
        guard let parts = text.withUTF8({ DecimalParts($0) }) else { return nil }
        self = parts
    }

    /// The value as `T`, when it is an integer that `T` holds; `nil` for a fraction or a value out of range.
    func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        if digits.isEmpty { return 0 }
        // An integer exactly when no digit is after the point; more than 40 digits fit no 128-bit integer.
        guard exponent >= 0, digits.count + exponent <= 40 else { return nil }
        var value: T = 0
        for position in 0..<(digits.count + exponent) {
            let digit = position < digits.count ? T(digits[position] &- UInt8(ascii: "0")) : 0
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = isNegative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            value = next
        }
        return value
    }

    /// The `Double` that holds exactly the number `text` (in JSON's grammar) denotes, or `nil`.
    ///
    /// A `Double` holds a number when reading the text and writing the double's shortest form gives back the same
    /// decimal value: `0.1` and `1.5e3` it holds; `1e400`, `123456789012345678901234567890`, `9223372036854775808`
    /// and `0.1000000000000000055511151231257827` (which reads as the same double as `0.1`) it does not.
    static func exactDouble(_ text: String) -> Double? {
        guard let double = Double(text), double.isFinite else { return nil }
        var text = text
        let precision = text.withUTF8(significantDigitCount)
        // Any decimal of at most 15 significant digits survives a round trip through a normal double (DBL_DIG), so
        // its shortest form is itself: no parts to build. Only longer ones, and subnormals, need the comparison.
        if precision == 0 || (precision <= 15 && double.isNormal) { return double }
        return DecimalParts(double.description) == DecimalParts(text) ? double : nil
    }

    /// The number of significant digits of a number in JSON's grammar: from the first digit that is not `0` to the
    /// last, the point not counted (`0.0120` has 2); 0 for zero.
    static func significantDigitCount(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        // Digits are counted from the first that is not `0`; `last` is where the last such one is.
        var count = 0, last = 0
        for byte in utf8 {
            if byte | 0x20 == UInt8(ascii: "e") { break }
            guard byte &- UInt8(ascii: "0") < 10, count > 0 || byte != UInt8(ascii: "0") else { continue }
            count += 1
            if byte != UInt8(ascii: "0") { last = count }
        }
        return last
    }
}
