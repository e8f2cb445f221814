import Testing
@testable import JSONAPIClientCore

/// The error `JSONTape(parsing:)` throws for `bytes`, or `nil` when it parses.
func parseError(_ bytes: [UInt8], maxDepth: Int = 512) -> JSONParseError? {
    do {
        _ = try JSONTape(parsing: bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

func tape(_ text: String, maxDepth: Int = 512) throws -> JSONTape {
    try JSONTape(parsing: Array(text.utf8), maxDepth: maxDepth)
}

/// Checks the structural invariants of a tape: every container's `end` is where its last member's value ends, every
/// string's and number's text is inside the input, and the root spans all nodes.
func checkInvariants(_ tape: JSONTape) -> Bool {
    func walk(_ index: Int) -> Int? {
        let node = tape.nodes[index]
        switch node.kind {
        case .array, .object:
            var i = index + 1
            for _ in 0..<node.count {
                if node.kind == .object {
                    guard i < tape.nodes.count, tape.nodes[i].kind == .string else { return nil }
                    i += 1
                }
                guard i < tape.nodes.count, let next = walk(i) else { return nil }
                i = next
            }
            return i == Int(node.end) ? i : nil
        default:
            // A string's or number's text lies inside the input.
            return Int(node.start) + Int(node.length) <= tape.bytes.count ? index + 1 : nil
        }
    }
    return walk(0) == tape.nodes.count
}

struct Rejection: Sendable, CustomTestStringConvertible {
    let input: [UInt8]
    let offset: Int
    let reason: String
    init(_ text: String, _ offset: Int, _ reason: String) {
        self.init(Array(text.utf8), offset, reason)
    }
    init(_ input: [UInt8], _ offset: Int, _ reason: String) {
        self.input = input
        self.offset = offset
        self.reason = reason
    }
    var testDescription: String { "\(input.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "<\($0)>" }.joined())" }
}

@Suite struct JSONParserTests {
    // MARK: Tape shape

    @Test func nestedDocumentShape() throws {
        let text = #" {"a" : [1, {"b":null}, -2.5e3], "c":"x\n", "d":{}, "e":[true,false]} "#
        let t = try tape(text)
        let kinds = t.nodes.map(\.kind)
        #expect(kinds == [.object, .string, .array, .number, .object, .string, .null, .number,
                          .string, .string, .string, .object, .string, .array, .true, .false])
        // Counts and ends.
        #expect(t.count(0) == 4 && t.nodes[0].end == 16)
        #expect(t.count(2) == 3 && t.nodes[2].end == 8)
        #expect(t.count(4) == 1 && t.nodes[4].end == 7)
        #expect(t.count(11) == 0 && t.nodes[11].end == 12)
        #expect(t.count(13) == 2 && t.nodes[13].end == 16)
        // Skip.
        #expect(t.skip(2) == 8)
        #expect(t.skip(4) == 7)
        #expect(t.skip(3) == 4)
        #expect(t.skip(0) == 16)
        // Strings: start after the quote, length without quotes, escape flag.
        #expect(t.nodes[1].start == 3 && t.nodes[1].length == 1 && t.nodes[1].flags == 0)
        #expect(t.string(1) == "a")
        #expect(t.nodes[9].length == 3 && t.nodes[9].flags == JSONTape.stringHasEscapes)
        #expect(t.string(9) == "x\n")
        // Numbers: start, length, integer flag.
        #expect(t.nodes[3].start == 9 && t.nodes[3].length == 1 && t.isInteger(3))
        #expect(t.numberText(7) == "-2.5e3" && !t.isInteger(7))
        #expect(t.double(7) == -2500)
        #expect(t.int64(7) == nil)
        #expect(checkInvariants(t))
    }

    @Test(arguments: ["0", "-1", "\"s\"", "true", "false", "null", " 12.5 ", "\n\t\r [] \n", "{}"])
    func scalarAndEmptyRoots(_ text: String) throws {
        let t = try tape(text)
        #expect(t.nodes.count == 1)
        #expect(checkInvariants(t))
    }

    @Test func rootKinds() throws {
        #expect(try tape("true").kind(0) == .true)
        #expect(try tape("false").kind(0) == .false)
        #expect(try tape("null").kind(0) == .null)
        #expect(try tape("[]").kind(0) == .array)
        #expect(try tape("{}").kind(0) == .object)
        #expect(try tape("\"\"").nodes[0].length == 0)
    }

    @Test func duplicateKeysAreKept() throws {
        let t = try tape(#"{"a":1,"a":2}"#)
        #expect(t.count(0) == 2)
        #expect(t.string(1) == "a" && t.string(3) == "a")
    }

    /// Documents denser than the first capacity estimate make the parser resume in a bigger buffer, with containers
    /// still open; the result must be the same as for any other document.
    @Test(arguments: [10, 1_000, 100_000])
    func denseDocumentsGrowTheNodeBuffer(_ size: Int) throws {
        var text = "{\"k\":["
        var expectedArray: [JSONValue] = []
        for i in 0..<size {
            if i > 0 { text += "," }
            if i % 10 == 3 {
                text += "{\"a\":0,\"b\":[1]}"
                expectedArray.append(["a": 0, "b": [1]])
            } else {
                text += "\(i % 10)"
                expectedArray.append(.int(Int64(i % 10)))
            }
        }
        text += "],\"z\":{\"y\":[]}}"
        let t = try tape(text)
        #expect(checkInvariants(t))
        #expect(t.count(2) == size)
        let value = try JSONValue(parsing: Array(text.utf8))
        #expect(value == .object(["k": .array(expectedArray), "z": ["y": []]]))
    }

    // MARK: Rejections

    static let rejections: [Rejection] = [
        Rejection("", 0, "empty input"),
        Rejection("  \n ", 4, "empty input"),
        Rejection([0xEF, 0xBB, 0xBF, 0x31], 0, "byte order mark"),
        // Structure.
        Rejection("[1,]", 2, "trailing comma in array"),
        Rejection("[1 , ]", 3, "trailing comma in array"),
        Rejection(#"{"a":1,}"#, 6, "trailing comma in object"),
        Rejection(#"{"a":1, }"#, 6, "trailing comma in object"),
        Rejection("[1 2]", 3, "expected ',' or ']'"),
        Rejection(#"{"a" 1}"#, 5, "expected ':'"),
        Rejection(#"{"a":1 "b":2}"#, 7, "expected ',' or '}'"),
        Rejection("{1:2}", 1, "expected a string key"),
        Rejection(#"{"a":1,2:3}"#, 7, "expected a string key"),
        Rejection("{,}", 1, "expected a string key or '}'"),
        Rejection("[,1]", 1, "expected a value"),
        Rejection(#"{"a":}"#, 5, "expected a value"),
        Rejection("]", 0, "expected a value"),
        Rejection("[}", 1, "expected a value"),
        Rejection("{]", 1, "expected a string key"),
        Rejection("[1}", 2, "expected ',' or ']'"),
        Rejection("1 2", 2, "unexpected data after the root value"),
        Rejection("{} x", 3, "unexpected data after the root value"),
        Rejection("[]]", 2, "unexpected data after the root value"),
        Rejection([0x01], 0, "control character"),
        Rejection([0x5B, 0xC3, 0xA9, 0x5D], 1, "found byte 0xC3"),
        // Unterminated.
        Rejection("\"abc", 4, "unterminated string starting at offset 0"),
        Rejection("[\"abc", 5, "unterminated string starting at offset 1"),
        Rejection("\"abc\\", 5, "unterminated string"),
        Rejection("[", 1, "unterminated array starting at offset 0"),
        Rejection("[1,2", 4, "unterminated array"),
        Rejection("[1,", 3, "unterminated array"),
        Rejection("{", 1, "unterminated object"),
        Rejection(#"{"a":1"#, 6, "unterminated object"),
        Rejection(#"{"a":"#, 5, "unterminated object"),
        Rejection(#"{"a""#, 4, "unterminated object"),
        Rejection(#"{"a":1,"#, 7, "unterminated object"),
        Rejection(#"[{"a":[1]"#, 9, "unterminated object starting at offset 1"),
        // Closed containers hold their counts where open ones hold their offsets.
        Rejection(#" [{}, [1, 2], {"a": []}"#, 23, "unterminated array starting at offset 1"),
        // Numbers.
        Rejection("[01]", 2, "leading zeros"),
        Rejection("-01", 2, "leading zeros"),
        Rejection("00", 1, "leading zeros"),
        Rejection("-", 1, "expected a digit after '-'"),
        Rejection("[-]", 2, "expected a digit after '-'"),
        Rejection("-a", 1, "expected a digit after '-'"),
        Rejection("1.", 2, "expected a digit after the decimal point"),
        Rejection("[1.]", 3, "expected a digit after the decimal point"),
        Rejection("1.e5", 2, "expected a digit after the decimal point"),
        Rejection(".5", 0, "must start with a digit or '-'"),
        Rejection("+1", 0, "must start with a digit or '-'"),
        Rejection("1e", 2, "expected a digit in the exponent"),
        Rejection("1E+", 3, "expected a digit in the exponent"),
        Rejection("[1e-]", 4, "expected a digit in the exponent"),
        Rejection("0x1F", 1, "invalid number"),
        Rejection("[1.5.3]", 4, "invalid number"),
        Rejection("[12a]", 3, "invalid number"),
        Rejection("[1-2]", 2, "invalid number"),
        // Literals.
        Rejection("tru", 3, "invalid literal (expected true)"),
        Rejection("nul", 3, "invalid literal (expected null)"),
        Rejection("fals", 4, "invalid literal (expected false)"),
        Rejection("[falsy]", 5, "invalid literal"),
        Rejection("nUll", 1, "invalid literal"),
        Rejection("True", 0, "invalid literal"),
        Rejection("[truex]", 5, "invalid literal"),
        Rejection("nulll", 4, "invalid literal"),
        Rejection("undefined", 0, "invalid literal"),
        // Strings: control characters and escapes.
        Rejection([0x22, 0x61, 0x01, 0x62, 0x22], 2, "unescaped control character 0x01"),
        Rejection([0x22, 0x00, 0x22], 1, "unescaped control character 0x00"),
        Rejection("\"a\tb\"", 2, "unescaped control character 0x09"),
        Rejection("\"a\nb\"", 2, "unescaped control character 0x0A"),
        Rejection("\"0123456789abcdef\u{1F}\"", 17, "unescaped control character 0x1F"),
        Rejection(#""\x""#, 1, #"invalid escape sequence '\x'"#),
        Rejection(#""ab\'""#, 3, "invalid escape sequence"),
        Rejection(#""\u12G4""#, 1, #"invalid \u escape"#),
        Rejection(#""\u12""#, 1, #"invalid \u escape"#),
        Rejection(#""\U0041""#, 1, "invalid escape sequence"),
        Rejection(#""\uD800""#, 1, #"lone high surrogate \uD800"#),
        Rejection(#""\uD800\u0041""#, 1, "lone high surrogate"),
        Rejection(#""\uDBFF\uDBFF""#, 1, "lone high surrogate"),
        Rejection(#""\uD800\n""#, 1, "lone high surrogate"),
        Rejection(#""\uDC00""#, 1, #"lone low surrogate \uDC00"#),
        Rejection(#""a\uDC00\uD800""#, 2, "lone low surrogate"),
        Rejection(#""\ud83d\ude00\udfff""#, 13, "lone low surrogate"),
        // Invalid UTF-8.
        Rejection([0x22, 0x80, 0x22], 1, "unexpected continuation byte"),
        Rejection([0x22, 0x61, 0xBF, 0x22], 2, "unexpected continuation byte"),
        Rejection([0x22, 0xC0, 0x80, 0x22], 1, "overlong"),
        Rejection([0x22, 0xC1, 0xBF, 0x22], 1, "overlong"),
        Rejection([0x22, 0xE0, 0x80, 0x80, 0x22], 2, "overlong"),
        Rejection([0x22, 0xE0, 0x9F, 0xBF, 0x22], 2, "overlong"),
        Rejection([0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], 2, "overlong"),
        Rejection([0x22, 0xF0, 0x8F, 0xBF, 0xBF, 0x22], 2, "overlong"),
        Rejection([0x22, 0xED, 0xA0, 0x80, 0x22], 2, "encoded surrogate"),
        Rejection([0x22, 0xED, 0xBF, 0xBF, 0x22], 2, "encoded surrogate"),
        Rejection([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2, "above U+10FFFF"),
        Rejection([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, "above U+10FFFF"),
        Rejection([0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22], 1, "invalid UTF-8"),
        Rejection([0x22, 0xFF, 0x22], 1, "invalid UTF-8: byte 0xFF"),
        Rejection([0x22, 0xC3, 0x22], 2, "truncated UTF-8 sequence"),
        Rejection([0x22, 0xE2, 0x82, 0x22], 3, "truncated UTF-8 sequence"),
        Rejection([0x22, 0xF0, 0x9F, 0x98, 0x22], 4, "truncated UTF-8 sequence"),
        Rejection([0x22, 0xC3], 2, "truncated UTF-8 sequence"),
        Rejection([0x22, 0xC3, 0xC3, 0xA9, 0x22], 2, "truncated UTF-8 sequence"),
        Rejection(Array("\"0123456789abcdef".utf8) + [0xED, 0xA0, 0x80, 0x22], 18, "encoded surrogate"),
        // Invalid UTF-8 in a key.
        Rejection([0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x3A, 0x31, 0x7D], 2, "overlong"),
    ]

    @Test(arguments: rejections)
    func rejects(_ rejection: Rejection) {
        let error = parseError(rejection.input)
        #expect(error?.offset == rejection.offset)
        #expect(error?.reason.contains(rejection.reason) == true, "reason: \(error?.reason ?? "none")")
    }

    @Test(arguments: [
        [0x22, 0xC2, 0x80, 0x22], [0x22, 0xDF, 0xBF, 0x22], [0x22, 0xE0, 0xA0, 0x80, 0x22],
        [0x22, 0xED, 0x9F, 0xBF, 0x22], [0x22, 0xEE, 0x80, 0x80, 0x22], [0x22, 0xEF, 0xBF, 0xBF, 0x22],
        [0x22, 0xF0, 0x90, 0x80, 0x80, 0x22], [0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22],
        Array("\"h\u{E9}llo w\u{F6}rld \u{20AC} \u{1F600}\u{10FFFF}\"".utf8),
    ] as [[UInt8]])
    func acceptsValidUTF8(_ bytes: [UInt8]) throws {
        let t = try JSONTape(parsing: bytes)
        #expect(t.kind(0) == .string)
        #expect(Array(t.string(0).utf8) == Array(bytes[1..<bytes.count - 1]))
    }

    /// Each special byte at every position of strings of various lengths: exercises the 8-byte scan and its tail.
    @Test func stringScanBoundaries() throws {
        for length in 0..<40 {
            let body = Array(repeating: UInt8(ascii: "a"), count: length)
            let t = try JSONTape(parsing: [0x22] + body + [0x22])
            #expect(t.nodes[0].length == UInt32(length) && t.nodes[0].flags == 0)
            for position in 0..<length {
                var withControl = body
                withControl[position] = 0x1F
                #expect(parseError([0x22] + withControl + [0x22])?.offset == position + 1)
                var withQuote = body
                withQuote[position] = 0x22
                #expect(parseError([0x22] + withQuote + [0x22])?.offset == position + 2)
                var withEscape = body
                withEscape[position] = UInt8(ascii: "\\")
                if position + 1 < length {
                    withEscape[position + 1] = UInt8(ascii: "n")
                    let escaped = try JSONTape(parsing: [0x22] + withEscape + [0x22])
                    #expect(escaped.nodes[0].flags == JSONTape.stringHasEscapes)
                    #expect(escaped.string(0).utf8.count == length - 1)
                }
                var withUTF8 = body
                withUTF8[position] = 0xC3
                if position + 1 < length {
                    withUTF8[position + 1] = 0xA9
                    #expect(parseError([0x22] + withUTF8 + [0x22]) == nil)
                } else {
                    #expect(parseError([0x22] + withUTF8 + [0x22])?.offset == position + 2)
                }
            }
        }
    }

    @Test func everyProperPrefixOfAContainerIsRejected() {
        let text = Array(#"{"a":[1,-2.5e+3,"x\"\u00e9\ud83d\ude00",true,false,null,{}],"b":{"c":[]}}"#.utf8)
        #expect(parseError(text) == nil)
        for length in 0..<text.count {
            let error = parseError(Array(text[0..<length]))
            #expect(error != nil)
            #expect(error?.offset == length, "prefix \(length): \(error?.reason ?? "")")
        }
    }

    /// Random byte edits of a valid document must never crash; what still parses must make a well-formed tape.
    @Test func randomMutationsNeverCrash() {
        let base = Array(#"{"data":[{"id":"1","type":"a","attributes":{"t":"h\u00e9 \"x\"","n":-12.5e-3,"b":[true,false,null]}}]}"#.utf8)
        var generator = SplitMix(seed: 42)
        let alphabet = Array(#"{}[],:"\u0123456789-+.eEtrfalsn "#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xA9, 0xED, 0xF4, 0xFF]
        var accepted = 0
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<Int(generator.next() % 3 + 1) {
                let position = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            do {
                let t = try JSONTape(parsing: bytes)
                accepted += 1
                #expect(checkInvariants(t))
                _ = JSONValue(tape: t, index: 0)
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count)
                #expect(!error.reason.isEmpty)
            }
        }
        #expect(accepted > 0)
    }

    // MARK: Depth

    @Test func nestingAtTheLimitParses() throws {
        let arrays = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let t = try tape(arrays)
        #expect(t.nodes.count == 512 && t.nodes[0].end == 512 && t.nodes[511].end == 512)
        #expect(checkInvariants(t))
        let objects = String(repeating: #"{"a":"#, count: 511) + "[]" + String(repeating: "}", count: 511)
        #expect(try tape(objects).nodes.count == 511 * 2 + 1)
    }

    @Test func nestingBeyondTheLimitThrows() {
        let arrays = Array(String(repeating: "[", count: 513).utf8) + Array(String(repeating: "]", count: 513).utf8)
        let error = parseError(arrays)
        #expect(error?.offset == 512)
        #expect(error?.reason.contains("maximum depth of 512") == true)
        let mixed = Array((String(repeating: #"{"a":["#, count: 5) + "1" + String(repeating: "]}", count: 5)).utf8)
        #expect(parseError(mixed, maxDepth: 10) == nil)
        #expect(parseError(mixed, maxDepth: 9)?.offset == 4 * 6 + 5)
        #expect(parseError(Array("[]".utf8), maxDepth: 0)?.offset == 0)
        #expect(parseError(Array("1".utf8), maxDepth: 0) == nil)
    }

    @Test func hundredThousandOpenBracketsThrowWithoutOverflowingTheStack() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        #expect(parseError(deep)?.offset == 512)
        // With no practical limit, the explicit stack takes it: no recursion.
        #expect(parseError(deep, maxDepth: 1_000_000)?.reason.contains("unterminated array") == true)
        let balanced = deep + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        #expect(parseError(balanced, maxDepth: 100_000) == nil)
        #expect(parseError(balanced, maxDepth: 99_999)?.offset == 99_999)
    }

    // MARK: Size

    @Test func nodesAreEightBytesAndKeepEveryField() {
        #expect(MemoryLayout<JSONTape.Node>.stride == 8)
        let kinds: [JSONTape.Kind] = [.null, .true, .false, .number, .string, .array, .object]
        for kind in kinds {
            for flags: UInt8 in [0, 1] {
                for value: UInt32 in [0, 1, 12_345, JSONTape.Node.maxEnd] {
                    let scalar = JSONTape.Node(kind: kind, flags: flags, start: .max - value, length: value)
                    #expect(scalar.kind == kind && scalar.flags == flags)
                    #expect(scalar.start == .max - value && scalar.length == value)
                    var container = JSONTape.Node(kind: kind, flags: flags, start: .max, end: value)
                    #expect(container.kind == kind && container.flags == flags && container.end == value)
                    container.end = JSONTape.Node.maxEnd - value
                    container.count = value
                    #expect(container.kind == kind && container.flags == flags)
                    #expect(container.end == JSONTape.Node.maxEnd - value && container.count == value)
                }
            }
        }
        #expect(JSONTape.maxNodes == (1 << 28) - 1)
        #expect(JSONTape.maxLength == (1 << 28) - 1)
    }

    /// A string, key or number holds at most `maxLength` bytes (lengths are 28 bits); a longer one is a parse error.
    @Test(arguments: [
        (#"["abcd"]"#, 1, "string"), (#"{"abcd":1}"#, 1, "key"), ("[1234]", 1, "number"), ("[-1.5]", 1, "number"),
        (#""\nab""#, 0, "string"),
    ])
    func valuesLongerThanTheLimitAreRejected(text: String, offset: Int, what: String) throws {
        let bytes = Array(text.utf8)
        let atTheLimit = try JSONTape(parsing: bytes, maxLength: 4)
        #expect(checkInvariants(atTheLimit))
        do {
            _ = try JSONTape(parsing: bytes, maxLength: 3)
            Issue.record("\(text) parsed with a limit of 3 bytes")
        } catch {
            #expect(error == JSONParseError(offset: offset, reason: "\(what) longer than 3 bytes: too large to index"))
        }
    }

    /// A tape holds at most `maxNodes` values (ends are 28 bits); one more is a parse error, not a corrupt tape.
    @Test(arguments: [2, 999])
    func documentsOfMoreValuesThanTheLimitAreRejected(elements: Int) throws {
        // `elements` zeros in an array: elements + 1 nodes. 999 elements outgrow the first node buffer.
        let text = Array(("[" + Array(repeating: "0", count: elements).joined(separator: ",") + "]").utf8)
        let nodes = elements + 1
        let atTheLimit = try JSONTape(parsing: text, maxNodes: nodes)
        #expect(atTheLimit.nodes.count == nodes && checkInvariants(atTheLimit))
        do {
            _ = try JSONTape(parsing: text, maxNodes: nodes - 1)
            Issue.record("\(nodes) values parsed with a limit of \(nodes - 1)")
        } catch {
            #expect(error.reason == "more than \(nodes - 1) values: the document is too large to index")
        }
        let nested = Array((String(repeating: #"{"a":["#, count: 3) + "1" + String(repeating: "]}", count: 3)).utf8)
        #expect(throws: JSONParseError.self) { try JSONTape(parsing: nested, maxNodes: 9) }
        #expect(try JSONTape(parsing: nested, maxNodes: 10).nodes[0].end == 10)
    }

    // MARK: Numbers

    @Test func int64Limits() throws {
        let t = try tape("[9223372036854775807,-9223372036854775808,9223372036854775808,-9223372036854775809,0,-0,1e2,1.0,99999999999999999999]")
        #expect(t.int64(1) == Int64.max)
        #expect(t.int64(2) == Int64.min)
        #expect(t.int64(3) == nil)
        #expect(t.int64(4) == nil)
        #expect(t.int64(5) == 0)
        #expect(t.int64(6) == 0)
        #expect(t.int64(7) == nil && t.double(7) == 100)
        #expect(t.int64(8) == nil && t.double(8) == 1)
        #expect(t.int64(9) == nil && t.double(9) == 1e20)
        #expect(t.double(3) == 9223372036854775808.0)
    }

    @Test(arguments: [
        ("0.1", 0.1), ("-0.0", -0.0), ("1e-7", 1e-7), ("1E+2", 100), ("2.5e-3", 0.0025),
        ("1.7976931348623157e308", Double.greatestFiniteMagnitude), ("5e-324", Double.leastNonzeroMagnitude), ("1e400", Double.infinity),
        ("-1e400", -Double.infinity), ("123456789012345678", 123456789012345678.0), ("0.30000000000000004", 0.30000000000000004),
    ])
    func doubles(_ text: String, _ expected: Double) throws {
        let t = try tape(text)
        #expect(t.kind(0) == .number)
        #expect(t.double(0) == expected)
        #expect(t.double(0).sign == expected.sign)
    }

    // MARK: Strings

    @Test(arguments: [
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
        (#""\u0000""#, "\u{0}"),
        (#""a\u0041\u00e9\u20AC""#, "aA\u{E9}\u{20AC}"),
        (#""\ud83d\ude00""#, "\u{1F600}"),
        (#""\uDBFF\uDFFF!""#, "\u{10FFFF}!"),
        (#""x\uD834\uDD1Ey""#, "x\u{1D11E}y"),
        (#""plain""#, "plain"),
        (#""h\u00e9 é""#, "hé é"),
    ])
    func unescapes(_ json: String, _ expected: String) throws {
        let t = try tape(json)
        #expect(t.string(0) == expected)
    }

    @Test func unescapeIsLenientAndNeverCrashes() {
        let raw = Array(#"a\q\u12\uD800x\uDC00\"#.utf8)
        #expect(JSONTape.unescape(TapeBytes(copying: raw), 0..<raw.count) == "a\\q\\u12\u{FFFD}x\u{FFFD}\\")
        #expect(JSONTape.unescape(TapeBytes(copying: raw), -5..<1000) == "a\\q\\u12\u{FFFD}x\u{FFFD}\\")
        #expect(JSONTape.unescape(TapeBytes(copying: raw), 3..<3) == "")
        #expect(JSONTape.unescape(TapeBytes(copying: [0x5C, 0x6E, 0xFF]), 0..<3) == "\n\u{FFFD}")
        var generator = SplitMix(seed: 7)
        let alphabet = Array(#"\u0Dd8Ff9\"nbx"#.utf8) + [0xC3, 0xFF, 0x00]
        for _ in 0..<5_000 {
            let bytes = (0..<Int(generator.next() % 16)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let decoded = JSONTape.unescape(TapeBytes(copying: bytes), 0..<bytes.count)
            #expect(decoded.utf8.count <= bytes.count * 3)
        }
    }

    @Test func stringEqualsWithAndWithoutEscapes() throws {
        let t = try tape(#"{"type":1,"t\u0079pe":2,"caf\u00e9":3,"café":4,"":5,"a\"b":6}"#)
        #expect(t.stringEquals(1, "type"))
        #expect(!t.stringEquals(1, "typ"))
        #expect(!t.stringEquals(1, "types"))
        #expect(!t.stringEquals(1, "tYpe"))
        #expect(t.nodes[3].flags == JSONTape.stringHasEscapes)
        #expect(t.stringEquals(3, "type"))
        #expect(!t.stringEquals(3, "typo"))
        #expect(t.stringEquals(5, "café"))
        #expect(t.stringEquals(7, "café"))
        #expect(!t.stringEquals(7, "cafe"))
        #expect(t.stringEquals(9, ""))
        #expect(!t.stringEquals(9, "x"))
        #expect(t.stringEquals(11, "a\"b"))
    }
}

/// A small deterministic random number generator for the fuzz-style tests: the same numbers on every run, so a
/// failure repeats.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
