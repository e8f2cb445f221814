import Foundation
import Testing

@testable import JSONAPIClientCore

/// Numbers keep their value: the schema-less value round-trips every JSON number exactly, typed fields get the
/// number or an error (never a rounded, truncated or infinite stand-in), and `Decimal` travels as its own digits.
@Suite("Numbers keep their value")
struct NumberTests {
    // MARK: Schema-less

    /// A literal, the case it reads as, and the text it is written back as.
    struct Case: Sendable, CustomStringConvertible {
        var literal: String
        var value: JSONValue
        var written: String
        var description: String { literal }
    }

    static func number(_ text: String) -> JSONValue { .number(JSONNumber(text)!) }

    static let cases: [Case] = [
        Case(literal: "0", value: .int(0), written: "0"),
        // An integer has no negative zero.
        Case(literal: "-0", value: .int(0), written: "0"),
        Case(literal: "0.0", value: .double(0), written: "0.0"),
        Case(literal: "-0.0", value: .double(-0.0), written: "-0.0"),
        Case(literal: "9223372036854775807", value: .int(.max), written: "9223372036854775807"),
        Case(literal: "-9223372036854775808", value: .int(.min), written: "-9223372036854775808"),
        // Int64.max + 1 and Int64.min - 1: the nearest Doubles would write back as other integers.
        Case(literal: "9223372036854775808", value: number("9223372036854775808"), written: "9223372036854775808"),
        Case(literal: "-9223372036854775809", value: number("-9223372036854775809"), written: "-9223372036854775809"),
        Case(
            literal: "123456789012345678901234567890", value: number("123456789012345678901234567890"),
            written: "123456789012345678901234567890"),
        // A whole number beyond Int64 that a Double holds exactly.
        Case(literal: "100000000000000000000", value: .double(1e20), written: "1e+20"),
        Case(literal: "9007199254740993", value: .int(9_007_199_254_740_993), written: "9007199254740993"),
        // 2^53 + 1 written as a fraction: no Double holds it.
        Case(literal: "9007199254740993.0", value: number("9007199254740993.0"), written: "9007199254740993.0"),
        Case(literal: "0.1", value: .double(0.1), written: "0.1"),
        Case(literal: "1.5e3", value: .double(1500), written: "1500.0"),
        Case(literal: "1E+2", value: .double(100), written: "100.0"),
        Case(literal: "0.30000000000000004", value: .double(0.30000000000000004), written: "0.30000000000000004"),
        // Reads as the same Double as 0.1, but is not 0.1.
        Case(
            literal: "0.1000000000000000055511151231257827", value: number("0.1000000000000000055511151231257827"),
            written: "0.1000000000000000055511151231257827"),
        Case(literal: "12345678901234567.89", value: number("12345678901234567.89"), written: "12345678901234567.89"),
        Case(literal: "1e308", value: .double(1e308), written: "1e+308"),
        Case(literal: "1.7976931348623157e308", value: .double(.greatestFiniteMagnitude), written: "1.7976931348623157e+308"),
        Case(literal: "1e309", value: number("1e309"), written: "1e309"),
        Case(literal: "1e400", value: number("1e400"), written: "1e400"),
        Case(literal: "-1e400", value: number("-1e400"), written: "-1e400"),
        Case(literal: "1e-400", value: number("1e-400"), written: "1e-400"),
        Case(literal: "2.2250738585072014e-308", value: .double(.leastNormalMagnitude), written: "2.2250738585072014e-308"),
        Case(literal: "5e-324", value: .double(.leastNonzeroMagnitude), written: "5e-324"),
        // Reads as the same subnormal as 5e-324, but is another number.
        Case(literal: "2.4703282292062328e-324", value: number("2.4703282292062328e-324"), written: "2.4703282292062328e-324"),
        // An exponent beyond Int.
        Case(literal: "1e99999999999999999999", value: number("1e99999999999999999999"), written: "1e99999999999999999999"),
        Case(literal: "-2.5E-99999999999999999999", value: number("-2.5E-99999999999999999999"), written: "-2.5E-99999999999999999999"),
    ]

    @Test("Each number reads as the case that holds it exactly and is written back with the same value", arguments: cases)
    func schemaLessRoundTrip(_ number: Case) throws {
        let value = try JSONValue(parsing: Array("[\(number.literal)]".utf8))
        #expect(value[0] == number.value)
        if case .double(let double)? = value[0], case .double(let expected) = number.value {
            #expect(double.sign == expected.sign)
        }
        var writer = JSONWriter()
        writer.write(value, sortedKeys: true)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[\(number.written)]")
        #expect(try JSONValue(parsing: writer.bytes) == value)
    }

