import Testing
@testable import JSONAPIClientCore

private func written(_ body: (inout JSONWriter) -> Void) -> String {
    var writer = JSONWriter(capacity: 16)
    body(&writer)
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// A byte-at-a-time reference for the writer's string escaping.
private func referenceEscape(_ string: String) -> [UInt8] {
    var out: [UInt8] = [0x22]
    for c in string.utf8 {
        switch c {
        case 0x22: out += Array(#"\""#.utf8)
        case 0x5C: out += Array(#"\\"#.utf8)
        case 0x0A: out += Array(#"\n"#.utf8)
        case 0x0D: out += Array(#"\r"#.utf8)
        case 0x09: out += Array(#"\t"#.utf8)
        case 0x08: out += Array(#"\b"#.utf8)
        case 0x0C: out += Array(#"\f"#.utf8)
        case 0..<0x20:
            let hex = Array("0123456789abcdef".utf8)
            out += Array(#"\u00"#.utf8) + [hex[Int(c >> 4)], hex[Int(c & 0xF)]]
        default: out.append(c)
        }
    }
    out.append(0x22)
    return out
}

@Suite struct JSONWriterTests {
    // MARK: Strings

    @Test(arguments: [
        ("", #""""#),
        ("plain", #""plain""#),
        ("a\"b", #""a\"b""#),
        ("back\\slash", #""back\\slash""#),
        ("\n\r\t\u{8}\u{C}", #""\n\r\t\b\f""#),
        ("\u{0}", #""\u0000""#),
        ("\u{1}\u{1F}\u{1B}", #""\u0001\u001f\u001b""#),
        ("a/b", #""a/b""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("h\u{E9}llo \u{20AC} \u{1F600}", "\"h\u{E9}llo \u{20AC} \u{1F600}\""),
        ("0123456789abcdef\"0123456789", #""0123456789abcdef\"0123456789""#),
        ("0123456\n", #""0123456\n""#),
        ("01234567\n", #""01234567\n""#),
    ])
    func escapesStrings(_ string: String, _ expected: String) {
        #expect(written { $0.writeString(string) } == expected)
    }

    /// Escapable bytes at every position of strings long enough for the 8-byte scan, against a byte-wise reference.
    @Test func escapingMatchesReference() throws {
        let pieces = ["a", "b", "\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{E9}", "\u{1F600}", "/", " "]
        var generator = SplitMix(seed: 3)
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 40)
            let string = (0..<length).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            var writer = JSONWriter()
            writer.writeString(string)
            #expect(writer.bytes == referenceEscape(string))
            let tape = try JSONTape(parsing: writer.bytes)
            #expect(tape.string(0) == string)
        }
    }

    // MARK: Numbers and literals

    @Test(arguments: [
        (Int64(0), "0"), (7, "7"), (-7, "-7"), (10, "10"), (-10, "-10"), (1234567890, "1234567890"),
        (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
    ])
    func writesIntegers(_ value: Int64, _ expected: String) throws {
        let text = written { $0.writeInt(value) }
        #expect(text == expected)
        #expect(try JSONTape(parsing: Array(text.utf8)).int64(0) == value)
    }

    @Test(arguments: [
        (1.0, "1.0"), (-1.0, "-1.0"), (0.0, "0.0"), (-0.0, "-0.0"), (0.1, "0.1"), (2.5, "2.5"),
        (123456789.0, "123456789.0"), (0.30000000000000004, "0.30000000000000004"),
    ])
    func writesDoublesInShortestFloatingForm(_ value: Double, _ expected: String) {
        #expect(written { $0.writeDouble(value) } == expected)
    }

    @Test(arguments: [
        1e-7, 1e16, 1e300, -1e-300, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude,
        -Double.greatestFiniteMagnitude, Double.leastNormalMagnitude, 9007199254740993.0, 1.0 / 3.0,
    ])
    func doublesAreValidJSONAndRoundTrip(_ value: Double) throws {
        let text = written { $0.writeDouble(value) }
        let tape = try JSONTape(parsing: Array(text.utf8))
        #expect(tape.kind(0) == .number && !tape.isInteger(0), "\(text)")
        #expect(tape.double(0) == value, "\(text)")
    }

    @Test func randomDoublesRoundTrip() throws {
        var generator = SplitMix(seed: 11)
        for _ in 0..<5_000 {
            let value = Double(bitPattern: generator.next())
            let text = written { $0.writeDouble(value) }
            if !value.isFinite {
                #expect(text == "null")
                continue
            }
            let tape = try JSONTape(parsing: Array(text.utf8))
            #expect(tape.kind(0) == .number && !tape.isInteger(0), "\(text)")
            #expect(tape.double(0).bitPattern == value.bitPattern, "\(text)")
        }
    }

    @Test func nonFiniteDoublesAreNull() {
        #expect(written { $0.writeDouble(.nan) } == "null")
        #expect(written { $0.writeDouble(.infinity) } == "null")
        #expect(written { $0.writeDouble(-.infinity) } == "null")
    }

    @Test func literalsAndRaw() {
        let text = written {
            $0.writeRaw("[")
            $0.writeBool(true)
            $0.writeRaw(",")
            $0.writeBool(false)
            $0.writeRaw(",")
            $0.writeNull()
            $0.writeRaw(",")
            $0.writeRaw("\"\u{E9}\"")
            $0.writeRaw("]")
        }
        #expect(text == "[true,false,null,\"\u{E9}\"]")
    }

    // MARK: Values

    static let sample: JSONValue = [
        "b": [1, 2.5, "x", nil, true, [], [:]],
        "a": ["z": false, "y": .int(-3)],
        "c": "line\nbreak",
    ]

    @Test func writesCompactWithSortedKeys() {
        #expect(written { $0.write(Self.sample, sortedKeys: true) }
            == #"{"a":{"y":-3,"z":false},"b":[1,2.5,"x",null,true,[],{}],"c":"line\nbreak"}"#)
        #expect(written { $0.write([], sortedKeys: false) } == "[]")
        #expect(written { $0.write([:], sortedKeys: false) } == "{}")
    }

    @Test func writesCompactInAnyOrderWhenUnsorted() throws {
        var writer = JSONWriter()
        writer.write(Self.sample, sortedKeys: false)
        #expect(try JSONValue(parsing: writer.bytes) == Self.sample)
    }

    @Test func writesPretty() {
        let expected = """
            {
              "a": {
                "y": -3,
                "z": false
              },
              "b": [
                1,
                2.5,
                "x",
                null,
                true,
                [],
                {}
              ],
              "c": "line\\nbreak"
            }
            """
        #expect(written { $0.writePretty(Self.sample) } == expected)
        #expect(written { $0.writePretty(["k": [1]], indent: 4) } == "{\n    \"k\": [\n        1\n    ]\n}")
        #expect(written { $0.writePretty("s") } == "\"s\"")
        #expect(written { $0.writePretty([]) } == "[]")
    }

    // MARK: Round trips

    @Test(arguments: [
        #"{"data":{"type":"articles","id":"1","attributes":{"title":"JSON:API paints my bikeshed!","n":-0.0}}}"#,
        #"[0,-1,1.5,-2.5e-10,1E+300,9223372036854775807,-9223372036854775808,9223372036854775808]"#,
        #"["\u0000\u001f\"\\\/\b\f\n\r\t","\ud83d\ude00","h\u00e9","\u2028\u2029","é😀"]"#,
        #"{"":"","a":{"":{"":[[[]]]}},"dup":1,"dup":2}"#,
        #"  [ true , false , null , { } , [ ] , "" ]  "#,
        #"{"nested":[{"a":[{"b":[{"c":[1,2,{"d":null}]}]}]}],"x":0.1,"y":100,"z":1.0}"#,
        #""just a string""#,
        "-0",
        "12345678901234567890123",
    ])
    func roundTrips(_ text: String) throws {
        let value = try JSONValue(parsing: Array(text.utf8))
        var compact = JSONWriter()
        compact.write(value, sortedKeys: true)
        #expect(try JSONValue(parsing: compact.bytes) == value)
        var pretty = JSONWriter()
        pretty.writePretty(value)
        #expect(try JSONValue(parsing: pretty.bytes) == value)
        // Writing the re-read value gives the same text: the form is stable.
        var again = JSONWriter()
        again.write(try JSONValue(parsing: compact.bytes), sortedKeys: true)
        #expect(again.bytes == compact.bytes)
    }

    @Test func valuesFromTheTape() throws {
        let value = try JSONValue(parsing: Array(#"{"i":1,"d":1.0,"big":9223372036854775808,"s":"\u00e9","dup":1,"dup":2}"#.utf8))
        #expect(value["i"] == .int(1))
        #expect(value["d"] == .double(1))
        // Int64.max + 1: no Int64 holds it, and the Double nearest it writes back as 9223372036854776000.
        #expect(value["big"] == .number(JSONNumber("9223372036854775808")!))
        #expect(value["s"] == .string("\u{E9}"))
        #expect(value["dup"] == .int(2))
        #expect(value.objectValue?.count == 5)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Array("[1,]".utf8)) }
    }
}
