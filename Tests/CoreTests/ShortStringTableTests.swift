import Testing

@testable import JSONAPIClientCore

/// The table of repeated short strings gives exactly what building each string gives, whatever its length, where it
/// sits in the input and whichever other texts share its slot.
@Suite("Short strings")
struct ShortStringTableTests {
    /// Every string element of the array at the root of `tape`, read through `strings` and directly.
    private func readBoth(_ tape: JSONTape, _ strings: ShortStringTable) -> [(cached: String, built: String)] {
        var pairs: [(String, String)] = []
        var child = 1
        for _ in 0..<tape.count(0) {
            pairs.append((strings.string(at: child, in: tape), tape.string(child)))
            child = tape.skip(child)
        }
        return pairs
    }

    @Test("Lengths 0 to 17, prefixes of one another, in the middle of the input and at its very end")
    func lengths() throws {
        let alphabet = Array("abcdefghijklmnopq")
        let texts = (0...17).map { String(alphabet.prefix($0)) }
        // Each text twice (the second read comes from the table), then the same texts as the last bytes of the
        // input, where fewer than 16 bytes follow a text's start.
        let quoted = texts.map { "\"\($0)\"" }
        let json = "[" + (quoted + quoted + quoted.reversed()).joined(separator: ",") + "]"
        let tape = try tape(json)
        let pairs = readBoth(tape, ShortStringTable())
        #expect(pairs.count == 3 * texts.count)
        for pair in pairs { #expect(pair.cached == pair.built) }
        #expect(pairs.map(\.cached) == texts + texts + texts.reversed())
    }

    @Test("Texts the table does not keep: escapes, more than 15 bytes, non-ASCII")
    func notKept() throws {
        let json = #"["a\"b", "a\"b", "\u00e9t\u00e9", "été", "été", "0123456789abcdef", "0123456789abcdef", "a\nb"]"#
        let pairs = readBoth(try tape(json), ShortStringTable())
        #expect(pairs.map(\.cached) == ["a\"b", "a\"b", "été", "été", "été", "0123456789abcdef", "0123456789abcdef", "a\nb"])
        for pair in pairs { #expect(pair.cached == pair.built) }
    }

    @Test("A thousand distinct texts in 256 slots: each read, twice over, is its own")
    func collisions() throws {
        // The last group shares its first eight bytes, so texts that differ only after them meet in slots.
        let texts = (0..<1000).map { "k\($0)" } + (0..<1000).map { "key-\($0 * 7919)" } + (0..<1000).map { "abcdefgh\($0)" }
        let json = "[" + (texts + texts.reversed()).map { "\"\($0)\"" }.joined(separator: ",") + "]"
        let pairs = readBoth(try tape(json), ShortStringTable())
        #expect(pairs.map(\.cached) == texts + texts.reversed())
    }

    @Test("Packing: the same words whether 16 bytes follow the text or it ends the input; distinct texts differ")
    func packing() {
        var seen: [String: (UInt64, UInt64)] = [:]
        for length in 0...15 {
            for last in [UInt8(ascii: "x"), UInt8(ascii: "y")] {
                let text = Array(repeating: UInt8(ascii: "a"), count: max(length - 1, 0)) + (length > 0 ? [last] : [])
                let padded = text + Array(repeating: UInt8(ascii: "z"), count: 20)
                let inMiddle = BorrowedBytes.lending(padded) { ShortStringTable.pack($0, 0, length) }
                let atEnd = BorrowedBytes.lending(text) { ShortStringTable.pack($0, 0, length) }
                #expect(inMiddle == atEnd, "length \(length)")
                seen[String(decoding: text, as: UTF8.self)] = atEnd
            }
        }
        // 31 texts: "" once, then two per length, differing in their last byte.
        #expect(seen.count == 31)
        #expect(Set(seen.values.map { "\($0.0)-\($0.1)" }).count == 31)
    }
}