    /// A number's value as text, `digits` then `e` and the power of ten (`1.50e3` is `15e2`): found with string
    /// handling, independently of the library's reading.
    static func normalized(_ text: String) -> String {
        var rest = Substring(text)
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        let halves = rest.split(whereSeparator: { $0 == "e" || $0 == "E" })
        var exponent = halves.count > 1 ? Int(halves[1]) ?? 0 : 0
        let pieces = halves[0].split(separator: ".", omittingEmptySubsequences: false)
        let fraction = pieces.count > 1 ? pieces[1] : ""
        var digits = Substring(pieces[0] + fraction).drop { $0 == "0" }
        exponent -= fraction.count
        while digits.last == "0" {
            digits = digits.dropLast()
            exponent += 1
        }
        return digits.isEmpty ? "0" : (negative ? "-" : "") + digits + "e\(exponent)"
    }

    @Test("The shortcut for numbers of at most 15 digits decides as the full comparison does")
    func exactDoubleShortcut() throws {
        // SplitMix64: the same numbers on every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var shortcuts = 0
        for _ in 0..<20_000 {
            let digitCount = Int(next() % 19) + 1
            var digits = String(next() % 9 + 1)
            for _ in 1..<digitCount { digits += String(next() % 10) }
            // Exponents around the normal range's ends and the subnormals, and ordinary ones.
            let exponents = [-330, -320, -310, -300, -20, 0, 20, 290, 300, 308]
            let exponent = exponents[Int(next() % UInt64(exponents.count))] + Int(next() % 12) - 6
            let point = Int(next() % UInt64(digitCount))
            let text = String(digits.prefix(point == 0 ? digitCount : point)) + (point == 0 ? "" : "." + digits.dropFirst(point))
                + "e\(exponent)"
            let full: Double? = {
                guard let double = Double(text), double.isFinite else { return nil }
                return Self.normalized(double.description) == Self.normalized(text) ? double : nil
            }()
            #expect(DecimalText.exactDouble(text) == full, "\(text)")
            if digitCount <= 15, full != nil { shortcuts += 1 }
        }
        #expect(shortcuts > 1000)
        for (text, count) in [("0.0120e5", 2), ("0", 0), ("-0.000", 0), ("100", 1), ("1.5", 2), ("120.034E-2", 6)] {
            #expect(DecimalText.reading(text) { $0?.precision } == count, "\(text)")
        }
    }

    @Test("A raw document keeps every number through decode and encode")
    func rawDocumentKeepsNumbers() throws {
        let literals = ["1e400", "123456789012345678901234567890", "12345678901234567.89", "1e-400", "9223372036854775808"]
        let members = literals.enumerated().map { "\"n\($0.offset)\":\($0.element)" }.joined(separator: ",")
        let text = #"{"data":{"type":"t","id":"1","attributes":{"# + members + #"}},"meta":{"total":1e400}}"#
        let document = try JSONAPIDecoder().decode(RawDocument.self, from: Data(text.utf8))
        let output = String(decoding: try JSONAPIEncoder().encode(document), as: UTF8.self)
        for literal in literals { #expect(output.contains(":\(literal)")) }
        #expect(output.contains(#""meta":{"total":1e400}"#))
        #expect(!output.contains("null"))
    }

    @Test("JSONNumber: only JSON's grammar, equal by value, intValue and doubleValue")
    func jsonNumber() throws {
        for invalid in ["", "abc", "01", "1.", ".5", "+1", " 1", "1 ", "1e", "1e+", "-", "0x10", "NaN", "Infinity", "1.5.2"] {
            #expect(JSONNumber(invalid) == nil, "\(invalid)")
        }
        #expect(JSONNumber("1e400") == JSONNumber("10e399"))
        #expect(JSONNumber("1.50") == JSONNumber("1.5"))
        #expect(JSONNumber("-0.0") == JSONNumber("0"))
        #expect(JSONNumber("1e400") != JSONNumber("1e401"))
        #expect(JSONNumber("-1e400") != JSONNumber("1e400"))
        #expect(Set(["1e400", "10e399", "1E400", "0.1e401"].compactMap(JSONNumber.init)).count == 1)
        #expect(JSONNumber("2.5e1")?.intValue == 25)
        #expect(JSONNumber("9223372036854775807.0")?.intValue == .max)
        #expect(JSONNumber("9223372036854775808")?.intValue == nil)
        #expect(JSONNumber("1e30")?.intValue == nil)
        #expect(JSONNumber("1.5")?.intValue == nil)
        #expect(JSONNumber("1e-400")?.intValue == nil)
        #expect(JSONNumber("1e400")?.doubleValue == nil)
        #expect(JSONNumber("1e-400")?.doubleValue == 0)
        #expect(JSONNumber("12345678901234567.89")?.doubleValue == 12345678901234567.89)
        #expect(JSONNumber("1e400")?.description == "1e400")

        #expect(Self.number("9007199254740993.0").intValue == 9_007_199_254_740_993)
        #expect(Self.number("1e400").intValue == nil)
        #expect(Self.number("1e400").doubleValue == nil)
        #expect(JSONValue(JSONNumber("100")!) == .int(100))
        #expect(JSONValue(JSONNumber("1e2")!) == .double(100))
        #expect(JSONValue(JSONNumber("1.5")!) == .double(1.5))
        #expect(JSONValue(JSONNumber("1e400")!) == Self.number("1e400"))
    }

    @Test("Through Foundation's JSONDecoder and JSONEncoder a number keeps its digits")
    func foundationCoders() throws {
        let decoded = try JSONDecoder().decode(
            [JSONValue].self, from: Data("[1, 1.5, 123456789012345678901234567890, 12345678901234567.89]".utf8))
        #expect(decoded == [.int(1), .double(1.5), Self.number("123456789012345678901234567890"), Self.number("12345678901234567.89")])
        let encoded = try JSONEncoder().encode([Self.number("12345678901234567.89"), Self.number("-123456789012345678901234567890")])
        #expect(String(decoding: encoded, as: UTF8.self) == "[12345678901234567.89,-123456789012345678901234567890]")
        // No Decimal holds it: writing it through another encoder would change it.
        #expect(throws: EncodingError.self) { try JSONEncoder().encode([Self.number("1e400")]) }
    }

    // MARK: Typed

    struct Measure: Resource {
        static let resourceType = "measures"
        var id: String
        var double: Double?
        var float: Float?
        var int: Int?
        var int8: Int8?
        var uint64: UInt64?
        var decimal: Decimal?
        var decimals: [Decimal]?
        var any: JSONValue?
    }

    func decode(_ attributes: String) throws(JSONAPIDecodingError) -> Measure {
        let text = #"{"data":{"type":"measures","id":"1","attributes":{"# + attributes + "}}}"
        guard let measure = try JSONAPIDecoder().decode(Document<Measure>.self, from: Data(text.utf8)).data else {
            throw JSONAPIDecodingError(code: .missingMember, pointer: "/data")
        }
        return measure
    }

    /// The error decoding `attributes` gives.
    func failure(_ attributes: String) -> JSONAPIDecodingError? {
        do {
            _ = try decode(attributes)
            return nil
        } catch {
            return error
        }
    }

    @Test("Double and Float: the nearest value, an error beyond their range")
    func floatingPointFields() throws {
        #expect(try decode(#""double":1e308"#).double == 1e308)
        #expect(try decode(#""double":-1.7976931348623157e308"#).double == -.greatestFiniteMagnitude)
        #expect(try decode(#""double":5e-324"#).double == .leastNonzeroMagnitude)
        #expect(try decode(#""double":0.1000000000000000055511151231257827"#).double == 0.1)
        // Below the least subnormal the nearest Double is zero.
        #expect(try decode(#""double":1e-400"#).double == 0)
        #expect(try decode(#""double":-0.0"#).double?.sign == .minus)
        #expect(try decode(#""double":123456789012345678901234567890"#).double == 1.2345678901234568e29)
        for literal in ["1e309", "1e400", "-1e400", "1e99999999999999999999"] {
            let error = try #require(failure(#""double":"# + literal))
            #expect(error.code == .invalidValue)
            #expect(error.pointer == "/data/attributes/double")
            #expect(error.description == "/data/attributes/double: expected a number within the range of Double, found \(literal)")
        }
        #expect(try decode(#""float":3.4028235e38"#).float == .greatestFiniteMagnitude)
        #expect(try decode(#""float":1e-50"#).float == 0)
        let float = try #require(failure(#""float":1e39"#))
        #expect(float.description == "/data/attributes/float: expected a number within the range of Float, found 1e39")
    }

    @Test("Integers: whole numbers in range, never rounded or truncated")
    func integerFields() throws {
        #expect(try decode(#""int":9223372036854775807"#).int == .max)
        #expect(try decode(#""int":-9223372036854775808"#).int == .min)
        #expect(try decode(#""int":-0"#).int == 0)
        #expect(try decode(#""int":1.0"#).int == 1)
        #expect(try decode(#""int":1e2"#).int == 100)
        #expect(try decode(#""int":-2.50e1"#).int == -25)
        #expect(try decode(#""int":0e400"#).int == 0)
        #expect(try decode(#""uint64":18446744073709551615"#).uint64 == .max)
        #expect(try decode(#""uint64":1.8446744073709551615e19"#).uint64 == .max)
        #expect(try decode(#""int8":-128"#).int8 == -128)
        let rejected: [(String, String, String)] = [
            ("int", "1e-400", "Int"), ("int", "1.5", "Int"), ("int", "1e30", "Int"),
            ("int", "9223372036854775808", "Int"), ("int", "-9223372036854775809", "Int"),
            // A Double would read this as exactly 1.
            ("int", "1.0000000000000000001", "Int"),
            ("int8", "128", "Int8"), ("uint64", "-1", "UInt64"), ("uint64", "18446744073709551616", "UInt64"),
            ("int", "1e99999999999999999999", "Int"),
        ]
        for (member, literal, type) in rejected {
            let error = try #require(failure("\"\(member)\":\(literal)"), "\(member): \(literal)")
            #expect(error.code == .invalidValue)
            #expect(error.description == "/data/attributes/\(member): expected an integer that fits \(type), found \(literal)")
        }
        let text = try #require(failure(#""int":"3""#))
        #expect(text.description == "/data/attributes/int: expected an integer, found a string")
    }

    @Test("Decimal: read from its own digits; a number no Decimal holds is an error that says so")
    func decimalFields() throws {
        #expect(try decode(#""decimal":12345678901234567.89"#).decimal == Decimal(string: "12345678901234567.89"))
        #expect(try decode(#""decimal":0.1000000000000000055511151231257827"#).decimal
            == Decimal(string: "0.1000000000000000055511151231257827"))
        #expect(try decode(#""decimal":-1.5e3"#).decimal == -1500)
        #expect(try decode(#""decimals":[1,0.1]"#).decimals == [1, Decimal(string: "0.1")!])
        for literal in ["1e400", "1e308", "123456789012345678901234567890123456789012345"] {
            let error = try #require(failure(#""decimal":"# + literal))
            #expect(error.code == .invalidValue)
            #expect(error.description == "/data/attributes/decimal: expected a number that Decimal holds exactly, found \(literal)")
            #expect(!error.description.contains("expected a number, found a number"))
        }
        #expect(try decode(#""any":1e400"#).any == Self.number("1e400"))
    }

    struct Priced: Resource {
        static let resourceType = "prices"
        var id: String?
        var amount: Decimal
        var amounts: [Decimal] = []
        var count: UInt64 = 0
        var extra: JSONValue = .null
    }

    @Test("Decimal, UInt64 and exact numbers are written from their own digits in request bodies")
    func writingNumbers() throws {
        let encoder = JSONAPIEncoder()
        let price = try #require(Decimal(string: "12345678901234567.89"))
        let model = Priced(
            amount: price, amounts: [Decimal(string: "0.1")!, Decimal(string: "-1e30")!], count: .max,
            extra: ["big": Self.number("1e400")])
        let body = String(decoding: try encoder.encodeCreateBody(for: model), as: UTF8.self)
        #expect(body.contains(#""amount":12345678901234567.89"#))
        #expect(body.contains(#""amounts":[0.1,-1e+30]"#))
        #expect(body.contains(#""count":18446744073709551615"#))
        #expect(body.contains(#""extra":{"big":1e400}"#))

        var update = ResourceUpdate<Priced>(id: "1")
        update.set("amount", to: price)
        let patch = String(decoding: try encoder.encodeUpdateBody(for: update), as: UTF8.self)
        #expect(patch.contains(#""amount":12345678901234567.89"#))

        let before = Priced(id: "1", amount: 1)
        let diff = try ResourceUpdate(from: before) { $0.amount = price }
        #expect(String(decoding: try encoder.encodeUpdateBody(for: diff), as: UTF8.self).contains(#""amount":12345678901234567.89"#))

        #expect(try encoder.jsonValue(of: price) == Self.number("12345678901234567.89"))
        #expect(try encoder.jsonValue(of: Decimal(string: "1.5")!) == .double(1.5))
        #expect(try encoder.jsonValue(of: Decimal(42)) == .int(42))
        #expect(throws: EncodingError.self) { try encoder.jsonValue(of: Decimal.nan) }
    }

    @Test("A Decimal decoded and encoded again is the same number")
    func decimalRoundTrip() throws {
        let text = #"""
            {"data":{"type":"prices","id":"1","attributes":{"amount":12345678901234567.89,"amounts":[],"count":0,"extra":null}}}
            """#
        let decoded = try JSONAPIDecoder().decode(Document<Priced>.self, from: Data(text.utf8))
        let written = String(decoding: try JSONAPIEncoder().encode(decoded), as: UTF8.self)
        #expect(written.contains(#""amount":12345678901234567.89"#))
    }
}
